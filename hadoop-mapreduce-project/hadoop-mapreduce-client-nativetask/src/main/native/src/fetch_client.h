// Fetching segment chunks from MOFSuppliers for every reducer session on this node (seed 001
// §III-C, seed 004 §3.3.2). Each remote node has one queue of chunk requests from all
// sessions and, while it has work, one worker thread holding the node's pooled connection;
// nodes are served in parallel, so requests are injected across nodes rather than one node
// at a time. A worker pipelines up to `pipeline_depth` requests (the supplier answers in
// order), then reads their answers. Connect failures, I/O errors, BUSY and SERVER_ERROR are
// retried `retries` times `backoff_ms` apart on a fresh connection (the supplier may have been
// restarted on the same port); UNAUTHORIZED, NOT_FOUND and BAD_REQUEST fail at once.
#ifndef HADOOP_ACCEL_JBS_FETCH_CLIENT_H
#define HADOOP_ACCEL_JBS_FETCH_CLIENT_H

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "connection_pool.h"
#include "jbs_stats.h"
#include "wire_format.h"

namespace hadoop_accel::jbs {

// One segment to fetch: where, what, its auth field (FetchAuth: the MAC and a fresh nonce)
// and the ReplyMac an answer must carry (both computed once per segment).
struct FetchTarget {
  Endpoint node;
  std::string job;
  std::string attempt;
  uint32_t partition = 0;
  std::string auth;
  std::string reply_mac;  // empty: not checked (tests of the fetch client alone)
};

struct FetchOutcome {
  bool ok = false;
  bool connect_failed = false;  // the last try could not connect
  std::string error;            // when !ok
  FetchResponseHeader header;   // when ok
  std::vector<uint8_t> chunk;   // when ok
};

class FetchClient {
 public:
  struct Config {
    size_t max_connections = 512;
    int connect_timeout_ms = 5000;
    int retries = 5;
    int backoff_ms = 500;
    uint32_t max_chunk = 128 * 1024;  // FetchRequest::max_length
    size_t pipeline_depth = 8;
  };
  using Done = std::function<void(FetchOutcome)>;

  FetchClient(Transport* transport, Config config);
  ~FetchClient() { Stop(); }

  // Asks for the chunk of target's segment at offset; done runs once, on a worker thread
  // (keep it short), or inline when the client is stopped.
  void Fetch(std::shared_ptr<const FetchTarget> target, uint64_t offset, Done done);
  // Fails everything queued, unblocks and joins the workers. Idempotent.
  void Stop();

  ConnectionPool::Stats pool_stats() const { return pool_.stats(); }
  uint64_t retries() const;
  const FetchStats& stats() const { return stats_; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Pending {
    std::shared_ptr<const FetchTarget> target;
    uint64_t offset = 0;
    Done done;
    int tries = 0;
    Clock::time_point not_before{};
    bool connect_failed = false;
    std::string last_error;
  };
  struct Node {
    Endpoint endpoint;
    std::deque<Pending> queue;
    std::thread worker;
    bool running = false;
    Connection* active = nullptr;  // the connection in use, closed by Stop to unblock a read
  };

  void Work(Node* node);
  // Requeues p at the front after the backoff, or fails it when its retries are used up.
  void RetryLocked(Node* node, Pending p, std::vector<std::pair<Done, FetchOutcome>>* failed);

  const Config config_;
  ConnectionPool pool_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::unique_ptr<Node>> nodes_;
  bool stopping_ = false;
  uint64_t retries_ = 0;
  FetchStats stats_;
};

}  // namespace hadoop_accel::jbs

#endif
