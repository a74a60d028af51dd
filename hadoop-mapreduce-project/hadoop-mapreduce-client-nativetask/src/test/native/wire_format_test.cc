#include "wire_format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "byte_order.h"

using namespace hadoop_accel::jbs;

namespace {

FetchRequest Sample() {
  FetchRequest r;
  r.request_id = 0x0102030405060708ull;
  r.partition = 17;
  r.offset = 262144;
  r.max_length = 131072;
  r.job_id = "job_1700000000000_0001";
  r.map_attempt_id = "attempt_1700000000000_0001_m_000042_1";
  r.auth = "0123456789abcdefghijklmnopq=";
  return r;
}

std::vector<uint8_t> Encode(const FetchRequest& r) {
  std::vector<uint8_t> b;
  EXPECT_EQ(EncodeRequest(r, &b), WireStatus::kOk);
  return b;
}

WireStatus Decode(const std::vector<uint8_t>& b) {
  FetchRequest out;
  size_t used = 0;
  return DecodeRequest(b.data(), b.size(), &out, &used);
}

// Re-encodes a request whose fields bypass the encoder's checks (what a hostile peer sends).
std::vector<uint8_t> RawRequest(const FetchRequest& r) {
  std::vector<uint8_t> strings;
  for (const std::string* s : {&r.job_id, &r.map_attempt_id, &r.auth}) {
    uint8_t len[2];
    StoreBe16(len, static_cast<uint16_t>(s->size()));
    strings.insert(strings.end(), len, len + 2);
    strings.insert(strings.end(), s->begin(), s->end());
  }
  std::vector<uint8_t> b(12 + 24 + strings.size());
  std::copy(strings.begin(), strings.end(), b.begin() + 36);
  StoreBe32(b.data(), kFrameMagic);
  StoreBe16(b.data() + 4, kProtocolVersion);
  StoreBe16(b.data() + 6, 1);
  StoreBe32(b.data() + 8, static_cast<uint32_t>(b.size() - 12));
  StoreBe64(b.data() + 12, r.request_id);
  StoreBe32(b.data() + 20, r.partition);
  StoreBe64(b.data() + 24, r.offset);
  StoreBe32(b.data() + 32, r.max_length);
  return b;
}

}  // namespace

TEST(WireFormat, RequestRoundTrip) {
  FetchRequest r = Sample();
  std::vector<uint8_t> b = Encode(r);
  EXPECT_EQ(b, RawRequest(r));  // the layout the header comment documents
  b.push_back(0xAB);            // the start of the next frame is left alone
  FetchRequest out;
  size_t used = 0;
  ASSERT_EQ(DecodeRequest(b.data(), b.size(), &out, &used), WireStatus::kOk);
  EXPECT_EQ(used, b.size() - 1);
  EXPECT_EQ(out.request_id, r.request_id);
  EXPECT_EQ(out.partition, r.partition);
  EXPECT_EQ(out.offset, r.offset);
  EXPECT_EQ(out.max_length, r.max_length);
  EXPECT_EQ(out.job_id, r.job_id);
  EXPECT_EQ(out.map_attempt_id, r.map_attempt_id);
  EXPECT_EQ(out.auth, r.auth);
}

TEST(WireFormat, EveryProperPrefixNeedsMore) {
  std::vector<uint8_t> b = Encode(Sample());
  for (size_t n = 0; n < b.size(); ++n) {
    FetchRequest out;
    size_t used = 0;
    EXPECT_EQ(DecodeRequest(b.data(), n, &out, &used), WireStatus::kNeedMore) << n;
  }
}

