#include "map_output_locator.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

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

MapOutputLocator::MapOutputLocator(std::vector<std::string> local_dirs)
    : local_dirs_(std::move(local_dirs)) {
  for (std::string& d : local_dirs_)  // "d/" would make OpenServed miss its own paths
    while (d.size() > 1 && d.back() == '/') d.pop_back();
}

int OpenBelow(const std::string& root, std::string_view rel, int* err) {
  int dir = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    *err = errno;
    return -1;
  }
  for (size_t start = 0;;) {
    size_t slash = rel.find('/', start);
    bool last = slash == std::string_view::npos;
    std::string name(rel.substr(start, last ? std::string_view::npos : slash - start));
    // Directories only need search permission (O_PATH); the file is opened non-blocking so a
    // FIFO planted in its place cannot stall the disk thread (IsServableFile refuses it).
    int flags = O_NOFOLLOW | O_CLOEXEC | (last ? O_RDONLY | O_NONBLOCK : O_PATH | O_DIRECTORY);
    int fd = name.empty() || name == "." || name == ".." ? (errno = EINVAL, -1)
                                                         : ::openat(dir, name.c_str(), flags);
    int e = errno;
    ::close(dir);
    if (fd < 0) {
      *err = e;
      return -1;
    }
    if (last) return fd;
    dir = fd;
    start = slash + 1;
  }
}

bool IsServableFile(int fd, uid_t owner, std::string* why) {
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    *why = std::string("fstat: ") + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    *why = "not a regular file";
    return false;
  }
  if (st.st_uid != owner) {
    *why = "owned by uid " + std::to_string(st.st_uid) + ", not the job's user (uid " +
           std::to_string(owner) + ")";
    return false;
  }
  return true;
}

Located MapOutputLocator::Locate(std::string_view user, uid_t owner, std::string_view job,
                                 std::string_view attempt, MapOutputPaths* out,
                                 std::string* why) const {
  std::string rel = AttemptOutputDir(user, job, attempt);
  if (rel.empty()) return Located::kMissing;
  // Hadoop's LocalDirAllocator picks a dir per file, so a map's file.out and file.out.index
  // may sit under different local dirs (seen with 24 MB map outputs): look each one up on its
  // own, as stock ShuffleHandler does.
  std::string index, data;
  Located l = FirstFile(rel + "/file.out.index", owner, &index, why);
  if (l != Located::kFound) return l;
  l = FirstFile(rel + "/file.out", owner, &data, why);
  if (l != Located::kFound) return l;
  out->data = std::move(data);
  out->index = std::move(index);
  return Located::kFound;
}

Located MapOutputLocator::FirstFile(const std::string& rel, uid_t owner, std::string* path,
                                    std::string* why) const {
  for (const std::string& dir : local_dirs_) {
    int err = 0;
    int fd = OpenBelow(dir, rel, &err);
    if (fd < 0) {
      if (err == ENOENT) continue;
      *why = dir;
      *why += "/";
      *why += rel;
      *why += ": ";
      *why += err == ELOOP || err == ENOTDIR ? "a symlink in the path" : std::strerror(err);
      return Located::kUnsafe;
    }
    bool ok = IsServableFile(fd, owner, why);
    ::close(fd);
    if (!ok) {
      std::string reason = std::move(*why);
      *why = dir;
      *why += "/";
      *why += rel;
      *why += ": ";
      *why += reason;
      return Located::kUnsafe;
    }
    *path = dir;
    *path += "/";
    *path += rel;
    return Located::kFound;
  }
  return Located::kMissing;
}

int MapOutputLocator::OpenServed(const std::string& path, const OwnerOf& owner_of,
                                 std::string* why) const {
  constexpr std::string_view kUserCache = "usercache/";
  for (const std::string& dir : local_dirs_) {
    if (path.size() <= dir.size() + 1 || path.compare(0, dir.size(), dir) != 0 ||
        path[dir.size()] != '/')
      continue;
    std::string_view rel = std::string_view(path).substr(dir.size() + 1);
    if (rel.substr(0, kUserCache.size()) != kUserCache) continue;
    std::string_view user = rel.substr(kUserCache.size());
    user = user.substr(0, user.find('/'));
    std::optional<uid_t> owner = owner_of(std::string(user));
    if (!owner) {
      *why = path + ": no registered job of user " + std::string(user);
      return -1;
    }
    int err = 0;
    int fd = OpenBelow(dir, rel, &err);
    if (fd < 0) {
      *why = path + ": " + std::strerror(err);
      return -1;
    }
    if (!IsServableFile(fd, *owner, why)) {
      *why = path + ": " + *why;
      ::close(fd);
      return -1;
    }
    return fd;
  }
  *why = path + ": under no local dir";
  return -1;
}

}  // namespace hadoop_accel::jbs
