// The node coordinator (seed 002 §3.1, §5): the node's shared pool, given to its tasks through
// the attach/request/release/detach protocol of coordinator_protocol.h by the max-min fair
// BlockBalancer. The pool is memory on tmpfs: a task granted blocks writes its spill into its own
// dir under the pool dir (mode 0700), so a grant is the right to put that many bytes there. A
// task that dies loses its grant and its dir.
//
// While the NodeManager's shuffle (CoomrShuffleHandler) is connected to ask where map outputs
// are (LOOKUP), ATTACHED tells maps so, and a map may leave its output in the pool and hand it
// over (HANDOVER): the map is then done at once, and a mover thread writes handed-over outputs
// to their disk paths in the order they came (finished tasks' data first, as the seed flushes),
// one sequential copy at a time. The pool copy and its blocks go only `grace` after the disk
// copy is complete, so that a shuffle that looked the pool path up shortly before still finds
// it; the disk paths are stock's, where any shuffle finds them.
//
// With `locs` (seed 002 §3.2, Fig. 4), the mover does not write one file per map: it appends
// the outputs waiting to go out (up to kMaxRepositoryBytes) as one repository of the job's LOCS
// log on that disk, `<app dir>/output/coomr-locs.log` beside the attempts' output dirs, one
// bucket per partition. Each output's index goes to its stock disk path with its offsets
// shifted into the log, so the shuffle serves a partition from the log with stock's code, given
// the log as the data path (LOOKUP). The outputs logged are recorded in the job's pool dir
// (kLoggedRecord), so a restarted coordinator still answers for them; the job's logs are
// deleted when it ends. An output whose disk path is not of that form is written as one file.
//
// A handed-over output's disk paths are also written beside it (HANDOVER_RECORD), so that a
// coordinator restarted after a crash (`recover`) finds the outputs still to be written out and
// writes them. The dirs of tasks that were running are kept too (a task still merging from its
// pooled spills goes on reading them), their bytes counted as held until their job ends.
//
// Only processes of the coordinator's own user (or root) may connect (SO_PEERCRED), and at most
// max_clients at once: both checked before a byte is read.
#ifndef HADOOP_ACCEL_COOMR_COORDINATOR_H
#define HADOOP_ACCEL_COOMR_COORDINATOR_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "block_balancer.h"
#include "coordinator_protocol.h"
#include "locs_log.h"

namespace hadoop_accel::coomr {

constexpr uint32_t kDefaultBlockSize = 256 * 1024;  // the seed's best (002 §6.3)

struct CoordinatorOptions {
  std::string socket_path;
  std::string pool_dir;  // on tmpfs; created 0700 if missing
  uint64_t pool_bytes = 0;
  uint32_t block_size = kDefaultBlockSize;
  int max_clients = 256;
  std::chrono::milliseconds grace{5000};
  // Start keeps what an earlier coordinator left in the pool (a restart after a crash) rather
  // than emptying it (a first start, whose tasks are gone).
  bool recover = false;
  // Write map outputs through LOCS logs rather than one file per map.
  bool locs = false;
};

// Beside a handed-over output in its dir: its data and index disk paths, one per line.
inline constexpr char kHandoverRecord[] = "handover";
// In a job's pool dir: one line per output written through LOCS, "attempt<TAB>log<TAB>index".
inline constexpr char kLoggedRecord[] = "locs-outputs";
// A job's LOCS log on one disk, in the dir that holds its map attempts' output dirs.
inline constexpr char kLocsLogName[] = "coomr-locs.log";
// At most this much map output goes into one repository (one append).
constexpr uint64_t kMaxRepositoryBytes = 32ull << 20;

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

  // A job has ended: its dir in the pool goes, with whatever its tasks left there. False for a
  // job id that is not a plain name.
  bool EndJob(const std::string& job);

  uint64_t free_blocks() const;
  int clients() const;
  // Handed-over outputs waiting to be written out.
  int outputs_to_move() const;
  // Handed-over outputs whose writing out failed (a full disk): served from the pool.
  int failed_moves() const;
  // Connections of the NodeManager's shuffle (LOOKUP).
  int shuffles() const;
  // Outputs written through LOCS whose job has not ended.
  int logged_outputs() const;

 private:
  void AcceptLoop();
  void Serve(int fd);
  // One request of an attached client; false ends the connection.
  bool Handle(int fd, ClientId client, const Message& m, bool* detached);
  void Forget(ClientId client);
  bool Handover(ClientId client, const Message& m, std::string* error);
  Message Lookup(const Message& m);
  void MoveLoop();
  struct Output;
  using OutputKey = std::pair<std::string, std::string>;  // job, attempt
  using Batch = std::vector<std::pair<OutputKey, Output>>;
  // The next outputs to write out: one, or those of one job going to the same LOCS log.
  Batch TakeBatch();  // under mu_
  // Writes a batch out; false with an error for each output that could not be. Mover only.
  std::vector<bool> WriteOut(const Batch& batch, std::vector<std::string>* errors);
  std::vector<bool> AppendToLog(const Batch& batch, std::vector<std::string>* errors);
  // Start with `recover`: takes over what an earlier coordinator left in the pool.
  void Recover();
  void RecoverLogged(const std::string& job, const std::string& job_dir);  // under mu_
  // Blocks for `bytes` held by a new, finished client (0 blocks if the pool cannot give them).
  std::pair<ClientId, uint64_t> Hold(uint64_t bytes);  // under mu_

  // A map output handed over: its pool copy, where it goes on disk, and the blocks it holds
  // (those of its task, which has finished).
  struct Output {
    ClientId client = 0;
    std::string pool_dir, pool_data, pool_index, disk_data, disk_index;
    std::string log;  // its LOCS log, or empty: written to disk_data
    uint64_t blocks = 0;
    bool moved = false;
    bool failed = false;  // could not be written out: stays in the pool until its job ends
    std::chrono::steady_clock::time_point moved_at;
  };
  void DropOutput(const OutputKey& key);  // under mu_

  const CoordinatorOptions options_;
  int listen_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;

  mutable std::mutex mu_;
  BlockBalancer balancer_;
  std::map<ClientId, std::string> dirs_;    // each attached task's dir
  std::map<ClientId, OutputKey> attached_;  // each attached task's job and attempt
  std::map<OutputKey, Output> outputs_;
  // Per job, the blocks of its tasks' dirs found by Recover: held until the job ends.
  std::map<std::string, std::pair<ClientId, uint64_t>> recovered_dirs_;
  std::deque<OutputKey> to_move_;  // handed over, not yet on disk, in order
  std::deque<OutputKey> to_drop_;  // on disk; pool copy goes after grace, in order
  // Outputs written through LOCS: their log and shifted index, until their job ends.
  std::map<OutputKey, std::pair<std::string, std::string>> logged_;
  std::map<std::string, std::set<std::string>> job_logs_;  // each job's LOCS logs
  std::vector<std::string> logs_to_delete_;                // of ended jobs: the mover's to do
  std::map<std::string, LocsLog> logs_;                    // open logs by path: the mover's own
  std::condition_variable mover_wake_;
  std::thread mover_;
  std::set<int> open_fds_;  // to shut down on Stop
  int serving_ = 0;         // connections being served (their threads are detached)
  int shuffles_ = 0;        // of which the NodeManager's shuffle's (LOOKUP)
  std::condition_variable idle_;
};

}  // namespace hadoop_accel::coomr

#endif
