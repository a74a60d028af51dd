// The NetMerger's connections to MOFSuppliers (seed 001 §III-C: consolidated connections):
// keyed by host:port and shared by every reducer session on this node, at most one per remote
// node in use at a time (each node's fetch worker holds it while it works), capped in total;
// at the cap the least recently used idle connection is closed to make room.
#ifndef HADOOP_ACCEL_JBS_CONNECTION_POOL_H
#define HADOOP_ACCEL_JBS_CONNECTION_POOL_H

#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "transport.h"

namespace hadoop_accel::jbs {

std::string EndpointKey(const Endpoint& e);

class ConnectionPool {
 public:
  ConnectionPool(Transport* transport, size_t max_connections, int connect_timeout_ms)
      : transport_(transport), max_(max_connections), timeout_ms_(connect_timeout_ms) {}
  ~ConnectionPool() { Shutdown(); }

  // A connection to `to` for the caller's exclusive use: its idle one, else a new one (first
  // closing the least recently used idle connection when at the cap, or waiting while every
  // connection is in use). 0 or an errno (ESHUTDOWN after Shutdown). *reused (if given):
  // the connection was idle in the pool, so its peer may have closed it meanwhile.
  int Acquire(const Endpoint& to, std::unique_ptr<Connection>* out, bool* reused = nullptr);
  // Gives a connection back: kept idle for reuse, or closed when it is no longer in sync.
  void Release(const Endpoint& to, std::unique_ptr<Connection> conn, bool reusable);
  // Closes idle connections and fails waiting and later Acquires.
  void Shutdown();

  struct Stats {
    size_t open = 0;  // idle + in use
    size_t idle = 0;
    uint64_t connects = 0;
    uint64_t evictions = 0;
  };
  Stats stats() const;

 private:
  struct Idle {
    std::string key;
    std::unique_ptr<Connection> conn;
  };
  Transport* transport_;
  const size_t max_;
  const int timeout_ms_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::list<Idle> idle_;  // front: most recently used
  size_t open_ = 0;       // idle + in use + being connected
  uint64_t connects_ = 0;
  uint64_t evictions_ = 0;
  bool shut_ = false;
};

}  // namespace hadoop_accel::jbs

#endif
