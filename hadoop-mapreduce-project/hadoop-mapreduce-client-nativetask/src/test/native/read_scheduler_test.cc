#include "read_scheduler.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace hadoop_accel::jbs;

namespace {

ReadRequest Req(uint64_t id, const std::string& file, uint64_t offset, uint64_t len = 4096) {
  return ReadRequest{id, file, offset, len};
}

// Issues reads until the scheduler stops; returns "id@buffer" in issue order.
std::vector<std::string> Drain(ReadScheduler& s) {
  std::vector<std::string> out;
  while (auto op = s.Next())
    out.push_back(std::to_string(op->request_id) + "@" + std::to_string(op->buffer));
  return out;
}

std::vector<uint64_t> Ids(ReadScheduler& s, BufferPool& pool) {
  std::vector<uint64_t> ids;
  while (auto op = s.Next()) {
    ids.push_back(op->request_id);
    pool.Release(op->buffer);  // sent at once: buffers never run out
  }
  return ids;
}

}  // namespace

TEST(ReadScheduler, GroupsByFileSortsByOffsetAndTakesTurns) {
  BufferPool pool(4096, 16);
  ReadScheduler s(&pool, /*reads_per_turn=*/1);
  // Arrival order interleaves files and offsets, as reducers' fetches do.
  s.Submit(Req(1, "m0", 300));
  s.Submit(Req(2, "m1", 50));
  s.Submit(Req(3, "m0", 100));
  s.Submit(Req(4, "m2", 0));
  s.Submit(Req(5, "m1", 10));
  s.Submit(Req(6, "m0", 200));
  EXPECT_EQ(s.groups(), 3u);
  // Round 1: m0's lowest (3), m1's lowest (5), m2 (4); round 2: m0 (6), m1 (2); then m0 (1).
  EXPECT_EQ(Ids(s, pool), (std::vector<uint64_t>{3, 5, 4, 6, 2, 1}));
  EXPECT_EQ(s.pending(), 0u);
  EXPECT_EQ(s.groups(), 0u);
}

TEST(ReadScheduler, ReadsPerTurnKeepsAFileSequential) {
  BufferPool pool(4096, 16);
  ReadScheduler s(&pool, 2);
  for (uint64_t i = 0; i < 4; ++i) s.Submit(Req(10 + i, "a", i * 100));
  for (uint64_t i = 0; i < 3; ++i) s.Submit(Req(20 + i, "b", i * 100));
  EXPECT_EQ(Ids(s, pool), (std::vector<uint64_t>{10, 11, 20, 21, 12, 13, 22}));
}

TEST(ReadScheduler, NewFileQueuesBehindEveryWaitingFile) {
  BufferPool pool(4096, 16);
  ReadScheduler s(&pool, 1);
  s.Submit(Req(1, "a", 0));
  s.Submit(Req(2, "a", 1));
  s.Submit(Req(3, "b", 0));
  s.Submit(Req(4, "b", 1));
  auto first = s.Next();  // a's turn
  EXPECT_EQ(first->request_id, 1u);
  s.Submit(Req(5, "c", 0));  // b and then a are waiting for their turns: c comes after both
  std::vector<uint64_t> ids{first->request_id};
  pool.Release(first->buffer);
  for (uint64_t id : Ids(s, pool)) ids.push_back(id);
  EXPECT_EQ(ids, (std::vector<uint64_t>{1, 3, 2, 5, 4}));
}

TEST(ReadScheduler, StopsWhenBuffersRunOutAndReusesReleasedOnes) {
  BufferPool pool(4096, 2);
  ReadScheduler s(&pool, 1);
  for (uint64_t i = 0; i < 5; ++i) s.Submit(Req(i, i % 2 ? "odd" : "even", i * 4096));
  EXPECT_EQ(Drain(s), (std::vector<std::string>{"0@0", "1@1"}));
  EXPECT_EQ(s.pending(), 3u);
  ASSERT_TRUE(pool.Release(1));  // the chunk in buffer 1 has been sent
  EXPECT_EQ(Drain(s), (std::vector<std::string>{"2@1"}));
  ASSERT_TRUE(pool.Release(0));
  ASSERT_TRUE(pool.Release(1));
  EXPECT_EQ(Drain(s), (std::vector<std::string>{"3@0", "4@1"}));
  EXPECT_FALSE(s.Next().has_value());
}

TEST(ReadScheduler, AReadFillsAtMostOneBuffer) {
  BufferPool pool(8192, 4);
  ReadScheduler s(&pool);
  s.Submit(Req(1, "a", 1000, 1 << 20));
  s.Submit(Req(2, "a", 0, 100));
  auto op = s.Next();
  EXPECT_EQ(op->request_id, 2u);
  EXPECT_EQ(op->length, 100u);
  op = s.Next();
  EXPECT_EQ(op->file, "a");
  EXPECT_EQ(op->file_offset, 1000u);
  EXPECT_EQ(op->length, 8192u);  // the rest is the client's next request
}

TEST(ReadScheduler, EqualOffsetsKeepArrivalOrder) {
  BufferPool pool(4096, 8);
  ReadScheduler s(&pool, 8);
  s.Submit(Req(7, "a", 0));
  s.Submit(Req(8, "a", 0));
  s.Submit(Req(9, "a", 0));
  EXPECT_EQ(Ids(s, pool), (std::vector<uint64_t>{7, 8, 9}));
}
