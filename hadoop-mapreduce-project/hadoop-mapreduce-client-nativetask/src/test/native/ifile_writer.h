// Test helpers: a tiny Hadoop IFile writer (vint lengths, EOF marker, CRC-32 trailer; with
// zlib, records + marker compressed as one zlib stream as DefaultCodec writes them), an
// in-memory ChunkSource cutting a segment at chosen sizes, and the reference merge.
#ifndef HADOOP_ACCEL_JBS_TEST_IFILE_WRITER_H
#define HADOOP_ACCEL_JBS_TEST_IFILE_WRITER_H

#include <hadoop_accel/accel.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ifile_segment.h"
#include "raw_comparator.h"
#include "writable_vint.h"

namespace jbs_test {

using Bytes = std::vector<uint8_t>;

struct Rec {
  Bytes key;
  Bytes value;
};

// records + EOF marker, uncompressed (the "raw" bytes of a segment).
inline Bytes RawRecords(const std::vector<Rec>& recs, bool eof_marker = true) {
  Bytes out;
  for (const Rec& r : recs) {
    hadoop_accel::jbs::AppendVLong(&out, static_cast<int64_t>(r.key.size()));
    hadoop_accel::jbs::AppendVLong(&out, static_cast<int64_t>(r.value.size()));
    out.insert(out.end(), r.key.begin(), r.key.end());
    out.insert(out.end(), r.value.begin(), r.value.end());
  }
  if (eof_marker) {
    hadoop_accel::jbs::AppendVLong(&out, -1);
    hadoop_accel::jbs::AppendVLong(&out, -1);
  }
  return out;
}

inline Bytes WithCrcTrailer(Bytes body) {
  uint32_t crc = hacc_crc32_update(0, body.data(), body.size());
  for (int i = 3; i >= 0; --i) body.push_back(static_cast<uint8_t>(crc >> (8 * i)));
  return body;
}

inline Bytes Compress(const Bytes& raw) {
  uLongf n = compressBound(raw.size());
  Bytes out(n);
  compress2(out.data(), &n, raw.data(), raw.size(), Z_DEFAULT_COMPRESSION);
  out.resize(n);
  return out;
}

// The on-disk bytes of one IFile segment.
inline Bytes IFileSegment(const std::vector<Rec>& recs, bool zlib = false) {
  Bytes raw = RawRecords(recs);
  return WithCrcTrailer(zlib ? Compress(raw) : raw);
}

// Serves a byte vector as chunks of the given sizes (cycled), as fetches would.
class MemChunkSource : public hadoop_accel::jbs::ChunkSource {
 public:
  MemChunkSource(Bytes data, std::vector<size_t> sizes, uint64_t raw = 0)
      : data_(std::move(data)), sizes_(std::move(sizes)), raw_(raw) {}
  uint64_t disk_length() const override { return data_.size(); }
  uint64_t raw_length() const override { return raw_; }
  bool Next(Bytes* chunk, std::string* error) override {
    if (pos_ >= data_.size()) {
      *error = "read past end";
      return false;
    }
    size_t n = std::min(sizes_[calls_++ % sizes_.size()], data_.size() - pos_);
    chunk->assign(data_.begin() + static_cast<long>(pos_),
                  data_.begin() + static_cast<long>(pos_ + n));
    pos_ += n;
    return true;
  }
  void Prefetch() override { ++prefetches_; }
  size_t prefetches() const { return prefetches_; }

 private:
  Bytes data_;
  std::vector<size_t> sizes_;
  uint64_t raw_;
  size_t pos_ = 0;
  size_t calls_ = 0;
  size_t prefetches_ = 0;
};

// Reads a whole segment; false on error.
inline bool ReadAll(hadoop_accel::jbs::ChunkSource* src, hadoop_accel::jbs::Codec codec,
                    std::vector<Rec>* out, std::string* error = nullptr) {
  hadoop_accel::jbs::SegmentReader reader(src, codec);
  hadoop_accel::jbs::RawRecord r;
  for (;;) {
    auto res = reader.Next(&r);
    if (res == hadoop_accel::jbs::SegmentReader::Result::kEnd) return true;
    if (res == hadoop_accel::jbs::SegmentReader::Result::kError) {
      if (error) *error = reader.error();
      return false;
    }
    out->push_back({Bytes(r.key, r.key + r.key_length), Bytes(r.value, r.value + r.value_length)});
  }
}

// The merged stream the NetMerger must produce: all records, stable-sorted by the key type's
// comparator with map_index as the tie-breaker, in raw layout without an EOF marker.
inline Bytes ReferenceMerge(const std::vector<std::vector<Rec>>& segments, uint8_t key_type) {
  std::vector<std::pair<size_t, const Rec*>> all;
  for (size_t i = 0; i < segments.size(); ++i)
    for (const Rec& r : segments[i]) all.push_back({i, &r});
  auto cmp = hadoop_accel::jbs::ComparatorFor(key_type);
  std::stable_sort(all.begin(), all.end(), [cmp](const auto& a, const auto& b) {
    int c =
        cmp(a.second->key.data(), a.second->key.size(), b.second->key.data(), b.second->key.size());
    return c != 0 ? c < 0 : a.first < b.first;
  });
  std::vector<Rec> sorted;
  for (const auto& p : all) sorted.push_back(*p.second);
  return RawRecords(sorted, false);
}

// A serialized Text key (vint length + bytes).
inline Bytes TextKey(const std::string& s) {
  Bytes k;
  hadoop_accel::jbs::AppendVLong(&k, static_cast<int64_t>(s.size()));
  k.insert(k.end(), s.begin(), s.end());
  return k;
}

// Random sorted segments of Text keys drawn from a small alphabet (many duplicates).
inline std::vector<std::vector<Rec>> RandomTextSegments(std::mt19937& rng, size_t segments,
                                                        size_t max_records, size_t max_len) {
  auto cmp = hadoop_accel::jbs::ComparatorFor(1);
  std::vector<std::vector<Rec>> out(segments);
  for (auto& seg : out) {
    size_t n = rng() % (max_records + 1);
    for (size_t i = 0; i < n; ++i) {
      std::string k(rng() % 4 == 0 ? rng() % (max_len + 1) : rng() % 4, 'a');
      for (char& c : k) c = static_cast<char>('a' + rng() % 3);
      Bytes v(rng() % 3 == 0 ? rng() % (max_len + 1) : rng() % 16);
      for (auto& b : v) b = static_cast<uint8_t>(rng());
      seg.push_back({TextKey(k), v});
    }
    std::stable_sort(seg.begin(), seg.end(), [cmp](const Rec& a, const Rec& b) {
      return cmp(a.key.data(), a.key.size(), b.key.data(), b.key.size()) < 0;
    });
  }
  return out;
}

}  // namespace jbs_test

#endif
