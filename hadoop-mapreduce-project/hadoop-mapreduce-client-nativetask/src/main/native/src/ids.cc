#include "ids.h"

namespace hadoop_accel::jbs {
namespace {

// Consumes "<1..19 digits>" from the front of s; false if absent or too long.
bool EatDigits(std::string_view& s) {
  size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  if (n == 0 || n > kMaxIdDigits) return false;
  s.remove_prefix(n);
  return true;
}

bool EatLiteral(std::string_view& s, std::string_view lit) {
  if (s.substr(0, lit.size()) != lit) return false;
  s.remove_prefix(lit.size());
  return true;
}

// "<digits>_<digits>", the part a job id and its attempts share.
bool EatJobCore(std::string_view& s) { return EatDigits(s) && EatLiteral(s, "_") && EatDigits(s); }

}  // namespace

bool IsValidJobId(std::string_view id) {
  if (id.size() > kMaxJobIdLength) return false;
  return EatLiteral(id, "job_") && EatJobCore(id) && id.empty();
}

bool IsValidMapAttemptId(std::string_view id) {
  if (id.size() > kMaxAttemptIdLength) return false;
  return EatLiteral(id, "attempt_") && EatJobCore(id) && EatLiteral(id, "_m_") && EatDigits(id) &&
         EatLiteral(id, "_") && EatDigits(id) && id.empty();
}

bool AttemptBelongsToJob(std::string_view attempt, std::string_view job) {
  if (!IsValidMapAttemptId(attempt) || !IsValidJobId(job)) return false;
  std::string_view job_core = job.substr(4);          // after "job_"
  std::string_view attempt_rest = attempt.substr(8);  // after "attempt_"
  return attempt_rest.substr(0, job_core.size()) == job_core &&
         attempt_rest.substr(job_core.size(), 3) == "_m_";
}

}  // namespace hadoop_accel::jbs
