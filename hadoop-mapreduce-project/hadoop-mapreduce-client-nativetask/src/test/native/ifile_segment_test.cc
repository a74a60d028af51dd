#include "ifile_segment.h"

#include <gtest/gtest.h>

#include <random>

#include "ifile_writer.h"

using namespace hadoop_accel::jbs;
using namespace jbs_test;

namespace {

std::vector<Rec> SomeRecords() {
  std::vector<Rec> recs;
  recs.push_back({TextKey(""), {}});
  recs.push_back({TextKey("a"), Bytes(1, 'x')});
  recs.push_back({TextKey(std::string(130, 'k')), Bytes(300, 'v')});  // 2-byte vints
  recs.push_back({TextKey("z"), Bytes(70000, 'w')});                  // 3-byte value vint
  return recs;
}

}  // namespace

TEST(VIntTest, MatchesWritableUtilsEncoding) {
  // Byte values from WritableUtils.writeVLong.
  EXPECT_EQ(RawRecords({}, true), Bytes({0xFF, 0xFF}));  // EOF marker: -1, -1
  Bytes b;
  AppendVLong(&b, 127);
  AppendVLong(&b, 128);
  AppendVLong(&b, -112);
  AppendVLong(&b, -113);
  AppendVLong(&b, 70000);
  EXPECT_EQ(b, Bytes({0x7F, 0x8F, 0x80, 0x90, 0x87, 0x70, 0x8D, 0x01, 0x11, 0x70}));
  for (int64_t v :
       std::initializer_list<int64_t>{0ll, 1ll, -1ll, 127ll, 128ll, -112ll, -113ll, 255ll, 256ll,
                                      65535ll, -65536ll, 1ll << 40, INT64_MAX, INT64_MIN}) {
    Bytes e;
    AppendVLong(&e, v);
    EXPECT_EQ(e.size(), VLongSize(v)) << v;
    EXPECT_EQ(static_cast<size_t>(VIntSizeFromFirstByte(e[0])), e.size()) << v;
    EXPECT_EQ(DecodeVLong(e.data()), v);
  }
}

TEST(IFileSegmentTest, EveryChunkBoundaryPlain) {
  auto recs = SomeRecords();
  Bytes seg = IFileSegment(recs);
  for (size_t cut = 1; cut < seg.size(); cut += (cut < 400 || seg.size() - cut < 400) ? 1 : 97) {
    MemChunkSource src(seg, {cut, seg.size()});
    std::vector<Rec> got;
    std::string err;
    ASSERT_TRUE(ReadAll(&src, Codec::kNone, &got, &err)) << cut << " " << err;
    ASSERT_EQ(got.size(), recs.size()) << cut;
    for (size_t i = 0; i < recs.size(); ++i) {
      EXPECT_EQ(got[i].key, recs[i].key);
      EXPECT_EQ(got[i].value, recs[i].value);
    }
  }
}

TEST(IFileSegmentTest, TinyChunksAndZlib) {
  auto recs = SomeRecords();
  for (bool zlib : {false, true}) {
    Bytes seg = IFileSegment(recs, zlib);
    for (size_t size : {1, 2, 3, 5, 7, 64, 4096}) {
      MemChunkSource src(seg, {size});
      std::vector<Rec> got;
      std::string err;
      ASSERT_TRUE(ReadAll(&src, zlib ? Codec::kZlib : Codec::kNone, &got, &err))
          << zlib << " " << size << " " << err;
      ASSERT_EQ(got.size(), recs.size());
      EXPECT_EQ(got[3].value, recs[3].value);
    }
  }
}

TEST(IFileSegmentTest, ZlibEveryChunkBoundary) {
  std::vector<Rec> recs = {{TextKey("k1"), Bytes(50, 1)}, {TextKey("k2"), Bytes(9, 2)}};
  Bytes seg = IFileSegment(recs, true);
  for (size_t cut = 1; cut < seg.size(); ++cut) {
    MemChunkSource src(seg, {cut, seg.size()});
    std::vector<Rec> got;
    std::string err;
    ASSERT_TRUE(ReadAll(&src, Codec::kZlib, &got, &err)) << cut << " " << err;
    EXPECT_EQ(got.size(), 2u);
  }
}

