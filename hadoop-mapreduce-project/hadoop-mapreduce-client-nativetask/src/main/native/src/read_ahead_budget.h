// How many bytes of fetched, not yet merged chunks the NetMerger holds, daemon-wide, and
// whether a segment may fetch ahead of its merge.
//
// The seeds' levitated merge holds two chunks per merge input and fetches the rest while the
// merge drains it, so most of the transfer happens after the last map, in the reduce phase.
// Whatever the --memory-bytes budget leaves beyond those two chunks per input is used to keep
// fetching while the maps still run (the link is idle then), so the merge later finds its
// chunks in memory. Chunks the merge needs now are always fetched (Take); read-ahead asks
// (TryTake) and stops at the budget. The hierarchical merge keeps inputs within the budget,
// so at that point no read-ahead remains.
#ifndef HADOOP_ACCEL_JBS_READ_AHEAD_BUDGET_H
#define HADOOP_ACCEL_JBS_READ_AHEAD_BUDGET_H

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace hadoop_accel::jbs {

class ReadAheadBudget {
 public:
  // inputs: the merge inputs held by all sessions (each keeps two chunks of chunk_bytes).
  ReadAheadBudget(uint64_t memory_bytes, size_t chunk_bytes, const std::atomic<int64_t>* inputs)
      : memory_bytes_(static_cast<int64_t>(memory_bytes)),
        chunk_bytes_(static_cast<int64_t>(chunk_bytes)),
        inputs_(inputs) {}

  size_t chunk_bytes() const { return static_cast<size_t>(chunk_bytes_); }
  // A chunk the merge needs (or a segment's first): always allowed, and counted.
  void Take(size_t n) { held_.fetch_add(static_cast<int64_t>(n)); }
  // A chunk fetched ahead: allowed while every byte held, n and the inputs' own two chunks fit
  // the budget.
  bool TryTake(size_t n) {
    int64_t limit = memory_bytes_ - 2 * chunk_bytes_ * std::max<int64_t>(0, inputs_->load());
    int64_t held = held_.load();
    do {
      if (held + static_cast<int64_t>(n) > limit) return false;
    } while (!held_.compare_exchange_weak(held, held + static_cast<int64_t>(n)));
    return true;
  }
  void Give(size_t n) { held_.fetch_sub(static_cast<int64_t>(n)); }
  int64_t held() const { return held_.load(); }

 private:
  const int64_t memory_bytes_;
  const int64_t chunk_bytes_;
  const std::atomic<int64_t>* inputs_;
  std::atomic<int64_t> held_{0};
};

}  // namespace hadoop_accel::jbs

#endif
