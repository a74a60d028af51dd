#include "hadoop_accel/spill_index.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <limits>

#include "hadoop_accel/accel.h"
#include "hadoop_accel/byte_order.h"

namespace hadoop_accel::mapred {
namespace {

constexpr uint64_t kMaxSignedLong = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

// Closes the descriptor on every return path.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

const char* IndexStatusName(IndexStatus s) {
  switch (s) {
    case IndexStatus::kOk:
      return "ok";
    case IndexStatus::kTruncated:
      return "index size is not 24*N+8";
    case IndexStatus::kTooManyPartitions:
      return "too many partitions";
    case IndexStatus::kBadChecksum:
      return "index checksum mismatch";
    case IndexStatus::kBadRecord:
      return "bad index record";
    case IndexStatus::kIoError:
      return "cannot read index file";
    case IndexStatus::kPartitionOutOfRange:
      return "partition out of range";
  }
  return "unknown";
}

IndexStatus SpillIndex::Parse(const uint8_t* data, size_t len, SpillIndex* out,
                              uint32_t max_partitions) {
  if (len < kIndexRecordSize + kIndexChecksumSize ||
      (len - kIndexChecksumSize) % kIndexRecordSize != 0)
    return IndexStatus::kTruncated;
  size_t n = (len - kIndexChecksumSize) / kIndexRecordSize;
  if (n > max_partitions) return IndexStatus::kTooManyPartitions;
  size_t body = n * kIndexRecordSize;
  // Hadoop stores Checksum.getValue() as a long: the CRC in the low 32 bits, zeros above.
  if (LoadBe64(data + body) != uint64_t{hacc_crc32_update(0, data, body)})
    return IndexStatus::kBadChecksum;

  std::vector<IndexRecord> records(n);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* p = data + i * kIndexRecordSize;
    IndexRecord& r = records[i];
    r.start_offset = LoadBe64(p);
    r.raw_length = LoadBe64(p + 8);
    r.part_length = LoadBe64(p + 16);
    if (r.start_offset > kMaxSignedLong || r.raw_length > kMaxSignedLong ||
        r.part_length > kMaxSignedLong || r.part_length > kMaxSignedLong - r.start_offset)
      return IndexStatus::kBadRecord;
  }
  out->records_ = std::move(records);
  return IndexStatus::kOk;
}

IndexStatus SpillIndex::Load(const std::string& path, SpillIndex* out, uint32_t max_partitions) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)};
  if (f.fd < 0) return IndexStatus::kIoError;
  return LoadFd(f.fd, out, max_partitions);
}

IndexStatus SpillIndex::LoadFd(int fd, SpillIndex* out, uint32_t max_partitions) {
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return IndexStatus::kIoError;
  uint64_t max_size = uint64_t{max_partitions} * kIndexRecordSize + kIndexChecksumSize;
  if (static_cast<uint64_t>(st.st_size) > max_size) return IndexStatus::kTooManyPartitions;
  std::vector<uint8_t> buf(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < buf.size()) {
    ssize_t r = ::pread(fd, buf.data() + got, buf.size() - got, static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return IndexStatus::kIoError;
    if (r == 0) break;  // shrank under us: Parse reports the short size
    got += static_cast<size_t>(r);
  }
  return Parse(buf.data(), got, out, max_partitions);
}

std::vector<uint8_t> SpillIndex::Serialize(const std::vector<IndexRecord>& records) {
  std::vector<uint8_t> buf(records.size() * kIndexRecordSize + kIndexChecksumSize);
  for (size_t i = 0; i < records.size(); ++i) {
    uint8_t* p = buf.data() + i * kIndexRecordSize;
    StoreBe64(p, records[i].start_offset);
    StoreBe64(p + 8, records[i].raw_length);
    StoreBe64(p + 16, records[i].part_length);
  }
  size_t body = records.size() * kIndexRecordSize;
  StoreBe64(buf.data() + body, hacc_crc32_update(0, buf.data(), body));
  return buf;
}

IndexStatus SpillIndex::Get(uint32_t partition, IndexRecord* out) const {
  if (partition >= records_.size()) return IndexStatus::kPartitionOutOfRange;
  *out = records_[partition];
  return IndexStatus::kOk;
}

}  // namespace hadoop_accel::mapred
