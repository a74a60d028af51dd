// The epoll server and pipelined engine in process: concurrent pipelining clients get every
// byte, answers stay in request order, a tiny pool answers BUSY instead of stalling, read-ahead
// serves a segment pulled one chunk at a time from memory, and junk only costs its sender.
#include "epoll_server.h"

#include <netinet/tcp.h>
#include <sys/socket.h>

#include <atomic>
#include <thread>

#include "mof_supplier_auth.h"
#include "mof_supplier_test_util.h"

using namespace hadoop_accel::jbs;
using namespace supplier_test;

namespace {

const std::string kJob = "job_1700000000000_0042";
const std::string kUser = "bob";
const std::string kSecret = "job-token-password";
constexpr uint32_t kBuf = 4096;

class EpollServerTest : public ::testing::Test {
 protected:
  void Start(size_t buffers, EpollServer::Config cfg = {}) {
    ASSERT_TRUE(jobs_.Register(kJob, {kUser, kSecret, ::getuid()}));
    pool_ = std::make_unique<BufferPool>(kBuf, buffers);
    DataEngine::Config dc;
    dc.local_dirs = {dir1_.path(), dir2_.path()};
    engine_ = std::make_unique<DataEngine>(dc, &jobs_, pool_.get(), AuthorizeFetchMac);
    server_ = std::make_unique<EpollServer>(engine_.get(), pool_.get(), cfg,
                                            [this](const FetchRequest&, const std::string& peer) {
                                              ++unauthorized_;
                                              EXPECT_NE(peer.find("127.0.0.1:"), std::string::npos);
                                            });
    ASSERT_EQ(server_->Start({"127.0.0.1", 0}), 0);
  }

  // maps x partitions with awkward sizes: empty, one byte, exact multiples, a few chunks.
  void WriteOutputs(int maps, int partitions) {
    const size_t sizes[] = {0, 1, kBuf, kBuf + 1, 3 * kBuf - 7, 5 * kBuf, 777, 2 * kBuf};
    for (int m = 0; m < maps; ++m) {
      std::vector<size_t> s;
      for (int p = 0; p < partitions; ++p) s.push_back(sizes[(m * 3 + p) % 8]);
      WriteMapOutput(m % 2 ? dir1_.path() : dir2_.path(), kUser, kJob, AttemptOf(kJob, m), s, &rng_,
                     &outputs_);
    }
  }

  std::unique_ptr<Connection> Connect() {
    std::unique_ptr<Connection> c;
    EXPECT_EQ(tcp_->Connect({"127.0.0.1", server_->port()}, 2000, &c), 0);
    return c;
  }

  // One client pulling every partition of every map; true if every byte matched.
  bool PullEverything(size_t window) {
    auto c = Connect();
    if (!c) return false;
    PipelinedFetcher f(c.get(), kJob, kSecret, kBuf, window);
    for (const auto& [attempt, parts] : outputs_)
      for (uint32_t p = 0; p < parts.size(); ++p) f.Add(attempt, p);
    PipelinedFetcher::Result r = f.Run();
    busy_ += r.busy;
    bool same = r.ok;
    for (const auto& [attempt, parts] : outputs_)
      for (uint32_t p = 0; p < parts.size(); ++p)
        same = same && r.data[std::make_pair(attempt, p)] == parts[p];
    return same;
  }

  void ExpectAllBuffersBack() {
    server_->Stop();
    EXPECT_EQ(pool_->free_count(), pool_->count());
  }

  ScratchDir dir1_, dir2_;
  std::mt19937 rng_{7};
  MapOutputs outputs_;
  JobRegistry jobs_;
  std::unique_ptr<BufferPool> pool_;
  std::unique_ptr<DataEngine> engine_;
  std::unique_ptr<EpollServer> server_;
  std::unique_ptr<Transport> tcp_ = MakeTcpTransport();
  std::atomic<uint64_t> unauthorized_{0}, busy_{0};
};

}  // namespace

