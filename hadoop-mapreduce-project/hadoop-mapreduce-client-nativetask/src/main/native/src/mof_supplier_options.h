// The jbs_mof_supplier command line (DESIGN.md §1):
//   --listen HOST:PORT --local-dirs D1,D2,... [--buffer-bytes 131072] [--buffers 256]
//   [--index-cache-bytes 10485760]
// Parsed strictly: an unknown option, a missing value or a value out of range is an error
// naming the option, so a misconfigured aux service fails loudly at start, not at first fetch.
// Defaults and ranges come from accel-default.xml (the generated jbs_key_table.h), the same ones
// JbsConfig enforces on the keys, so Java never passes a value this parser refuses.
#ifndef HADOOP_ACCEL_JBS_MOF_SUPPLIER_OPTIONS_H
#define HADOOP_ACCEL_JBS_MOF_SUPPLIER_OPTIONS_H

#include <cstddef>
#include <string>
#include <vector>

#include "jbs_key_table.h"
#include "transport.h"

namespace hadoop_accel::jbs {

struct SupplierOptions {
  Endpoint listen;
  std::vector<std::string> local_dirs;
  size_t buffer_bytes = keys::kJbsBufferBytes.default_value;
  size_t buffers = keys::kJbsSupplierBuffers.default_value;
  size_t index_cache_bytes = keys::kJbsSupplierIndexCacheBytes.default_value;
};

// True with *out filled, or false with *error = "<option>: <what is wrong>".
bool ParseSupplierOptions(int argc, const char* const* argv, SupplierOptions* out,
                          std::string* error);

// "HOST:PORT" or "[V6]:PORT" -> endpoint; false if malformed.
bool ParseHostPort(const std::string& s, Endpoint* out);

}  // namespace hadoop_accel::jbs

#endif
