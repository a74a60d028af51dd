// LOCS (seed 002 §3.2, Fig. 4): a job's intermediate data on one local disk as one append-only
// log. Each flush of the shared pool appends a repository: a header listing its buckets, then
// the buckets' bytes. A bucket is one map attempt's sorted run for one reduce, in the map
// output's own format (IFile, compressed or not), so a bucket can be served as a stock map
// output segment. Two tables, rebuilt from the headers when a log is reopened:
//  - the bucket index table: per reduce, its buckets in append order (Fig. 4b), for on-demand
//    reads by restarted or speculative reducers;
//  - the repository-offset table: repositories by offset, each with its buckets in file order
//    (Fig. 4c), for the server-driven shuffle that reads the log sequentially.
//
// Buckets keep their map attempt: only the attempt the ApplicationMaster declares SUCCEEDED may
// reach a reducer, so runs of different maps are never merged into one bucket (the seed merges
// them; it has no answer for a failed or losing speculative attempt's data). A re-run map's
// buckets supersede the old attempt's in the tables.
//
// On disk, little-endian. Repository header (40 bytes): magic "LOCSREPO", u64 sequence, u32
// bucket count, u32 reserved, u64 repository length (header, entries and data), u32 CRC-32 of
// the entries, u32 CRC-32 of the header's first 36 bytes. Then one 40-byte entry per bucket:
// u32 map, u32 attempt, u32 partition, u32 data CRC-32, u64 offset from the repository start,
// u64 length, u64 raw (uncompressed) length. Then the data.
//
// Not thread-safe: one writer (the coordinator's flusher); readers take a copy of a BucketRef.
#ifndef HADOOP_ACCEL_COOMR_LOCS_LOG_H
#define HADOOP_ACCEL_COOMR_LOCS_LOG_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hadoop_accel::coomr {

struct BucketRef {
  uint32_t map = 0;
  uint32_t attempt = 0;
  uint32_t partition = 0;
  uint32_t crc = 0;
  uint64_t offset = 0;  // in the log file
  uint64_t length = 0;
  uint64_t raw_length = 0;
};

struct RepositoryRef {
  uint64_t offset = 0;
  uint64_t length = 0;
  std::vector<BucketRef> buckets;  // in file order
};

class LocsLog {
 public:
  // A bucket to append: its bytes are copied into the log.
  struct Bucket {
    uint32_t map;
    uint32_t attempt;
    uint32_t partition;
    uint64_t raw_length;
    const uint8_t* data;
    size_t length;
  };

  // A new, empty log; fails if the path exists or is a symlink. Mode 0600.
  // Throws std::system_error.
  static LocsLog Create(const std::string& path);
  // An existing log with its tables rebuilt from the repository headers. The log is cut at the
  // first repository that is incomplete or fails a header check: a crash mid-append leaves
  // such a tail, and nothing after it can be found. Throws std::system_error.
  static LocsLog Open(const std::string& path);

  LocsLog(LocsLog&& other) noexcept;
  LocsLog& operator=(LocsLog&&) = delete;
  LocsLog(const LocsLog&) = delete;
  ~LocsLog();

  // Appends one repository holding these buckets with one write, then makes it durable
  // (fdatasync): a map may be reported done once its buckets are appended. Returns the
  // repository's offset. Throws std::system_error (e.g. ENOSPC); the log is then unchanged
  // (what was written of the repository is truncated away).
  uint64_t Append(const std::vector<Bucket>& buckets);

  // Map `map`'s buckets of attempts other than `attempt` leave both tables (a re-run map's
  // data replaces the old attempt's); they stay in the file until the log is deleted.
  void KeepOnlyAttempt(uint32_t map, uint32_t attempt);

  // Reads a bucket's bytes into out (bucket.length bytes) and checks its CRC-32.
  // Throws std::system_error, or std::runtime_error on a CRC mismatch.
  void Read(const BucketRef& bucket, uint8_t* out) const;

  // The bucket index table: one reduce's buckets in append order (empty if none).
  const std::vector<BucketRef>& BucketsOf(uint32_t partition) const;
  // The repository-offset table, in append order.
  const std::vector<RepositoryRef>& repositories() const { return repositories_; }
  uint64_t size() const { return end_; }
  // Bytes cut off by Open (0 for a log closed cleanly).
  uint64_t truncated_bytes() const { return truncated_; }
  const std::string& path() const { return path_; }

 private:
  LocsLog(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  void Index(const RepositoryRef& repo);
  void Rebuild();

  std::string path_;
  int fd_ = -1;
  uint64_t end_ = 0;
  uint64_t next_sequence_ = 0;
  uint64_t truncated_ = 0;
  std::vector<RepositoryRef> repositories_;
  std::map<uint32_t, std::vector<BucketRef>> by_partition_;
};

}  // namespace hadoop_accel::coomr

#endif
