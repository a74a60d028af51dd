// jbs_supplier_bench: fetch throughput of the MOFSupplier's serving paths over loopback TCP,
// against a baseline that streams the same bytes from memory over the same connections (what
// loopback TCP itself allows). Not run by ctest; numbers in benchmarks/jbs/README.md.
//
//   jbs_supplier_bench [--maps 8] [--partitions 8] [--part-bytes 2097152] [--conns 8]
//                      [--window 4] [--dir /tmp] [--only epoll|threaded] [--cold 1]
//                      [--disk-threads 1] [--network-threads 1] [--read-ahead 1]
//
// Map outputs are written once (so they sit in the page cache: this measures the serving
// path, not the disk). Each connection pulls a share of the (map, partition) segments with
// `window` requests in flight, one chunk per request, as the NetMerger will. For each transport
// buffer size (64, 128, 256 KiB) it prints MB/s of the baseline, the epoll server with the
// pipelined engine, and the thread-per-connection MofServer, and the ratios to the baseline.
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "epoll_server.h"
#include "frame_io.h"
#include "job_auth.h"
#include "map_output_locator.h"
#include "mof_server.h"
#include "mof_supplier_auth.h"
#include "spill_index.h"
#include "tcp_socket.h"

using namespace hadoop_accel::jbs;
using Clock = std::chrono::steady_clock;

