// CRC-32 with the IEEE/zlib polynomial (reflected 0xEDB88320): the checksum Hadoop's
// PureJavaCrc32 computes over a spill index. Own table so the library needs no zlib.
#ifndef HADOOP_ACCEL_JBS_CRC32_H
#define HADOOP_ACCEL_JBS_CRC32_H

#include <cstddef>
#include <cstdint>

namespace hadoop_accel::jbs {

// crc = 0 starts a new checksum; pass a previous result to continue it.
uint32_t Crc32(const uint8_t* data, size_t n, uint32_t crc = 0);

}  // namespace hadoop_accel::jbs

#endif
