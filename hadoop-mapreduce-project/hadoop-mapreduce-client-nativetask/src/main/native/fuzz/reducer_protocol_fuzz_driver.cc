// Runs reducer_protocol_fuzz.cc's LLVMFuzzerTestOneInput without libFuzzer: one valid frame
// of every type as seeds, then random mutations (bit flips, overwrites, truncation, insertion,
// interesting length bytes, splices) for a fixed time. Deterministic per seed:
//   jbs_reducer_protocol_fuzz [seconds=2] [seed=1]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "reducer_protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

using namespace hadoop_accel::jbs;
using Bytes = std::vector<uint8_t>;

namespace {

std::vector<Bytes> Seeds() {
  std::vector<Bytes> s(11);
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
  EncodeRegister(r, &s[1]);
  EncodeRegistered({RegisterStatus::kUnauthorized, "bad mac"}, &s[2]);
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
  return s;  // s[10]: empty input
}

Bytes Mutate(const Bytes& in, std::mt19937_64& rng, const std::vector<Bytes>& seeds) {
  Bytes b = in;
  int steps = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < steps; ++i) {
    size_t pos = b.empty() ? 0 : rng() % b.size();
    switch (rng() % 7) {
      case 0: if (!b.empty()) b[pos] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;
      case 1: if (!b.empty()) b[pos] = static_cast<uint8_t>(rng()); break;
      case 2: b.resize(b.empty() ? 0 : rng() % b.size()); break;
      case 3: b.insert(b.begin() + static_cast<long>(pos), static_cast<uint8_t>(rng())); break;
      case 4: {
        static const uint8_t kVals[] = {0x00, 0x01, 0x10, 0x19, 0x7F, 0x80, 0xFF, '/', '_', 0};
        if (!b.empty()) b[pos] = kVals[rng() % sizeof(kVals)];
        break;
      }
      case 5: {
        const Bytes& o = seeds[rng() % seeds.size()];
        if (!o.empty()) b.insert(b.end(), o.begin() + static_cast<long>(rng() % o.size()), o.end());
        break;
      }
      default:
        b.resize(rng() % 80);
        for (auto& x : b) x = static_cast<uint8_t>(rng());
    }
  }
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = argc > 1 ? std::atof(argv[1]) : 2.0;
  uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  std::mt19937_64 rng(seed);
  const std::vector<Bytes> seeds = Seeds();
  for (const Bytes& s : seeds) LLVMFuzzerTestOneInput(s.data(), s.size());
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  uint64_t runs = 0;
  while (std::chrono::steady_clock::now() < end) {
    for (int i = 0; i < 1000; ++i, ++runs) {
      Bytes m = Mutate(seeds[rng() % seeds.size()], rng, seeds);
      LLVMFuzzerTestOneInput(m.data(), m.size());
    }
  }
  std::printf("reducer protocol fuzz: %llu inputs, seed %llu\n",
              static_cast<unsigned long long>(runs), static_cast<unsigned long long>(seed));
  return 0;
}
