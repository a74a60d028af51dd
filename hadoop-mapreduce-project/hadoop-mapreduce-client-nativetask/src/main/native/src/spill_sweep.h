// Spill runs (RunFile: <spill dir>/jbs_run_XXXXXX) are removed by their session, but a
// NetMerger killed with -9 leaves them behind. At start the daemon takes a lock on each spill
// dir (<dir>/.jbs_net_merger.lock, flock) and holds it for its life: shared while it runs,
// exclusive only for the sweep. Getting the exclusive lock proves no other live NetMerger
// uses the dir, so every run file there belongs to no live session and is removed — only
// regular files named like a run and owned by this daemon's user, never through a symlink.
// A dir in use by another NetMerger (or whose lock file is not ours) is not swept.
#ifndef HADOOP_ACCEL_JBS_SPILL_SWEEP_H
#define HADOOP_ACCEL_JBS_SPILL_SWEEP_H

#include <cstdint>
#include <string>
#include <vector>

namespace hadoop_accel::jbs {

class SpillDirLocks {
 public:
  struct Swept {
    uint64_t files = 0;
    uint64_t bytes = 0;
    std::vector<std::string> not_swept;  // "dir: why"
  };
  SpillDirLocks() = default;
  SpillDirLocks(const SpillDirLocks&) = delete;
  SpillDirLocks& operator=(const SpillDirLocks&) = delete;
  ~SpillDirLocks();

  // Locks every dir (kept until destruction) and sweeps the ones no other NetMerger uses.
  Swept LockAndSweep(const std::vector<std::string>& dirs);

 private:
  std::vector<int> fds_;
};

// True for names RunFile::Create makes: "jbs_run_" and six mkstemp characters.
bool IsRunFileName(const char* name);

}  // namespace hadoop_accel::jbs

#endif
