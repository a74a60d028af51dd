// End to end on this node: map outputs laid out as a NodeManager keeps them, a MofServer over
// TCP loopback, and a client pulling partitions chunk by chunk as the NetMerger will.
#include "mof_server.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <map>
#include <random>

#include "frame_io.h"
#include "spill_index.h"
#include "test_files.h"

using namespace hadoop_accel::jbs;

namespace {

const char* kJob = "job_1700000000000_0007";
const char* kToken = "stand-in-for-the-hmac";

class MofServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(jobs_.Register(kJob, {"alice", "secret", ::getuid()}));
    // Three partitions per map, one of them empty; sizes not multiples of the buffer.
    WriteMapOutput(dir2_, "attempt_1700000000000_0007_m_000000_0", {10000, 0, 4097});
    WriteMapOutput(dir1_, "attempt_1700000000000_0007_m_000001_0", {1, 8192, 300});
    DataEngine::Config cfg;
    cfg.local_dirs = {dir1_.path(), dir2_.path()};
    engine_ = std::make_unique<DataEngine>(
        cfg, &jobs_, &pool_,
        [](const FetchRequest& r, const JobInfo&) { return r.auth == kToken; });
    transport_ = MakeTcpTransport();
    server_ = std::make_unique<MofServer>(transport_.get(), engine_.get(), &pool_);
    ASSERT_EQ(server_->Start({"127.0.0.1", 0}), 0);
  }
  void TearDown() override { server_->Stop(); }

  std::string AttemptDir(const ScratchDir& d, const std::string& attempt) {
    std::string p = d.path() + "/" + AttemptOutputDir("alice", kJob, attempt);
    std::filesystem::create_directories(p);
    return p;
  }

  void WriteMapOutput(const ScratchDir& d, const std::string& attempt,
                      const std::vector<size_t>& sizes) {
    std::string dir = AttemptDir(d, attempt);
    std::vector<uint8_t> data;
    std::vector<IndexRecord> recs;
    for (size_t s : sizes) {
      recs.push_back({data.size(), s * 2, s});
      std::vector<uint8_t> part(s);
      for (auto& b : part) b = static_cast<uint8_t>(rng_());
      data.insert(data.end(), part.begin(), part.end());
      parts_[attempt].push_back(part);
    }
    ScratchDir::WriteAt(dir + "/file.out", data);
    ScratchDir::WriteAt(dir + "/file.out.index", SpillIndex::Serialize(recs));
  }

  std::unique_ptr<Connection> Connect() {
    std::unique_ptr<Connection> c;
    EXPECT_EQ(transport_->Connect({"127.0.0.1", server_->port()}, 2000, &c), 0);
    return c;
  }

  FetchRequest Req(const std::string& attempt, uint32_t partition, uint64_t offset = 0) {
    FetchRequest r;
    r.request_id = ++next_id_;
    r.job_id = kJob;
    r.map_attempt_id = attempt;
    r.partition = partition;
    r.offset = offset;
    r.max_length = 1 << 20;
    r.auth = kToken;
    return r;
  }

  // One round trip; the chunk's bytes are appended to *data.
  FetchResponseHeader Ask(Connection* c, const FetchRequest& r, std::vector<uint8_t>* data) {
    EXPECT_TRUE(SendRequest(c, r).ok());
    FetchResponseHeader h;
    std::vector<uint8_t> buf(pool_.buffer_size());
    FrameIoResult res = ReceiveResponse(c, &h, buf.data(), buf.size());
    EXPECT_TRUE(res.ok()) << res.io_error << " " << WireStatusName(res.wire);
    EXPECT_EQ(h.request_id, r.request_id);
    if (data) data->insert(data->end(), buf.begin(), buf.begin() + h.chunk_length);
    return h;
  }

  std::vector<uint8_t> FetchPartition(Connection* c, const std::string& attempt, uint32_t p) {
    std::vector<uint8_t> got;
    for (;;) {
      FetchResponseHeader h = Ask(c, Req(attempt, p, got.size()), &got);
      EXPECT_EQ(h.status, ResponseStatus::kOk);
      if (h.status != ResponseStatus::kOk || got.size() >= h.part_length) return got;
      EXPECT_GT(h.chunk_length, 0u);
    }
  }

  ScratchDir dir1_, dir2_;
  std::mt19937 rng_{11};
  std::map<std::string, std::vector<std::vector<uint8_t>>> parts_;
  JobRegistry jobs_;
  BufferPool pool_{4096, 4};
  std::unique_ptr<DataEngine> engine_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<MofServer> server_;
  uint64_t next_id_ = 0;
};

}  // namespace

