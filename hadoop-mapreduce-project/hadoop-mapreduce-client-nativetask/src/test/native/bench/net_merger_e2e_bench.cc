// jbs_net_merger_e2e_bench (not run by ctest): one reduce's shuffle through the NetMerger end
// to end on this machine — map outputs on disk (page cache), an in-process supplier (the
// daemon's EpollServer, or MofServer: a thread per connection) on TCP loopback, the
// NetMergerServer on a Unix socket, and a minimal reducer client that reports every map, sends
// MERGE and drains the DATA frames. Prints the time from the first MAP_OUTPUT to END, the merged
// stream's MiB/s and the fetched (wire) MB/s, which src/test/bench/jbs_link.sh compares with a
// shaped loopback link.
//   jbs_net_merger_e2e_bench [maps=64] [MiB per map=2] [buffer KiB=128] [memory MiB=256]
//                            [server=epoll|threaded]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "data_engine.h"
#include "epoll_server.h"
#include "ifile_writer.h"
#include "job_auth.h"
#include "map_output_locator.h"
#include "mof_server.h"
#include "mof_supplier_auth.h"
#include "net_merger_server.h"
#include "reducer_protocol.h"
#include "spill_index.h"
#include "test_files.h"
#include "unix_socket.h"

using namespace hadoop_accel::jbs;
using namespace jbs_test;

