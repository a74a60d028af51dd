#include "mof_supplier_options.h"

#include <cstdint>

#include "wire_format.h"

namespace hadoop_accel::jbs {
namespace {

static_assert(keys::kJbsBufferBytes.max == kMaxChunkLength,
              "hadoop.accel.jbs.buffer.bytes: the range's max must be the wire's largest chunk");
static_assert(keys::kJbsSupplierPort.max == 65535, "hadoop.accel.jbs.supplier.port: a TCP port");

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

// A decimal the key's declared range accepts.
bool ParseBounded(const std::string& s, const keys::KeyBounds& b, size_t* out) {
  return ParseSize(s, b.min, b.max, out) && b.Accepts(*out);
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
    const char* key = nullptr;  // the configuration key behind the option, for the message
    if (opt == "--listen") {
      ok = have_listen = ParseHostPort(val, &o.listen);
    } else if (opt == "--local-dirs") {
      ok = have_dirs = SplitDirs(val, &o.local_dirs);
    } else if (opt == "--buffer-bytes") {
      ok = ParseBounded(val, keys::kJbsBufferBytes, &o.buffer_bytes);
      key = keys::kJbsBufferBytes.key;
    } else if (opt == "--buffers") {
      ok = ParseBounded(val, keys::kJbsSupplierBuffers, &o.buffers);
      key = keys::kJbsSupplierBuffers.key;
    } else {  // --index-cache-bytes
      ok = ParseBounded(val, keys::kJbsSupplierIndexCacheBytes, &o.index_cache_bytes);
      key = keys::kJbsSupplierIndexCacheBytes.key;
    }
    if (!ok) {
      *error = opt;
      *error += ": bad value '";
      *error += val;
      *error += "'";
      if (key != nullptr) *error += std::string(" (") + key + ")";
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
