// The DataCache's read-ahead part (seed 001 Fig. 5): when a chunk of a partition has been read
// for a request, the next chunk of that partition is read into another transport buffer before
// anyone asks, so the NetMerger's next request for the segment is answered from memory.
// Entries are keyed by (file, offset); a bounded number are kept, oldest given up first
// (a reducer that died never asks for its next chunk). Single-threaded: the disk thread's.
#ifndef HADOOP_ACCEL_JBS_PREFETCH_CACHE_H
#define HADOOP_ACCEL_JBS_PREFETCH_CACHE_H

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace hadoop_accel::jbs {

struct PrefetchedChunk {
  uint32_t buffer = 0;
  uint32_t length = 0;  // bytes read into the buffer, from the key's offset on
};

class PrefetchCache {
 public:
  explicit PrefetchCache(size_t capacity) : capacity_(capacity) {}

  bool full() const { return entries_.size() >= capacity_; }
  bool Contains(const std::string& file, uint64_t offset) const {
    return entries_.count({file, offset}) != 0;
  }
  // Stores a chunk; the caller checked !full() and !Contains().
  void Put(const std::string& file, uint64_t offset, PrefetchedChunk chunk);
  // Removes and returns the chunk read at (file, offset), if any.
  std::optional<PrefetchedChunk> Take(const std::string& file, uint64_t offset);
  // Removes the oldest chunk and returns its buffer, to give it to a demand read.
  std::optional<uint32_t> EvictOldest();
  size_t size() const { return entries_.size(); }

 private:
  using Key = std::pair<std::string, uint64_t>;
  struct Entry {
    PrefetchedChunk chunk;
    std::list<Key>::iterator age_pos;
  };
  const size_t capacity_;
  std::map<Key, Entry> entries_;
  std::list<Key> age_;  // front = oldest
};

}  // namespace hadoop_accel::jbs

#endif
