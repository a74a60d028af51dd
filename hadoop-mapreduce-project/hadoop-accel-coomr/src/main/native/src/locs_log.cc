#include "locs_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "hadoop_accel/accel.h"

namespace hadoop_accel::coomr {
namespace {

constexpr char kMagic[8] = {'L', 'O', 'C', 'S', 'R', 'E', 'P', 'O'};
constexpr size_t kHeaderSize = 40;
constexpr size_t kEntrySize = 40;

void Put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void Put64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t Get32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= uint32_t{p[i]} << (8 * i);
  return v;
}
uint64_t Get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= uint64_t{p[i]} << (8 * i);
  return v;
}
uint32_t Crc(const void* p, size_t n) { return hacc_crc32_update(0, p, n); }

[[noreturn]] void Fail(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

// Reads exactly n bytes at offset; false at end of file.
bool ReadAt(int fd, uint8_t* out, size_t n, uint64_t offset, const std::string& path) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = pread(fd, out + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      Fail("reading " + path);
    }
    if (r == 0) return false;
    done += static_cast<size_t>(r);
  }
  return true;
}

}  // namespace

LocsLog LocsLog::Create(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) Fail("creating LOCS log " + path);
  return LocsLog(path, fd);
}

LocsLog LocsLog::Open(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) Fail("opening LOCS log " + path);
  LocsLog log(path, fd);
  log.Rebuild();
  return log;
}

LocsLog::LocsLog(LocsLog&& o) noexcept
    : path_(std::move(o.path_)),
      fd_(std::exchange(o.fd_, -1)),
      end_(o.end_),
      next_sequence_(o.next_sequence_),
      truncated_(o.truncated_),
      repositories_(std::move(o.repositories_)),
      by_partition_(std::move(o.by_partition_)) {}

LocsLog::~LocsLog() {
  if (fd_ >= 0) close(fd_);
}

void LocsLog::Index(const RepositoryRef& repo) {
  repositories_.push_back(repo);
  for (const BucketRef& b : repo.buckets) by_partition_[b.partition].push_back(b);
}

void LocsLog::Rebuild() {
  struct stat st;
  if (fstat(fd_, &st) != 0) Fail("stat " + path_);
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  uint64_t pos = 0;
  while (pos < file_size) {
    uint8_t h[kHeaderSize];
    if (!ReadAt(fd_, h, kHeaderSize, pos, path_) || memcmp(h, kMagic, 8) != 0 ||
        Get32(h + 36) != Crc(h, 36)) {
      break;
    }
    const uint64_t sequence = Get64(h + 8);
    const uint32_t count = Get32(h + 16);
    const uint64_t length = Get64(h + 24);
    const uint64_t entries_size = uint64_t{count} * kEntrySize;
    if (sequence != next_sequence_ || length < kHeaderSize + entries_size ||
        length > file_size - pos) {
      break;
    }
    std::vector<uint8_t> e(entries_size);
    if (!ReadAt(fd_, e.data(), e.size(), pos + kHeaderSize, path_) ||
        Get32(h + 32) != Crc(e.data(), e.size())) {
      break;
    }
    RepositoryRef repo{pos, length, {}};
    bool inside = true;
    for (uint32_t i = 0; i < count; i++) {
      const uint8_t* p = e.data() + size_t{i} * kEntrySize;
      BucketRef b{Get32(p),      Get32(p + 4), Get32(p + 8), Get32(p + 12), pos + Get64(p + 16),
                  Get64(p + 24), Get64(p + 32)};
      inside &= b.offset >= pos + kHeaderSize + entries_size && b.length <= length &&
                b.offset - pos <= length - b.length;
      repo.buckets.push_back(b);
    }
    if (!inside) {
      break;
    }
    Index(repo);
    next_sequence_++;
    pos += length;
  }
  if (pos < file_size) {
    if (ftruncate(fd_, static_cast<off_t>(pos)) != 0) Fail("truncating " + path_);
    truncated_ = file_size - pos;
  }
  end_ = pos;
}

uint64_t LocsLog::Append(const std::vector<Bucket>& buckets) {
  const uint64_t entries_size = uint64_t{buckets.size()} * kEntrySize;
  uint64_t length = kHeaderSize + entries_size;
  for (const Bucket& b : buckets) length += b.length;
  std::vector<uint8_t> repo(length);
  RepositoryRef ref{end_, length, {}};
  uint64_t data_at = kHeaderSize + entries_size;
  for (size_t i = 0; i < buckets.size(); i++) {
    const Bucket& b = buckets[i];
    BucketRef r{b.map,          b.attempt, b.partition, Crc(b.data, b.length),
                end_ + data_at, b.length,  b.raw_length};
    uint8_t* p = repo.data() + kHeaderSize + i * kEntrySize;
    Put32(p, r.map);
    Put32(p + 4, r.attempt);
    Put32(p + 8, r.partition);
    Put32(p + 12, r.crc);
    Put64(p + 16, data_at);
    Put64(p + 24, r.length);
    Put64(p + 32, r.raw_length);
    if (b.length > 0) memcpy(repo.data() + data_at, b.data, b.length);
    data_at += b.length;
    ref.buckets.push_back(r);
  }
  uint8_t* h = repo.data();
  memcpy(h, kMagic, 8);
  Put64(h + 8, next_sequence_);
  Put32(h + 16, static_cast<uint32_t>(buckets.size()));
  Put32(h + 20, 0);
  Put64(h + 24, length);
  Put32(h + 32, Crc(repo.data() + kHeaderSize, entries_size));
  Put32(h + 36, Crc(h, 36));

  uint64_t done = 0;
  int err = 0;
  while (done < length && err == 0) {
    ssize_t w = pwrite(fd_, repo.data() + done, length - done, static_cast<off_t>(end_ + done));
    if (w > 0) {
      done += static_cast<uint64_t>(w);
    } else if (w == 0 || errno != EINTR) {
      err = w == 0 ? ENOSPC : errno;
    }
  }
  if (err == 0 && fdatasync(fd_) != 0) err = errno;
  if (err != 0) {
    // Cut what was written; should that fail too, Open cuts it: its header never validates.
    int cut = ftruncate(fd_, static_cast<off_t>(end_));
    (void)cut;
    errno = err;
    Fail("appending to LOCS log " + path_);
  }
  Index(ref);
  next_sequence_++;
  end_ += length;
  return ref.offset;
}

void LocsLog::KeepOnlyAttempt(uint32_t map, uint32_t attempt) {
  auto stale = [&](const BucketRef& b) { return b.map == map && b.attempt != attempt; };
  auto drop = [&](std::vector<BucketRef>& v) {
    v.erase(std::remove_if(v.begin(), v.end(), stale), v.end());
  };
  for (RepositoryRef& r : repositories_) drop(r.buckets);
  for (auto& [partition, list] : by_partition_) drop(list);
}

void LocsLog::Read(const BucketRef& bucket, uint8_t* out) const {
  if (!ReadAt(fd_, out, bucket.length, bucket.offset, path_)) {
    errno = EIO;
    Fail("bucket past the end of " + path_);
  }
  if (Crc(out, bucket.length) != bucket.crc) {
    throw std::runtime_error("CRC mismatch in a bucket of " + path_ + " at offset " +
                             std::to_string(bucket.offset));
  }
}

const std::vector<BucketRef>& LocsLog::BucketsOf(uint32_t partition) const {
  static const std::vector<BucketRef> kNone;
  auto it = by_partition_.find(partition);
  return it == by_partition_.end() ? kNone : it->second;
}

}  // namespace hadoop_accel::coomr
