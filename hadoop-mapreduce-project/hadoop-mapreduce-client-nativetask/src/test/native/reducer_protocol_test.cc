#include "reducer_protocol.h"

#include <gtest/gtest.h>

#include <cstring>

#include "byte_order.h"

using namespace hadoop_accel::jbs;

namespace {

const char* kJob = "job_1700000000000_0001";
const char* kAttempt = "attempt_1700000000000_0001_m_000007_0";

// Header check + body view of one whole frame.
WireStatus Split(const std::vector<uint8_t>& f, ReducerFrame* t, const uint8_t** body, size_t* n) {
  uint32_t len = 0;
  WireStatus s = DecodeReducerHeader(f.data(), f.size(), t, &len);
  if (s != WireStatus::kOk) return s;
  EXPECT_EQ(f.size(), kFrameHeaderSize + len);
  *body = f.data() + kFrameHeaderSize;
  *n = len;
  return WireStatus::kOk;
}

}  // namespace

TEST(ReducerProtocolTest, RegisterBytesAreExactlyTheDesign) {
  Register r;
  r.partition = 0x01020304;
  r.num_maps = 5;
  r.key_type = 1;
  r.codec = 1;
  r.job = kJob;
  r.auth = "0123456789abcdefghij";
  for (size_t i = 0; i < kNonceLength; ++i) r.client_nonce[i] = static_cast<uint8_t>(0xc0 + i);
  std::vector<uint8_t> f;
  ASSERT_EQ(EncodeRegister(r, &f), WireStatus::kOk);
  std::vector<uint8_t> want = {'J', 'B', 'S', 'M', 0, 2, 0, 17};
  uint32_t body = 4 + 4 + 1 + 1 + 2 + 2 + 22 + 2 + 20 + 16;
  for (int i = 3; i >= 0; --i) want.push_back(static_cast<uint8_t>(body >> (8 * i)));
  for (uint8_t b : {1, 2, 3, 4, 0, 0, 0, 5, 1, 1, 0, 0, 0, 22}) want.push_back(b);
  want.insert(want.end(), r.job.begin(), r.job.end());
  want.push_back(0);
  want.push_back(20);
  want.insert(want.end(), r.auth.begin(), r.auth.end());
  want.insert(want.end(), r.client_nonce, r.client_nonce + kNonceLength);
  EXPECT_EQ(f, want);
  ReducerFrame t;
  const uint8_t* b;
  size_t n;
  ASSERT_EQ(Split(f, &t, &b, &n), WireStatus::kOk);
  EXPECT_EQ(t, ReducerFrame::kRegister);
  Register back;
  ASSERT_EQ(DecodeRegister(b, n, &back), WireStatus::kOk);
  EXPECT_EQ(back.partition, r.partition);
  EXPECT_EQ(back.num_maps, 5u);
  EXPECT_EQ(back.job, kJob);
  EXPECT_EQ(back.auth, r.auth);
  EXPECT_EQ(std::memcmp(back.client_nonce, r.client_nonce, kNonceLength), 0);
}

