// Raw key comparisons identical to Hadoop's registered WritableComparators for the key types
// the NetMerger accepts (DESIGN.md §3): Text (unsigned bytes after the key's own vint length,
// shorter-is-less), BytesWritable (unsigned bytes after the 4-byte length), IntWritable and
// LongWritable (signed big-endian). Keys are serialized Writables as they sit in map output.
#ifndef HADOOP_ACCEL_JBS_RAW_COMPARATOR_H
#define HADOOP_ACCEL_JBS_RAW_COMPARATOR_H

#include <cstddef>
#include <cstdint>

#include "reducer_protocol.h"

namespace hadoop_accel::jbs {

using RawCompare = int (*)(const uint8_t* a, size_t alen, const uint8_t* b, size_t blen);

// Null for a key type we do not support.
RawCompare ComparatorFor(uint8_t key_type);

// Whether a serialized key has the shape its comparator reads (Int: 4 bytes, Long: 8, Text:
// a whole vint prefix, BytesWritable: 4 length bytes). Hadoop would read past such a key;
// we refuse the segment instead.
bool IsWellFormedKey(uint8_t key_type, const uint8_t* key, size_t len);

}  // namespace hadoop_accel::jbs

#endif
