// Open map output files, so a partition fetched chunk by chunk does not cost an open/close per
// chunk. Least-recently-used descriptors are closed beyond `capacity`. Single-threaded: the
// disk thread owns it (pread on a shared descriptor would be safe, the LRU list would not).
#ifndef HADOOP_ACCEL_JBS_OPEN_FILE_CACHE_H
#define HADOOP_ACCEL_JBS_OPEN_FILE_CACHE_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <string>
#include <unordered_map>

namespace hadoop_accel::jbs {

// Reads exactly n bytes at off from fd (retrying short reads and EINTR); false on an error or
// if the file ends first (the index promised more than file.out holds).
bool PreadExact(int fd, uint8_t* buf, size_t n, uint64_t off);

class OpenFileCache {
 public:
  // Opens a path for reading: a descriptor, or -1. The supplier's opener refuses symlinks and
  // files its job's user does not own (MapOutputLocator::OpenServed).
  using Opener = std::function<int(const std::string& path)>;
  // Without an opener: open(O_RDONLY | O_NOFOLLOW).
  explicit OpenFileCache(size_t capacity, Opener opener = nullptr);
  ~OpenFileCache();
  OpenFileCache(const OpenFileCache&) = delete;
  OpenFileCache& operator=(const OpenFileCache&) = delete;

  // Reads exactly n bytes at off of the file at path; false on any error or if the file ends
  // first (then the descriptor is dropped, in case the file was replaced).
  bool ReadFully(const std::string& path, uint8_t* buf, size_t n, uint64_t off);

  // Closes every descriptor whose path contains `part` (REMOVE_JOB: "/<application id>/"),
  // so a finished job's deleted map outputs do not keep their disk space.
  size_t DropContaining(const std::string& part);

  size_t open_files() const { return fds_.size(); }
  uint64_t opens() const { return opens_; }

 private:
  int Get(const std::string& path);
  void Drop(const std::string& path);

  struct Entry {
    int fd;
    std::list<std::string>::iterator lru_pos;
  };
  const size_t capacity_;
  Opener opener_;
  std::list<std::string> lru_;  // front = most recently used
  std::unordered_map<std::string, Entry> fds_;
  uint64_t opens_ = 0;
};

}  // namespace hadoop_accel::jbs

#endif
