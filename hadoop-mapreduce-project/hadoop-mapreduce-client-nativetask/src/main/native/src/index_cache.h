// IndexCache: parsed spill indexes keyed by map attempt id, bounded by a memory budget and
// evicted least-recently-used first (Hadoop's ShuffleHandler keeps a similar cache, sized by
// mapreduce.tasktracker.indexcache.mb). Every reducer fetching from a map hits the same index,
// so one parse serves them all. Thread-safe: the loader runs outside the lock, so a slow disk
// read does not stall lookups of other attempts.
#ifndef HADOOP_ACCEL_JBS_INDEX_CACHE_H
#define HADOOP_ACCEL_JBS_INDEX_CACHE_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "spill_index.h"

namespace hadoop_accel::jbs {

class IndexCache {
 public:
  // Loads the index of a map attempt (the DataEngine maps the id to its file.out.index path).
  using Loader = std::function<IndexStatus(const std::string& attempt, SpillIndex* out)>;

  struct Stats {
    uint64_t hits = 0;
    uint64_t misses = 0;
    uint64_t evictions = 0;
    size_t bytes = 0;
    size_t entries = 0;
  };

  explicit IndexCache(size_t budget_bytes) : budget_(budget_bytes) {}

  // The attempt's index, from the cache or loaded (and cached) now. An index larger than the
  // whole budget is returned but not kept. Load failures are not cached: the map may be re-run.
  IndexStatus Get(const std::string& attempt, const Loader& load,
                  std::shared_ptr<const SpillIndex>* out);
  // Drops an attempt (its output was removed, or the job finished).
  void Remove(const std::string& attempt);
  Stats stats() const;

 private:
  struct Entry {
    std::shared_ptr<const SpillIndex> index;
    std::list<std::string>::iterator lru_pos;
  };
  void EvictToBudgetLocked();

  const size_t budget_;
  mutable std::mutex mu_;
  std::list<std::string> lru_;  // front = most recently used
  std::unordered_map<std::string, Entry> map_;
  Stats stats_;
};

}  // namespace hadoop_accel::jbs

#endif