TEST_F(EpollServerTest, ConcurrentPipelinedClientsGetEveryByte) {
  WriteOutputs(8, 6);
  Start(64);
  constexpr int kClients = 12;
  std::atomic<int> good{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i)
    clients.emplace_back([&, i] { good += PullEverything(1 + i % 16) ? 1 : 0; });
  for (auto& t : clients) t.join();
  EXPECT_EQ(good.load(), kClients);
  EXPECT_EQ(unauthorized_.load(), 0u);
  PipelinedEngine::Stats es = server_->engine_stats();
  EXPECT_LE(es.file_opens, 8u);  // one open per map output file, not one per chunk
  ExpectAllBuffersBack();
}

TEST_F(EpollServerTest, TwoDiskAndTwoNetworkThreadsServeTheSameBytes) {
  WriteOutputs(8, 5);
  EpollServer::Config cfg;
  cfg.engine.disk_threads = 2;
  cfg.network_threads = 2;
  Start(32, cfg);
  std::atomic<int> good{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < 6; ++i) clients.emplace_back([&, i] { good += PullEverything(1 + 3 * i); });
  for (auto& t : clients) t.join();
  EXPECT_EQ(good.load(), 6);
  ExpectAllBuffersBack();
}

TEST_F(EpollServerTest, ReadAheadServesTheNextChunkFromMemory) {
  WriteMapOutput(dir1_.path(), kUser, kJob, AttemptOf(kJob, 0), {20 * kBuf + 5}, &rng_, &outputs_);
  Start(16);
  EXPECT_TRUE(PullEverything(1));  // one request at a time, as a merge draining a segment
  PipelinedEngine::Stats es = server_->engine_stats();
  // 21 chunks: the first is read on demand, nearly all others were read ahead.
  EXPECT_GE(es.prefetch_hits, 15u) << "demand reads " << es.disk_reads;
  EXPECT_EQ(es.disk_reads + es.prefetch_reads, 21u);  // every chunk read once
  EXPECT_EQ(es.prefetch_dropped, 0u);
  EXPECT_EQ(es.file_opens, 1u);
  ExpectAllBuffersBack();
}

TEST_F(EpollServerTest, TinyPoolAnswersBusyAndStillDeliversEverything) {
  WriteOutputs(4, 4);
  EpollServer::Config cfg;
  cfg.engine.max_queued = 2;
  cfg.engine.buffer_wait_ms = 20;
  Start(1, cfg);
  constexpr int kClients = 6;
  std::atomic<int> good{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i)
    clients.emplace_back([&] { good += PullEverything(8) ? 1 : 0; });
  for (auto& t : clients) t.join();
  EXPECT_EQ(good.load(), kClients);
  EXPECT_GT(busy_.load(), 0u);
  EXPECT_GT(server_->stats().busy, 0u);
  ExpectAllBuffersBack();
}

TEST_F(EpollServerTest, AnswersInRequestOrderEvenWhenReadsAreReordered) {
  // Later partitions sit at higher offsets: asking for them first makes the scheduler read
  // the later requests first; with one buffer the first answer must still come first.
  WriteOutputs(1, 6);
  EpollServer::Config cfg;
  cfg.engine.buffer_wait_ms = 20;
  Start(1, cfg);
  auto c = Connect();
  PipelinedFetcher f(c.get(), kJob, kSecret, kBuf, 6);
  for (uint32_t p = 6; p-- > 0;) f.Add(AttemptOf(kJob, 0), p);
  PipelinedFetcher::Result r = f.Run();
  ASSERT_TRUE(r.ok);
  for (uint32_t p = 0; p < 6; ++p)
    EXPECT_EQ(r.data[std::make_pair(AttemptOf(kJob, 0), p)], outputs_[AttemptOf(kJob, 0)][p]);
  ExpectAllBuffersBack();
}

