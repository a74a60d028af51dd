// How the IFile segment fuzz target reads its input (shared by the target and its seeds):
//   byte 0, mode: bits 0-1 the form of the payload —
//     0: a plain segment's on-disk bytes as they are (records, EOF marker, CRC trailer),
//     1: a plain segment without its trailer (the right CRC is appended),
//     2: raw records + marker, compressed here as DefaultCodec does, then the CRC appended,
//     3: a zlib segment without its trailer (the CRC is appended);
//   bits 2-3 the raw length the index would announce (0: none, 1: the true one, 2: one less,
//   3: byte 1); bits 4-7 and byte 1 how the segment is cut into chunks.
//   bytes 2..: the payload.
// The CRC and compression fix-ups let mutations of records reach the record parser, plain and
// zlib, instead of stopping at the checksum or at inflate.
#ifndef HADOOP_ACCEL_JBS_SEGMENT_READER_FUZZ_INPUT_H
#define HADOOP_ACCEL_JBS_SEGMENT_READER_FUZZ_INPUT_H

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ifile_segment.h"
#include "ifile_writer.h"

namespace hadoop_accel::jbs {

struct SegmentFuzzInput {
  Codec codec = Codec::kNone;
  std::vector<uint8_t> segment;     // on-disk bytes, trailer included
  uint8_t raw_length_mode = 0;      // bits 2-3 of the mode byte
  uint8_t raw_length_byte = 0;      // byte 1
  std::vector<size_t> chunk_sizes;  // cycled
};

inline bool ParseSegmentFuzzInput(const uint8_t* data, size_t size, SegmentFuzzInput* in) {
  if (size < 2) return false;
  const uint8_t mode = data[0], b1 = data[1];
  std::vector<uint8_t> payload(data + 2, data + size);
  switch (mode & 3) {
    case 0:
      in->segment = std::move(payload);
      break;
    case 1:
      in->segment = jbs_test::WithCrcTrailer(std::move(payload));
      break;
    case 2:
      in->codec = Codec::kZlib;
      in->segment = jbs_test::WithCrcTrailer(jbs_test::Compress(payload));
      break;
    default:
      in->codec = Codec::kZlib;
      in->segment = jbs_test::WithCrcTrailer(std::move(payload));
  }
  in->raw_length_mode = (mode >> 2) & 3;
  in->raw_length_byte = b1;
  const size_t k = mode >> 4;
  in->chunk_sizes = {1 + (b1 & 7u), 1 + k * 61 + b1, 2 + (k & 3), 4096 + k * 997};
  return true;
}

}  // namespace hadoop_accel::jbs

#endif
