// Runs a fuzz target's LLVMFuzzerTestOneInput without libFuzzer (gcc has none): the target's
// seeds (fuzz_seeds.h), then random mutations of the corpus (bit flips, byte overwrites,
// truncation, insertion, length-field edits, splices) for a fixed time. Deterministic per
// seed, so a failure can be replayed:
//   <driver> [seconds=2] [seed=1]
// or writes the seeds as files, a starting corpus for the target's libFuzzer binary:
//   <driver> --write-seeds DIR
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fuzz_seeds.h"

using namespace hadoop_accel::jbs;
using Bytes = std::vector<uint8_t>;

namespace {

Bytes Mutate(const Bytes& in, std::mt19937_64& rng, const std::vector<Bytes>& seeds) {
  Bytes b = in;
  int steps = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < steps; ++i) {
    size_t pos = b.empty() ? 0 : rng() % b.size();
    switch (rng() % 7) {
      case 0:
        if (!b.empty()) b[pos] ^= static_cast<uint8_t>(1u << (rng() % 8));
        break;
      case 1:
        if (!b.empty()) b[pos] = static_cast<uint8_t>(rng());
        break;
      case 2:
        b.resize(b.empty() ? 0 : rng() % b.size());
        break;
      case 3:
        b.insert(b.begin() + static_cast<long>(pos), static_cast<uint8_t>(rng()));
        break;
      case 4: {  // interesting values into what may be a length, type or id byte
        static const uint8_t kVals[] = {0x00, 0x01, 0x10, 0x19, 0x7F, 0x80,
                                        0xFF, '/',  '.',  '_',  'm'};
        if (!b.empty()) b[pos] = kVals[rng() % sizeof(kVals)];
        break;
      }
      case 5: {  // splice the tail of another seed
        const Bytes& o = seeds[rng() % seeds.size()];
        if (!o.empty()) b.insert(b.end(), o.begin() + static_cast<long>(rng() % o.size()), o.end());
        break;
      }
      default: {  // fully random short input
        b.resize(rng() % 80);
        for (auto& x : b) x = static_cast<uint8_t>(rng());
      }
    }
  }
  return b;
}

int WriteSeeds(const std::string& dir) {
  const std::vector<Bytes> seeds = FuzzSeeds();
  for (size_t i = 0; i < seeds.size(); ++i) {
    std::string path = dir + "/seed-" + std::to_string(i);
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr || std::fwrite(seeds[i].data(), 1, seeds[i].size(), f) != seeds[i].size() ||
        std::fclose(f) != 0) {
      std::perror(path.c_str());
      return 1;
    }
  }
  std::printf("%zu seeds in %s\n", seeds.size(), dir.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--write-seeds") == 0) return WriteSeeds(argv[2]);
  double seconds = argc > 1 ? std::atof(argv[1]) : 2.0;
  uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  std::mt19937_64 rng(seed);
  const std::vector<Bytes> seeds = FuzzSeeds();
  std::vector<Bytes> corpus = seeds;
  for (const Bytes& s : corpus) LLVMFuzzerTestOneInput(s.data(), s.size());

  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  uint64_t runs = 0;
  while (std::chrono::steady_clock::now() < end) {
    // A few inputs per clock check: some targets take milliseconds per input on a busy host.
    for (int i = 0; i < 16; ++i, ++runs) {
      Bytes m = Mutate(corpus[rng() % corpus.size()], rng, seeds);
      LLVMFuzzerTestOneInput(m.data(), m.size());
      if (corpus.size() < 256 && FuzzKeepsMutant(m.data(), m.size())) corpus.push_back(m);
    }
  }
  std::printf("%s: %llu inputs, corpus %zu, seed %llu\n", argv[0],
              static_cast<unsigned long long>(runs), corpus.size(),
              static_cast<unsigned long long>(seed));
  return 0;
}