TEST(WireFormat, RejectsBadFrameHeaders) {
  std::vector<uint8_t> b = Encode(Sample());
  auto with = [&b](size_t at, uint8_t v) {
    auto c = b;
    c[at] = v;
    return c;
  };
  EXPECT_EQ(Decode(with(0, 'X')), WireStatus::kBadMagic);
  FetchRequest out;
  size_t used;
  uint8_t g = 'G';  // "GET ..." from an HTTP client: refused on the first byte
  EXPECT_EQ(DecodeRequest(&g, 1, &out, &used), WireStatus::kBadMagic);
  EXPECT_EQ(Decode(with(5, 3)), WireStatus::kBadVersion);
  EXPECT_EQ(Decode(with(7, 9)), WireStatus::kBadType);
  EXPECT_EQ(Decode(with(7, 2)), WireStatus::kBadType);  // a response where a request belongs
  auto big = b;
  StoreBe32(big.data() + 8, 513);
  EXPECT_EQ(Decode(big), WireStatus::kTooLarge);
  StoreBe32(big.data() + 8, 0xFFFFFFFFu);
  EXPECT_EQ(Decode(big), WireStatus::kTooLarge);
}

TEST(WireFormat, RejectsLengthsThatDisagreeWithTheBody) {
  FetchRequest r = Sample();
  std::vector<uint8_t> b = Encode(r);
  auto longer = b;  // body claims one more byte than its fields use
  longer.push_back(0);
  StoreBe32(longer.data() + 8, LoadBe32(longer.data() + 8) + 1);
  EXPECT_EQ(Decode(longer), WireStatus::kMalformed);
  auto shorter = b;  // the auth field's length runs past the body
  shorter.pop_back();
  StoreBe32(shorter.data() + 8, LoadBe32(shorter.data() + 8) - 1);
  EXPECT_EQ(Decode(shorter), WireStatus::kMalformed);
  auto huge = b;  // a string length of 65535
  huge[36] = 0xFF;
  huge[37] = 0xFF;
  EXPECT_EQ(Decode(huge), WireStatus::kBadJobId);
}

TEST(WireFormat, RejectsIdsThatCouldEscapeTheOutputDirs) {
  using namespace std::string_literals;
  for (std::string job : {"job_1700000000000_0001/.."s, "../job_1_1"s, "job_1700000000000_0001\0x"s,
                          "job_1700000000000_0001/../../etc"s}) {
    FetchRequest r = Sample();
    r.job_id = job;
    EXPECT_EQ(Decode(RawRequest(r)), WireStatus::kBadJobId) << job;
    std::vector<uint8_t> b;
    EXPECT_EQ(EncodeRequest(r, &b), WireStatus::kBadJobId);
  }
  FetchRequest r = Sample();
  r.map_attempt_id = "attempt_1700000000000_0001_m_000042_1/../../x";
  EXPECT_EQ(Decode(RawRequest(r)), WireStatus::kBadAttemptId);
  r.map_attempt_id = std::string("attempt_1700000000000_0001_m_000042_1\0", 38);
  EXPECT_EQ(Decode(RawRequest(r)), WireStatus::kBadAttemptId);
  r.map_attempt_id = "attempt_1700000000000_0002_m_000042_1";  // another job's map
  EXPECT_EQ(Decode(RawRequest(r)), WireStatus::kBadAttemptId);
  r.map_attempt_id = "attempt_1700000000000_0001_r_000042_1";  // a reduce
  EXPECT_EQ(Decode(RawRequest(r)), WireStatus::kBadAttemptId);
}

TEST(WireFormat, RejectsBadLengthsAndAuth) {
  FetchRequest r = Sample();
  r.max_length = 0;
  EXPECT_EQ(Decode(RawRequest(r)), WireStatus::kBadLength);
  r.max_length = kMaxChunkLength + 1;
  EXPECT_EQ(Decode(RawRequest(r)), WireStatus::kBadLength);
  r = Sample();
  r.offset = 1ull << 63;  // negative as a Java long
  EXPECT_EQ(Decode(RawRequest(r)), WireStatus::kBadLength);
  r = Sample();
  r.partition = 0x80000000u;
  EXPECT_EQ(Decode(RawRequest(r)), WireStatus::kBadLength);
  r = Sample();
  r.auth = std::string(kMaxAuthLength + 1, 'a');
  EXPECT_EQ(Decode(RawRequest(r)), WireStatus::kBadAuth);
  std::vector<uint8_t> b;
  EXPECT_EQ(EncodeRequest(r, &b), WireStatus::kBadAuth);
  EXPECT_TRUE(b.empty());
}

