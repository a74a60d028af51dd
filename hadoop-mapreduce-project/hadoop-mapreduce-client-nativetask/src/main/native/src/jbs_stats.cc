#include "jbs_stats.h"

#include <cerrno>
#include <cstdlib>
#include <set>
#include <sstream>

namespace hadoop_accel::jbs {
namespace {

constexpr char kPrefix[] = "STATS ";

bool ValidName(const std::string& n) {
  if (n.empty() || n.size() > 64) return false;
  for (char c : n)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

std::string EncodeStats(const StatsFields& fields) {
  std::string line = kPrefix + std::to_string(kStatsVersion);
  size_t n = 0;
  for (const auto& [name, value] : fields) {
    if (!ValidName(name) || n == kMaxStatsFields) continue;
    std::string f =
        " " + name + "=" + std::to_string(value > kMaxStatsValue ? kMaxStatsValue : value);
    if (line.size() + f.size() > kMaxStatsLine) break;
    line += f;
    ++n;
  }
  return line;
}

bool DecodeStats(const std::string& line, StatsFields* out, std::string* error) {
  out->clear();
  auto fail = [error](const std::string& why) {
    *error = why;
    return false;
  };
  if (line.size() > kMaxStatsLine) return fail("STATS line longer than 4096 bytes");
  if (line.compare(0, sizeof(kPrefix) - 1, kPrefix) != 0) return fail("not a STATS line");
  std::istringstream words(line.substr(sizeof(kPrefix) - 1));
  std::string version;
  if (!(words >> version)) return fail("STATS without a version");
  if (version != std::to_string(kStatsVersion))
    return fail("STATS version " + version.substr(0, 16) + " (this reader knows 1)");
  std::set<std::string> seen;
  for (std::string w; words >> w;) {
    if (out->size() == kMaxStatsFields) return fail("more than 128 STATS fields");
    size_t eq = w.find('=');
    if (eq == std::string::npos) return fail("STATS field without '='");
    std::string name = w.substr(0, eq), digits = w.substr(eq + 1);
    if (!ValidName(name)) return fail("bad STATS field name");
    if (digits.empty() || digits.size() > 19 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      return fail("bad value for " + name);
    errno = 0;
    unsigned long long v = std::strtoull(digits.c_str(), nullptr, 10);
    if (errno != 0 || v > kMaxStatsValue) return fail("value of " + name + " out of range");
    if (!seen.insert(name).second) return fail("STATS field " + name + " twice");
    out->emplace_back(std::move(name), v);
  }
  return true;
}

void LatencyHistogram::Record(std::chrono::steady_clock::duration d) {
  uint64_t us = static_cast<uint64_t>(
      std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::microseconds>(d).count()));
  size_t b = 0;
  while (b < kUpperBoundsMs.size() && us > kUpperBoundsMs[b] * 1000) ++b;
  buckets_[b].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_us_.fetch_add(us, std::memory_order_relaxed);
}

void LatencyHistogram::AppendTo(const std::string& prefix, StatsFields* out) const {
  for (size_t b = 0; b < kUpperBoundsMs.size(); ++b)
    out->emplace_back(prefix + "_le_" + std::to_string(kUpperBoundsMs[b]) + "ms",
                      buckets_[b].load(std::memory_order_relaxed));
  out->emplace_back(prefix + "_gt_" + std::to_string(kUpperBoundsMs.back()) + "ms",
                    buckets_.back().load(std::memory_order_relaxed));
  out->emplace_back(prefix + "_count", count_.load(std::memory_order_relaxed));
  out->emplace_back(prefix + "_sum_us", sum_us_.load(std::memory_order_relaxed));
}

}  // namespace hadoop_accel::jbs
