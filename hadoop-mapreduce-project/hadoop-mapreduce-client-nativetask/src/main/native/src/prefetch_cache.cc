#include "prefetch_cache.h"

namespace hadoop_accel::jbs {

void PrefetchCache::Put(const std::string& file, uint64_t offset, PrefetchedChunk chunk) {
  Key k{file, offset};
  auto pos = age_.insert(age_.end(), k);
  entries_.emplace(std::move(k), Entry{chunk, pos});
}

std::optional<PrefetchedChunk> PrefetchCache::Take(const std::string& file, uint64_t offset) {
  auto it = entries_.find({file, offset});
  if (it == entries_.end()) return std::nullopt;
  PrefetchedChunk c = it->second.chunk;
  age_.erase(it->second.age_pos);
  entries_.erase(it);
  return c;
}

std::optional<uint32_t> PrefetchCache::EvictOldest() {
  if (age_.empty()) return std::nullopt;
  auto it = entries_.find(age_.front());
  uint32_t b = it->second.chunk.buffer;
  entries_.erase(it);
  age_.pop_front();
  return b;
}

}  // namespace hadoop_accel::jbs
