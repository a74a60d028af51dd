// The MOFSupplier's authorizer (DESIGN.md §2): a fetch is served only if its auth field is
// the job-token MAC of exactly this job, attempt and partition. Refusals are logged, but at a
// bounded rate, so a flood of bad requests cannot fill the NodeManager's log.
#ifndef HADOOP_ACCEL_JBS_MOF_SUPPLIER_AUTH_H
#define HADOOP_ACCEL_JBS_MOF_SUPPLIER_AUTH_H

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

#include "job_registry.h"
#include "wire_format.h"

namespace hadoop_accel::jbs {

// req.auth is FetchMac(job.secret, job id, attempt, partition), alone or followed by the
// client's 16-byte nonce; anything else fails.
bool AuthorizeFetchMac(const FetchRequest& req, const JobInfo& job);

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
