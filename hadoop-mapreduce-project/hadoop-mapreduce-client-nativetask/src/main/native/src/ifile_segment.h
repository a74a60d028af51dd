// Reading one map output partition (a Hadoop IFile segment) record by record while its bytes
// arrive as chunks. On disk a segment is
//   records: vint key_length, vint value_length, key, value   (WritableUtils vints)
//   EOF marker: vint -1, vint -1
//   CRC-32 (zlib polynomial) of all preceding on-disk bytes, 4 bytes big-endian
// With codec zlib (DefaultCodec) records + EOF marker form one zlib stream and the CRC covers
// the compressed bytes; with Snappy or LZ4 they form Hadoop's block framing (block_codec.h),
// likewise under the CRC. Chunks are cut anywhere, so vints, records and even the CRC trailer
// straddle chunks. The CRC is checked as the last chunk arrives; nothing malformed crashes:
// it ends the segment with an error.
#ifndef HADOOP_ACCEL_JBS_IFILE_SEGMENT_H
#define HADOOP_ACCEL_JBS_IFILE_SEGMENT_H

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "block_codec.h"
#include "reducer_protocol.h"

namespace hadoop_accel::jbs {

constexpr size_t kIFileTrailerSize = 4;

// A segment's on-disk bytes, in order, one chunk at a time.
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  // The segment's whole on-disk length (trailer included).
  virtual uint64_t disk_length() const = 0;
  // Uncompressed length of records + EOF marker if known (the index's raw length), else 0.
  virtual uint64_t raw_length() const { return 0; }
  // Replaces *chunk with the next chunk (non-empty); false with *error if it cannot be had.
  // Called only while on-disk bytes remain.
  virtual bool Next(std::vector<uint8_t>* chunk, std::string* error) = 0;
  // The reader is half-way through the current chunk: a fetching source may ask for the next.
  virtual void Prefetch() {}
};

struct RawRecord {
  const uint8_t* key = nullptr;
  size_t key_length = 0;
  const uint8_t* value = nullptr;
  size_t value_length = 0;
};

class SegmentReader {
 public:
  enum class Result { kRecord, kEnd, kError };
  enum class ErrorKind { kNone, kCorrupt, kSource };

  SegmentReader(ChunkSource* source, Codec codec);
  ~SegmentReader();
  SegmentReader(const SegmentReader&) = delete;
  SegmentReader& operator=(const SegmentReader&) = delete;

  // The next record (valid until the next call), or kEnd once the EOF marker was read, nothing
  // follows it and the CRC matched, or kError (then error() / error_kind() say why).
  Result Next(RawRecord* rec);

  const std::string& error() const { return error_; }
  ErrorKind error_kind() const { return kind_; }

 private:
  bool Fail(ErrorKind kind, std::string message);
  bool PullChunk();
  bool NextSpan();  // makes decoded bytes available; false at their end or on error
  bool NextBlockSpan();
  bool Read(size_t n, const uint8_t** p);
  bool ReadVInt(int64_t* v);
  bool CheckNothingFollows();
  void MaybePrefetch();

  ChunkSource* source_;
  const Codec codec_;
  std::string error_;
  ErrorKind kind_ = ErrorKind::kNone;
  bool done_ = false;

  // On-disk side.
  std::vector<uint8_t> chunk_;
  size_t chunk_data_ = 0;     // bytes of chunk_ before the trailer
  uint64_t disk_pulled_ = 0;  // on-disk bytes received so far
  uint32_t crc_ = 0;
  uint8_t trailer_[kIFileTrailerSize] = {};
  size_t trailer_got_ = 0;
  bool prefetched_ = false;

  // Decoded side: the current span of record bytes (a slice of chunk_, or inflate output).
  const uint8_t* span_ = nullptr;
  size_t span_len_ = 0;
  size_t span_pos_ = 0;
  uint64_t max_record_ = 0;        // bound on one record's key + value bytes
  std::vector<uint8_t> assemble_;  // a record or vint that straddles spans

  // zlib.
  z_stream zs_{};
  bool zs_open_ = false;
  bool zs_ended_ = false;
  std::vector<uint8_t> inflated_;

  // Snappy / LZ4: the block decoder and the unread rest of the current chunk's data.
  std::unique_ptr<BlockDecoder> block_;
  const uint8_t* block_in_ = nullptr;
  size_t block_avail_ = 0;
};

}  // namespace hadoop_accel::jbs

#endif
