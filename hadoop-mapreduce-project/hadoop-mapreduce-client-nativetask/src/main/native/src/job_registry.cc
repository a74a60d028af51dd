#include "job_registry.h"

#include "ids.h"
#include "map_output_locator.h"

namespace hadoop_accel::jbs {

bool JobRegistry::Register(const std::string& job, JobInfo info) {
  if (!IsValidJobId(job) || !IsValidUserName(info.user)) return false;
  std::lock_guard<std::mutex> g(mu_);
  jobs_[job] = std::move(info);
  return true;
}

void JobRegistry::Unregister(const std::string& job) {
  std::lock_guard<std::mutex> g(mu_);
  jobs_.erase(job);
}

std::optional<JobInfo> JobRegistry::Find(const std::string& job) const {
  std::lock_guard<std::mutex> g(mu_);
  auto it = jobs_.find(job);
  if (it == jobs_.end()) return std::nullopt;
  return it->second;
}

}  // namespace hadoop_accel::jbs
