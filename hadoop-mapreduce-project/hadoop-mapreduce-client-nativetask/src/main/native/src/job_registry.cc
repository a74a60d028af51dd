#include "job_registry.h"

#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "ids.h"
#include "map_output_locator.h"

namespace hadoop_accel::jbs {

std::optional<uid_t> LookUpUid(const std::string& user) {
  long hint = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buf(hint > 0 ? static_cast<size_t>(hint) : 4096);
  for (int tries = 0; tries < 8; ++tries) {
    passwd pw{};
    passwd* found = nullptr;
    int e = ::getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found);
    if (e == ERANGE) {
      buf.resize(buf.size() * 2);
      continue;
    }
    if (e != 0 || found == nullptr) return std::nullopt;
    return pw.pw_uid;
  }
  return std::nullopt;
}

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

std::optional<uid_t> JobRegistry::UidOfUser(const std::string& user) const {
  std::lock_guard<std::mutex> g(mu_);
  for (const auto& [job, info] : jobs_)
    if (info.user == user && info.uid) return info.uid;
  return std::nullopt;
}

}  // namespace hadoop_accel::jbs
