// Fuzz target for the IFile segment reader the NetMerger runs on fetched bytes
// (ifile_segment.cc: chunked CRC check, vint lengths, zlib inflate, records straddling chunks)
// and for the raw comparators it feeds. Input: see segment_reader_fuzz_input.h.
// Invariants:
//   - the reader fed the segment as one chunk and fed it cut into small chunks gives the same
//     outcome and, when it ends well, the same records;
//   - both agree with a plain whole-buffer decoder written here from the format's definition
//     (CRC of the on-disk bytes, one zlib stream filling them, records, marker, nothing after);
//   - every key a comparator calls well formed compares without reading past its end (ASan).
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "byte_order.h"
#include "ifile_segment.h"
#include "ifile_writer.h"
#include "raw_comparator.h"
#include "segment_reader_fuzz_input.h"
#include "writable_vint.h"

using namespace hadoop_accel::jbs;
using jbs_test::Bytes;
using jbs_test::Rec;

namespace {

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

constexpr uint64_t kMaxRecord = uint64_t{1} << 31;
// Inflated bytes the reference decoder gives up at (a zlib bomb is legal input, just slow).
constexpr size_t kReferenceInflateCap = size_t{32} << 20;

struct Outcome {
  bool ok = false;
  std::vector<Rec> records;
};

Outcome ReadWith(const Bytes& segment, std::vector<size_t> sizes, uint64_t raw, Codec codec) {
  jbs_test::MemChunkSource src(segment, std::move(sizes), raw);
  Outcome o;
  o.ok = jbs_test::ReadAll(&src, codec, &o.records);
  return o;
}

// The whole stream of raw bytes, or nullopt when it is too large to compare; ok=false when the
// on-disk bytes are not one complete zlib stream.
std::optional<Bytes> InflateAll(const uint8_t* p, size_t n, bool* ok) {
  z_stream zs{};
  if (inflateInit(&zs) != Z_OK) Fail("inflateInit");
  Bytes out;
  zs.next_in = const_cast<uint8_t*>(p);
  zs.avail_in = static_cast<uInt>(n);
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (out.size() >= kReferenceInflateCap) {
      inflateEnd(&zs);
      return std::nullopt;
    }
    size_t had = out.size();
    out.resize(had + 65536);
    zs.next_out = out.data() + had;
    zs.avail_out = 65536;
    rc = inflate(&zs, Z_FINISH);
    out.resize(out.size() - zs.avail_out);
    if (rc == Z_BUF_ERROR && zs.avail_out == 0) rc = Z_OK;  // more output room needed
  }
  *ok = rc == Z_STREAM_END && zs.avail_in == 0;
  inflateEnd(&zs);
  return out;
}

bool ReadLength(const Bytes& raw, size_t* pos, int64_t* v) {
  if (*pos >= raw.size()) return false;
  size_t n = static_cast<size_t>(VIntSizeFromFirstByte(raw[*pos]));
  if (raw.size() - *pos < n) return false;
  *v = DecodeVLong(raw.data() + *pos);
  *pos += n;
  return *v >= std::numeric_limits<int32_t>::min() && *v <= std::numeric_limits<int32_t>::max();
}

// nullopt: too large to decide here.
std::optional<Outcome> Reference(const Bytes& seg, Codec codec, uint64_t raw_length) {
  Outcome o;
  if (seg.size() < kIFileTrailerSize) return o;
  const size_t body = seg.size() - kIFileTrailerSize;
  if (LoadBe32(seg.data() + body) != hacc_crc32_update(0, seg.data(), body)) return o;
  Bytes raw;
  uint64_t max_record;
  if (codec == Codec::kZlib) {
    bool complete = false;
    std::optional<Bytes> r = InflateAll(seg.data(), body, &complete);
    if (!r) return std::nullopt;
    if (!complete) return o;
    raw = std::move(*r);
    max_record = raw_length != 0 ? std::min(raw_length, kMaxRecord) : kMaxRecord;
  } else {
    raw.assign(seg.begin(), seg.begin() + static_cast<long>(body));
    max_record = std::min<uint64_t>(body, kMaxRecord);
  }
  size_t pos = 0;
  for (;;) {
    int64_t k, v;
    if (!ReadLength(raw, &pos, &k) || !ReadLength(raw, &pos, &v)) return o;
    if (k == -1 && v == -1) {
      o.ok = pos == raw.size();
      if (!o.ok) o.records.clear();
      return o;
    }
    if (k < 0 || v < 0) return o;
    uint64_t total = static_cast<uint64_t>(k) + static_cast<uint64_t>(v);
    if (total > max_record || total > raw.size() - pos) return o;
    const uint8_t* p = raw.data() + pos;
    o.records.push_back({Bytes(p, p + k), Bytes(p + k, p + total)});
    pos += total;
  }
}

uint64_t RawLengthFor(const SegmentFuzzInput& in) {
  if (in.codec != Codec::kZlib || in.raw_length_mode == 0) return 0;
  if (in.raw_length_mode == 3) return in.raw_length_byte;
  bool complete = false;
  std::optional<Bytes> raw =
      in.segment.size() < kIFileTrailerSize
          ? std::nullopt
          : InflateAll(in.segment.data(), in.segment.size() - kIFileTrailerSize, &complete);
  if (!raw) return 0;
  uint64_t n = raw->size();
  return in.raw_length_mode == 1 ? n : (n > 0 ? n - 1 : 0);
}

// Comparators over consecutive keys that each key type calls well formed.
void CompareKeys(const std::vector<Rec>& recs) {
  for (uint8_t type = 1; type <= 4; ++type) {
    RawCompare cmp = ComparatorFor(type);
    if (cmp == nullptr) Fail("no comparator for a supported key type");
    const Rec* prev = nullptr;
    for (const Rec& r : recs) {
      if (!IsWellFormedKey(type, r.key.data(), r.key.size())) continue;
      // Exact-size copies, so ASan sees any read past a key's end.
      std::vector<uint8_t> a(r.key);
      if (cmp(a.data(), a.size(), a.data(), a.size()) != 0) Fail("key unequal to itself");
      if (prev != nullptr) {
        std::vector<uint8_t> b(prev->key);
        int ab = cmp(a.data(), a.size(), b.data(), b.size());
        int ba = cmp(b.data(), b.size(), a.data(), a.size());
        if ((ab < 0) != (ba > 0) || (ab == 0) != (ba == 0)) Fail("comparator not antisymmetric");
      }
      prev = &r;
    }
  }
}

bool SameRecords(const std::vector<Rec>& a, const std::vector<Rec>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].key != b[i].key || a[i].value != b[i].value) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  SegmentFuzzInput in;
  if (!ParseSegmentFuzzInput(data, size, &in)) return 0;
  const uint64_t raw_length = RawLengthFor(in);

  Outcome whole = ReadWith(in.segment, {in.segment.size() + 1}, raw_length, in.codec);
  Outcome cut = ReadWith(in.segment, in.chunk_sizes, raw_length, in.codec);
  if (whole.ok != cut.ok) Fail("outcome depends on where chunks are cut");
  if (whole.ok && !SameRecords(whole.records, cut.records))
    Fail("records depend on where chunks are cut");

  std::optional<Outcome> ref = Reference(in.segment, in.codec, raw_length);
  if (ref) {
    if (ref->ok != whole.ok) Fail("reader and reference decoder disagree on validity");
    if (ref->ok && !SameRecords(ref->records, whole.records))
      Fail("reader and reference decoder disagree on records");
  }
  CompareKeys(cut.records);
  return 0;
}
