#include "index_cache.h"

namespace hadoop_accel::jbs {

IndexStatus IndexCache::Get(const std::string& attempt, const Loader& load,
                            std::shared_ptr<const SpillIndex>* out) {
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = map_.find(attempt);
    if (it != map_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
      ++stats_.hits;
      *out = it->second.index;
      return IndexStatus::kOk;
    }
    ++stats_.misses;
  }
  auto fresh = std::make_shared<SpillIndex>();
  IndexStatus s = load(attempt, fresh.get());
  if (s != IndexStatus::kOk) return s;

  std::lock_guard<std::mutex> g(mu_);
  auto it = map_.find(attempt);
  if (it != map_.end()) {  // another thread loaded it meanwhile: share that copy
    lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
    *out = it->second.index;
    return IndexStatus::kOk;
  }
  *out = fresh;
  if (fresh->MemoryBytes() > budget_) return IndexStatus::kOk;
  lru_.push_front(attempt);
  map_.emplace(attempt, Entry{fresh, lru_.begin()});
  stats_.bytes += fresh->MemoryBytes();
  stats_.entries = map_.size();
  EvictToBudgetLocked();
  return IndexStatus::kOk;
}

void IndexCache::EvictToBudgetLocked() {
  while (stats_.bytes > budget_ && !lru_.empty()) {
    auto it = map_.find(lru_.back());
    stats_.bytes -= it->second.index->MemoryBytes();
    map_.erase(it);
    lru_.pop_back();
    ++stats_.evictions;
  }
  stats_.entries = map_.size();
}

void IndexCache::Remove(const std::string& attempt) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = map_.find(attempt);
  if (it == map_.end()) return;
  stats_.bytes -= it->second.index->MemoryBytes();
  lru_.erase(it->second.lru_pos);
  map_.erase(it);
  stats_.entries = map_.size();
}

IndexCache::Stats IndexCache::stats() const {
  std::lock_guard<std::mutex> g(mu_);
  return stats_;
}

}  // namespace hadoop_accel::jbs
