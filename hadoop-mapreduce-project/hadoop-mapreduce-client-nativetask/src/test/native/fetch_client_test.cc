// FetchClient against a scripted fake MOFSupplier: retries on BUSY and on a dropped
// connection (with a fresh connection), immediate failure on UNAUTHORIZED, retry budget,
// a supplier that never answers (read timeout), and many pipelined requests from several
// "sessions" to two suppliers.
#include "fetch_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <future>
#include <list>
#include <thread>

#include "frame_io.h"

using namespace hadoop_accel::jbs;

namespace {

constexpr uint64_t kPart = 10000;

// Answers each request with script(request number on this server, request) -> status, or
// drops the connection when the script says kDrop.
class FakeSupplier {
 public:
  static constexpr int kDrop = -1;
  static constexpr int kStall = -2;  // read the request, never answer, keep the connection
  using Script = std::function<int(int n, const FetchRequest&)>;

  FakeSupplier(Transport* t, Script script) : script_(std::move(script)) {
    EXPECT_EQ(t->Listen({"127.0.0.1", 0}, &listener_), 0);
    acceptor_ = std::thread([this] {
      for (;;) {
        std::unique_ptr<Connection> c;
        if (listener_->Accept(&c) != 0) return;
        ++connections_;
        std::lock_guard<std::mutex> g(mu_);
        conns_.push_back(std::move(c));
        Connection* raw = conns_.back().get();
        threads_.emplace_back([this, raw] { Serve(raw); });
      }
    });
  }
  ~FakeSupplier() {
    listener_->Close();
    acceptor_.join();
    std::lock_guard<std::mutex> g(mu_);
    for (auto& c : conns_) c->Close();
    for (auto& t : threads_) t.join();
  }
  Endpoint endpoint() const { return {"127.0.0.1", listener_->port()}; }
  // Closes every accepted connection, as a restarted supplier would have.
  void CloseConnections() {
    std::lock_guard<std::mutex> g(mu_);
    for (auto& c : conns_) c->Close();
  }
  int connections() const { return connections_.load(); }
  int requests() const { return requests_.load(); }

 private:
  void Serve(Connection* c) {
    for (;;) {
      FetchRequest req;
      if (!ReceiveRequest(c, &req).ok()) return;
      int status = script_(requests_++, req);
      if (status == kDrop) {
        c->Close();
        return;
      }
      if (status == kStall) {
        uint8_t b;
        while (c->RecvExact(&b, 1) == 0) {
        }
        return;  // the client gave up and closed, or the test ends
      }
      FetchResponseHeader h;
      h.request_id = req.request_id;
      h.status = static_cast<ResponseStatus>(status);
      std::vector<uint8_t> chunk;
      if (h.status == ResponseStatus::kOk) {
        h.raw_length = kPart;
        h.part_length = kPart;
        h.chunk_offset = req.offset;
        h.chunk_length =
            static_cast<uint32_t>(std::min<uint64_t>(req.max_length, kPart - req.offset));
        for (uint32_t i = 0; i < h.chunk_length; ++i)
          chunk.push_back(static_cast<uint8_t>(req.offset + i + req.partition));
      }
      if (!SendResponse(c, h, chunk.data()).ok()) return;
    }
  }

  Script script_;
  std::unique_ptr<Listener> listener_;
  std::thread acceptor_;
  std::mutex mu_;
  std::list<std::unique_ptr<Connection>> conns_;
  std::list<std::thread> threads_;
  std::atomic<int> connections_{0};
  std::atomic<int> requests_{0};
};

std::shared_ptr<const FetchTarget> Target(const Endpoint& e, uint32_t partition = 0) {
  auto t = std::make_shared<FetchTarget>();
  t->node = e;
  t->job = "job_1700000000000_0001";
  t->attempt = "attempt_1700000000000_0001_m_000001_0";
  t->partition = partition;
  t->auth = "mac";
  return t;
}

FetchClient::Config Fast() {
  FetchClient::Config c;
  c.retries = 2;
  c.backoff_ms = 5;
  c.max_chunk = 4096;
  c.connect_timeout_ms = 2000;
  return c;
}

FetchOutcome FetchOne(FetchClient* client, std::shared_ptr<const FetchTarget> t, uint64_t off) {
  auto p = std::make_shared<std::promise<FetchOutcome>>();
  auto f = p->get_future();
  client->Fetch(std::move(t), off, [p](FetchOutcome o) { p->set_value(std::move(o)); });
  EXPECT_EQ(f.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  return f.get();
}

}  // namespace

TEST(FetchClientTest, BusyIsRetried) {
  auto tcp = MakeTcpTransport();
  FakeSupplier s(tcp.get(), [](int n, const FetchRequest&) { return n == 0 ? 5 : 0; });
  FetchClient client(tcp.get(), Fast());
  FetchOutcome o = FetchOne(&client, Target(s.endpoint()), 0);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.chunk.size(), 4096u);
  EXPECT_EQ(client.retries(), 1u);
  EXPECT_EQ(s.connections(), 1);
}

