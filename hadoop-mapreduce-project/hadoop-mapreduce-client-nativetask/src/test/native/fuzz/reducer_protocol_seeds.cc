// Seeds of the reducer-protocol fuzz target: one valid frame of every type and empty input.
#include <string>

#include "fuzz_seeds.h"
#include "reducer_protocol.h"

namespace hadoop_accel::jbs {

std::vector<std::vector<uint8_t>> FuzzSeeds() {
  std::vector<std::vector<uint8_t>> s(12);
  Hello h;
  for (size_t i = 0; i < kNonceLength; ++i) h.nonce[i] = static_cast<uint8_t>(i * 17);
  EncodeHello(h, &s[0]);
  Register r;
  r.partition = 3;
  r.num_maps = 100;
  r.key_type = 1;
  r.codec = 1;
  r.job = "job_1700000000000_0001";
  r.auth = std::string(20, '\x5a');
  for (size_t i = 0; i < kNonceLength; ++i) r.client_nonce[i] = static_cast<uint8_t>(i + 1);
  EncodeRegister(r, &s[1]);
  EncodeRegistered({RegisterStatus::kUnauthorized, "bad mac", ""}, &s[2]);
  EncodeMapOutput({7, 13562, "attempt_1700000000000_0001_m_000007_0", "node7.example.com"}, &s[3]);
  EncodeMapFetched({7, 123456, "attempt_1700000000000_0001_m_000007_0"}, &s[4]);
  EncodeFetchFailed({7, true, "attempt_1700000000000_0001_m_000007_0", "refused"}, &s[5]);
  EncodeMerge(&s[6]);
  const uint8_t payload[] = {3, 2, 'a', 'b', 'c', 'x', 'y'};
  uint8_t prefix[kDataPrefixSize];
  EncodeDataPrefix(payload, sizeof(payload), prefix);
  s[7].assign(prefix, prefix + kDataPrefixSize);
  s[7].insert(s[7].end(), payload, payload + sizeof(payload));
  EncodeEnd({10, 200, 300, 2, 400}, &s[8]);
  EncodeError({ErrorCode::kCorruptSegment, "checksum"}, &s[9]);
  EncodeRegistered({RegisterStatus::kOk, "registered", std::string(20, '\x33')}, &s[10]);
  return s;  // s[11]: empty input
}

// The reducer-protocol run mutates its seeds only (no corpus growth).
bool FuzzKeepsMutant(const uint8_t*, size_t) { return false; }

}  // namespace hadoop_accel::jbs