namespace {

const std::string kJob = "job_1700000000000_0001";
const std::string kUser = "bench";
const std::string kSecret = "bench-secret";

struct Options {
  int maps = 8, partitions = 8, conns = 8, window = 4;
  size_t part_bytes = 2u << 20;
  std::string dir = "/tmp";
  std::string only;  // "epoll" or "threaded": run just that server (profiling)
  size_t disk_threads = 1;
  size_t network_threads = 1;
  bool prefetch = true;
  bool cold = false;  // drop the map outputs from the page cache before each server run
};

// Evicts the files under root from the page cache (written back first), so the next run
// reads from the disk: what the seeds' read ordering is about.
void DropFromPageCache(const std::string& root) {
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    int fd = ::open(e.path().c_str(), O_RDONLY);
    if (fd < 0) continue;
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
}

std::string Attempt(int m) {
  char b[96];
  std::snprintf(b, sizeof(b), "attempt_%s_m_%06d_0", kJob.c_str() + 4, m);
  return b;
}

void WriteOutputs(const Options& o, const std::string& root) {
  std::mt19937_64 rng(1);
  std::vector<uint8_t> part(o.part_bytes);
  for (int m = 0; m < o.maps; ++m) {
    std::string dir = root + "/" + AttemptOutputDir(kUser, kJob, Attempt(m));
    std::filesystem::create_directories(dir);
    FILE* f = std::fopen((dir + "/file.out").c_str(), "wb");
    std::vector<IndexRecord> recs;
    for (int p = 0; p < o.partitions; ++p) {
      for (size_t i = 0; i + 8 <= part.size(); i += 8) {
        uint64_t v = rng();
        std::memcpy(&part[i], &v, 8);
      }
      recs.push_back({uint64_t(p) * o.part_bytes, o.part_bytes, o.part_bytes});
      std::fwrite(part.data(), 1, part.size(), f);
    }
    std::fclose(f);
    std::vector<uint8_t> idx = SpillIndex::Serialize(recs);
    f = std::fopen((dir + "/file.out.index").c_str(), "wb");
    std::fwrite(idx.data(), 1, idx.size(), f);
    std::fclose(f);
  }
}

// One connection pulling its share of segments with `window` requests in flight; returns the
// bytes received (0 on any error).
uint64_t PullShare(uint16_t port, const Options& o, int conn, uint32_t chunk) {
  std::unique_ptr<Transport> tcp = MakeTcpTransport();
  std::unique_ptr<Connection> c;
  if (tcp->Connect({"127.0.0.1", port}, 5000, &c) != 0) return 0;
  struct Seg {
    int map;
    uint32_t partition;
    uint64_t next = 0;
    std::string mac;
  };
  std::vector<Seg> segs;
  for (int s = conn; s < o.maps * o.partitions; s += o.conns) {
    Seg g{s / o.partitions, static_cast<uint32_t>(s % o.partitions), 0, ""};
    g.mac = FetchMac(kSecret, kJob, Attempt(g.map), g.partition);
    segs.push_back(g);
  }
  std::vector<uint8_t> buf(chunk);
  std::deque<size_t> outstanding;  // segment of each request in flight
  uint64_t got = 0, id = 0;
  size_t cursor = 0;
  for (;;) {
    // The segment's length is known in advance here (all equal): request ahead freely.
    while (outstanding.size() < static_cast<size_t>(o.window)) {
      size_t picked = segs.size();
      for (size_t n = 0; n < segs.size(); ++n) {
        size_t i = (cursor + n) % segs.size();
        if (segs[i].next < o.part_bytes) {
          picked = i;
          break;
        }
      }
      if (picked == segs.size()) break;
      cursor = picked + 1;
      Seg& s = segs[picked];
      FetchRequest r;
      r.request_id = ++id;
      r.job_id = kJob;
      r.map_attempt_id = Attempt(s.map);
      r.partition = s.partition;
      r.offset = s.next;
      r.max_length = chunk;
      r.auth = s.mac;
      s.next += chunk;
      if (!SendRequest(c.get(), r).ok()) return 0;
      outstanding.push_back(picked);
    }
    if (outstanding.empty()) return got;
    FetchResponseHeader h;
    if (!ReceiveResponse(c.get(), &h, buf.data(), buf.size()).ok()) return 0;
    if (h.status == ResponseStatus::kBusy) {  // ask again later from the same place
      segs[outstanding.front()].next =
          std::min<uint64_t>(segs[outstanding.front()].next, h.chunk_offset);
    } else if (h.status != ResponseStatus::kOk) {
      std::fprintf(stderr, "status %d\n", static_cast<int>(h.status));
      return 0;
    }
    got += h.chunk_length;
    outstanding.pop_front();
  }
}

double RunClients(uint16_t port, const Options& o, uint32_t chunk, uint64_t* bytes) {
  std::atomic<uint64_t> total{0};
  auto t0 = Clock::now();
  std::vector<std::thread> ts;
  for (int i = 0; i < o.conns; ++i)
    ts.emplace_back([&, i] { total += PullShare(port, o, i, chunk); });
  for (auto& t : ts) t.join();
  double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  *bytes = total;
  return total / secs / 1e6;
}

// Baseline: the same bytes in the same chunk sizes streamed from memory to the same number of
// connections (header + chunk per writev), each client reading them; no requests, no files.
double Baseline(const Options& o, uint32_t chunk) {
  int lfd = -1;
  uint16_t port = 0;
  if (ListenTcp({"127.0.0.1", 0}, false, &lfd, &port) != 0) return 0;
  const uint64_t per_conn = uint64_t(o.maps) * o.partitions * o.part_bytes / o.conns;
  std::vector<uint8_t> src(chunk, 0x5a);
  std::vector<std::thread> servers;
  std::atomic<bool> ok{true};
  auto t0 = Clock::now();
  for (int i = 0; i < o.conns; ++i) {
    servers.emplace_back([&] {
      int fd = ::accept(lfd, nullptr, nullptr);
      uint8_t prefix[kResponsePrefixSize] = {};
      for (uint64_t sent = 0; sent < per_conn; sent += chunk) {
        iovec v[2] = {{prefix, sizeof(prefix)}, {src.data(), chunk}};
        size_t want = sizeof(prefix) + chunk, done = 0;
        while (done < want) {
          ssize_t w = ::writev(fd, v, 2);
          if (w <= 0) {
            ok = false;
            break;
          }
          done += static_cast<size_t>(w);
          size_t skip = static_cast<size_t>(w);
          for (iovec& x : v) {
            size_t s = std::min(skip, x.iov_len);
            x.iov_base = static_cast<uint8_t*>(x.iov_base) + s;
            x.iov_len -= s;
            skip -= s;
          }
        }
      }
      ::close(fd);
    });
  }
  std::vector<std::thread> clients;
  for (int i = 0; i < o.conns; ++i) {
    clients.emplace_back([&] {
      std::unique_ptr<Transport> tcp = MakeTcpTransport();
      std::unique_ptr<Connection> c;
      if (tcp->Connect({"127.0.0.1", port}, 5000, &c) != 0) {
        ok = false;
        return;
      }
      std::vector<uint8_t> buf(chunk + kResponsePrefixSize);
      for (uint64_t got = 0; got < per_conn; got += chunk)
        if (c->RecvExact(buf.data(), buf.size()) != 0) {
          ok = false;
          return;
        }
    });
  }
  for (auto& t : clients) t.join();
  for (auto& t : servers) t.join();
  double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  ::close(lfd);
  return ok ? per_conn * o.conns / secs / 1e6 : 0;
}

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--maps")
      o->maps = std::stoi(v);
    else if (k == "--partitions")
      o->partitions = std::stoi(v);
    else if (k == "--part-bytes")
      o->part_bytes = std::stoull(v);
    else if (k == "--conns")
      o->conns = std::stoi(v);
    else if (k == "--window")
      o->window = std::stoi(v);
    else if (k == "--dir")
      o->dir = v;
    else if (k == "--only")
      o->only = v;
    else if (k == "--cold")
      o->cold = v == "1";
    else if (k == "--disk-threads")
      o->disk_threads = std::stoul(v);
    else if (k == "--network-threads")
      o->network_threads = std::stoul(v);
    else if (k == "--read-ahead")
      o->prefetch = v == "1";
    else
      return false;
  }
  return argc % 2 == 1 && o->maps > 0 && o->partitions > 0 && o->conns > 0 && o->window > 0 &&
         o->part_bytes > 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: jbs_supplier_bench [--maps N] [--partitions N] [--part-bytes N] "
                 "[--conns N] [--window N] [--dir D]\n");
    return 2;
  }
  std::string tmpl = o.dir + "/jbs_bench_XXXXXX";
  std::string root = ::mkdtemp(tmpl.data());
  WriteOutputs(o, root);
  std::printf(
      "maps %d partitions %d part_bytes %zu conns %d window %d disk_threads %zu "
      "network_threads %zu%s (%.0f MB per run)\n",
      o.maps, o.partitions, o.part_bytes, o.conns, o.window, o.disk_threads, o.network_threads,
      o.cold ? " cold page cache" : "", double(o.maps) * o.partitions * o.part_bytes / 1e6);
  std::printf("%-8s %12s %12s %12s %8s %8s\n", "buffer", "baseline", "epoll", "threaded", "epoll/b",
              "thr/b");
  for (uint32_t kib : {64u, 128u, 256u}) {
    uint32_t chunk = kib * 1024;
    JobRegistry jobs;
    jobs.Register(kJob, {kUser, kSecret, ::getuid()});
    BufferPool pool(chunk, 256);
    DataEngine::Config dc;
    dc.local_dirs = {root};
    DataEngine engine(dc, &jobs, &pool, AuthorizeFetchMac);
    uint64_t bytes = 0;
    double base = o.only.empty() ? Baseline(o, chunk) : 0;
    double ep = 0, th = 0;
    if (o.only.empty() || o.only == "epoll") {
      if (o.cold) DropFromPageCache(root);
      EpollServer::Config ec;
      ec.engine.disk_threads = o.disk_threads;
      ec.network_threads = o.network_threads;
      ec.engine.prefetch = o.prefetch;
      EpollServer server(&engine, &pool, ec);
      if (server.Start({"127.0.0.1", 0}) != 0) return 1;
      ep = RunClients(server.port(), o, chunk, &bytes);
      if (bytes != uint64_t(o.maps) * o.partitions * o.part_bytes) ep = 0;
      PipelinedEngine::Stats es = server.engine_stats();
      std::fprintf(stderr,
                   "  epoll %u KiB: requests %llu demand reads %llu read ahead %llu (used %llu, "
                   "dropped %llu) busy %llu file opens %llu\n",
                   kib, (unsigned long long)es.requests, (unsigned long long)es.disk_reads,
                   (unsigned long long)es.prefetch_reads, (unsigned long long)es.prefetch_hits,
                   (unsigned long long)es.prefetch_dropped, (unsigned long long)es.busy,
                   (unsigned long long)es.file_opens);
    }
    if (o.only.empty() || o.only == "threaded") {
      if (o.cold) DropFromPageCache(root);
      std::unique_ptr<Transport> tcp = MakeTcpTransport();
      MofServer server(tcp.get(), &engine, &pool);
      if (server.Start({"127.0.0.1", 0}) != 0) return 1;
      th = RunClients(server.port(), o, chunk, &bytes);
      if (bytes != uint64_t(o.maps) * o.partitions * o.part_bytes) th = 0;
    }
    std::printf("%-8s %12.0f %12.0f %12.0f %8.2f %8.2f\n", (std::to_string(kib) + "KiB").c_str(),
                base, ep, th, base > 0 ? ep / base : 0, base > 0 ? th / base : 0);
  }
  std::filesystem::remove_all(root);
  return 0;
}
