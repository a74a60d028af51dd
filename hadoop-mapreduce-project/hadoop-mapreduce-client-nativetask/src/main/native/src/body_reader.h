// Reads big-endian fields from a frame body, refusing to step past its end: the one reader
// under both protocol codecs (wire_format.cc, reducer_protocol.cc).
#ifndef HADOOP_ACCEL_JBS_BODY_READER_H
#define HADOOP_ACCEL_JBS_BODY_READER_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "byte_order.h"

namespace hadoop_accel::jbs {

class BodyReader {
 public:
  BodyReader(const uint8_t* p, size_t n) : p_(p), left_(n) {}
  bool U8(uint8_t* v) { return Take(1) && (*v = *last_, true); }
  bool U16(uint16_t* v) { return Take(2) && (*v = LoadBe16(last_), true); }
  bool U32(uint32_t* v) { return Take(4) && (*v = LoadBe32(last_), true); }
  bool U64(uint64_t* v) { return Take(8) && (*v = LoadBe64(last_), true); }
  bool Bytes(uint8_t* dst, size_t n) {
    if (!Take(n)) return false;
    std::copy(last_, last_ + n, dst);
    return true;
  }
  // A u16-length-prefixed string; a length above max fails before any copy (and sets
  // *too_long when given, so a caller can tell an oversized field from a truncated body).
  bool String(std::string* s, size_t max, bool* too_long = nullptr) {
    uint16_t n;
    if (!U16(&n)) return false;
    if (n > max) {
      if (too_long != nullptr) *too_long = true;
      return false;
    }
    if (!Take(n)) return false;
    s->assign(reinterpret_cast<const char*>(last_), n);
    return true;
  }
  bool AtEnd() const { return left_ == 0; }

 private:
  bool Take(size_t n) {
    if (n > left_) return false;
    last_ = p_;
    p_ += n;
    left_ -= n;
    return true;
  }
  const uint8_t* p_;
  const uint8_t* last_ = nullptr;
  size_t left_;
};

}  // namespace hadoop_accel::jbs

#endif
