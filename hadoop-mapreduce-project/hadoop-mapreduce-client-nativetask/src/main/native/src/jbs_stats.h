// Counters the JBS daemons keep for the NodeManager's metrics (JbsMetrics on the Java side),
// and the answer to the control channel's STATS command that carries them:
//
//   STATS  ->  STATS 1 <name>=<value> <name>=<value> ...
//
// Version 1: names are 1..64 of [a-z0-9_], values unsigned decimals below 2^63 (a Java long),
// at most kMaxStatsFields fields, no name twice, the whole line at most kMaxStatsLine bytes.
// A reader ignores names it does not know (a newer daemon may add some) and refuses any other
// version. Counters only grow while a process lives; names starting "active_" are gauges.
#ifndef HADOOP_ACCEL_JBS_JBS_STATS_H
#define HADOOP_ACCEL_JBS_JBS_STATS_H

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hadoop_accel::jbs {

using StatsFields = std::vector<std::pair<std::string, uint64_t>>;

constexpr int kStatsVersion = 1;
constexpr size_t kMaxStatsFields = 128;
constexpr size_t kMaxStatsLine = 4096;
constexpr uint64_t kMaxStatsValue = (1ull << 63) - 1;

// The STATS answer line (no newline). Values above kMaxStatsValue are clamped to it; a name
// that is not valid, or one field too many, is left out (a daemon bug must not break the
// reader).
std::string EncodeStats(const StatsFields& fields);
// Parses a STATS answer; false with *error naming what is wrong.
bool DecodeStats(const std::string& line, StatsFields* out, std::string* error);

// A latency distribution in fixed buckets (upper bounds below, then one beyond the last),
// lock-free: Record may run on any thread while another takes a snapshot.
class LatencyHistogram {
 public:
  static constexpr std::array<uint64_t, 8> kUpperBoundsMs = {1, 4, 16, 64, 256, 1000, 4000, 16000};
  void Record(std::chrono::steady_clock::duration d);
  // <prefix>_le_<bound>ms per bucket (not cumulative), <prefix>_gt_16000ms, <prefix>_count and
  // <prefix>_sum_us.
  void AppendTo(const std::string& prefix, StatsFields* out) const;

 private:
  std::array<std::atomic<uint64_t>, kUpperBoundsMs.size() + 1> buckets_{};
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> sum_us_{0};
};

// What the NetMerger's FetchClient counts: every chunk request, from Fetch to its outcome
// (queueing and retries included).
struct FetchStats {
  std::atomic<uint64_t> bytes{0};     // chunk bytes received from suppliers
  std::atomic<uint64_t> failures{0};  // chunk requests that failed after their retries
  LatencyHistogram latency;
};

// What the NetMerger's sessions count (SessionContext holds one for all sessions).
struct MergerStats {
  std::atomic<uint64_t> sessions{0};       // successful REGISTERs
  std::atomic<uint64_t> auth_refusals{0};  // REGISTER with an unknown job or a bad MAC
  std::atomic<uint64_t> merges{0};         // merged streams sent whole (END)
  std::atomic<uint64_t> bytes_merged{0};   // merged stream bytes sent to reducers
  std::atomic<uint64_t> bytes_spilled{0};  // hierarchical merge runs written
};

}  // namespace hadoop_accel::jbs

#endif