TEST_F(EpollServerTest, RefusalsAreAnsweredAndJunkClosesOnlyItsConnection) {
  WriteOutputs(2, 3);
  Start(8);
  auto c = Connect();
  FetchRequest r;
  r.request_id = 5;
  r.job_id = kJob;
  r.map_attempt_id = AttemptOf(kJob, 1);
  r.partition = 1;
  r.max_length = kBuf;
  r.auth = FetchMac("another secret", kJob, r.map_attempt_id, 1);
  ASSERT_TRUE(SendRequest(c.get(), r).ok());
  r.request_id = 6;
  r.auth.clear();
  ASSERT_TRUE(SendRequest(c.get(), r).ok());
  r.request_id = 7;
  r.auth = FetchMac(kSecret, kJob, r.map_attempt_id, 2);  // MAC of another partition
  ASSERT_TRUE(SendRequest(c.get(), r).ok());
  std::vector<uint8_t> buf(kBuf);
  for (uint64_t id = 5; id <= 7; ++id) {
    FetchResponseHeader h;
    ASSERT_TRUE(ReceiveResponse(c.get(), &h, buf.data(), buf.size()).ok());
    EXPECT_EQ(h.request_id, id);
    EXPECT_EQ(h.status, ResponseStatus::kUnauthorized);
  }
  EXPECT_EQ(unauthorized_.load(), 3u);

  auto junk = Connect();
  const char http[] = "GET /mapOutput?job=job_1&map=../../../etc/passwd HTTP/1.1\r\n\r\n";
  ASSERT_EQ(junk->SendFrame(reinterpret_cast<const uint8_t*>(http), sizeof(http) - 1, nullptr, 0),
            0);
  uint8_t b;
  EXPECT_EQ(junk->RecvExact(&b, 1), ECONNRESET);
  EXPECT_TRUE(WaitFor([&] { return server_->stats().rejected_connections == 1; }));
  EXPECT_TRUE(PullEverything(4));
  ExpectAllBuffersBack();
}

TEST_F(EpollServerTest, HalfClosedClientStillGetsItsAnswers) {
  WriteOutputs(1, 3);
  Start(8);
  std::vector<uint8_t> frames;
  for (uint32_t p = 0; p < 3; ++p) {
    FetchRequest r;
    r.request_id = 100 + p;
    r.job_id = kJob;
    r.map_attempt_id = AttemptOf(kJob, 0);
    r.partition = p;
    r.max_length = kBuf;
    r.auth = FetchMac(kSecret, kJob, r.map_attempt_id, p);
    ASSERT_EQ(EncodeRequest(r, &frames), WireStatus::kOk);
  }
  int fd = RawConnect(server_->port());
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::send(fd, frames.data(), frames.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(frames.size()));
  ::shutdown(fd, SHUT_WR);  // done asking; the answers must still come, then EOF
  std::vector<uint8_t> got = RecvUntilEof(fd);
  ::close(fd);
  size_t pos = 0;
  for (uint32_t p = 0; p < 3; ++p) {
    FetchResponseHeader h;
    ASSERT_EQ(DecodeResponsePrefix(got.data() + pos, got.size() - pos, &h), WireStatus::kOk);
    EXPECT_EQ(h.request_id, 100 + p);
    EXPECT_EQ(h.status, ResponseStatus::kOk);
    pos += kResponsePrefixSize + h.chunk_length;
    ASSERT_LE(pos, got.size());
  }
  EXPECT_EQ(pos, got.size());
  ExpectAllBuffersBack();
}

TEST_F(EpollServerTest, StopWithIdleAndBusyClientsReturnsEveryBuffer) {
  WriteOutputs(4, 4);
  Start(4);
  auto idle = Connect();
  auto reader = Connect();
  // Requests that are never read: their answers sit in socket buffers and the out queue.
  for (int i = 0; i < 16; ++i) {
    FetchRequest r;
    r.request_id = static_cast<uint64_t>(i + 1);
    r.job_id = kJob;
    r.map_attempt_id = AttemptOf(kJob, i % 4);
    r.partition = static_cast<uint32_t>(i / 4);
    r.max_length = kBuf;
    r.auth = FetchMac(kSecret, kJob, r.map_attempt_id, r.partition);
    ASSERT_TRUE(SendRequest(reader.get(), r).ok());
  }
  EXPECT_TRUE(WaitFor([&] { return server_->engine_stats().requests >= 4; }));
  ExpectAllBuffersBack();
  uint8_t b;
  EXPECT_EQ(idle->RecvExact(&b, 1), ECONNRESET);
}

