#include "open_file_cache.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace hadoop_accel::jbs {

OpenFileCache::OpenFileCache(size_t capacity, Opener opener)
    : capacity_(capacity == 0 ? 1 : capacity), opener_(std::move(opener)) {
  if (!opener_)
    opener_ = [](const std::string& path) {
      return ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    };
}

size_t OpenFileCache::DropContaining(const std::string& part) {
  std::vector<std::string> doomed;
  for (const auto& [path, e] : fds_)
    if (path.find(part) != std::string::npos) doomed.push_back(path);
  for (const std::string& p : doomed) Drop(p);
  return doomed.size();
}

OpenFileCache::~OpenFileCache() {
  for (auto& [path, e] : fds_) ::close(e.fd);
}

int OpenFileCache::Get(const std::string& path) {
  auto it = fds_.find(path);
  if (it != fds_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
    return it->second.fd;
  }
  int fd = opener_(path);
  if (fd < 0) return -1;
  ++opens_;
  // Reads go in offset order per file: tell the kernel to read ahead generously.
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  while (fds_.size() >= capacity_) Drop(std::string(lru_.back()));  // a copy: Drop frees it
  lru_.push_front(path);
  fds_.emplace(path, Entry{fd, lru_.begin()});
  return fd;
}

void OpenFileCache::Drop(const std::string& path) {
  auto it = fds_.find(path);
  if (it == fds_.end()) return;
  ::close(it->second.fd);
  lru_.erase(it->second.lru_pos);
  fds_.erase(it);
}

bool PreadExact(int fd, uint8_t* buf, size_t n, uint64_t off) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, buf + got, n - got, static_cast<off_t>(off + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  return got == n;
}

bool OpenFileCache::ReadFully(const std::string& path, uint8_t* buf, size_t n, uint64_t off) {
  int fd = Get(path);
  if (fd < 0) return false;
  bool ok = PreadExact(fd, buf, n, off);
  if (!ok) Drop(path);
  return ok;
}

}  // namespace hadoop_accel::jbs
