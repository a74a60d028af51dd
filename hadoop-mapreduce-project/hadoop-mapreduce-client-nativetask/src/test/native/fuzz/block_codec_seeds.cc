// Seeds of the Snappy / LZ4 segment fuzz target: small valid segments of both codecs, cut in
// several chunk sizes (byte 0), one block and several blocks of several chunks.
#include <lz4.h>
#include <snappy-c.h>

#include <string>

#include "fuzz_seeds.h"
#include "writable_vint.h"

namespace hadoop_accel::jbs {
namespace {

void PutBe32(std::vector<uint8_t>* out, uint32_t v) {
  for (int i = 3; i >= 0; --i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

std::vector<uint8_t> Chunk(bool lz4, const uint8_t* p, size_t n) {
  std::vector<uint8_t> out;
  if (lz4) {
    out.resize(static_cast<size_t>(LZ4_compressBound(static_cast<int>(n))));
    int len =
        LZ4_compress_default(reinterpret_cast<const char*>(p), reinterpret_cast<char*>(out.data()),
                             static_cast<int>(n), static_cast<int>(out.size()));
    out.resize(static_cast<size_t>(len));
  } else {
    size_t len = snappy_max_compressed_length(n);
    out.resize(len);
    snappy_compress(reinterpret_cast<const char*>(p), n, reinterpret_cast<char*>(out.data()), &len);
    out.resize(len);
  }
  return out;
}

}  // namespace

std::vector<std::vector<uint8_t>> FuzzSeeds() {
  std::vector<uint8_t> raw;
  for (int i = 0; i < 12; ++i) {
    std::string key = "key" + std::to_string(i * 7);
    std::string value(static_cast<size_t>(i * 11), static_cast<char>('a' + i % 3));
    AppendVLong(&raw, static_cast<int64_t>(key.size()));
    AppendVLong(&raw, static_cast<int64_t>(value.size()));
    raw.insert(raw.end(), key.begin(), key.end());
    raw.insert(raw.end(), value.begin(), value.end());
  }
  AppendVLong(&raw, -1);
  AppendVLong(&raw, -1);
  std::vector<std::vector<uint8_t>> seeds;
  for (bool lz4 : {false, true}) {
    for (size_t block : {raw.size(), size_t{200}}) {
      for (uint8_t chunk_sel : {0, 2, 40}) {
        std::vector<uint8_t> s = {static_cast<uint8_t>(chunk_sel | (lz4 ? 1 : 0))};
        for (size_t off = 0; off < raw.size(); off += block) {
          size_t n = std::min(block, raw.size() - off);
          PutBe32(&s, static_cast<uint32_t>(n));
          for (size_t c = 0; c < n; c += 90) {
            auto z = Chunk(lz4, raw.data() + off + c, std::min<size_t>(90, n - c));
            PutBe32(&s, static_cast<uint32_t>(z.size()));
            s.insert(s.end(), z.begin(), z.end());
          }
        }
        seeds.push_back(s);
      }
    }
  }
  return seeds;
}

// Mutate the seeds only (no corpus growth), as the reducer-protocol run does.
bool FuzzKeepsMutant(const uint8_t*, size_t) { return false; }

}  // namespace hadoop_accel::jbs
