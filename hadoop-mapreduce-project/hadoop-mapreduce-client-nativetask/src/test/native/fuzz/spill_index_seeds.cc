// Seeds of the index fuzz target: indexes as SpillRecord writes them (one partition, an empty
// partition among full ones — an empty IFile segment is 2 marker bytes + 4 CRC bytes —, many
// partitions, offsets at the Java long limit), each with and without the checksum fix-up mode.
#include <limits>

#include "fuzz_seeds.h"
#include "spill_index.h"
#include "spill_index_fuzz_input.h"

namespace hadoop_accel::jbs {
namespace {

std::vector<uint8_t> WithMode(uint8_t mode, const std::vector<IndexRecord>& records) {
  std::vector<uint8_t> b{mode};
  std::vector<uint8_t> index = SpillIndex::Serialize(records);
  b.insert(b.end(), index.begin(), index.end());
  return b;
}

}  // namespace

std::vector<std::vector<uint8_t>> FuzzSeeds() {
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  std::vector<std::vector<IndexRecord>> indexes = {
      {{0, 1000, 1006}},
      {{0, 500, 300}, {300, 2, 6}, {306, 70000, 65000}},
      {{kMax - 10, 10, 10}},
      {{0, kMax, kMax}},
  };
  std::vector<IndexRecord> many;
  for (uint64_t p = 0, off = 0; p < 40; ++p, off += 1000 + p) many.push_back({off, 2000, 1000 + p});
  indexes.push_back(many);

  std::vector<std::vector<uint8_t>> seeds;
  for (const auto& records : indexes) {
    seeds.push_back(WithMode(0x00, records));  // checksum as written, default cap
    seeds.push_back(WithMode(0x07, records));  // fixed-up checksum, default cap
    seeds.push_back(WithMode(0x9b, records));  // fixed-up, cap 2, offset from the bytes
  }
  seeds.push_back({0x01});
  return seeds;
}

// Keep mutants that still parse (with the fix-up mode most record mutations do), so later
// mutations start from odd but valid indexes.
bool FuzzKeepsMutant(const uint8_t* data, size_t size) {
  std::vector<uint8_t> file = IndexFileOfFuzzInput(data, size);
  SpillIndex index;
  return SpillIndex::Parse(file.data(), file.size(), &index) == IndexStatus::kOk;
}

}  // namespace hadoop_accel::jbs
