#include "block_balancer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

using namespace hadoop_accel::coomr;

TEST(MaxMinFairShares, SmallDemandsAreMetAndTheRestSplitEvenly) {
  EXPECT_EQ(MaxMinFairShares(100, {5, 20, 200, 300}), (std::vector<uint64_t>{5, 20, 37, 38}));
  EXPECT_EQ(MaxMinFairShares(100, {300, 5, 200, 20}), (std::vector<uint64_t>{38, 5, 37, 20}));
  EXPECT_EQ(MaxMinFairShares(100, {10, 10}), (std::vector<uint64_t>{10, 10}));  // pool to spare
  EXPECT_EQ(MaxMinFairShares(3, {9, 9, 9, 9}), (std::vector<uint64_t>{0, 1, 1, 1}));
  EXPECT_TRUE(MaxMinFairShares(7, {}).empty());
}

// Every client asks one block at a time, in a random order, for its (skewed) demand; whenever
// the pool is dry the balancer's victim gives one block back (its data flushed), and that
// client asks for it again. Once nothing more moves, each holds its max-min fair share to
// within one block, and the pool was never over-committed.
TEST(BlockBalancer, SkewedDemandsConvergeToMaxMinFairSharesWithinOneBlock) {
  const std::vector<uint64_t> demands = {3, 17, 60, 250, 400};
  const uint64_t total = 128;
  std::mt19937 rng(7);
  BlockBalancer b(total);
  std::vector<ClientId> ids;
  for (size_t i = 0; i < demands.size(); i++) {
    ids.push_back(b.Join());
  }
  std::vector<uint64_t> asked(demands.size(), 0);
  auto held_sum = [&] {
    uint64_t s = 0;
    for (ClientId id : ids) {
      s += b.Held(id);
    }
    return s;
  };
  // Arrivals: the biggest client asks first and takes the whole pool, the others come later.
  std::vector<size_t> arrivals;
  for (size_t i = 0; i < demands.size(); i++) {
    arrivals.insert(arrivals.end(), demands[i], i);
  }
  std::stable_partition(arrivals.begin(), arrivals.end(), [](size_t i) { return i == 4; });
  std::shuffle(arrivals.begin() + 400, arrivals.end(), rng);
  for (size_t i : arrivals) {
    asked[i]++;
    b.Want(ids[i], asked[i] - b.Held(ids[i]));
    b.Distribute();
    ASSERT_EQ(held_sum() + b.free_blocks(), total);
  }
  for (int step = 0; step < 10000; step++) {
    std::optional<ClientId> victim = b.FlushVictim();
    if (!victim) {
      break;
    }
    b.Release(*victim, 1);
    size_t i = *victim - ids[0];
    b.Want(*victim, demands[i] - b.Held(*victim));  // it still wants its whole demand
    b.Distribute();
    ASSERT_LE(held_sum(), total);
  }
  ASSERT_FALSE(b.FlushVictim().has_value());
  std::vector<uint64_t> fair = MaxMinFairShares(total, demands);
  for (size_t i = 0; i < demands.size(); i++) {
    EXPECT_LE(b.Held(ids[i]), fair[i] + 1) << "client " << i;
    EXPECT_GE(b.Held(ids[i]) + 1, fair[i]) << "client " << i;
  }
  EXPECT_EQ(held_sum(), total);
}

TEST(BlockBalancer, GivesTheNextBlockToWhoeverHoldsFewest) {
  BlockBalancer b(5);
  ClientId a = b.Join();
  ClientId c = b.Join();
  b.Want(a, 2);
  EXPECT_EQ(b.Distribute(), (std::vector<std::pair<ClientId, uint64_t>>{{a, 2}}));
  b.Want(a, 10);
  b.Want(c, 10);
  // c holds 0 and a holds 2: c gets two first, then they alternate, earlier client on ties.
  EXPECT_EQ(b.Distribute(), (std::vector<std::pair<ClientId, uint64_t>>{{a, 1}, {c, 2}}));
  EXPECT_EQ(b.Held(a), 3u);
  EXPECT_EQ(b.Held(c), 2u);
  EXPECT_EQ(b.free_blocks(), 0u);
  EXPECT_TRUE(b.Distribute().empty());
}

