#include "connection_pool.h"

#include <gtest/gtest.h>

#include <thread>

using namespace hadoop_accel::jbs;

namespace {

// Listeners that never accept: the kernel completes connects from the backlog.
struct Remotes {
  explicit Remotes(Transport* t, int n) {
    for (int i = 0; i < n; ++i) {
      std::unique_ptr<Listener> l;
      EXPECT_EQ(t->Listen({"127.0.0.1", 0}, &l), 0);
      endpoints.push_back({"127.0.0.1", l->port()});
      listeners.push_back(std::move(l));
    }
  }
  std::vector<std::unique_ptr<Listener>> listeners;
  std::vector<Endpoint> endpoints;
};

}  // namespace

TEST(ConnectionPoolTest, ReusesAndEvictsTheLeastRecentlyUsedIdleConnection) {
  auto tcp = MakeTcpTransport();
  Remotes r(tcp.get(), 3);
  ConnectionPool pool(tcp.get(), 2, 2000);
  auto use = [&](int i) {
    std::unique_ptr<Connection> c;
    ASSERT_EQ(pool.Acquire(r.endpoints[i], &c), 0);
    pool.Release(r.endpoints[i], std::move(c), true);
  };
  use(0);
  use(1);
  use(0);  // reused: 1 is now least recently used
  EXPECT_EQ(pool.stats().connects, 2u);
  use(2);  // at the cap: evicts 1
  EXPECT_EQ(pool.stats().evictions, 1u);
  EXPECT_EQ(pool.stats().open, 2u);
  use(0);  // still pooled
  EXPECT_EQ(pool.stats().connects, 3u);
  use(1);  // evicts 2 (0 was used more recently)
  EXPECT_EQ(pool.stats().connects, 4u);
  EXPECT_EQ(pool.stats().evictions, 2u);
  use(0);
  EXPECT_EQ(pool.stats().connects, 4u);
}

TEST(ConnectionPoolTest, WaitsWhileEveryConnectionIsInUse) {
  auto tcp = MakeTcpTransport();
  Remotes r(tcp.get(), 2);
  ConnectionPool pool(tcp.get(), 1, 2000);
  std::unique_ptr<Connection> a;
  ASSERT_EQ(pool.Acquire(r.endpoints[0], &a), 0);
  std::unique_ptr<Connection> b;
  int rc = -1;
  std::thread t([&] { rc = pool.Acquire(r.endpoints[1], &b); });
  pool.Release(r.endpoints[0], std::move(a), true);  // idle now: the waiter evicts it
  t.join();
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(pool.stats().open, 1u);
  EXPECT_EQ(pool.stats().evictions, 1u);
  pool.Release(r.endpoints[1], std::move(b), false);  // not reusable: closed
  EXPECT_EQ(pool.stats().open, 0u);
}

TEST(ConnectionPoolTest, ConnectFailureAndShutdown) {
  auto tcp = MakeTcpTransport();
  std::unique_ptr<Listener> l;
  ASSERT_EQ(tcp->Listen({"127.0.0.1", 0}, &l), 0);
  Endpoint dead{"127.0.0.1", l->port()};
  l.reset();
  ConnectionPool pool(tcp.get(), 4, 2000);
  std::unique_ptr<Connection> c;
  EXPECT_NE(pool.Acquire(dead, &c), 0);
  EXPECT_EQ(pool.stats().open, 0u);
  pool.Shutdown();
  EXPECT_EQ(pool.Acquire(dead, &c), ESHUTDOWN);
}
