// Snappy / LZ4 map output: Hadoop's BlockCompressorStream framing, written here with the same
// libraries, read by SegmentReader at every cut; corrupt and truncated streams (CRC trailer
// recomputed, so the decoder itself must catch them) end in an error, never a crash.
#include "block_codec.h"

#include <gtest/gtest.h>

#ifdef JBS_HAVE_SNAPPY
#include <snappy-c.h>
#endif
#ifdef JBS_HAVE_LZ4
#include <lz4.h>
#endif

#include <algorithm>
#include <random>
#include <tuple>

#include "ifile_segment.h"
#include "ifile_writer.h"

using namespace hadoop_accel::jbs;
using namespace jbs_test;

namespace {

void PutBe32(Bytes* out, uint32_t v) {
  for (int i = 3; i >= 0; --i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

Bytes CompressChunk(Codec codec, const uint8_t* p, size_t n) {
  Bytes out;
#ifdef JBS_HAVE_SNAPPY
  if (codec == Codec::kSnappy) {
    size_t len = snappy_max_compressed_length(n);
    out.resize(len);
    snappy_compress(reinterpret_cast<const char*>(p), n, reinterpret_cast<char*>(out.data()), &len);
    out.resize(len);
  }
#endif
#ifdef JBS_HAVE_LZ4
  if (codec == Codec::kLz4) {
    out.resize(static_cast<size_t>(LZ4_compressBound(static_cast<int>(n))));
    int len =
        LZ4_compress_default(reinterpret_cast<const char*>(p), reinterpret_cast<char*>(out.data()),
                             static_cast<int>(n), static_cast<int>(out.size()));
    out.resize(static_cast<size_t>(len));
  }
#endif
  return out;
}

// BlockCompressorStream's layout: blocks of at most `block` raw bytes, each one chunk; with
// split_chunks a block is written as Hadoop writes one large write() (one block header, then
// several chunks of at most `chunk` raw bytes each). end_block appends the 0-length block.
// headers (if given) collects the offsets of the 4-byte length fields.
Bytes BlockStream(Codec codec, const Bytes& raw, size_t block, size_t chunk = 0,
                  bool end_block = false, std::vector<size_t>* headers = nullptr) {
  Bytes out;
  auto header = [&](uint32_t v) {
    if (headers) headers->push_back(out.size());
    PutBe32(&out, v);
  };
  for (size_t off = 0; off < raw.size(); off += block) {
    size_t n = std::min(block, raw.size() - off);
    header(static_cast<uint32_t>(n));
    size_t step = chunk == 0 ? n : chunk;
    for (size_t c = 0; c < n; c += step) {
      Bytes z = CompressChunk(codec, raw.data() + off + c, std::min(step, n - c));
      header(static_cast<uint32_t>(z.size()));
      out.insert(out.end(), z.begin(), z.end());
    }
  }
  if (end_block) PutBe32(&out, 0);
  return out;
}

std::vector<Rec> Records(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Rec> recs;
  for (size_t i = 0; i < count; ++i) {
    Bytes value(rng() % 3000, 0);
    for (auto& b : value) b = static_cast<uint8_t>("abcab"[rng() % 5]);
    recs.push_back({TextKey("key" + std::to_string(rng() % 1000)), value});
  }
  return recs;
}

std::vector<Codec> BuiltCodecs() {
  std::vector<Codec> c;
  for (Codec k : {Codec::kSnappy, Codec::kLz4})
    if (CodecBuiltIn(k)) c.push_back(k);
  return c;
}

}  // namespace

TEST(BlockCodecTest, BothCodecsBuiltHere) {
  // install-build-deps installs both libraries; a build without one is allowed, not here.
  EXPECT_TRUE(CodecBuiltIn(Codec::kSnappy));
  EXPECT_TRUE(CodecBuiltIn(Codec::kLz4));
}

TEST(BlockCodecTest, EveryLayoutAndCut) {
  auto recs = Records(40, 1);
  Bytes raw = RawRecords(recs);
  for (Codec codec : BuiltCodecs()) {
    for (auto [block, chunk, end] : std::vector<std::tuple<size_t, size_t, bool>>{
             {256 * 1024, 0, false}, {4096, 0, false}, {10000, 999, false}, {777, 0, true}}) {
      Bytes seg = WithCrcTrailer(BlockStream(codec, raw, block, chunk, end));
      for (size_t size : {1, 3, 4, 5, 13, 4096, 131072}) {
        MemChunkSource src(seg, {size}, raw.size());
        std::vector<Rec> got;
        std::string err;
        ASSERT_TRUE(ReadAll(&src, codec, &got, &err)) << block << " " << size << " " << err;
        ASSERT_EQ(got.size(), recs.size());
        for (size_t i = 0; i < recs.size(); ++i) ASSERT_EQ(got[i].value, recs[i].value);
      }
    }
  }
}

TEST(BlockCodecTest, EveryChunkBoundarySmallSegment) {
  std::vector<Rec> recs = {{TextKey("k1"), Bytes(500, 1)}, {TextKey("k2"), Bytes(9, 2)}};
  Bytes raw = RawRecords(recs);
  for (Codec codec : BuiltCodecs()) {
    Bytes seg = WithCrcTrailer(BlockStream(codec, raw, 200, 64));
    for (size_t cut = 1; cut < seg.size(); ++cut) {
      MemChunkSource src(seg, {cut, seg.size()});
      std::vector<Rec> got;
      std::string err;
      ASSERT_TRUE(ReadAll(&src, codec, &got, &err)) << cut << " " << err;
      EXPECT_EQ(got.size(), 2u);
    }
  }
}

TEST(BlockCodecTest, EmptySegment) {
  for (Codec codec : BuiltCodecs()) {
    MemChunkSource src(WithCrcTrailer(BlockStream(codec, RawRecords({}), 4096)), {3});
    std::vector<Rec> got;
    std::string err;
    EXPECT_TRUE(ReadAll(&src, codec, &got, &err)) << err;
    EXPECT_TRUE(got.empty());
  }
}

// Every byte flipped and every truncation, with a CRC that matches the damaged bytes: the
// block decoder (or the record reader behind it) must refuse, never read past its input (the
// ASan build of the fuzz smoke covers that too). A flip in a length field is always refused; a
// flip inside compressed data may decode to other bytes, or even the same (a match offset into
// equal text), so there most, not all, must be caught.
TEST(BlockCodecTest, CorruptOrTruncatedStreamIsAnError) {
  Bytes raw = RawRecords(Records(6, 2));
  for (Codec codec : BuiltCodecs()) {
    std::vector<size_t> headers;
    Bytes body = BlockStream(codec, raw, 1500, 700, false, &headers);
    size_t payload_flips = 0, payload_caught = 0;
    for (size_t i = 0; i < body.size(); ++i) {
      bool in_header = std::any_of(headers.begin(), headers.end(),
                                   [i](size_t h) { return i >= h && i < h + 4; });
      for (uint8_t mask : {0x01, 0x80, 0xFF}) {
        Bytes bad = body;
        bad[i] ^= mask;
        MemChunkSource src(WithCrcTrailer(bad), {333}, raw.size());
        std::vector<Rec> got;
        std::string err;
        bool ok = ReadAll(&src, codec, &got, &err);
        if (!ok) {
          EXPECT_FALSE(err.empty());
        }
        if (in_header) {
          EXPECT_FALSE(ok) << "length field byte " << i << " mask " << int{mask};
        } else {
          ++payload_flips;
          if (!ok || RawRecords(got) != raw) ++payload_caught;
        }
      }
    }
    EXPECT_GT(payload_caught * 10, payload_flips * 9) << payload_caught << "/" << payload_flips;
    for (size_t len = 0; len < body.size(); ++len) {
      Bytes cut(body.begin(), body.begin() + static_cast<long>(len));
      MemChunkSource src(WithCrcTrailer(cut), {100}, raw.size());
      std::vector<Rec> got;
      std::string err;
      EXPECT_FALSE(ReadAll(&src, codec, &got, &err)) << len;
      EXPECT_FALSE(err.empty());
    }
  }
}

TEST(BlockCodecTest, LengthsAreBoundedBeforeAllocation) {
  for (Codec codec : BuiltCodecs()) {
    auto expect_error = [codec](const Bytes& body, uint64_t raw, const std::string& what) {
      MemChunkSource src(WithCrcTrailer(body), {64}, raw);
      std::vector<Rec> got;
      std::string err;
      EXPECT_FALSE(ReadAll(&src, codec, &got, &err)) << what;
      EXPECT_NE(err.find(what), std::string::npos) << err;
    };
    expect_error({0x7F, 0xFF, 0xFF, 0xFF, 0, 0, 0, 1, 0}, 100, "exceeds the segment's raw length");
    expect_error({0x80, 0, 0, 0}, 0, "negative block length");
    expect_error({0, 0, 0, 10, 0x7F, 0xFF, 0xFF, 0xF0, 1, 2}, 0, "runs past the segment");
    expect_error({0, 0, 0, 10, 0, 0, 0, 0}, 0, "bad chunk length");
    Bytes after = BlockStream(codec, RawRecords({}), 100, 0, true);
    after.push_back(0);
    expect_error(after, 0, "after the end-of-stream block");
    // A chunk that claims more than its block (Snappy: length prefix; LZ4: decodes too far).
    Bytes raw(5000, 'x');
    Bytes z = CompressChunk(codec, raw.data(), raw.size());
    Bytes lie;
    PutBe32(&lie, 100);
    PutBe32(&lie, static_cast<uint32_t>(z.size()));
    lie.insert(lie.end(), z.begin(), z.end());
    expect_error(lie, 0, "stream");
  }
}
