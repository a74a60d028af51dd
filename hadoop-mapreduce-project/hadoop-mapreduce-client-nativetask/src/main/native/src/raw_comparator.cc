#include "raw_comparator.h"

#include <algorithm>
#include <cstring>

#include "byte_order.h"
#include "writable_vint.h"

namespace hadoop_accel::jbs {
namespace {

// WritableComparator.compareBytes: unsigned lexicographic, shorter-is-less.
int CompareBytes(const uint8_t* a, size_t alen, const uint8_t* b, size_t blen) {
  int c = std::memcmp(a, b, std::min(alen, blen));
  if (c != 0) return c < 0 ? -1 : 1;
  return alen < blen ? -1 : alen > blen ? 1 : 0;
}

size_t Skip(size_t len, size_t n) { return std::min(len, n); }

int CompareText(const uint8_t* a, size_t alen, const uint8_t* b, size_t blen) {
  size_t na = alen == 0 ? 0 : Skip(alen, static_cast<size_t>(VIntSizeFromFirstByte(a[0])));
  size_t nb = blen == 0 ? 0 : Skip(blen, static_cast<size_t>(VIntSizeFromFirstByte(b[0])));
  return CompareBytes(a + na, alen - na, b + nb, blen - nb);
}

int CompareBytesWritable(const uint8_t* a, size_t alen, const uint8_t* b, size_t blen) {
  size_t na = Skip(alen, 4), nb = Skip(blen, 4);
  return CompareBytes(a + na, alen - na, b + nb, blen - nb);
}

int CompareInt(const uint8_t* a, size_t alen, const uint8_t* b, size_t blen) {
  if (alen < 4 || blen < 4) return CompareBytes(a, alen, b, blen);  // refused earlier
  auto x = static_cast<int32_t>(LoadBe32(a)), y = static_cast<int32_t>(LoadBe32(b));
  return x < y ? -1 : x > y ? 1 : 0;
}

int CompareLong(const uint8_t* a, size_t alen, const uint8_t* b, size_t blen) {
  if (alen < 8 || blen < 8) return CompareBytes(a, alen, b, blen);  // refused earlier
  auto x = static_cast<int64_t>(LoadBe64(a)), y = static_cast<int64_t>(LoadBe64(b));
  return x < y ? -1 : x > y ? 1 : 0;
}

}  // namespace

RawCompare ComparatorFor(uint8_t key_type) {
  switch (static_cast<KeyType>(key_type)) {
    case KeyType::kText:
      return CompareText;
    case KeyType::kBytesWritable:
      return CompareBytesWritable;
    case KeyType::kInt:
      return CompareInt;
    case KeyType::kLong:
      return CompareLong;
  }
  return nullptr;
}

bool IsWellFormedKey(uint8_t key_type, const uint8_t* key, size_t len) {
  switch (static_cast<KeyType>(key_type)) {
    case KeyType::kText:
      return len > 0 && static_cast<size_t>(VIntSizeFromFirstByte(key[0])) <= len;
    case KeyType::kBytesWritable:
      return len >= 4;
    case KeyType::kInt:
      return len == 4;
    case KeyType::kLong:
      return len == 8;
  }
  return false;
}

}  // namespace hadoop_accel::jbs
