// Both daemons as processes, as a node runs them: jbs_mof_supplier serving map outputs laid
// out as a NodeManager keeps them, jbs_net_merger fetching from it over TCP loopback, each
// given the job by its control channel, and a fake reduce task on the NetMerger's socket.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "child_process.h"
#include "daemon_job.h"

using namespace hadoop_accel::jbs;
using namespace jbs_test;

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
      // 49152 B: three inputs' chunk pairs, so the plain run spills; zlib has room.
      EXPECT_EQ(end.merge_passes > 1, !zlib) << end.merge_passes;
    }
    for (Child* c : {&supplier, &merger}) {
      std::fclose(c->in);
      c->in = nullptr;
      EXPECT_EQ(Wait(c), 0);
    }
  }
}