TEST(FetchClientTest, ADroppedConnectionIsRetriedOnANewOne) {
  auto tcp = MakeTcpTransport();
  FakeSupplier s(tcp.get(),
                 [](int n, const FetchRequest&) { return n == 0 ? FakeSupplier::kDrop : 0; });
  FetchClient client(tcp.get(), Fast());
  FetchOutcome o = FetchOne(&client, Target(s.endpoint()), 8192);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.header.chunk_offset, 8192u);
  EXPECT_EQ(o.chunk.size(), kPart - 8192);
  EXPECT_EQ(s.connections(), 2);
}

TEST(FetchClientTest, ASupplierThatNeverAnswersTimesOutAndTheFetchFails) {
  auto tcp = MakeTcpTransport(/*io_timeout_ms=*/200);
  FakeSupplier s(tcp.get(), [](int, const FetchRequest&) { return FakeSupplier::kStall; });
  FetchClient::Config c = Fast();
  c.retries = 1;
  FetchClient client(tcp.get(), c);
  auto t0 = std::chrono::steady_clock::now();
  FetchOutcome o = FetchOne(&client, Target(s.endpoint()), 0);
  EXPECT_FALSE(o.ok);
  EXPECT_NE(o.error.find(std::strerror(ETIMEDOUT)), std::string::npos) << o.error;
  EXPECT_FALSE(o.connect_failed);
  EXPECT_EQ(s.connections(), 2);  // the retry went to a fresh connection
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

TEST(FetchClientTest, UnauthorizedFailsAtOnceAndRetriesRunOut) {
  auto tcp = MakeTcpTransport();
  FakeSupplier s(tcp.get(), [](int, const FetchRequest& r) { return r.partition == 1 ? 3 : 4; });
  FetchClient client(tcp.get(), Fast());
  FetchOutcome o = FetchOne(&client, Target(s.endpoint(), 1), 0);
  EXPECT_FALSE(o.ok);
  EXPECT_NE(o.error.find("UNAUTHORIZED"), std::string::npos);
  EXPECT_EQ(client.retries(), 0u);
  o = FetchOne(&client, Target(s.endpoint(), 2), 0);  // SERVER_ERROR every time
  EXPECT_FALSE(o.ok);
  EXPECT_NE(o.error.find("after 3 tries"), std::string::npos) << o.error;
  EXPECT_FALSE(o.connect_failed);
}

TEST(FetchClientTest, ManyRequestsFromManySessionsToTwoSuppliers) {
  auto tcp = MakeTcpTransport();
  FakeSupplier a(tcp.get(), [](int, const FetchRequest&) { return 0; });
  FakeSupplier b(tcp.get(), [](int, const FetchRequest&) { return 0; });
  FetchClient client(tcp.get(), Fast());
  std::vector<std::future<FetchOutcome>> results;
  std::vector<std::pair<uint32_t, uint64_t>> asked;
  std::vector<std::thread> sessions;
  std::mutex mu;
  for (uint32_t s = 0; s < 4; ++s) {
    sessions.emplace_back([&, s] {
      for (uint64_t off = 0; off < kPart; off += 1000) {
        auto p = std::make_shared<std::promise<FetchOutcome>>();
        std::lock_guard<std::mutex> g(mu);
        results.push_back(p->get_future());
        asked.push_back({s, off});
        client.Fetch(Target(s % 2 ? a.endpoint() : b.endpoint(), s), off,
                     [p](FetchOutcome o) { p->set_value(std::move(o)); });
      }
    });
  }
  for (auto& t : sessions) t.join();
  for (size_t i = 0; i < results.size(); ++i) {
    ASSERT_EQ(results[i].wait_for(std::chrono::seconds(20)), std::future_status::ready);
    FetchOutcome o = results[i].get();
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_EQ(o.header.chunk_offset, asked[i].second);
    EXPECT_EQ(o.chunk[0], static_cast<uint8_t>(asked[i].second + asked[i].first));
  }
  EXPECT_EQ(a.connections(), 1);  // one connection per remote node, shared by all sessions
  EXPECT_EQ(b.connections(), 1);
  EXPECT_EQ(client.pool_stats().open, 2u);
}

TEST(FetchClientTest, StopFailsWhatIsQueued) {
  auto tcp = MakeTcpTransport();
  FetchClient client(tcp.get(), Fast());
  client.Stop();
  FetchOutcome o = FetchOne(&client, Target({"127.0.0.1", 1}), 0);
  EXPECT_FALSE(o.ok);
}

TEST(FetchClientTest, AnIdleConnectionClosedByThePeerCostsNoRetry) {
  auto tcp = MakeTcpTransport();
  FakeSupplier s(tcp.get(), [](int, const FetchRequest&) { return 0; });
  FetchClient::Config c = Fast();
  c.retries = 0;  // any counted failure would be final
  FetchClient client(tcp.get(), c);
  ASSERT_TRUE(FetchOne(&client, Target(s.endpoint()), 0).ok);
  s.CloseConnections();  // the pooled connection is now dead
  FetchOutcome o = FetchOne(&client, Target(s.endpoint()), 4096);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(s.connections(), 2);
  EXPECT_EQ(client.retries(), 0u);
}
