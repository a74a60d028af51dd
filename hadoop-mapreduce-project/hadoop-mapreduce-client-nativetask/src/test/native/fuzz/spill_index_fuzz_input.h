// How the index fuzz target reads its input (shared by the target and its seeds): a mode byte,
// then the index file's bytes; mode bit 0 rewrites the trailing checksum to match the records,
// so mutations reach the record checks instead of stopping at the CRC.
#ifndef HADOOP_ACCEL_JBS_SPILL_INDEX_FUZZ_INPUT_H
#define HADOOP_ACCEL_JBS_SPILL_INDEX_FUZZ_INPUT_H

#include <hadoop_accel/accel.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "byte_order.h"
#include "spill_index.h"

namespace hadoop_accel::jbs {

inline std::vector<uint8_t> IndexFileOfFuzzInput(const uint8_t* data, size_t size) {
  if (size == 0) return {};
  std::vector<uint8_t> file(data + 1, data + size);
  if ((data[0] & 1) != 0 && file.size() >= kIndexChecksumSize) {
    size_t body = file.size() - kIndexChecksumSize;
    StoreBe64(file.data() + body, hacc_crc32_update(0, file.data(), body));
  }
  return file;
}

}  // namespace hadoop_accel::jbs

#endif