TEST_F(EpollServerTest, StalledPeersAreClosedIdleOnesKept) {
  WriteOutputs(2, 2);
  EpollServer::Config cfg;
  cfg.stall_timeout = std::chrono::milliseconds(100);
  Start(4, cfg);
  auto idle = Connect();  // nothing pending: a NetMerger's spare connection, must stay
  FetchRequest r;
  r.request_id = 1;
  r.job_id = kJob;
  r.map_attempt_id = AttemptOf(kJob, 0);
  r.max_length = kBuf;
  r.auth = FetchMac(kSecret, kJob, r.map_attempt_id, 0);
  std::vector<uint8_t> frame;
  ASSERT_EQ(EncodeRequest(r, &frame), WireStatus::kOk);
  int slow = RawConnect(server_->port());  // half a request, then silence
  ASSERT_GE(slow, 0);
  ASSERT_EQ(::send(slow, frame.data(), frame.size() / 2, MSG_NOSIGNAL),
            static_cast<ssize_t>(frame.size() / 2));
  EXPECT_TRUE(RecvUntilEof(slow).empty());  // closed by the server, before the 5 s timeout
  ::close(slow);
  EXPECT_EQ(server_->stats().stalled, 1u);
  ASSERT_TRUE(SendRequest(idle.get(), r).ok());
  FetchResponseHeader h;
  std::vector<uint8_t> buf(kBuf);
  ASSERT_TRUE(ReceiveResponse(idle.get(), &h, buf.data(), buf.size()).ok());
  EXPECT_EQ(h.status, ResponseStatus::kOk);
  ExpectAllBuffersBack();
}

TEST_F(EpollServerTest, ConnectionsBeyondTheCapAreClosedAtOnce) {
  WriteOutputs(1, 1);
  EpollServer::Config cfg;
  cfg.max_connections = 2;
  Start(4, cfg);
  auto a = Connect();
  auto b = Connect();
  EXPECT_TRUE(WaitFor([&] { return server_->stats().accepted == 2; }));
  int extra = RawConnect(server_->port());
  ASSERT_GE(extra, 0);
  EXPECT_TRUE(RecvUntilEof(extra).empty());  // closed, not left hanging
  ::close(extra);
  a.reset();  // a slot frees up once the server has seen the close
  EXPECT_TRUE(WaitFor([&] { return server_->stats().open_connections == 1; }));
  auto c = Connect();
  PipelinedFetcher f(c.get(), kJob, kSecret, kBuf, 1);
  f.Add(AttemptOf(kJob, 0), 0);
  EXPECT_TRUE(f.Run().ok);
  ExpectAllBuffersBack();
}

TEST_F(EpollServerTest, RequestsArrivingInTinyPiecesAreParsedWhole) {
  WriteOutputs(2, 3);
  Start(8);
  std::vector<uint8_t> frames;
  std::vector<uint64_t> sizes;
  uint64_t id = 0;
  for (int m = 0; m < 2; ++m)
    for (uint32_t p = 0; p < 3; ++p)
      for (int rep = 0; rep < 3; ++rep) {
        FetchRequest r;
        r.request_id = ++id;
        r.job_id = kJob;
        r.map_attempt_id = AttemptOf(kJob, m);
        r.partition = p;
        r.max_length = kBuf;
        r.auth = FetchMac(kSecret, kJob, r.map_attempt_id, p);
        ASSERT_EQ(EncodeRequest(r, &frames), WireStatus::kOk);
        sizes.push_back(std::min<uint64_t>(kBuf, outputs_[r.map_attempt_id][p].size()));
      }
  int fd = RawConnect(server_->port());
  ASSERT_GE(fd, 0);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  std::mt19937 rng(5);
  for (size_t pos = 0; pos < frames.size();) {
    size_t n = std::min<size_t>(1 + rng() % 7, frames.size() - pos);
    ASSERT_EQ(::send(fd, frames.data() + pos, n, MSG_NOSIGNAL), static_cast<ssize_t>(n));
    pos += n;
  }
  ::shutdown(fd, SHUT_WR);
  std::vector<uint8_t> got = RecvUntilEof(fd);
  ::close(fd);
  size_t pos = 0;
  for (uint64_t i = 1; i <= id; ++i) {
    FetchResponseHeader h;
    ASSERT_EQ(DecodeResponsePrefix(got.data() + pos, got.size() - pos, &h), WireStatus::kOk);
    EXPECT_EQ(h.request_id, i);
    EXPECT_EQ(h.status, ResponseStatus::kOk);
    EXPECT_EQ(h.chunk_length, sizes[i - 1]);
    pos += kResponsePrefixSize + h.chunk_length;
    ASSERT_LE(pos, got.size());
  }
  EXPECT_EQ(pos, got.size());
  ExpectAllBuffersBack();
}
