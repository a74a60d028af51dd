// Seeds of the IFile segment fuzz target, written with the tests' IFile writer (ifile_writer.h):
// Text, Int, Long and BytesWritable keys, an empty segment, a value larger than the reader's
// 64 KiB inflate step, each plain and zlib, in every payload form of
// segment_reader_fuzz_input.h.
#include <random>
#include <string>

#include "fuzz_seeds.h"
#include "ifile_writer.h"
#include "segment_reader_fuzz_input.h"

namespace hadoop_accel::jbs {
namespace {

using jbs_test::Bytes;
using jbs_test::Rec;

Bytes BigEndian(uint64_t v, int n) {
  Bytes b;
  for (int i = n - 1; i >= 0; --i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  return b;
}

std::vector<std::vector<Rec>> RecordSets() {
  std::vector<std::vector<Rec>> sets;
  sets.push_back({});  // the EOF marker alone, as an empty partition is written
  sets.push_back({{jbs_test::TextKey("apple"), {'1'}},
                  {jbs_test::TextKey("banana"), {'2', '2'}},
                  {jbs_test::TextKey("banana"), {}},
                  {jbs_test::TextKey(""), {'x'}}});
  sets.push_back({{BigEndian(static_cast<uint32_t>(-5), 4), {'a'}}, {BigEndian(7, 4), {'b'}}});
  sets.push_back({{BigEndian(1, 8), Bytes(200, 'v')}, {BigEndian(uint64_t{1} << 63, 8), {}}});
  Bytes bw = BigEndian(3, 4);
  bw.insert(bw.end(), {'k', 'e', 'y'});
  sets.push_back({{bw, {'v'}}});
  std::mt19937 rng(24);
  sets.push_back(jbs_test::RandomTextSegments(rng, 1, 30, 40)[0]);
  return sets;
}

std::vector<uint8_t> Seed(uint8_t mode, const Bytes& payload, uint8_t b1 = 3) {
  std::vector<uint8_t> s{mode, b1};
  s.insert(s.end(), payload.begin(), payload.end());
  return s;
}

}  // namespace

std::vector<std::vector<uint8_t>> FuzzSeeds() {
  std::vector<std::vector<uint8_t>> seeds;
  for (const auto& recs : RecordSets()) {
    Bytes raw = jbs_test::RawRecords(recs);
    seeds.push_back(Seed(0x10, jbs_test::IFileSegment(recs)));  // plain, as on disk
    seeds.push_back(Seed(0x21, raw));                           // plain, CRC appended
    seeds.push_back(Seed(0x36, raw));                           // raw, compressed here
    seeds.push_back(Seed(0x3a, raw));                           // raw length one short
    seeds.push_back(Seed(0x47, jbs_test::Compress(raw)));       // zlib, CRC appended
  }
  // A value beyond one 64 KiB inflate step, compressed here, in many small chunks.
  std::vector<Rec> big{{jbs_test::TextKey("big"), Bytes(66000, 'z')}};
  seeds.push_back(Seed(0x06, jbs_test::RawRecords(big), 200));
  seeds.push_back(Seed(0x00, {}));
  return seeds;
}

// Keep mutants the reader still accepts, so later mutations start from odd but valid segments.
bool FuzzKeepsMutant(const uint8_t* data, size_t size) {
  SegmentFuzzInput in;
  if (!ParseSegmentFuzzInput(data, size, &in)) return false;
  jbs_test::MemChunkSource src(in.segment, {in.segment.size() + 1});
  std::vector<Rec> recs;
  return jbs_test::ReadAll(&src, in.codec, &recs);
}

}  // namespace hadoop_accel::jbs