TEST(ReducerProtocolTest, EveryFrameRoundTrips) {
  std::vector<uint8_t> f;
  ReducerFrame t;
  const uint8_t* b;
  size_t n;

  Hello h;
  h.nonce[15] = 9;
  ASSERT_EQ(EncodeHello(h, &f), WireStatus::kOk);
  ASSERT_EQ(Split(f, &t, &b, &n), WireStatus::kOk);
  Hello h2;
  ASSERT_EQ(DecodeHello(b, n, &h2), WireStatus::kOk);
  EXPECT_EQ(h2.nonce[15], 9);

  f.clear();
  ASSERT_EQ(EncodeMapOutput({3, 13562, kAttempt, "10.0.0.7"}, &f), WireStatus::kOk);
  ASSERT_EQ(Split(f, &t, &b, &n), WireStatus::kOk);
  MapOutput mo;
  ASSERT_EQ(DecodeMapOutput(b, n, &mo), WireStatus::kOk);
  EXPECT_EQ(mo.map_index, 3u);
  EXPECT_EQ(mo.port, 13562);
  EXPECT_EQ(mo.attempt, kAttempt);
  EXPECT_EQ(mo.host, "10.0.0.7");

  f.clear();
  ASSERT_EQ(EncodeMapFetched({3, 1ull << 40, kAttempt}, &f), WireStatus::kOk);
  ASSERT_EQ(Split(f, &t, &b, &n), WireStatus::kOk);
  MapFetched mf;
  ASSERT_EQ(DecodeMapFetched(b, n, &mf), WireStatus::kOk);
  EXPECT_EQ(mf.part_length, 1ull << 40);

  f.clear();
  ASSERT_EQ(EncodeFetchFailed({3, true, kAttempt, "refused"}, &f), WireStatus::kOk);
  ASSERT_EQ(Split(f, &t, &b, &n), WireStatus::kOk);
  FetchFailed ff;
  ASSERT_EQ(DecodeFetchFailed(b, n, &ff), WireStatus::kOk);
  EXPECT_TRUE(ff.connect_failed);
  EXPECT_EQ(ff.message, "refused");

  f.clear();
  ASSERT_EQ(EncodeEnd({1, 2, 3, 4, 5}, &f), WireStatus::kOk);
  EXPECT_EQ(f.size(), kFrameHeaderSize + 36);
  ASSERT_EQ(Split(f, &t, &b, &n), WireStatus::kOk);
  EndStats e;
  ASSERT_EQ(DecodeEnd(b, n, &e), WireStatus::kOk);
  EXPECT_EQ(e.merge_passes, 4u);
  EXPECT_EQ(e.spilled_bytes, 5u);

  f.clear();
  ASSERT_EQ(EncodeError({ErrorCode::kCorruptSegment, "crc"}, &f), WireStatus::kOk);
  ASSERT_EQ(Split(f, &t, &b, &n), WireStatus::kOk);
  ErrorFrame ef;
  ASSERT_EQ(DecodeError(b, n, &ef), WireStatus::kOk);
  EXPECT_EQ(ef.code, ErrorCode::kCorruptSegment);

  f.clear();
  ASSERT_EQ(EncodeRegistered({RegisterStatus::kBusy, "later", ""}, &f), WireStatus::kOk);
  ASSERT_EQ(Split(f, &t, &b, &n), WireStatus::kOk);
  Registered rd;
  ASSERT_EQ(DecodeRegistered(b, n, &rd), WireStatus::kOk);
  EXPECT_EQ(rd.status, RegisterStatus::kBusy);
  EXPECT_TRUE(rd.proof.empty());

  f.clear();  // an OK REGISTERED carries the NetMerger's 20-byte proof
  ASSERT_EQ(EncodeRegistered({RegisterStatus::kOk, "ok", std::string(20, 'p')}, &f),
            WireStatus::kOk);
  ASSERT_EQ(Split(f, &t, &b, &n), WireStatus::kOk);
  ASSERT_EQ(DecodeRegistered(b, n, &rd), WireStatus::kOk);
  EXPECT_EQ(rd.proof, std::string(20, 'p'));

  f.clear();
  ASSERT_EQ(EncodeMerge(&f), WireStatus::kOk);
  EXPECT_EQ(f.size(), kFrameHeaderSize);
  ASSERT_EQ(Split(f, &t, &b, &n), WireStatus::kOk);
  EXPECT_EQ(t, ReducerFrame::kMerge);
}

TEST(ReducerProtocolTest, DataCarriesTheCrcOfItsPayload) {
  std::vector<uint8_t> payload(1000, 7);
  uint8_t prefix[kDataPrefixSize];
  ASSERT_EQ(EncodeDataPrefix(payload.data(), payload.size(), prefix), WireStatus::kOk);
  // One sized vector filled by memcpy: gcc 12 at -O2 misreads insert-after-copy as an
  // out-of-bounds memcpy (-Werror=array-bounds) in the RelWithDebInfo build Maven runs.
  std::vector<uint8_t> f(kDataPrefixSize + payload.size());
  std::memcpy(f.data(), prefix, kDataPrefixSize);
  std::memcpy(f.data() + kDataPrefixSize, payload.data(), payload.size());
  ReducerFrame t;
  const uint8_t* b;
  size_t n;
  ASSERT_EQ(Split(f, &t, &b, &n), WireStatus::kOk);
  const uint8_t* p;
  size_t len;
  ASSERT_EQ(DecodeData(b, n, &p, &len), WireStatus::kOk);
  EXPECT_EQ(len, 1000u);
  f.back() ^= 1;
  EXPECT_EQ(DecodeData(f.data() + kFrameHeaderSize, n, &p, &len), WireStatus::kMalformed);
  std::vector<uint8_t> big(kMaxDataPayload + 1);
  EXPECT_EQ(EncodeDataPrefix(big.data(), big.size(), prefix), WireStatus::kTooLarge);
}