TEST(WireFormat, ResponseRoundTripAndChecks) {
  FetchResponseHeader h;
  h.request_id = 7;
  h.raw_length = 5000;
  h.part_length = 3000;
  h.chunk_offset = 2048;
  h.chunk_length = 952;  // the partition's last chunk
  h.reply_mac = std::string(kReplyMacLength, '\x42');
  uint8_t buf[kResponsePrefixSize];
  ASSERT_EQ(EncodeResponsePrefix(h, buf, sizeof(buf)), WireStatus::kOk);
  EXPECT_EQ(LoadBe32(buf + 8), 60u + 952u);
  EXPECT_EQ(buf[12 + 40], 0x42);  // the reply MAC follows the chunk length
  FetchResponseHeader out;
  ASSERT_EQ(DecodeResponsePrefix(buf, sizeof(buf), &out), WireStatus::kOk);
  EXPECT_EQ(out.request_id, 7u);
  EXPECT_EQ(out.status, ResponseStatus::kOk);
  EXPECT_EQ(out.raw_length, 5000u);
  EXPECT_EQ(out.part_length, 3000u);
  EXPECT_EQ(out.chunk_offset, 2048u);
  EXPECT_EQ(out.chunk_length, 952u);
  EXPECT_EQ(out.reply_mac, h.reply_mac);
  EXPECT_EQ(DecodeResponsePrefix(buf, 71, &out), WireStatus::kNeedMore);
  EXPECT_EQ(EncodeResponsePrefix(h, buf, 71), WireStatus::kBufferTooSmall);

  auto bad = [&](auto edit) {
    FetchResponseHeader x = h;
    edit(x);
    uint8_t tmp[kResponsePrefixSize];
    return EncodeResponsePrefix(x, tmp, sizeof(tmp));
  };
  EXPECT_EQ(bad([](auto& x) { x.chunk_length = 953; }), WireStatus::kBadLength);  // past the end
  EXPECT_EQ(bad([](auto& x) { x.chunk_offset = ~0ull; }), WireStatus::kBadLength);
  EXPECT_EQ(bad([](auto& x) { x.status = ResponseStatus::kNotFound; }), WireStatus::kBadStatus);
  EXPECT_EQ(bad([](auto& x) { x.status = static_cast<ResponseStatus>(99); }),
            WireStatus::kBadStatus);
  EXPECT_EQ(bad([](auto& x) { x.reply_mac = "short"; }), WireStatus::kBadAuth);

  uint8_t wire[kResponsePrefixSize];
  std::copy(buf, buf + sizeof(buf), wire);
  StoreBe32(wire + 8, 60 + 951);  // frame body disagrees with the chunk length
  EXPECT_EQ(DecodeResponsePrefix(wire, sizeof(wire), &out), WireStatus::kMalformed);
  std::copy(buf, buf + sizeof(buf), wire);
  wire[12 + 11] = 1;  // reserved must be zero
  EXPECT_EQ(DecodeResponsePrefix(wire, sizeof(wire), &out), WireStatus::kBadStatus);
  std::copy(buf, buf + sizeof(buf), wire);
  StoreBe32(wire + 8, 59);  // shorter than a response header
  EXPECT_EQ(DecodeResponsePrefix(wire, sizeof(wire), &out), WireStatus::kMalformed);
  StoreBe32(wire + 8, 60 + kMaxChunkLength + 1);
  EXPECT_EQ(DecodeResponsePrefix(wire, sizeof(wire), &out), WireStatus::kTooLarge);
}

TEST(WireFormat, ErrorResponseCarriesNoData) {
  FetchResponseHeader h;
  h.status = ResponseStatus::kUnauthorized;
  uint8_t buf[kResponsePrefixSize];
  ASSERT_EQ(EncodeResponsePrefix(h, buf, sizeof(buf)), WireStatus::kOk);
  FetchResponseHeader out;
  ASSERT_EQ(DecodeResponsePrefix(buf, sizeof(buf), &out), WireStatus::kOk);
  EXPECT_EQ(out.status, ResponseStatus::kUnauthorized);
  EXPECT_EQ(out.chunk_length, 0u);
}
