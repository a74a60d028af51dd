#include "spill_index.h"

#include <gtest/gtest.h>

#include "byte_order.h"
#include "hadoop_accel/accel.h"
#include "test_files.h"

using namespace hadoop_accel::jbs;

namespace {

// Builds an index the way Hadoop's SpillRecord.writeToFile lays it out, byte by byte and
// independently of SpillIndex::Serialize: three big-endian longs per partition, then the
// CRC-32 of those bytes as a big-endian long.
std::vector<uint8_t> HadoopIndex(const std::vector<IndexRecord>& recs) {
  std::vector<uint8_t> b;
  auto put_long = [&b](uint64_t v) {
    for (int shift = 56; shift >= 0; shift -= 8) b.push_back(static_cast<uint8_t>(v >> shift));
  };
  for (const auto& r : recs) {
    put_long(r.start_offset);
    put_long(r.raw_length);
    put_long(r.part_length);
  }
  put_long(hacc_crc32_update(0, b.data(), b.size()));
  return b;
}

// A map output with three partitions, the middle one empty (IFile's 2-byte EOF + 4-byte CRC).
const std::vector<IndexRecord> kRecords = {{0, 1000, 620}, {620, 2, 6}, {626, 4096, 2100}};

}  // namespace

TEST(SpillIndex, ParsesHadoopsLayout) {
  std::vector<uint8_t> bytes = HadoopIndex(kRecords);
  ASSERT_EQ(bytes.size(), 3 * 24 + 8u);
  EXPECT_EQ(bytes, SpillIndex::Serialize(kRecords));
  SpillIndex idx;
  ASSERT_EQ(SpillIndex::Parse(bytes.data(), bytes.size(), &idx), IndexStatus::kOk);
  EXPECT_EQ(idx.partitions(), 3u);
  IndexRecord r;
  ASSERT_EQ(idx.Get(2, &r), IndexStatus::kOk);
  EXPECT_EQ(r.start_offset, 626u);
  EXPECT_EQ(r.raw_length, 4096u);
  EXPECT_EQ(r.part_length, 2100u);
}

TEST(SpillIndex, LoadsAFile) {
  ScratchDir dir;
  std::string path = dir.Write("file.out.index", HadoopIndex(kRecords));
  SpillIndex idx;
  ASSERT_EQ(SpillIndex::Load(path, &idx), IndexStatus::kOk);
  IndexRecord r;
  ASSERT_EQ(idx.Get(1, &r), IndexStatus::kOk);
  EXPECT_EQ(r.start_offset, 620u);
  EXPECT_EQ(r.part_length, 6u);
  EXPECT_EQ(SpillIndex::Load(dir.path() + "/missing.index", &idx), IndexStatus::kIoError);
  EXPECT_EQ(SpillIndex::Load(dir.path(), &idx), IndexStatus::kIoError);  // a directory
}

TEST(SpillIndex, RefusesTruncatedFiles) {
  std::vector<uint8_t> bytes = HadoopIndex(kRecords);
  SpillIndex idx;
  for (size_t n :
       {size_t{0}, size_t{8}, size_t{24}, size_t{31}, bytes.size() - 1, bytes.size() - 8})
    EXPECT_EQ(SpillIndex::Parse(bytes.data(), n, &idx), IndexStatus::kTruncated) << n;
  // One whole record short has a plausible size: the checksum is what catches it.
  EXPECT_EQ(SpillIndex::Parse(bytes.data(), bytes.size() - 24, &idx), IndexStatus::kBadChecksum);
  bytes.push_back(0);  // Hadoop would ignore a stray byte; we do not serve such a file
  EXPECT_EQ(SpillIndex::Parse(bytes.data(), bytes.size(), &idx), IndexStatus::kTruncated);
}

TEST(SpillIndex, RefusesABadChecksum) {
  std::vector<uint8_t> bytes = HadoopIndex(kRecords);
  SpillIndex idx;
  for (size_t at : {size_t{0}, size_t{30}, bytes.size() - 1}) {
    auto c = bytes;
    c[at] ^= 0x10;
    EXPECT_EQ(SpillIndex::Parse(c.data(), c.size(), &idx), IndexStatus::kBadChecksum) << at;
  }
  auto c = bytes;  // right CRC, but bits set above it in the stored long
  c[bytes.size() - 8] = 1;
  EXPECT_EQ(SpillIndex::Parse(c.data(), c.size(), &idx), IndexStatus::kBadChecksum);
  EXPECT_EQ(idx.partitions(), 0u);  // a failed parse leaves the output untouched
}

TEST(SpillIndex, RefusesRecordsThatPointOutsideAFile) {
  SpillIndex idx;
  for (IndexRecord bad : {IndexRecord{~0ull, 1, 1}, IndexRecord{0, 1ull << 63, 1},
                          IndexRecord{(1ull << 62) + (1ull << 61), 1, 1ull << 62}}) {
    auto bytes = HadoopIndex({bad});  // checksum is right: only the values are wrong
    EXPECT_EQ(SpillIndex::Parse(bytes.data(), bytes.size(), &idx), IndexStatus::kBadRecord);
  }
}

TEST(SpillIndex, PartitionOutOfRange) {
  auto bytes = HadoopIndex(kRecords);
  SpillIndex idx;
  ASSERT_EQ(SpillIndex::Parse(bytes.data(), bytes.size(), &idx), IndexStatus::kOk);
  IndexRecord r;
  EXPECT_EQ(idx.Get(3, &r), IndexStatus::kPartitionOutOfRange);
  EXPECT_EQ(idx.Get(0xFFFFFFFFu, &r), IndexStatus::kPartitionOutOfRange);
}

TEST(SpillIndex, CapsThePartitionCount) {
  auto bytes = HadoopIndex(kRecords);
  SpillIndex idx;
  EXPECT_EQ(SpillIndex::Parse(bytes.data(), bytes.size(), &idx, 2),
            IndexStatus::kTooManyPartitions);
  ScratchDir dir;
  std::string path = dir.Write("file.out.index", bytes);
  EXPECT_EQ(SpillIndex::Load(path, &idx, 2), IndexStatus::kTooManyPartitions);
}