TEST(IFileSegmentTest, EmptySegment) {
  for (bool zlib : {false, true}) {
    MemChunkSource src(IFileSegment({}, zlib), {3});
    std::vector<Rec> got;
    EXPECT_TRUE(ReadAll(&src, zlib ? Codec::kZlib : Codec::kNone, &got));
    EXPECT_TRUE(got.empty());
  }
}

TEST(IFileSegmentTest, EveryFlippedByteIsAnErrorNotACrash) {
  for (bool zlib : {false, true}) {
    Bytes seg = IFileSegment(SomeRecords(), zlib);
    for (size_t i = 0; i < seg.size(); i += (zlib ? 1 : 13)) {
      Bytes bad = seg;
      bad[i] ^= 0x41;
      MemChunkSource src(bad, {1000});
      std::vector<Rec> got;
      std::string err;
      EXPECT_FALSE(ReadAll(&src, zlib ? Codec::kZlib : Codec::kNone, &got, &err)) << i;
      EXPECT_FALSE(err.empty());
    }
  }
}

TEST(IFileSegmentTest, MalformedStructureIsRefused) {
  auto expect_error = [](const Bytes& seg, Codec codec, const std::string& what) {
    MemChunkSource src(seg, {5});
    std::vector<Rec> got;
    std::string err;
    EXPECT_FALSE(ReadAll(&src, codec, &got, &err)) << what;
    EXPECT_NE(err.find(what), std::string::npos) << err;
  };
  std::vector<Rec> one = {{TextKey("a"), Bytes(3, 'b')}};
  // Truncated: no EOF marker, correct CRC over what is there.
  expect_error(WithCrcTrailer(RawRecords(one, false)), Codec::kNone, "truncated");
  // Data after the EOF marker.
  Bytes extra = RawRecords(one);
  extra.push_back(0);
  expect_error(WithCrcTrailer(extra), Codec::kNone, "after the EOF marker");
  // A length pointing far past the segment.
  Bytes huge;
  AppendVLong(&huge, 1 << 30);
  AppendVLong(&huge, 0);
  expect_error(WithCrcTrailer(huge), Codec::kNone, "longer than its segment");
  // Negative lengths other than the marker.
  Bytes neg;
  AppendVLong(&neg, -5);
  AppendVLong(&neg, 0);
  expect_error(WithCrcTrailer(neg), Codec::kNone, "negative");
  // A vint beyond int range.
  Bytes wide;
  AppendVLong(&wide, int64_t{1} << 40);
  AppendVLong(&wide, 0);
  expect_error(WithCrcTrailer(wide), Codec::kNone, "fit an int");
  // Shorter than its trailer.
  expect_error(Bytes{1, 2}, Codec::kNone, "shorter");
  // zlib: garbage after the stream, and a stream cut short.
  Bytes z = Compress(RawRecords(one));
  Bytes z_extra = z;
  z_extra.push_back(7);
  expect_error(WithCrcTrailer(z_extra), Codec::kZlib, "after the compressed stream");
  Bytes z_short(z.begin(), z.end() - 3);
  expect_error(WithCrcTrailer(z_short), Codec::kZlib, "truncated");
}

TEST(IFileSegmentTest, AsksForTheNextChunkHalfWayThroughTheCurrent) {
  std::vector<Rec> recs;
  for (int i = 0; i < 100; ++i) recs.push_back({TextKey("k"), Bytes(100, 1)});
  Bytes seg = IFileSegment(recs);
  MemChunkSource src(seg, {1024});
  std::vector<Rec> got;
  ASSERT_TRUE(ReadAll(&src, Codec::kNone, &got));
  size_t chunks = (seg.size() + 1023) / 1024;
  EXPECT_GE(src.prefetches(), chunks - 2);
  EXPECT_LE(src.prefetches(), chunks);
}
