#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "hadoop_accel/accel.h"

namespace {

// Bit-at-a-time reference: the definition, independent of the implementation under test.
uint32_t ReferenceCrc32(const unsigned char *p, size_t len) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < len; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return ~c;
}

TEST(Crc32, KnownVectors) {
  EXPECT_EQ(0u, hacc_crc32_update(0, "", 0));
  EXPECT_EQ(0xCBF43926u, hacc_crc32_update(0, "123456789", 9));
  const char *fox = "The quick brown fox jumps over the lazy dog";
  EXPECT_EQ(0x414FA339u, hacc_crc32_update(0, fox, std::strlen(fox)));
}

TEST(Crc32, MatchesReferenceOnRandomLengthsAndAlignments) {
  std::mt19937 rng(42);
  std::vector<unsigned char> data(4096 + 16);
  for (auto &b : data) b = static_cast<unsigned char>(rng());
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t len : {0u, 1u, 7u, 8u, 9u, 63u, 64u, 1000u, 4096u}) {
      EXPECT_EQ(ReferenceCrc32(data.data() + offset, len),
                hacc_crc32_update(0, data.data() + offset, len))
          << "offset=" << offset << " len=" << len;
    }
  }
}

TEST(Crc32, IncrementalEqualsWhole) {
  std::string s(10007, 'x');
  for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<char>(i * 31 + 7);
  uint32_t whole = hacc_crc32_update(0, s.data(), s.size());
  uint32_t parts = 0;
  for (size_t pos = 0; pos < s.size(); pos += 333) {
    parts = hacc_crc32_update(parts, s.data() + pos, std::min<size_t>(333, s.size() - pos));
  }
  EXPECT_EQ(whole, parts);
}

}  // namespace
