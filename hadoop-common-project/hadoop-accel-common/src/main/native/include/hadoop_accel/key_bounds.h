// The default and legal range of one numeric configuration key, as accel-default.xml declares
// it (<value>, <range>MIN..MAX step N</range>). Tables of these are generated from that file
// (cmake/AccelKeyTable.cmake), so a native parser bounds an option exactly as Java bounds the key.
#ifndef HADOOP_ACCEL_KEY_BOUNDS_H
#define HADOOP_ACCEL_KEY_BOUNDS_H

#include <cstdint>

namespace hadoop_accel::keys {

struct KeyBounds {
  const char* key;  // the configuration key, for messages
  uint64_t default_value;
  uint64_t min;
  uint64_t max;
  uint64_t step;  // legal values are min + k * step

  constexpr bool Accepts(uint64_t v) const { return v >= min && v <= max && (v - min) % step == 0; }
};

}  // namespace hadoop_accel::keys

#endif
