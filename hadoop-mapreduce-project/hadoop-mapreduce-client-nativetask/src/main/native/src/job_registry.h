// Jobs this node serves: which user owns each (it names the output directory; its uid must own
// the files served) and its shuffle secret (the job token, for the HMAC checks). Filled by the
// NodeManager aux service when an application starts, emptied when it finishes. Thread-safe.
#ifndef HADOOP_ACCEL_JBS_JOB_REGISTRY_H
#define HADOOP_ACCEL_JBS_JOB_REGISTRY_H

#include <sys/types.h>

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace hadoop_accel::jbs {

struct JobInfo {
  std::string user;
  std::string secret;
  std::optional<uid_t> uid;  // the user's uid on this node; files are served only if it owns them
};

// The uid of a local user (getpwnam_r), or nothing if there is no such user.
std::optional<uid_t> LookUpUid(const std::string& user);

class JobRegistry {
 public:
  // False (nothing stored) if the job id or user name is invalid.
  bool Register(const std::string& job, JobInfo info);
  void Unregister(const std::string& job);
  std::optional<JobInfo> Find(const std::string& job) const;
  // The uid of any registered job of this user (all carry the same), if one is known.
  std::optional<uid_t> UidOfUser(const std::string& user) const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, JobInfo> jobs_;
};

}  // namespace hadoop_accel::jbs

#endif