TEST_F(MofServerTest, ServesEveryPartitionOfEveryMapByteForByte) {
  auto c = Connect();
  for (const auto& [attempt, parts] : parts_)
    for (uint32_t p = 0; p < parts.size(); ++p)
      EXPECT_EQ(FetchPartition(c.get(), attempt, p), parts[p]) << attempt << " " << p;
  auto st = engine_->index_stats();
  EXPECT_EQ(st.misses, 2u);  // each index parsed once
  EXPECT_GT(st.hits, 5u);
  server_->Stop();  // a buffer is released just after its send returns: wait for that
  EXPECT_EQ(pool_.free_count(), pool_.count());
}

TEST_F(MofServerTest, RefusalsLeaveTheConnectionUsable) {
  auto c = Connect();
  const std::string m0 = "attempt_1700000000000_0007_m_000000_0";
  FetchRequest r = Req(m0, 0);
  r.auth = "wrong";
  EXPECT_EQ(Ask(c.get(), r, nullptr).status, ResponseStatus::kUnauthorized);
  EXPECT_EQ(Ask(c.get(), Req(m0, 3), nullptr).status, ResponseStatus::kNotFound);
  EXPECT_EQ(Ask(c.get(), Req("attempt_1700000000000_0007_m_000009_0", 0), nullptr).status,
            ResponseStatus::kNotFound);
  EXPECT_EQ(Ask(c.get(), Req(m0, 0, 10001), nullptr).status, ResponseStatus::kBadRequest);
  r = Req("attempt_1700000000099_0001_m_000000_0", 0);
  r.job_id = "job_1700000000099_0001";  // never registered: answered as a bad MAC would be
  EXPECT_EQ(Ask(c.get(), r, nullptr).status, ResponseStatus::kUnauthorized);
  EXPECT_EQ(FetchPartition(c.get(), m0, 2), parts_[m0][2]);
}

TEST_F(MofServerTest, CorruptOutputIsAServerErrorNotABadRead) {
  const std::string bad_index = "attempt_1700000000000_0007_m_000002_0";
  std::string dir = AttemptDir(dir1_, bad_index);
  auto idx = SpillIndex::Serialize({{0, 10, 10}});
  idx[3] ^= 1;
  ScratchDir::WriteAt(dir + "/file.out.index", idx);
  ScratchDir::WriteAt(dir + "/file.out", std::vector<uint8_t>(10));
  const std::string short_data = "attempt_1700000000000_0007_m_000003_0";
  dir = AttemptDir(dir1_, short_data);
  ScratchDir::WriteAt(dir + "/file.out.index", SpillIndex::Serialize({{0, 100, 100}}));
  ScratchDir::WriteAt(dir + "/file.out", std::vector<uint8_t>(99));  // one byte short
  auto c = Connect();
  EXPECT_EQ(Ask(c.get(), Req(bad_index, 0), nullptr).status, ResponseStatus::kServerError);
  EXPECT_EQ(Ask(c.get(), Req(short_data, 0), nullptr).status, ResponseStatus::kServerError);
  server_->Stop();
  EXPECT_EQ(pool_.free_count(), pool_.count());  // the failed read gave its buffer back
}

TEST_F(MofServerTest, JunkClosesOnlyThatConnection) {
  auto good = Connect();
  auto junk = Connect();
  const char http[] = "GET /mapOutput?job=job_1&map=../../../etc/passwd HTTP/1.1\r\n\r\n";
  ASSERT_EQ(junk->SendFrame(reinterpret_cast<const uint8_t*>(http), sizeof(http) - 1, nullptr, 0),
            0);
  uint8_t b;
  EXPECT_EQ(junk->RecvExact(&b, 1), ECONNRESET);
  EXPECT_EQ(server_->rejected_connections(), 1u);
  const std::string m1 = "attempt_1700000000000_0007_m_000001_0";
  EXPECT_EQ(FetchPartition(good.get(), m1, 1), parts_[m1][1]);
  auto later = Connect();
  EXPECT_EQ(FetchPartition(later.get(), m1, 0), parts_[m1][0]);
}

TEST_F(MofServerTest, StopReturnsWithIdleClientsConnected) {
  auto idle = Connect();
  auto idle2 = Connect();
  server_->Stop();
  uint8_t b;
  EXPECT_EQ(idle->RecvExact(&b, 1), ECONNRESET);
}
