#include "fetch_planner.h"

#include <gtest/gtest.h>

using namespace hadoop_accel::jbs;

namespace {

SpillIndex Index() {
  auto bytes = SpillIndex::Serialize({{0, 500, 300}, {300, 9000, 5000}});
  SpillIndex idx;
  SpillIndex::Parse(bytes.data(), bytes.size(), &idx);
  return idx;
}

FetchRequest Req(uint32_t partition, uint64_t offset, uint32_t max_length) {
  FetchRequest r;
  r.request_id = 5;
  r.partition = partition;
  r.offset = offset;
  r.max_length = max_length;
  return r;
}

}  // namespace

TEST(FetchPlanner, ChunkIsBoundedByPartitionRequestAndBuffer) {
  SpillIndex idx = Index();
  FetchPlan p;
  ASSERT_EQ(PlanFetch(Req(1, 0, 1 << 20), idx, 4096, &p), ResponseStatus::kOk);
  EXPECT_EQ(p.file_offset, 300u);
  EXPECT_EQ(p.header.chunk_length, 4096u);  // the buffer
  EXPECT_EQ(p.header.raw_length, 9000u);
  EXPECT_EQ(p.header.part_length, 5000u);
  EXPECT_EQ(p.header.request_id, 5u);
  ASSERT_EQ(PlanFetch(Req(1, 4096, 1 << 20), idx, 4096, &p), ResponseStatus::kOk);
  EXPECT_EQ(p.file_offset, 300u + 4096);
  EXPECT_EQ(p.header.chunk_offset, 4096u);
  EXPECT_EQ(p.header.chunk_length, 904u);  // the partition's end
  ASSERT_EQ(PlanFetch(Req(0, 10, 100), idx, 4096, &p), ResponseStatus::kOk);
  EXPECT_EQ(p.header.chunk_length, 100u);  // the request
  EXPECT_EQ(p.file_offset, 10u);
}

TEST(FetchPlanner, EndAndBeyond) {
  SpillIndex idx = Index();
  FetchPlan p;
  ASSERT_EQ(PlanFetch(Req(0, 300, 100), idx, 4096, &p), ResponseStatus::kOk);
  EXPECT_EQ(p.header.chunk_length, 0u);
  EXPECT_EQ(PlanFetch(Req(0, 301, 100), idx, 4096, &p), ResponseStatus::kBadRequest);
  EXPECT_EQ(PlanFetch(Req(2, 0, 100), idx, 4096, &p), ResponseStatus::kNotFound);
}
