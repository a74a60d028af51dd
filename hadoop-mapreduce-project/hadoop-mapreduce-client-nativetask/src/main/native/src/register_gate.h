// The NetMerger's limits before authentication. Any local process that can reach the socket
// may connect (it is 0666 under the LinuxContainerExecutor), so until a connection has sent
// its REGISTER it costs the daemon one descriptor and a small buffer, never a thread: one gate
// thread accepts connections, sends each HELLO, and reads the first frame of all of them from
// one epoll set.
//   * At most max_pending connections wait for their REGISTER; a new one beyond that closes
//     the oldest (a real reduce answers HELLO at once, a flood's connections are the old ones).
//   * A connection whose REGISTER is not complete within timeout_ms gets ERROR 1 and is closed.
//   * Out of descriptors (EMFILE, ENFILE, ENOBUFS, ENOMEM) the gate stops accepting for a
//     back-off of 100 ms doubling to 1 s, and closes the oldest waiting connection; the
//     kernel's backlog holds or refuses new ones meanwhile, so the loop never spins.
//   * Everything a flood can trigger is logged through RateLimitedLog.
// A complete REGISTER frame goes to on_register with its descriptor and HELLO nonce.
#ifndef HADOOP_ACCEL_JBS_REGISTER_GATE_H
#define HADOOP_ACCEL_JBS_REGISTER_GATE_H

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "rate_limited_log.h"
#include "reducer_protocol.h"
#include "thread_launcher.h"

namespace hadoop_accel::jbs {

class RegisterGate {
 public:
  struct Config {
    size_t max_pending = 256;
    int timeout_ms = 10000;
    size_t accept_batch = 32;  // accepts per wake-up, so waiting REGISTERs are read in between
  };
  struct Stats {
    uint64_t accepted = 0;
    uint64_t evicted = 0;    // closed to make room for a newer connection
    uint64_t timed_out = 0;  // no REGISTER within timeout_ms
    uint64_t dropped = 0;    // closed by the peer, or sent a bad first frame
    uint64_t fd_pauses = 0;  // accept back-offs at the descriptor limit
    uint64_t registers = 0;  // complete REGISTER frames handed on
    uint64_t pending = 0;    // waiting now
  };
  // Owns fd from then on (answers and closes it, or hands it to a session). Gate thread.
  using OnRegister =
      std::function<void(int fd, const uint8_t* nonce, const std::vector<uint8_t>& body)>;
  // Called on the gate thread at least once a second (reaping finished sessions).
  using OnTick = std::function<void()>;

  RegisterGate(Config config, OnRegister on_register, OnTick on_tick);
  ~RegisterGate() { Stop(); }

  // Starts the gate thread on a listening socket (the caller keeps it). 0 or an errno.
  int Start(int listen_fd, const ThreadLauncher& launch);
  // Closes every waiting connection and joins the thread. Idempotent.
  void Stop();
  Stats stats() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Pending {
    int fd = -1;
    uint8_t nonce[kNonceLength] = {};
    Clock::time_point deadline;
    std::vector<uint8_t> in;  // the first frame so far
  };
  void Run();
  void AcceptSome();
  void OutOfDescriptors(int err);
  void OnReadable(uint64_t id);
  void Close(uint64_t id, const std::vector<uint8_t>& last_words = {});
  void Refuse(uint64_t id, const std::string& why);
  void ExpireOld();
  int WaitMs() const;

  const Config config_;
  OnRegister on_register_;
  OnTick on_tick_;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  bool started_ = false;

  // Gate thread only.
  std::map<uint64_t, Pending> pending_;  // by id = accept order = deadline order
  uint64_t next_id_ = 1;
  bool paused_ = false;
  Clock::time_point resume_at_;
  std::chrono::milliseconds backoff_{100};
  Clock::time_point next_tick_;
  RateLimitedLog flood_log_{stderr, "jbs_net_merger: ", std::chrono::seconds(10)};
  RateLimitedLog fd_log_{stderr, "jbs_net_merger: ", std::chrono::seconds(10)};

  std::atomic<uint64_t> accepted_{0}, evicted_{0}, timed_out_{0}, dropped_{0}, fd_pauses_{0},
      registers_{0}, pending_count_{0};
};

}  // namespace hadoop_accel::jbs

#endif
