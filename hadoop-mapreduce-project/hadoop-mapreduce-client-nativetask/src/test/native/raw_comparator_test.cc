#include "raw_comparator.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "ifile_writer.h"

using namespace hadoop_accel::jbs;
using jbs_test::Bytes;

namespace {

int Cmp(uint8_t type, const Bytes& a, const Bytes& b) {
  return ComparatorFor(type)(a.data(), a.size(), b.data(), b.size());
}

Bytes Int(int32_t v) {
  auto u = static_cast<uint32_t>(v);
  return {static_cast<uint8_t>(u >> 24), static_cast<uint8_t>(u >> 16),
          static_cast<uint8_t>(u >> 8), static_cast<uint8_t>(u)};
}

Bytes Long(int64_t v) {
  Bytes b;
  for (int i = 7; i >= 0; --i)
    b.push_back(static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i)));
  return b;
}

Bytes BytesW(const Bytes& payload) {
  Bytes b = Int(static_cast<int32_t>(payload.size()));
  b.insert(b.end(), payload.begin(), payload.end());
  return b;
}

// Sorts with the comparator and checks the order equals `want` (given in expected order).
void ExpectOrder(uint8_t type, std::vector<Bytes> want) {
  std::vector<Bytes> got = want;
  std::reverse(got.begin(), got.end());
  std::stable_sort(got.begin(), got.end(),
                   [type](const Bytes& a, const Bytes& b) { return Cmp(type, a, b) < 0; });
  EXPECT_EQ(got, want);
}

}  // namespace

TEST(RawComparatorTest, TextIsUnsignedBytesAfterTheVintShorterFirst) {
  using jbs_test::TextKey;
  // "\xC3\xA9" (é) sorts after "z" as unsigned bytes; the vint prefix (1 vs 2 bytes for a
  // 200-byte key) is skipped, not compared.
  ExpectOrder(1, {TextKey(""), TextKey("a"), TextKey("ab"), TextKey("b"),
                  TextKey(std::string(200, 'b')), TextKey("z"), TextKey("\xC3\xA9")});
  EXPECT_EQ(Cmp(1, TextKey("abc"), TextKey("abc")), 0);
  EXPECT_EQ(TextKey(std::string(200, 'x')).size(), 202u);
}

TEST(RawComparatorTest, BytesWritableSkipsItsLength) {
  ExpectOrder(2, {BytesW({}), BytesW({0x00}), BytesW({0x00, 0x00}), BytesW({0x01}), BytesW({0x7F}),
                  BytesW({0x80}), BytesW({0xFF})});
}

TEST(RawComparatorTest, IntAndLongAreSignedBigEndian) {
  ExpectOrder(
      3, {Int(INT32_MIN), Int(-256), Int(-1), Int(0), Int(1), Int(255), Int(256), Int(INT32_MAX)});
  ExpectOrder(4, {Long(INT64_MIN), Long(-1), Long(0), Long(1), Long(1ll << 32), Long(INT64_MAX)});
}

TEST(RawComparatorTest, KeyShapes) {
  EXPECT_EQ(ComparatorFor(0), nullptr);
  EXPECT_EQ(ComparatorFor(5), nullptr);
  EXPECT_TRUE(IsWellFormedKey(3, Int(5).data(), 4));
  EXPECT_FALSE(IsWellFormedKey(3, Int(5).data(), 3));
  EXPECT_FALSE(IsWellFormedKey(4, Long(5).data(), 4));
  EXPECT_FALSE(IsWellFormedKey(1, nullptr, 0));
  Bytes two_byte_vint = {0x8F};  // announces a 2-byte vint, has 1 byte
  EXPECT_FALSE(IsWellFormedKey(1, two_byte_vint.data(), 1));
  EXPECT_FALSE(IsWellFormedKey(2, Int(0).data(), 3));
}
