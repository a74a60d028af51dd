#include "spill_sweep.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace hadoop_accel::jbs {
namespace {

constexpr char kRunPrefix[] = "jbs_run_";
constexpr char kLockName[] = ".jbs_net_merger.lock";

// Removes the run files directly in dir_fd; counts them into *out.
void Sweep(int dir_fd, SpillDirLocks::Swept* out) {
  int list_fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (list_fd < 0) return;
  DIR* d = ::fdopendir(list_fd);
  if (d == nullptr) {
    ::close(list_fd);
    return;
  }
  const uid_t me = ::geteuid();
  while (dirent* e = ::readdir(d)) {
    if (!IsRunFileName(e->d_name)) continue;
    struct stat st;
    // No symlink is followed, and only our own regular files go.
    if (::fstatat(dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != me)
      continue;
    if (::unlinkat(dir_fd, e->d_name, 0) == 0) {
      ++out->files;
      out->bytes += static_cast<uint64_t>(st.st_size);
    }
  }
  ::closedir(d);
}

// LOCK_SH, waiting at most a few seconds for another daemon's sweep to end.
bool LockShared(int fd) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) return false;
    if (std::chrono::steady_clock::now() > deadline) return false;
    ::poll(nullptr, 0, 10);
  }
  return true;
}

}  // namespace

bool IsRunFileName(const char* name) {
  size_t n = std::strlen(name);
  return n == sizeof(kRunPrefix) - 1 + 6 &&
         std::strncmp(name, kRunPrefix, sizeof(kRunPrefix) - 1) == 0;
}

SpillDirLocks::~SpillDirLocks() {
  for (int fd : fds_) ::close(fd);
}

SpillDirLocks::Swept SpillDirLocks::LockAndSweep(const std::vector<std::string>& dirs) {
  Swept out;
  for (const std::string& dir : dirs) {
    int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir_fd < 0) {
      out.not_swept.push_back(dir + ": " + std::strerror(errno));
      continue;
    }
    int fd =
        ::openat(dir_fd, kLockName, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    struct stat st;
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) {
      out.not_swept.push_back(dir + ": lock file " + kLockName + " is not this user's own");
      if (fd >= 0) ::close(fd);
      ::close(dir_fd);
      continue;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      Sweep(dir_fd, &out);
    } else {
      out.not_swept.push_back(dir + ": in use by another NetMerger");
    }
    // Shared from now on: other NetMergers may share the dir, none may sweep it.
    if (!LockShared(fd)) out.not_swept.push_back(dir + ": no shared lock");
    fds_.push_back(fd);
    ::close(dir_fd);
  }
  return out;
}

}  // namespace hadoop_accel::jbs
