// Jobs this node serves: which user owns each (it names the output directory) and its shuffle
// secret (the job token, for the HMAC check that is still to come). Filled by the NodeManager
// aux service when an application starts, emptied when it finishes. Thread-safe.
#ifndef HADOOP_ACCEL_JBS_JOB_REGISTRY_H
#define HADOOP_ACCEL_JBS_JOB_REGISTRY_H

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace hadoop_accel::jbs {

struct JobInfo {
  std::string user;
  std::string secret;
};

class JobRegistry {
 public:
  // False (nothing stored) if the job id or user name is invalid.
  bool Register(const std::string& job, JobInfo info);
  void Unregister(const std::string& job);
  std::optional<JobInfo> Find(const std::string& job) const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, JobInfo> jobs_;
};

}  // namespace hadoop_accel::jbs

#endif
