// Hadoop's variable-length integers (org.apache.hadoop.io.WritableUtils writeVLong/readVLong),
// the length prefixes of IFile records and of Text keys: -112..127 in one byte; otherwise a
// first byte giving sign and byte count (-113..-120 positive, -121..-128 negative, 1..8
// bytes) followed by the magnitude big-endian (ones' complement for negatives).
#ifndef HADOOP_ACCEL_JBS_WRITABLE_VINT_H
#define HADOOP_ACCEL_JBS_WRITABLE_VINT_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hadoop_accel::jbs {

// Total encoded size (1..9) announced by a vint's first byte (WritableUtils.decodeVIntSize).
inline int VIntSizeFromFirstByte(uint8_t first) {
  auto v = static_cast<int8_t>(first);
  if (v >= -112) return 1;
  if (v < -120) return -119 - v;
  return -111 - v;
}

inline bool VIntIsNegative(uint8_t first) {
  auto v = static_cast<int8_t>(first);
  return v < -120 || (v >= -112 && v < 0);
}

// Decodes a vint whose VIntSizeFromFirstByte(p[0]) bytes are all at p.
inline int64_t DecodeVLong(const uint8_t* p) {
  int n = VIntSizeFromFirstByte(p[0]);
  if (n == 1) return static_cast<int8_t>(p[0]);
  uint64_t i = 0;
  for (int k = 1; k < n; ++k) i = (i << 8) | p[k];
  return VIntIsNegative(p[0]) ? static_cast<int64_t>(~i) : static_cast<int64_t>(i);
}

inline size_t VLongSize(int64_t v) {
  if (v >= -112 && v <= 127) return 1;
  uint64_t u = v < 0 ? ~static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  size_t n = 0;
  for (; u != 0; u >>= 8) ++n;
  return n + 1;
}

// Writes v's vint (1..9 bytes) to out; returns its size.
inline size_t EncodeVLong(int64_t v, uint8_t out[9]) {
  if (v >= -112 && v <= 127) {
    out[0] = static_cast<uint8_t>(static_cast<int8_t>(v));
    return 1;
  }
  int len = -112;
  uint64_t u = static_cast<uint64_t>(v);
  if (v < 0) {
    u = ~u;
    len = -120;
  }
  for (uint64_t t = u; t != 0; t >>= 8) --len;
  out[0] = static_cast<uint8_t>(static_cast<int8_t>(len));
  int n = len < -120 ? -(len + 120) : -(len + 112);
  for (int idx = n; idx != 0; --idx) out[1 + n - idx] = static_cast<uint8_t>(u >> ((idx - 1) * 8));
  return static_cast<size_t>(n) + 1;
}

inline void AppendVLong(std::vector<uint8_t>* out, int64_t v) {
  uint8_t b[9];
  size_t n = EncodeVLong(v, b);
  out->insert(out->end(), b, b + n);
}

}  // namespace hadoop_accel::jbs

#endif
