// Syntax checks for the ids a fetch request names. They later become path components
// (.../<job>/output/<attempt>/file.out), so only the exact shapes YARN produces pass:
// digits, lowercase letters and '_' at fixed places. Nothing that passes can contain '/',
// '.', NUL or any other byte that could steer a path out of the job's output directories.
#ifndef HADOOP_ACCEL_JBS_IDS_H
#define HADOOP_ACCEL_JBS_IDS_H

#include <cstddef>
#include <string_view>

namespace hadoop_accel::jbs {

// Longest ids accepted (far above what YARN generates: 13-digit timestamps, 4-6 digit counters).
constexpr size_t kMaxJobIdLength = 64;
constexpr size_t kMaxAttemptIdLength = 96;
// Each numeric field: 1..19 digits (fits a signed 64-bit value, as Hadoop parses them).
constexpr size_t kMaxIdDigits = 19;

// "job_<digits>_<digits>", e.g. job_1700000000000_0001.
bool IsValidJobId(std::string_view id);

// "attempt_<digits>_<digits>_m_<digits>_<digits>": a MAP attempt only (only maps have output
// to serve), e.g. attempt_1700000000000_0001_m_000003_0.
bool IsValidMapAttemptId(std::string_view id);

// True when `attempt` is a valid map attempt of the valid job `job` (same cluster timestamp
// and job number), so a request cannot name one job and read another job's output.
bool AttemptBelongsToJob(std::string_view attempt, std::string_view job);

}  // namespace hadoop_accel::jbs

#endif
