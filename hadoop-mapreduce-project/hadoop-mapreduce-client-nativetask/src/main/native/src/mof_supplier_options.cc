#include "mof_supplier_options.h"

#include <cstdint>

#include "wire_format.h"

namespace hadoop_accel::jbs {
namespace {

// Decimal digits only (no sign, no spaces), within [lo, hi].
bool ParseSize(const std::string& s, uint64_t lo, uint64_t hi, size_t* out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v < lo || v > hi) return false;
  *out = static_cast<size_t>(v);
  return true;
}

bool SplitDirs(const std::string& s, std::vector<std::string>* out) {
  out->clear();
  size_t start = 0;
  for (;;) {
    size_t comma = s.find(',', start);
    std::string d = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (d.empty()) return false;
    out->push_back(d);
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

}  // namespace

bool ParseHostPort(const std::string& s, Endpoint* out) {
  size_t colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  std::string host = s.substr(0, colon);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return false;
    host = host.substr(1, host.size() - 2);
  }
  size_t port = 0;
  if (!ParseSize(s.substr(colon + 1), 0, 65535, &port)) return false;
  out->host = host;
  out->port = static_cast<uint16_t>(port);
  return true;
}

bool ParseSupplierOptions(int argc, const char* const* argv, SupplierOptions* out,
                          std::string* error) {
  SupplierOptions o;
  bool have_listen = false, have_dirs = false;
  for (int i = 1; i < argc; ++i) {
    std::string opt = argv[i];
    if (opt != "--listen" && opt != "--local-dirs" && opt != "--buffer-bytes" &&
        opt != "--buffers" && opt != "--index-cache-bytes") {
      *error = opt + ": unknown option";
      return false;
    }
    if (i + 1 >= argc) {
      *error = opt + ": missing value";
      return false;
    }
    std::string val = argv[++i];
    bool ok = true;
    if (opt == "--listen") {
      ok = have_listen = ParseHostPort(val, &o.listen);
    } else if (opt == "--local-dirs") {
      ok = have_dirs = SplitDirs(val, &o.local_dirs);
    } else if (opt == "--buffer-bytes") {
      ok = ParseSize(val, 4096, kMaxChunkLength, &o.buffer_bytes) && o.buffer_bytes % 4096 == 0;
    } else if (opt == "--buffers") {
      ok = ParseSize(val, 1, 1u << 16, &o.buffers);
    } else {  // --index-cache-bytes
      ok = ParseSize(val, 1, uint64_t{1} << 40, &o.index_cache_bytes);
    }
    if (!ok) {
      *error = opt + ": bad value '" + val + "'";
      return false;
    }
  }
  if (!have_listen)
    *error = "--listen: required (HOST:PORT)";
  else if (!have_dirs)
    *error = "--local-dirs: required (D1,D2,...)";
  if (!have_listen || !have_dirs) return false;
  *out = std::move(o);
  return true;
}

}  // namespace hadoop_accel::jbs
