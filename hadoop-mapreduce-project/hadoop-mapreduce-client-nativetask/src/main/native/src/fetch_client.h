// Fetching segment chunks from MOFSuppliers for every reducer session on this node (seed 001
// §III-C, seed 004 §3.3.2). Each remote node has one queue of chunk requests from all
// sessions and, while it has work, one worker thread holding the node's pooled connection;
// nodes are served in parallel, so requests are injected across nodes rather than one node
// at a time. Workers are at most max_workers: beyond that, nodes with work wait their turn
// and a worker moves on to the next waiting node after each batch (round-robin). A node
// whose queue empties is forgotten and a worker with no waiting node exits, so what names
// many endpoints costs threads only while there is work, and never more than max_workers. A worker
// pipelines up to `pipeline_depth` requests (the supplier answers in order), then reads their
// answers. Connect failures, I/O errors, BUSY and SERVER_ERROR are retried `retries` times
// `backoff_ms` apart on a fresh connection (the supplier may have been restarted on the same port);
// UNAUTHORIZED, NOT_FOUND and BAD_REQUEST fail at once.
#ifndef HADOOP_ACCEL_JBS_FETCH_CLIENT_H
#define HADOOP_ACCEL_JBS_FETCH_CLIENT_H

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "connection_pool.h"
#include "jbs_stats.h"
#include "thread_launcher.h"
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
    size_t max_workers = 64;       // worker threads at most (keep <= max_connections)
    ThreadLauncher launch_thread;  // empty: std::thread
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
  size_t workers() const;  // worker threads running now
  size_t nodes() const;    // remote nodes with work queued or under way
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
    bool scheduled = false;        // waiting for a worker, or being served by one
    Connection* active = nullptr;  // the connection in use, closed by Stop to unblock a read
  };
  using Failed = std::vector<std::pair<Done, FetchOutcome>>;

  void WorkerMain();
  // Serves node until its queue is empty (then forgets it) or another node waits (then
  // queues it again behind that one).
  void Serve(Node* node);
  // Under mu_: a worker for waiting nodes, if fewer than max_workers run. With none running
  // and none startable, the waiting nodes' fetches fail into *failed.
  void SpawnLocked(Failed* failed);
  // Requeues p at the front after the backoff, or fails it when its retries are used up.
  void RetryLocked(Node* node, Pending p, Failed* failed);

  const Config config_;
  ConnectionPool pool_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::unique_ptr<Node>> nodes_;
  std::deque<Node*> waiting_;  // scheduled nodes no worker holds, in turn order
  std::list<std::thread> threads_;
  std::vector<std::thread::id> exited_;  // workers that returned, to join
  size_t running_ = 0;                   // workers not yet returned
  bool stopping_ = false;
  uint64_t retries_ = 0;
  FetchStats stats_;
};

}  // namespace hadoop_accel::jbs

#endif
