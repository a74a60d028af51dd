// Shared by JBS and CooMR, compiled into each one's native core.
// Hadoop's map output index (file.out.index), as SpillRecord writes it in Hadoop 3.5.0:
//
//   for each partition p = 0..N-1: startOffset i64 | rawLength i64 | partLength i64   (big-endian)
//   then: checksum i64 (big-endian) = CRC-32 (PureJavaCrc32, zlib polynomial) of the 24*N bytes
//
// so the file is exactly 24*N + 8 bytes. partLength is the on-disk (possibly compressed)
// segment length in file.out, rawLength the uncompressed one. Hadoop's own reader derives N
// as length/24 and would ignore a few stray trailing bytes; we accept only the exact size it
// writes, and also refuse negative or overflowing records (a corrupt index must never turn
// into a read outside file.out).
#ifndef HADOOP_ACCEL_MAPRED_SPILL_INDEX_H
#define HADOOP_ACCEL_MAPRED_SPILL_INDEX_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hadoop_accel::mapred {

constexpr size_t kIndexRecordSize = 24;
constexpr size_t kIndexChecksumSize = 8;
// Default cap on partitions per index (a 24 MiB file); Hadoop's reduce counts stay far below.
constexpr uint32_t kDefaultMaxPartitions = 1u << 20;

struct IndexRecord {
  uint64_t start_offset = 0;
  uint64_t raw_length = 0;
  uint64_t part_length = 0;
};

enum class IndexStatus : int {
  kOk = 0,
  kTruncated = -20,  // size is not 24*N + 8 with N >= 1
  kTooManyPartitions = -21,
  kBadChecksum = -22,
  kBadRecord = -23,  // negative field or startOffset + partLength overflows
  kIoError = -24,    // open/stat/read failed (errno kept by the caller's choice)
  kPartitionOutOfRange = -25,
};

const char* IndexStatusName(IndexStatus s);

class SpillIndex {
 public:
  // Parses a whole index file's bytes.
  static IndexStatus Parse(const uint8_t* data, size_t len, SpillIndex* out,
                           uint32_t max_partitions = kDefaultMaxPartitions);
  // Reads and parses the file at path (not through a final symlink: O_NOFOLLOW); files larger
  // than max_partitions allow are not read.
  static IndexStatus Load(const std::string& path, SpillIndex* out,
                          uint32_t max_partitions = kDefaultMaxPartitions);
  // The same from an open descriptor (the caller opened and checked it, and closes it).
  static IndexStatus LoadFd(int fd, SpillIndex* out,
                            uint32_t max_partitions = kDefaultMaxPartitions);

  // Serialises records in Hadoop's format (tests, and tools that write fixtures).
  static std::vector<uint8_t> Serialize(const std::vector<IndexRecord>& records);

  uint32_t partitions() const { return static_cast<uint32_t>(records_.size()); }
  IndexStatus Get(uint32_t partition, IndexRecord* out) const;
  // Approximate memory held, for the cache's byte budget.
  size_t MemoryBytes() const { return sizeof(*this) + records_.size() * sizeof(IndexRecord); }

 private:
  std::vector<IndexRecord> records_;
};

}  // namespace hadoop_accel::mapred

#endif
