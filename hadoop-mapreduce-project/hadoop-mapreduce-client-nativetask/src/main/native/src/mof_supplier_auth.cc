#include "mof_supplier_auth.h"

#include "job_auth.h"

namespace hadoop_accel::jbs {

bool AuthorizeFetchMac(const FetchRequest& req, const JobInfo& job) {
  // FetchMac, optionally followed by the client's nonce for the reply proof (job_auth.h).
  if (req.auth.size() != kMacLength && req.auth.size() != kMacLength + kNonceLength) return false;
  return MacEquals(std::string_view(req.auth).substr(0, kMacLength),
                   FetchMac(job.secret, req.job_id, req.map_attempt_id, req.partition));
}

bool RateLimitedLog::Log(const std::string& line) {
  std::lock_guard<std::mutex> g(mu_);
  Clock::time_point now = Clock::now();
  if (any_ && now - last_ < interval_) {
    ++dropped_since_last_;
    ++dropped_total_;
    return false;
  }
  if (dropped_since_last_ > 0)
    std::fprintf(out_, "%s%s (%llu similar lines suppressed)\n", prefix_.c_str(), line.c_str(),
                 static_cast<unsigned long long>(dropped_since_last_));
  else
    std::fprintf(out_, "%s%s\n", prefix_.c_str(), line.c_str());
  std::fflush(out_);
  any_ = true;
  last_ = now;
  dropped_since_last_ = 0;
  return true;
}

uint64_t RateLimitedLog::suppressed_total() const {
  std::lock_guard<std::mutex> g(mu_);
  return dropped_total_;
}

}  // namespace hadoop_accel::jbs