TEST(ReducerProtocolTest, HeaderRefusesWrongMagicTypeAndSizes) {
  std::vector<uint8_t> f;
  ASSERT_EQ(EncodeMerge(&f), WireStatus::kOk);
  ReducerFrame t;
  uint32_t len;
  EXPECT_EQ(DecodeReducerHeader(f.data(), 3, &t, &len), WireStatus::kNeedMore);
  auto g = f;
  g[0] = 'X';
  EXPECT_EQ(DecodeReducerHeader(g.data(), 1, &t, &len), WireStatus::kBadMagic);
  g = f;
  StoreBe16(g.data() + 6, 2);  // a fetch response is not a reducer frame
  EXPECT_EQ(DecodeReducerHeader(g.data(), g.size(), &t, &len), WireStatus::kBadType);
  g = f;
  StoreBe16(g.data() + 6, 26);
  EXPECT_EQ(DecodeReducerHeader(g.data(), g.size(), &t, &len), WireStatus::kBadType);
  g = f;
  StoreBe32(g.data() + 8, 1);  // MERGE has no body
  EXPECT_EQ(DecodeReducerHeader(g.data(), g.size(), &t, &len), WireStatus::kMalformed);
  g = f;
  StoreBe16(g.data() + 6, 23);
  StoreBe32(g.data() + 8, 4 + kMaxDataPayload + 1);
  EXPECT_EQ(DecodeReducerHeader(g.data(), g.size(), &t, &len), WireStatus::kTooLarge);
  StoreBe32(g.data() + 8, 4 + kMaxDataPayload);
  EXPECT_EQ(DecodeReducerHeader(g.data(), g.size(), &t, &len), WireStatus::kOk);
  StoreBe16(g.data() + 6, 19);
  StoreBe32(g.data() + 8, 1u << 30);
  EXPECT_EQ(DecodeReducerHeader(g.data(), g.size(), &t, &len), WireStatus::kTooLarge);
  g = f;
  StoreBe16(g.data() + 4, 3);
  EXPECT_EQ(DecodeReducerHeader(g.data(), g.size(), &t, &len), WireStatus::kBadVersion);
}

TEST(ReducerProtocolTest, DecodersRefuseBadFields) {
  std::vector<uint8_t> f;
  ASSERT_EQ(EncodeMapOutput({3, 80, kAttempt, "h"}, &f), WireStatus::kOk);
  const uint8_t* b = f.data() + kFrameHeaderSize;
  size_t n = f.size() - kFrameHeaderSize;
  MapOutput mo;
  for (size_t cut = 0; cut < n; ++cut)
    EXPECT_NE(DecodeMapOutput(b, cut, &mo), WireStatus::kOk) << cut;
  std::vector<uint8_t> longer(b, b + n);
  longer.push_back(0);
  EXPECT_EQ(DecodeMapOutput(longer.data(), longer.size(), &mo), WireStatus::kMalformed);
  std::vector<uint8_t> nul(b, b + n);
  nul.back() = 0;  // host "\0"
  EXPECT_EQ(DecodeMapOutput(nul.data(), nul.size(), &mo), WireStatus::kMalformed);

  f.clear();
  EXPECT_EQ(EncodeMapOutput({3, 80, "attempt_1_1_r_000000_0", "h"}, &f), WireStatus::kBadAttemptId);
  EXPECT_EQ(EncodeMapOutput({3, 80, kAttempt, std::string(256, 'h')}, &f), WireStatus::kMalformed);
  EXPECT_EQ(EncodeMapOutput({3, 80, kAttempt, ""}, &f), WireStatus::kMalformed);

  Register r;
  r.job = "job_1/../x";
  EXPECT_EQ(EncodeRegister(r, &f), WireStatus::kBadJobId);
  r.job = kJob;
  f.clear();
  ASSERT_EQ(EncodeRegister(r, &f), WireStatus::kOk);
  f[kFrameHeaderSize + 11] = 1;  // reserved must be zero
  Register back;
  EXPECT_EQ(DecodeRegister(f.data() + kFrameHeaderSize, f.size() - kFrameHeaderSize, &back),
            WireStatus::kMalformed);
}
