// A log line that an attacker can trigger at will (a refused MAC, a connection flood) goes
// through a RateLimitedLog, so a flood cannot fill the NodeManager's log.
#ifndef HADOOP_ACCEL_JBS_RATE_LIMITED_LOG_H
#define HADOOP_ACCEL_JBS_RATE_LIMITED_LOG_H

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

namespace hadoop_accel::jbs {

// At most one line per interval to `out`; lines dropped meanwhile are counted and the count
// is appended to the next line that is written. Thread-safe.
class RateLimitedLog {
 public:
  using Clock = std::chrono::steady_clock;
  RateLimitedLog(FILE* out, std::string prefix, Clock::duration interval = std::chrono::seconds(1))
      : out_(out), prefix_(std::move(prefix)), interval_(interval) {}

  // True if the line was written now.
  bool Log(const std::string& line);
  uint64_t suppressed_total() const;

 private:
  FILE* out_;
  const std::string prefix_;
  const Clock::duration interval_;
  mutable std::mutex mu_;
  bool any_ = false;
  Clock::time_point last_{};
  uint64_t dropped_since_last_ = 0;
  uint64_t dropped_total_ = 0;
};

}  // namespace hadoop_accel::jbs

#endif
