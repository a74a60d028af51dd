#include "block_codec.h"

#include <algorithm>
#include <limits>

#ifdef JBS_HAVE_SNAPPY
#include <snappy-c.h>
#endif
#ifdef JBS_HAVE_LZ4
#include <lz4.h>
#endif

#include "byte_order.h"

namespace hadoop_accel::jbs {
namespace {
constexpr uint64_t kJavaIntMax = std::numeric_limits<int32_t>::max();
// Neither format expands one compressed byte into more than 255 decoded ones (LZ4's limit;
// Snappy's is about 22), so a chunk's claimed length is checked against this before any
// buffer is sized.
constexpr uint64_t kMaxExpansion = 255;

const char* CodecName(Codec codec) { return codec == Codec::kSnappy ? "snappy" : "lz4"; }

#ifdef JBS_HAVE_SNAPPY
constexpr bool kHaveSnappy = true;
#else
constexpr bool kHaveSnappy = false;
#endif
#ifdef JBS_HAVE_LZ4
constexpr bool kHaveLz4 = true;
#else
constexpr bool kHaveLz4 = false;
#endif
}  // namespace

bool CodecBuiltIn(Codec codec) {
  if (codec == Codec::kSnappy) return kHaveSnappy;
  if (codec == Codec::kLz4) return kHaveLz4;
  return codec == Codec::kNone || codec == Codec::kZlib;
}

BlockDecoder::BlockDecoder(Codec codec, uint64_t compressed_length, uint64_t raw_bound)
    : codec_(codec), compressed_length_(compressed_length), raw_bound_(raw_bound) {
  if (!CodecBuiltIn(codec_) || (codec_ != Codec::kSnappy && codec_ != Codec::kLz4))
    Fail("codec " + std::to_string(static_cast<int>(codec_)) + " not built in");
}

BlockDecoder::Step BlockDecoder::Fail(const std::string& message) {
  if (state_ != State::kFailed) {
    state_ = State::kFailed;
    error_ = std::string(CodecName(codec_)) + " stream: " + message;
  }
  return Step::kError;
}

// Collects a 4-byte big-endian header across pieces; false while incomplete.
bool BlockDecoder::TakeHeader(const uint8_t** in, size_t* avail, uint32_t* value) {
  size_t take = std::min(sizeof header_ - header_got_, *avail);
  std::copy(*in, *in + take, header_ + header_got_);
  header_got_ += take;
  *in += take;
  *avail -= take;
  consumed_ += take;
  if (header_got_ < sizeof header_) return false;
  header_got_ = 0;
  *value = LoadBe32(header_);
  return true;
}

BlockDecoder::Step BlockDecoder::Decode(const uint8_t** in, size_t* avail, const uint8_t** out,
                                        size_t* out_len) {
  for (;;) {
    switch (state_) {
      case State::kFailed:
        return Step::kError;
      case State::kEnded:
        if (*avail > 0) return Fail("data after the end-of-stream block");
        return Step::kNeedInput;
      case State::kBlockHeader: {
        if (*avail == 0) return Step::kNeedInput;
        uint32_t u;
        if (!TakeHeader(in, avail, &u)) return Step::kNeedInput;
        if (u > kJavaIntMax) return Fail("negative block length");
        if (u == 0) {
          state_ = State::kEnded;
          continue;
        }
        if (raw_bound_ != 0 && raw_decoded_ + u > raw_bound_)
          return Fail("block of " + std::to_string(u) + " bytes exceeds the segment's raw length");
        block_left_ = u;
        state_ = State::kChunkHeader;
        continue;
      }
      case State::kChunkHeader: {
        if (*avail == 0) return Step::kNeedInput;
        uint32_t c;
        if (!TakeHeader(in, avail, &c)) return Step::kNeedInput;
        if (c == 0 || c > kJavaIntMax) return Fail("bad chunk length " + std::to_string(c));
        if (c > compressed_length_ - consumed_)
          return Fail("chunk of " + std::to_string(c) + " bytes runs past the segment");
        chunk_length_ = c;
        chunk_.clear();
        state_ = State::kChunkBody;
        continue;
      }
      case State::kChunkBody: {
        if (chunk_.empty() && *avail >= chunk_length_) {  // whole chunk in this piece
          const uint8_t* data = *in;
          *in += chunk_length_;
          *avail -= chunk_length_;
          consumed_ += chunk_length_;
          return DecodeChunk(data, out, out_len);
        }
        if (*avail == 0) return Step::kNeedInput;
        size_t take = std::min<size_t>(chunk_length_ - chunk_.size(), *avail);
        chunk_.insert(chunk_.end(), *in, *in + take);
        *in += take;
        *avail -= take;
        consumed_ += take;
        if (chunk_.size() < chunk_length_) return Step::kNeedInput;
        return DecodeChunk(chunk_.data(), out, out_len);
      }
    }
  }
}

BlockDecoder::Step BlockDecoder::DecodeChunk(const uint8_t* data, const uint8_t** out,
                                             size_t* out_len) {
  uint64_t cap = std::min<uint64_t>(block_left_, uint64_t{chunk_length_} * kMaxExpansion + 16);
  size_t produced = 0;
  Step step = codec_ == Codec::kSnappy ? DecodeSnappy(data, cap, &produced)
                                       : DecodeLz4(data, cap, &produced);
  if (step == Step::kError) return step;
  block_left_ -= produced;
  raw_decoded_ += produced;
  state_ = block_left_ == 0 ? State::kBlockHeader : State::kChunkHeader;
  *out = decoded_.data();
  *out_len = produced;
  return Step::kOutput;
}

BlockDecoder::Step BlockDecoder::DecodeSnappy([[maybe_unused]] const uint8_t* data,
                                              [[maybe_unused]] uint64_t cap,
                                              [[maybe_unused]] size_t* produced) {
#ifdef JBS_HAVE_SNAPPY
  size_t n = 0;
  const char* src = reinterpret_cast<const char*>(data);
  if (snappy_uncompressed_length(src, chunk_length_, &n) != SNAPPY_OK)
    return Fail("corrupt chunk header");
  if (n > cap) return Fail("chunk decodes past its block");
  decoded_.resize(std::max<size_t>(n, 1));
  if (snappy_uncompress(src, chunk_length_, reinterpret_cast<char*>(decoded_.data()), &n) !=
      SNAPPY_OK)
    return Fail("corrupt chunk");
  *produced = n;
  return Step::kOutput;
#else
  return Fail("not built in");  // CodecBuiltIn keeps such segments from coming here
#endif
}

BlockDecoder::Step BlockDecoder::DecodeLz4([[maybe_unused]] const uint8_t* data,
                                           [[maybe_unused]] uint64_t cap,
                                           [[maybe_unused]] size_t* produced) {
#ifdef JBS_HAVE_LZ4
  decoded_.resize(std::max<size_t>(static_cast<size_t>(cap), 1));
  int n = LZ4_decompress_safe(reinterpret_cast<const char*>(data),
                              reinterpret_cast<char*>(decoded_.data()),
                              static_cast<int>(chunk_length_), static_cast<int>(cap));
  if (n < 0) return Fail("corrupt chunk (or one that decodes past its block)");
  *produced = static_cast<size_t>(n);
  return Step::kOutput;
#else
  return Fail("not built in");  // CodecBuiltIn keeps such segments from coming here
#endif
}

}  // namespace hadoop_accel::jbs
