#include "map_output_locator.h"

#include <sys/stat.h>

#include <cstdint>
#include <cstdio>

#include "ids.h"

namespace hadoop_accel::jbs {

bool IsValidUserName(std::string_view user) {
  if (user.empty() || user.size() > 64 || user == "." || user == ".." || user[0] == '-')
    return false;
  for (char c : user) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '@' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string ApplicationIdOfJob(std::string_view job) {
  if (!IsValidJobId(job)) return "";
  std::string_view rest = job.substr(4);  // "<ts>_<n>"
  size_t us = rest.find('_');
  std::string_view ts = rest.substr(0, us);
  uint64_t n = 0;
  for (char c : rest.substr(us + 1)) {
    n = n * 10 + static_cast<uint64_t>(c - '0');
    if (n > INT32_MAX) return "";  // Hadoop's JobID number is an int
  }
  char num[16];
  std::snprintf(num, sizeof(num), "%04llu", static_cast<unsigned long long>(n));
  return "application_" + std::string(ts) + "_" + num;
}

std::string AttemptOutputDir(std::string_view user, std::string_view job,
                             std::string_view attempt) {
  if (!IsValidUserName(user) || !AttemptBelongsToJob(attempt, job)) return "";
  std::string app = ApplicationIdOfJob(job);
  if (app.empty()) return "";
  return "usercache/" + std::string(user) + "/appcache/" + app + "/output/" + std::string(attempt);
}

bool MapOutputLocator::Locate(std::string_view user, std::string_view job, std::string_view attempt,
                              MapOutputPaths* out) const {
  std::string rel = AttemptOutputDir(user, job, attempt);
  if (rel.empty()) return false;
  // Hadoop's LocalDirAllocator picks a dir per file, so a map's file.out and file.out.index
  // may sit under different local dirs (seen with 24 MB map outputs): look each one up on its
  // own, as stock ShuffleHandler does.
  std::string index = FirstRegularFile(rel + "/file.out.index");
  if (index.empty()) return false;
  std::string data = FirstRegularFile(rel + "/file.out");
  if (data.empty()) return false;
  out->data = std::move(data);
  out->index = std::move(index);
  return true;
}

std::string MapOutputLocator::FirstRegularFile(const std::string& rel) const {
  for (const std::string& dir : local_dirs_) {
    std::string path = dir + "/" + rel;
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return path;
  }
  return "";
}

}  // namespace hadoop_accel::jbs
