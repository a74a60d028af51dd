// Hadoop's block-compressed streams (BlockCompressorStream, as SnappyCodec and Lz4Codec write
// them in Hadoop 3.5.0, via snappy-java and lz4-java). The stream is a sequence of blocks:
//   4-byte big-endian uncompressed length U of the block (0 = end of stream)
//   then chunks until U bytes are decoded: 4-byte big-endian compressed length C, C bytes,
//   each chunk one raw Snappy / LZ4 block decoded on its own.
// BlockDecoder takes the on-disk bytes in pieces cut anywhere and hands out each chunk's
// decoded bytes. Nothing is trusted: lengths are bounded by what the segment can hold before
// anything is allocated, and the decompressors are the bounds-checked ones.
#ifndef HADOOP_ACCEL_JBS_BLOCK_CODEC_H
#define HADOOP_ACCEL_JBS_BLOCK_CODEC_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "reducer_protocol.h"

namespace hadoop_accel::jbs {

// Whether this build can decode the codec (the libraries were found at configure time).
bool CodecBuiltIn(Codec codec);

class BlockDecoder {
 public:
  enum class Step { kOutput, kNeedInput, kError };

  // codec: kSnappy or kLz4. compressed_length: the stream's on-disk bytes (segment minus its
  // CRC trailer); raw_bound: an upper bound on the decoded bytes (0 = unknown).
  BlockDecoder(Codec codec, uint64_t compressed_length, uint64_t raw_bound);

  // Consumes bytes from *in (advancing *in, *avail). kOutput: *out/*out_len hold one chunk's
  // decoded bytes, valid until the next call. kNeedInput: *avail is 0. kError: error() says why.
  Step Decode(const uint8_t** in, size_t* avail, const uint8_t** out, size_t* out_len);

  // True between blocks (or after the end block): the stream may end here.
  bool AtBoundary() const { return state_ == State::kBlockHeader || state_ == State::kEnded; }
  const std::string& error() const { return error_; }

 private:
  enum class State { kBlockHeader, kChunkHeader, kChunkBody, kEnded, kFailed };
  Step Fail(const std::string& message);
  bool TakeHeader(const uint8_t** in, size_t* avail, uint32_t* value);
  Step DecodeChunk(const uint8_t* data, const uint8_t** out, size_t* out_len);
  // One chunk of chunk_length_ bytes into decoded_, at most cap bytes; *produced is its size.
  Step DecodeSnappy(const uint8_t* data, uint64_t cap, size_t* produced);
  Step DecodeLz4(const uint8_t* data, uint64_t cap, size_t* produced);

  const Codec codec_;
  const uint64_t compressed_length_;
  const uint64_t raw_bound_;
  State state_ = State::kBlockHeader;
  std::string error_;
  uint64_t consumed_ = 0;     // on-disk bytes taken so far
  uint64_t raw_decoded_ = 0;  // decoded bytes so far
  uint8_t header_[4] = {};
  size_t header_got_ = 0;
  uint64_t block_left_ = 0;  // decoded bytes still due in the current block
  uint32_t chunk_length_ = 0;
  std::vector<uint8_t> chunk_;  // a compressed chunk that straddles input pieces
  std::vector<uint8_t> decoded_;
};

}  // namespace hadoop_accel::jbs

#endif
