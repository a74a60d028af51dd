#include "job_auth.h"

#include <gtest/gtest.h>

using namespace hadoop_accel::jbs;

namespace {
std::string Hex(const std::string& s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}
}  // namespace

TEST(JobAuth, HmacSha1MatchesRfc2202) {
  EXPECT_EQ(Hex(HmacSha1(std::string(20, '\x0b'), "Hi There")),
            "b617318655057264e28bc0b6fb378c8ef146be00");
  EXPECT_EQ(Hex(HmacSha1("Jefe", "what do ya want for nothing?")),
            "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
}

TEST(JobAuth, FetchMacIsTheHmacOfTheDocumentedMessage) {
  EXPECT_EQ(FetchMac("k", "job_1_0001", "attempt_1_0001_m_000000_0", 7),
            HmacSha1("k", "JBS1-FETCH|job_1_0001|attempt_1_0001_m_000000_0|7"));
  EXPECT_NE(FetchMac("k", "job_1_0001", "attempt_1_0001_m_000000_0", 7),
            FetchMac("k", "job_1_0001", "attempt_1_0001_m_000000_0", 8));
  EXPECT_EQ(FetchMac("k", "j", "a", 1).size(), kMacLength);
}

TEST(JobAuth, RegisterMacBindsTheNonce) {
  uint8_t nonce[kNonceLength] = {0x00, 0x01, 0xab, 0xff};
  EXPECT_EQ(RegisterMac("k", "job_1_0001", 3, nonce),
            HmacSha1("k", "JBS1-REGISTER|job_1_0001|3|0001abff000000000000000000000000"));
  uint8_t other[kNonceLength] = {0x00, 0x01, 0xab, 0xfe};
  EXPECT_NE(RegisterMac("k", "job_1_0001", 3, nonce), RegisterMac("k", "job_1_0001", 3, other));
}

TEST(JobAuth, MacEqualsAndNonces) {
  EXPECT_TRUE(MacEquals("abc", "abc"));
  EXPECT_FALSE(MacEquals("abc", "abd"));
  EXPECT_FALSE(MacEquals("abc", "ab"));
  uint8_t a[kNonceLength], b[kNonceLength];
  ASSERT_TRUE(FillNonce(a));
  ASSERT_TRUE(FillNonce(b));
  EXPECT_NE(std::string(a, a + kNonceLength), std::string(b, b + kNonceLength));
}
