// The MOFSupplier's TCP server (seed 004 §3.3.1): an epoll thread accepts connections, parses
// requests incrementally from non-blocking sockets and sends responses with writev (frame
// prefix + chunk straight from its pool buffer, partial writes resumed on EPOLLOUT); a
// PipelinedEngine's disk thread reads the chunks meanwhile. With network_threads > 1 several
// such event loops share the listening socket (EPOLLEXCLUSIVE); a connection stays on the
// loop that accepted it. Requests on a connection are
// answered in order, so a client may pipeline; a connection with max_inflight unanswered
// requests is not read from until its answers drain (TCP pushes back on the client). A
// connection that sends anything but valid request frames is closed; the others carry on.
#ifndef HADOOP_ACCEL_JBS_EPOLL_SERVER_H
#define HADOOP_ACCEL_JBS_EPOLL_SERVER_H

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <unordered_map>
#include <vector>

#include "buffer_pool.h"
#include "data_engine.h"
#include "fetch_server.h"
#include "pipelined_engine.h"

namespace hadoop_accel::jbs {

class EpollServer : public FetchServer {
 public:
  struct Config {
    PipelinedEngine::Config engine;
    size_t max_inflight = 32;       // unanswered requests per connection before reading stops
    size_t max_connections = 4096;  // beyond: accepted and closed at once (capped by
                                    // RLIMIT_NOFILE - 64 at Start)
    // A connection that holds a partial request or unsent answers and moves no byte for this
    // long is closed (a stalled or hostile peer must not pin descriptors and pool buffers).
    // Idle connections with nothing pending stay open: the NetMerger keeps them.
    std::chrono::milliseconds stall_timeout{60000};
    // Limits before authentication, so a flood cannot fill the connection table: a connection
    // counts as authenticated once one of its requests passed the MAC check. One that has not
    // within pre_auth_timeout is closed; beyond max_unauthenticated such connections the
    // oldest is closed to make room (a real NetMerger sends its request at once, and one whose
    // first request is being checked is skipped). At most 64 accepts per wake-up; out of
    // descriptors, accepting pauses until a connection closes or for at least 100 ms.
    std::chrono::milliseconds pre_auth_timeout{10000};
    size_t max_unauthenticated = 256;
    // An authenticated connection with nothing pending is closed after this long idle (the
    // NetMerger reconnects on demand without using up a retry).
    std::chrono::milliseconds idle_timeout{300000};
    size_t network_threads = 1;  // epoll threads
  };
  struct Stats {
    uint64_t accepted = 0;
    uint64_t rejected_connections = 0;    // closed for sending junk
    uint64_t served = 0;                  // responses fully sent
    uint64_t busy = 0;                    // BUSY answers (queue full or no buffer in time)
    uint64_t stalled = 0;                 // closed for moving no byte within stall_timeout
    uint64_t unauthenticated_closed = 0;  // closed before authenticating (timeout or cap)
    uint64_t idle_closed = 0;             // authenticated, idle beyond idle_timeout
    uint64_t open_connections = 0;
    uint64_t fd_pauses = 0;       // accepts paused at the descriptor limit
    uint64_t served_bytes = 0;    // chunk bytes of the responses fully sent
    uint64_t refused_at_cap = 0;  // accepted and closed at once: max_connections open
  };

  EpollServer(DataEngine* planner, BufferPool* pool, Config config,
              UnauthorizedHook on_unauthorized = nullptr);
  ~EpollServer() override;

  int Start(const Endpoint& at) override;
  uint16_t port() const override { return port_; }
  void Stop() override;

  Stats stats() const;
  PipelinedEngine::Stats engine_stats() const { return engine_.stats(); }
  // See PipelinedEngine::DropFiles.
  void DropFiles(const std::string& part) { engine_.DropFiles(part); }

 private:
  struct Conn;
  struct EventLoop;  // one epoll thread with its descriptors and its connections
  void Run(EventLoop* l);
  void Wake(EventLoop* l);
  void AcceptAll(EventLoop* l);
  void OnReadable(Conn* c);
  // Each returns false (or, for Pump, may return) after closing c: do not touch c then.
  bool ParseRequests(Conn* c);
  void OnCompletions(EventLoop* l);
  void FlushInOrder(Conn* c);
  bool Send(Conn* c);
  void Pump(Conn* c);  // queue answers in order, send, resume reading when drained
  void UpdateInterest(Conn* c);
  void CloseConn(Conn* c);
  void CloseStalled(EventLoop* l);
  void SetAccepting(EventLoop* l, bool on);

  BufferPool* pool_;
  Config config_;
  UnauthorizedHook on_unauthorized_;
  std::vector<std::unique_ptr<EventLoop>> loops_;  // before engine_: its notify uses them
  PipelinedEngine engine_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  bool started_ = false;
  std::atomic<uint64_t> next_conn_id_{1};

  std::atomic<uint64_t> accepted_{0}, rejected_{0}, served_{0}, busy_{0}, stalled_{0}, open_{0},
      unauth_closed_{0}, idle_closed_{0}, fd_pauses_{0};
  std::atomic<uint64_t> served_bytes_{0}, refused_at_cap_{0};  // for the STATS answer
};

}  // namespace hadoop_accel::jbs

#endif