namespace {

const char* kJob = "job_1700000000000_0001";
const char* kSecret = "secret";

std::string Attempt(uint32_t i) {
  char b[64];
  std::snprintf(b, sizeof(b), "attempt_1700000000000_0001_m_%06u_0", i);
  return b;
}

bool ReadFrame(Connection* c, ReducerFrame* t, std::vector<uint8_t>* body) {
  uint8_t h[kFrameHeaderSize];
  uint32_t len;
  if (c->RecvExact(h, sizeof(h)) != 0 ||
      DecodeReducerHeader(h, sizeof(h), t, &len) != WireStatus::kOk)
    return false;
  body->resize(len);
  return len == 0 || c->RecvExact(body->data(), len) == 0;
}

int Fail(const char* what) {
  std::fprintf(stderr, "bench failed: %s\n", what);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t maps = argc > 1 ? static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10)) : 64;
  size_t mib = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 2;
  size_t buffer = (argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 128) * 1024;
  uint64_t memory = (argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 256) << 20;
  std::string server_kind = argc > 5 ? argv[5] : "epoll";
  if (server_kind != "epoll" && server_kind != "threaded")
    return Fail("server is epoll or threaded");
  ScratchDir local, spill, sock_dir;
  std::mt19937 rng(1);
  auto cmp = ComparatorFor(1);
  uint64_t disk_total = 0;
  for (uint32_t m = 0; m < maps; ++m) {
    std::vector<Rec> recs;
    for (size_t bytes = 0; bytes < mib << 20; bytes += 103) {
      std::string k(10, 'a');
      for (char& c : k) c = static_cast<char>('a' + rng() % 26);
      recs.push_back({TextKey(k), Bytes(90, static_cast<uint8_t>(rng()))});
    }
    std::sort(recs.begin(), recs.end(), [cmp](const Rec& a, const Rec& b) {
      return cmp(a.key.data(), a.key.size(), b.key.data(), b.key.size()) < 0;
    });
    Bytes disk = IFileSegment(recs);
    disk_total += disk.size();
    std::string dir = local.path() + "/" + AttemptOutputDir("u", kJob, Attempt(m));
    std::filesystem::create_directories(dir);
    ScratchDir::WriteAt(dir + "/file.out", disk);
    ScratchDir::WriteAt(dir + "/file.out.index",
                        SpillIndex::Serialize({{0, RawRecords(recs).size(), disk.size()}}));
  }
  JobRegistry jobs;
  jobs.Register(kJob, {"u", kSecret, ::getuid()});
  BufferPool pool(buffer, 256);
  DataEngine::Config cfg;
  cfg.local_dirs = {local.path()};
  DataEngine engine(cfg, &jobs, &pool, AuthorizeFetchMac);
  auto tcp = MakeTcpTransport();
  std::unique_ptr<FetchServer> server;
  if (server_kind == "epoll")
    server = std::make_unique<EpollServer>(&engine, &pool, EpollServer::Config{});
  else
    server = std::make_unique<MofServer>(tcp.get(), &engine, &pool);
  FetchServer& supplier = *server;
  if (supplier.Start({"127.0.0.1", 0}) != 0) return Fail("supplier");
  NetMergerConfig mc;
  mc.socket_path = sock_dir.path() + "/m.sock";
  mc.buffer_bytes = buffer;
  mc.memory_bytes = memory;
  mc.spill_dirs = {spill.path()};
  NetMergerServer merger(mc, &jobs, tcp.get());
  if (merger.Start() != 0) return Fail("merger");

  std::unique_ptr<Connection> c;
  if (ConnectUnix(mc.socket_path, &c) != 0) return Fail("connect");
  ReducerFrame t;
  std::vector<uint8_t> body, f;
  Hello hello;
  if (!ReadFrame(c.get(), &t, &body) ||
      DecodeHello(body.data(), body.size(), &hello) != WireStatus::kOk)
    return Fail("hello");
  Register reg;
  reg.num_maps = maps;
  reg.key_type = 1;
  reg.job = kJob;
  reg.auth = RegisterMac(kSecret, kJob, 0, hello.nonce);
  EncodeRegister(reg, &f);
  c->SendFrame(f.data(), f.size(), nullptr, 0);
  if (!ReadFrame(c.get(), &t, &body) || t != ReducerFrame::kRegistered || body[1] != 0)
    return Fail("register");
  auto t0 = std::chrono::steady_clock::now();
  for (uint32_t m = 0; m < maps; ++m) {
    f.clear();
    EncodeMapOutput({m, supplier.port(), Attempt(m), "127.0.0.1"}, &f);
    c->SendFrame(f.data(), f.size(), nullptr, 0);
  }
  for (uint32_t m = 0; m < maps; ++m)
    if (!ReadFrame(c.get(), &t, &body) || t != ReducerFrame::kMapFetched) return Fail("fetched");
  auto t1 = std::chrono::steady_clock::now();
  f.clear();
  EncodeMerge(&f);
  c->SendFrame(f.data(), f.size(), nullptr, 0);
  uint64_t stream = 0;
  EndStats end;
  for (;;) {
    if (!ReadFrame(c.get(), &t, &body)) return Fail("stream");
    if (t == ReducerFrame::kData) {
      const uint8_t* p;
      size_t n;
      if (DecodeData(body.data(), body.size(), &p, &n) != WireStatus::kOk) return Fail("data");
      stream += n;
    } else if (t == ReducerFrame::kEnd) {
      DecodeEnd(body.data(), body.size(), &end);
      break;
    } else {
      return Fail("error frame");
    }
  }
  auto t2 = std::chrono::steady_clock::now();
  double all = std::chrono::duration<double>(t2 - t0).count();
  double merge = std::chrono::duration<double>(t2 - t1).count();
  std::printf(
      "%s supplier, %u maps x %zu MiB, buffer %zu KiB, memory %llu MiB: %.1f MiB "
      "fetched, %.1f MiB stream, %u passes, %.1f MiB spilled; MAP_OUTPUT..END %.3f s "
      "(%.0f MiB/s), MERGE..END %.3f s, fetched_MBps %.1f\n",
      server_kind.c_str(), maps, mib, buffer / 1024, static_cast<unsigned long long>(memory >> 20),
      end.fetched_bytes / 1048576.0, stream / 1048576.0, end.merge_passes,
      end.spilled_bytes / 1048576.0, all, stream / 1048576.0 / all, merge,
      end.fetched_bytes / 1e6 / all);
  c->Close();
  merger.Stop();
  supplier.Stop();
  return disk_total == end.fetched_bytes ? 0 : Fail("fetched bytes");
}
