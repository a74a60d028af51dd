// Spill runs of the hierarchical merge (seed 001 §III-C: merge to local disk only when the
// segments' buffers exceed the memory budget). A run is an uncompressed IFile on a spill dir
// (records, EOF marker, CRC-32 trailer), so SegmentReader reads it back; each value is
// prefixed with its record's map_index (4 bytes, big-endian) so that equal keys still come
// out in map order when runs meet other segments in the final merge. The file is removed
// when its RunFile is destroyed (success, error or session end).
#ifndef HADOOP_ACCEL_JBS_RUN_FILE_H
#define HADOOP_ACCEL_JBS_RUN_FILE_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ifile_segment.h"
#include "segment_merger.h"

namespace hadoop_accel::jbs {

class RunFile {
 public:
  ~RunFile();
  // Creates an empty run file in dir; null with *error on failure.
  static std::unique_ptr<RunFile> Create(const std::string& dir, std::string* error);

  // The sink a merge writes the run through (call once, before any read).
  RecordSink* sink() { return &writer_; }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Reads the finished run back in chunks of chunk_bytes.
  std::unique_ptr<ChunkSource> Open(size_t chunk_bytes) const;

 private:
  class Writer : public StreamSink {
   public:
    explicit Writer(RunFile* run);
    bool Append(const RawRecord& r, uint32_t order) override;
    bool Finish() override;

   private:
    RunFile* run_;
    std::vector<uint8_t> value_;
  };
  explicit RunFile(int fd, std::string path) : fd_(fd), path_(std::move(path)), writer_(this) {}
  bool Write(const uint8_t* p, size_t n, std::string* error);

  int fd_;
  std::string path_;
  uint64_t size_ = 0;
  uint32_t crc_ = 0;
  Writer writer_;
};

}  // namespace hadoop_accel::jbs

#endif
