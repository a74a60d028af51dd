#include "index_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

using namespace hadoop_accel::jbs;

namespace {

// Serves in-memory indexes of `partitions` records each and counts loads per attempt.
struct FakeDisk {
  std::map<std::string, int> loads;
  uint32_t partitions = 4;
  IndexStatus Load(const std::string& attempt, SpillIndex* out) {
    ++loads[attempt];
    if (attempt.find("missing") != std::string::npos) return IndexStatus::kIoError;
    std::vector<IndexRecord> recs(partitions, IndexRecord{0, 1, 1});
    auto bytes = SpillIndex::Serialize(recs);
    return SpillIndex::Parse(bytes.data(), bytes.size(), out);
  }
  IndexCache::Loader loader() {
    return [this](const std::string& a, SpillIndex* o) { return Load(a, o); };
  }
};

size_t EntryBytes(uint32_t partitions) {
  std::vector<IndexRecord> recs(partitions, IndexRecord{0, 1, 1});
  auto bytes = SpillIndex::Serialize(recs);
  SpillIndex s;
  SpillIndex::Parse(bytes.data(), bytes.size(), &s);
  return s.MemoryBytes();
}

}  // namespace

TEST(IndexCache, LoadsOnceThenHits) {
  FakeDisk disk;
  IndexCache cache(1 << 20);
  std::shared_ptr<const SpillIndex> idx;
  for (int i = 0; i < 5; ++i) ASSERT_EQ(cache.Get("a", disk.loader(), &idx), IndexStatus::kOk);
  EXPECT_EQ(disk.loads["a"], 1);
  EXPECT_EQ(idx->partitions(), 4u);
  auto st = cache.stats();
  EXPECT_EQ(st.hits, 4u);
  EXPECT_EQ(st.misses, 1u);
  EXPECT_EQ(st.entries, 1u);
  EXPECT_EQ(st.bytes, EntryBytes(4));
}

TEST(IndexCache, EvictsLeastRecentlyUsedWithinBudget) {
  FakeDisk disk;
  IndexCache cache(3 * EntryBytes(4));  // room for three
  std::shared_ptr<const SpillIndex> idx;
  for (const char* a : {"a", "b", "c"}) cache.Get(a, disk.loader(), &idx);
  cache.Get("a", disk.loader(), &idx);  // a is now the most recent; b the least
  cache.Get("d", disk.loader(), &idx);  // evicts b
  EXPECT_EQ(cache.stats().evictions, 1u);
  EXPECT_EQ(cache.stats().entries, 3u);
  for (const char* a : {"a", "c", "d"}) cache.Get(a, disk.loader(), &idx);
  EXPECT_EQ(disk.loads["a"], 1);
  EXPECT_EQ(disk.loads["c"], 1);
  EXPECT_EQ(disk.loads["d"], 1);
  cache.Get("b", disk.loader(), &idx);  // reloaded, evicting a (least recent now)
  EXPECT_EQ(disk.loads["b"], 2);
  cache.Get("a", disk.loader(), &idx);
  EXPECT_EQ(disk.loads["a"], 2);
  EXPECT_LE(cache.stats().bytes, 3 * EntryBytes(4));
}

TEST(IndexCache, EvictedIndexStaysValidForItsHolder) {
  FakeDisk disk;
  IndexCache cache(EntryBytes(4));
  std::shared_ptr<const SpillIndex> held, other;
  cache.Get("a", disk.loader(), &held);
  cache.Get("b", disk.loader(), &other);  // evicts a from the cache, not from `held`
  IndexRecord r;
  EXPECT_EQ(held->Get(3, &r), IndexStatus::kOk);
  EXPECT_EQ(cache.stats().entries, 1u);
}

TEST(IndexCache, OversizedIndexIsServedButNotCached) {
  FakeDisk disk;
  disk.partitions = 1000;
  IndexCache cache(EntryBytes(4));
  std::shared_ptr<const SpillIndex> idx;
  ASSERT_EQ(cache.Get("big", disk.loader(), &idx), IndexStatus::kOk);
  EXPECT_EQ(idx->partitions(), 1000u);
  EXPECT_EQ(cache.stats().entries, 0u);
  EXPECT_EQ(cache.stats().bytes, 0u);
}

TEST(IndexCache, FailuresAreNotCachedAndRemoveForgets) {
  FakeDisk disk;
  IndexCache cache(1 << 20);
  std::shared_ptr<const SpillIndex> idx;
  EXPECT_EQ(cache.Get("missing", disk.loader(), &idx), IndexStatus::kIoError);
  EXPECT_EQ(cache.Get("missing", disk.loader(), &idx), IndexStatus::kIoError);
  EXPECT_EQ(disk.loads["missing"], 2);
  cache.Get("a", disk.loader(), &idx);
  cache.Remove("a");
  cache.Remove("never-there");
  EXPECT_EQ(cache.stats().bytes, 0u);
  cache.Get("a", disk.loader(), &idx);
  EXPECT_EQ(disk.loads["a"], 2);
}

TEST(IndexCache, ConcurrentReadersShareOneBudget) {
  // Threads hammer overlapping attempts: the budget holds and every lookup gets a full index
  // (run under -fsanitize=thread to check the locking).
  IndexCache cache(4 * EntryBytes(4));
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, &bad, t] {
      FakeDisk disk;  // per thread: its counters are not shared
      auto load = disk.loader();
      for (int i = 0; i < 2000; ++i) {
        std::shared_ptr<const SpillIndex> idx;
        std::string attempt = "m" + std::to_string((i * 7 + t) % 6);
        if (cache.Get(attempt, load, &idx) != IndexStatus::kOk || idx->partitions() != 4) ++bad;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  auto st = cache.stats();
  EXPECT_LE(st.bytes, 4 * EntryBytes(4));
  EXPECT_EQ(st.hits + st.misses, 8000u);
}
