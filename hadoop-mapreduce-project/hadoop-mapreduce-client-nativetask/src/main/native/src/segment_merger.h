// The levitated merge (seed 001 §III-C): a priority queue over segment cursors, each holding
// only its current chunk (and the prefetched next one) while the merged stream flows out in
// Hadoop's raw layout (vint key length, vint value length, key, value; no end marker).
// Equal keys come out in input order (map_index), as DESIGN.md §3 promises.
#ifndef HADOOP_ACCEL_JBS_SEGMENT_MERGER_H
#define HADOOP_ACCEL_JBS_SEGMENT_MERGER_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ifile_segment.h"
#include "raw_comparator.h"

namespace hadoop_accel::jbs {

// Where merged records go.
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  // order: the record's map_index (a run file keeps it to break ties in the final merge).
  virtual bool Append(const RawRecord& r, uint32_t order) = 0;  // false: see error()
  virtual bool Finish() = 0;
  virtual const std::string& error() const = 0;
};

// Serializes records into a buffer of `capacity` bytes and hands every full buffer (and the
// last, partial one at Finish) to `flush`; records straddle buffers.
class StreamSink : public RecordSink {
 public:
  using Flush = std::function<bool(const uint8_t* data, size_t len, std::string* error)>;
  StreamSink(size_t capacity, Flush flush) : capacity_(capacity), flush_(std::move(flush)) {
    buf_.reserve(capacity);
  }
  bool Append(const RawRecord& r, uint32_t order) override;
  bool Finish() override { return FlushBuffer(); }
  const std::string& error() const override { return error_; }
  uint64_t records() const { return records_; }
  uint64_t stream_bytes() const { return bytes_; }

 protected:
  bool Put(const uint8_t* p, size_t n);
  bool FlushBuffer();

 private:
  const size_t capacity_;
  Flush flush_;
  std::vector<uint8_t> buf_;
  std::string error_;
  uint64_t records_ = 0;
  uint64_t bytes_ = 0;
};

struct MergeInput {
  SegmentReader* reader;
  uint32_t order;  // map_index: the tie-breaker among equal keys
  // A spill run: every value starts with its record's map_index (4 bytes, big-endian), which
  // replaces `order` per record and is cut off the value.
  bool order_prefixed = false;
};

struct MergeResult {
  bool ok = true;
  SegmentReader::ErrorKind failed_kind = SegmentReader::ErrorKind::kNone;  // kNone: sink failed
  std::string error;
  uint64_t records = 0;
};

// Merges every input to its end into sink (and Finishes it). key_type picks the comparator;
// a key its comparator cannot read is a corrupt segment.
MergeResult MergeSegments(const std::vector<MergeInput>& inputs, uint8_t key_type,
                          RecordSink* sink);

}  // namespace hadoop_accel::jbs

#endif
