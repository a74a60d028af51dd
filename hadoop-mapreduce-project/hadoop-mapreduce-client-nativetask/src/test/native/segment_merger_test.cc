#include "segment_merger.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>

#include "ifile_writer.h"

using namespace hadoop_accel::jbs;
using namespace jbs_test;

namespace {

// Merges the segments (cut into chunks of chunk bytes) into one byte vector, with DATA-sized
// buffers of frame bytes.
MergeResult MergeToBytes(const std::vector<Bytes>& on_disk, Codec codec, uint8_t key_type,
                         size_t chunk, size_t frame, Bytes* out, size_t* frames = nullptr) {
  std::vector<std::unique_ptr<MemChunkSource>> sources;
  std::vector<std::unique_ptr<SegmentReader>> readers;
  std::vector<MergeInput> inputs;
  for (size_t i = 0; i < on_disk.size(); ++i) {
    sources.push_back(std::make_unique<MemChunkSource>(on_disk[i], std::vector<size_t>{chunk}));
    readers.push_back(std::make_unique<SegmentReader>(sources.back().get(), codec));
    inputs.push_back({readers.back().get(), static_cast<uint32_t>(i)});
  }
  size_t n = 0;
  StreamSink sink(frame, [&](const uint8_t* p, size_t len, std::string*) {
    EXPECT_LE(len, frame);
    out->insert(out->end(), p, p + len);
    ++n;
    return true;
  });
  MergeResult r = MergeSegments(inputs, key_type, &sink);
  if (frames) *frames = n;
  if (r.ok) {
    EXPECT_EQ(sink.records(), r.records);
    EXPECT_EQ(sink.stream_bytes(), out->size());
  }
  return r;
}

}  // namespace

TEST(SegmentMergerTest, RandomTextSegmentsEqualTheReferenceMerge) {
  std::mt19937 rng(7);
  for (int round = 0; round < 12; ++round) {
    size_t segs = round == 0 ? 1 : round == 1 ? 200 : 1 + rng() % 40;
    auto data = RandomTextSegments(rng, segs, round == 1 ? 20 : 60, 10000);
    bool zlib = round % 3 == 2;
    std::vector<Bytes> disk;
    for (const auto& s : data) disk.push_back(IFileSegment(s, zlib));
    Bytes got;
    size_t chunk = 512 + rng() % 8192;
    MergeResult r = MergeToBytes(disk, zlib ? Codec::kZlib : Codec::kNone, 1, chunk, 4096, &got);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(got, ReferenceMerge(data, 1)) << "round " << round;
  }
}

TEST(SegmentMergerTest, EqualKeysComeOutInMapOrderForEveryKeyType) {
  // Same key in every segment: the values must come out by segment (map) index.
  for (uint8_t type : {1, 2, 3, 4}) {
    Bytes key = type == 1   ? TextKey("same")
                : type == 2 ? Bytes({0, 0, 0, 1, 9})
                : type == 3 ? Bytes({0xFF, 0xFF, 0xFF, 0xFE})
                            : Bytes({0x80, 0, 0, 0, 0, 0, 0, 1});
    std::vector<std::vector<Rec>> data(5);
    for (uint8_t i = 0; i < 5; ++i) data[i] = {{key, Bytes(1, i)}, {key, Bytes(1, 10 + i)}};
    std::vector<Bytes> disk;
    for (const auto& s : data) disk.push_back(IFileSegment(s));
    Bytes got;
    ASSERT_TRUE(MergeToBytes(disk, Codec::kNone, type, 7, 100, &got).ok);
    EXPECT_EQ(got, ReferenceMerge(data, type)) << int(type);
  }
}

TEST(SegmentMergerTest, RecordsStraddleOutputFrames) {
  std::vector<std::vector<Rec>> data = {{{TextKey("a"), Bytes(1000, 1)}},
                                        {{TextKey("b"), Bytes(3000, 2)}}};
  std::vector<Bytes> disk = {IFileSegment(data[0]), IFileSegment(data[1])};
  Bytes got;
  size_t frames = 0;
  ASSERT_TRUE(MergeToBytes(disk, Codec::kNone, 1, 100, 256, &got, &frames).ok);
  EXPECT_EQ(got, ReferenceMerge(data, 1));
  EXPECT_EQ(frames, (got.size() + 255) / 256);
}

TEST(SegmentMergerTest, CorruptSegmentFailsTheMergeAsCorrupt) {
  std::mt19937 rng(3);
  auto data = RandomTextSegments(rng, 4, 50, 100);
  std::vector<Bytes> disk;
  for (const auto& s : data) disk.push_back(IFileSegment(s));
  disk[2][disk[2].size() / 2] ^= 0x10;
  Bytes got;
  MergeResult r = MergeToBytes(disk, Codec::kNone, 1, 64, 4096, &got);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.failed_kind, SegmentReader::ErrorKind::kCorrupt);
}

TEST(SegmentMergerTest, IllShapedKeyIsCorrupt) {
  std::vector<Bytes> disk = {IFileSegment({{Bytes({1, 2, 3}), {}}})};  // 3-byte IntWritable
  Bytes got;
  MergeResult r = MergeToBytes(disk, Codec::kNone, 3, 64, 4096, &got);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.failed_kind, SegmentReader::ErrorKind::kCorrupt);
}