TEST(BlockBalancer, AFinishedTasksBlocksAreFlushedFirst) {
  BlockBalancer b(10);
  ClientId done = b.Join();
  ClientId big = b.Join();
  b.Want(done, 4);
  b.Want(big, 6);
  b.Distribute();
  b.Finish(done);  // its 4 blocks still hold data to write out
  ClientId late = b.Join();
  b.Want(late, 5);
  EXPECT_TRUE(b.Distribute().empty());
  EXPECT_EQ(b.FairShares().at(late), 5u);
  EXPECT_EQ(b.FlushVictim(), done);  // not big, although big is over its share too
  b.Release(done, 4);                // done is forgotten now
  EXPECT_THROW(b.Held(done), std::invalid_argument);
  b.Distribute();
  EXPECT_EQ(b.Held(late), 4u);
  EXPECT_EQ(b.FlushVictim(), big);  // 6 > its share of 5, and late is one short
  b.Release(big, 1);
  b.Distribute();
  EXPECT_EQ(b.Held(late), 5u);
  EXPECT_FALSE(b.FlushVictim().has_value());
}

TEST(BlockBalancer, NobodyIsFlushedWhileBlocksAreFreeOrEveryoneHasItsShare) {
  BlockBalancer b(4);
  ClientId a = b.Join();
  ClientId c = b.Join();
  b.Want(a, 1);
  b.Distribute();
  EXPECT_FALSE(b.FlushVictim().has_value());  // 3 free
  b.Want(a, 9);
  b.Want(c, 9);
  b.Distribute();
  EXPECT_EQ(b.Held(a), 2u);
  EXPECT_EQ(b.Held(c), 2u);
  EXPECT_FALSE(b.FlushVictim().has_value());  // both short of demand, both at their share
}

TEST(BlockBalancer, RefusesWhatIsNotItsToRelease) {
  EXPECT_THROW(BlockBalancer(0), std::invalid_argument);
  BlockBalancer b(3);
  ClientId a = b.Join();
  b.Want(a, 2);
  b.Distribute();
  EXPECT_THROW(b.Release(a, 3), std::invalid_argument);
  EXPECT_EQ(b.Held(a), 2u);
  EXPECT_THROW(b.Want(99, 1), std::invalid_argument);
  b.Finish(a);
  EXPECT_THROW(b.Want(a, 1), std::invalid_argument);
  EXPECT_EQ(b.free_blocks(), 1u);  // a's data is still in its 2 blocks
}

TEST(BlockBalancer, TryGrantIsAllOrNothingAndKeepsAWaitingTasksShare) {
  BlockBalancer b(10);
  ClientId big = b.Join();
  ClientId small = b.Join();
  EXPECT_TRUE(b.TryGrant(big, 7));     // nobody else waits: it may exceed its share
  EXPECT_FALSE(b.TryGrant(small, 4));  // only 3 are free: nothing granted
  EXPECT_EQ(b.Held(small), 0u);
  EXPECT_EQ(b.Wanted(small), 4u);  // but its demand is on record
  b.Release(big, 2);               // big wrote a spill out: 5 free
  // small waits for 4; big asks for 2 more: shares of 10 over demands 7 and 4 are 6 and 4, so
  // big would go over its share while small waits.
  EXPECT_FALSE(b.TryGrant(big, 2));
  EXPECT_TRUE(b.TryGrant(small, 4));
  EXPECT_EQ(b.Wanted(small), 0u);
  EXPECT_TRUE(b.TryGrant(big, 1));  // nobody waits any more
  EXPECT_EQ(b.free_blocks(), 0u);
}
