#include "connection_pool.h"

#include <cerrno>

namespace hadoop_accel::jbs {

std::string EndpointKey(const Endpoint& e) { return e.host + ":" + std::to_string(e.port); }

int ConnectionPool::Acquire(const Endpoint& to, std::unique_ptr<Connection>* out, bool* reused) {
  const std::string key = EndpointKey(to);
  if (reused) *reused = false;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (shut_) return ESHUTDOWN;
    for (auto it = idle_.begin(); it != idle_.end(); ++it) {
      if (it->key == key) {
        *out = std::move(it->conn);
        idle_.erase(it);
        if (reused) *reused = true;
        return 0;
      }
    }
    if (open_ < max_) break;
    if (!idle_.empty()) {
      std::unique_ptr<Connection> victim = std::move(idle_.back().conn);
      idle_.pop_back();
      --open_;
      ++evictions_;
      lock.unlock();
      victim.reset();  // closes the socket outside the lock
      lock.lock();
      continue;
    }
    cv_.wait(lock);
  }
  ++open_;
  lock.unlock();
  std::unique_ptr<Connection> conn;
  int e = transport_->Connect(to, timeout_ms_, &conn);
  lock.lock();
  if (e != 0) {
    --open_;
    cv_.notify_one();
    return e;
  }
  ++connects_;
  *out = std::move(conn);
  return 0;
}

void ConnectionPool::Release(const Endpoint& to, std::unique_ptr<Connection> conn, bool reusable) {
  if (!conn) return;
  std::unique_lock<std::mutex> lock(mu_);
  if (reusable && !shut_) {
    idle_.push_front({EndpointKey(to), std::move(conn)});
  } else {
    --open_;
    lock.unlock();
    conn.reset();
    lock.lock();
  }
  cv_.notify_all();
}

void ConnectionPool::Shutdown() {
  std::list<Idle> closing;
  {
    std::lock_guard<std::mutex> g(mu_);
    shut_ = true;
    open_ -= idle_.size();
    closing.swap(idle_);
  }
  cv_.notify_all();
}

ConnectionPool::Stats ConnectionPool::stats() const {
  std::lock_guard<std::mutex> g(mu_);
  return {open_, idle_.size(), connects_, evictions_};
}

}  // namespace hadoop_accel::jbs
