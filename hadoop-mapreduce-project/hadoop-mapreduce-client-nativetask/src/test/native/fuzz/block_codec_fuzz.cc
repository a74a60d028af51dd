// Fuzz target for Snappy / LZ4 segments (BlockDecoder behind SegmentReader). Input: byte 0
// picks the codec and the chunk size, the rest is the segment's compressed body; the CRC
// trailer is computed here so mutants reach the decoder instead of failing the checksum.
// Anything may be refused; nothing may crash or read out of bounds (ASan in ctest).
#include <hadoop_accel/accel.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_seeds.h"
#include "ifile_segment.h"

using namespace hadoop_accel::jbs;

namespace {

class Source : public ChunkSource {
 public:
  Source(std::vector<uint8_t> data, size_t chunk) : data_(std::move(data)), chunk_(chunk) {}
  uint64_t disk_length() const override { return data_.size(); }
  uint64_t raw_length() const override { return 1 << 20; }
  bool Next(std::vector<uint8_t>* out, std::string* error) override {
    if (pos_ >= data_.size()) {
      *error = "past end";
      return false;
    }
    size_t n = std::min(chunk_, data_.size() - pos_);
    out->assign(data_.begin() + static_cast<long>(pos_),
                data_.begin() + static_cast<long>(pos_ + n));
    pos_ += n;
    return true;
  }

 private:
  std::vector<uint8_t> data_;
  size_t chunk_;
  size_t pos_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  Codec codec = (data[0] & 1) ? Codec::kLz4 : Codec::kSnappy;
  size_t chunk = 1 + (data[0] >> 1) * 7;
  std::vector<uint8_t> seg(data + 1, data + size);
  uint32_t crc = hacc_crc32_update(0, seg.data(), seg.size());
  for (int i = 3; i >= 0; --i) seg.push_back(static_cast<uint8_t>(crc >> (8 * i)));
  Source src(std::move(seg), chunk);
  SegmentReader reader(&src, codec);
  RawRecord r;
  size_t bytes = 0;
  for (;;) {
    auto res = reader.Next(&r);
    if (res != SegmentReader::Result::kRecord) {
      if (res == SegmentReader::Result::kError && reader.error().empty()) std::abort();
      break;
    }
    // Touch every byte handed out (ASan checks they are in bounds).
    for (size_t i = 0; i < r.key_length; ++i) bytes += r.key[i];
    for (size_t i = 0; i < r.value_length; ++i) bytes += r.value[i];
  }
  return bytes == SIZE_MAX ? 1 : 0;
}
