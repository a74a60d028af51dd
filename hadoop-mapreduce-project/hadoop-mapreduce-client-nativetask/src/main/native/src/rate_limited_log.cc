#include "rate_limited_log.h"

namespace hadoop_accel::jbs {

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
