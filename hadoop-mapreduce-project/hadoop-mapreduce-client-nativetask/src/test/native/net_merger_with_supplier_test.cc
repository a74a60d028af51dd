// Both daemons as processes, as a node runs them: jbs_mof_supplier serving map outputs laid
// out as a NodeManager keeps them, jbs_net_merger fetching from it over TCP loopback, each
// given the job by its control channel, and a fake reduce task on the NetMerger's socket.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

#include "child_process.h"
#include "daemon_job.h"
#include "jbs_stats.h"

using namespace hadoop_accel::jbs;
using namespace jbs_test;

namespace {

// The daemon's STATS answer on its control channel, decoded.
std::map<std::string, uint64_t> Stats(Child* c) {
  std::fprintf(c->in, "STATS\n");
  std::fflush(c->in);
  std::string line = Line(c->out);
  StatsFields f;
  std::string error;
  EXPECT_TRUE(DecodeStats(line, &f, &error)) << error << ": " << line;
  return {f.begin(), f.end()};
}

}  // namespace

TEST(NetMergerWithSupplierTest, ReduceStreamThroughBothDaemons) {
  ScratchDir local, spill, sock_dir;
  std::mt19937 rng(5);
  for (bool zlib : {false, true}) {
    auto data = RandomTextSegments(rng, 9, 50, 5000);
    for (uint32_t i = 0; i < data.size(); ++i) WriteMap(local.path(), i, data[i], zlib);
    Child supplier = Spawn(JBS_MOF_SUPPLIER_BIN,
                           {"--listen", "127.0.0.1:0", "--local-dirs", local.path()}, false);
    std::string ready = Line(supplier.out);
    ASSERT_EQ(ready.rfind("READY ", 0), 0u) << ready;
    uint16_t port = static_cast<uint16_t>(std::stoi(ready.substr(6)));
    std::string sock = sock_dir.path() + "/m.sock";
    Child merger = Spawn(JBS_NET_MERGER_BIN,
                         {"--socket", sock, "--spill-dirs", spill.path(), "--buffer-bytes", "8192",
                          "--memory-bytes", zlib ? "1000000000" : "49152"},
                         false);
    ASSERT_EQ(Line(merger.out), "READY " + sock);
    for (Child* c : {&supplier, &merger}) {
      std::fprintf(c->in, "%s\n", AddJobLine().c_str());
      std::fflush(c->in);
      ASSERT_EQ(Line(c->out), "OK");
    }
    uint64_t fetched = 0, stream_bytes = 0;
    {
      FakeReducer r(sock);
      ASSERT_EQ(r.Register(static_cast<uint32_t>(data.size()), zlib ? 1 : 0).status,
                RegisterStatus::kOk);
      for (uint32_t i = 0; i < data.size(); ++i) r.MapOutput(i, port);
      for (size_t i = 0; i < data.size(); ++i) ASSERT_EQ(r.Read(), ReducerFrame::kMapFetched);
      r.Merge();
      Bytes stream;
      EndStats end;
      ErrorFrame err;
      ASSERT_TRUE(r.ReadStream(&stream, &end, &err)) << err.message;
      EXPECT_EQ(stream, ReferenceMerge(data, 1)) << "zlib " << zlib;
      fetched = end.fetched_bytes;
      stream_bytes = end.stream_bytes;
      // 49152 B: three inputs' chunk pairs, so the plain run spills; zlib has room.
      EXPECT_EQ(end.merge_passes > 1, !zlib) << end.merge_passes;
    }
    {
      FakeReducer bad(sock);  // a wrong secret: one auth refusal, nothing else
      EXPECT_EQ(bad.Register(1, 0, "not the secret").status, RegisterStatus::kUnauthorized);
    }
    // The counters each daemon reports agree with the stream the reduce got.
    auto merger_stats = Stats(&merger);
    for (int i = 0; i < 200 && merger_stats["active_sessions"] != 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the session thread ends
      merger_stats = Stats(&merger);
    }
    auto supplier_stats = Stats(&supplier);
    EXPECT_EQ(merger_stats["sessions"], 1u);
    EXPECT_EQ(merger_stats["active_sessions"], 0u);
    EXPECT_EQ(merger_stats["merges"], 1u);
    EXPECT_EQ(merger_stats["auth_refusals"], 1u);
    EXPECT_EQ(merger_stats["fetch_failures"], 0u);
    EXPECT_EQ(merger_stats["bytes_fetched"], fetched);
    EXPECT_EQ(merger_stats["bytes_merged"], stream_bytes);
    EXPECT_EQ(merger_stats["bytes_spilled"] > 0, !zlib);
    EXPECT_GE(merger_stats["fetch_latency_count"], data.size());
    uint64_t in_buckets = 0;
    for (auto& [name, v] : merger_stats)
      if (name.rfind("fetch_latency_le_", 0) == 0 || name.rfind("fetch_latency_gt_", 0) == 0)
        in_buckets += v;
    EXPECT_EQ(in_buckets, merger_stats["fetch_latency_count"]);
    EXPECT_EQ(supplier_stats["bytes_served"], fetched);
    EXPECT_EQ(supplier_stats["requests"], merger_stats["fetch_latency_count"]);
    EXPECT_EQ(supplier_stats["auth_refusals"], 0u);
    EXPECT_EQ(supplier_stats["active_connections"], 1u);  // the NetMerger keeps it
    EXPECT_EQ(supplier_stats["connections_accepted"], 1u);
    EXPECT_EQ(supplier_stats["limit_refusals"], 0u);
    for (Child* c : {&supplier, &merger}) {
      std::fclose(c->in);
      c->in = nullptr;
      EXPECT_EQ(Wait(c), 0);
    }
  }
}
