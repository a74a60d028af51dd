// The node coordinator (seed 002 §3.1, §5): the node's shared pool, given to its tasks through
// the attach/request/release/detach protocol of coordinator_protocol.h by the max-min fair
// BlockBalancer. The pool is memory on tmpfs: a task granted blocks writes its spill into its own
// dir under the pool dir (mode 0700), so a grant is the right to put that many bytes there. A
// task that dies loses its grant and its dir.
//
// Only processes of the coordinator's own user (or root) may connect (SO_PEERCRED), and at most
// max_clients at once: both checked before a byte is read.
#ifndef HADOOP_ACCEL_COOMR_COORDINATOR_H
#define HADOOP_ACCEL_COOMR_COORDINATOR_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "block_balancer.h"
#include "coordinator_protocol.h"

namespace hadoop_accel::coomr {

constexpr uint32_t kDefaultBlockSize = 256 * 1024;  // the seed's best (002 §6.3)

struct CoordinatorOptions {
  std::string socket_path;
  std::string pool_dir;  // on tmpfs; created 0700 if missing
  uint64_t pool_bytes = 0;
  uint32_t block_size = kDefaultBlockSize;
  int max_clients = 256;
};

class Coordinator {
 public:
  // Throws std::invalid_argument for a pool smaller than one block.
  explicit Coordinator(CoordinatorOptions options);
  ~Coordinator();
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  // Binds the socket (replacing a stale one) and serves until Stop. Throws std::system_error.
  void Start();
  void Stop();

  uint64_t free_blocks() const;
  int clients() const;

 private:
  void AcceptLoop();
  void Serve(int fd);
  // One request of an attached client; false ends the connection.
  bool Handle(int fd, ClientId client, const Message& m, bool* detached);
  void Forget(ClientId client);

  const CoordinatorOptions options_;
  int listen_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;

  mutable std::mutex mu_;
  BlockBalancer balancer_;
  std::map<ClientId, std::string> dirs_;  // each attached task's dir
  std::set<int> open_fds_;                // to shut down on Stop
  int serving_ = 0;                       // connections being served (their threads are detached)
  std::condition_variable idle_;
};

}  // namespace hadoop_accel::coomr

#endif
