// Where a map attempt's output lives on this node, the way Hadoop 3.5.0's ShuffleHandler finds
// it: <local dir>/usercache/<user>/appcache/<application id>/output/<attempt>/file.out and
// file.out.index, searched across yarn.nodemanager.local-dirs. Every component comes from a
// checked id or user name, so the result always stays under one of the local dirs.
#ifndef HADOOP_ACCEL_JBS_MAP_OUTPUT_LOCATOR_H
#define HADOOP_ACCEL_JBS_MAP_OUTPUT_LOCATOR_H

#include <string>
#include <string_view>
#include <vector>

namespace hadoop_accel::jbs {

struct MapOutputPaths {
  std::string data;   // .../file.out
  std::string index;  // .../file.out.index
};

// A user name usable as one path component: 1..64 of [A-Za-z0-9._@-], not "." or "..",
// not starting with '-'.
bool IsValidUserName(std::string_view user);

// job_<ts>_<n> -> application_<ts>_<n as %04d>, as ShuffleHandler derives it (via the numbers,
// so job_1_1 and job_1_0001 give the same application). Empty if job is not a valid job id or
// n does not fit an int.
std::string ApplicationIdOfJob(std::string_view job);

// "usercache/<user>/appcache/<app>/output/<attempt>", or empty if any part is invalid or the
// attempt is not a map of the job.
std::string AttemptOutputDir(std::string_view user, std::string_view job, std::string_view attempt);

class MapOutputLocator {
 public:
  explicit MapOutputLocator(std::vector<std::string> local_dirs)
      : local_dirs_(std::move(local_dirs)) {}
  // The attempt's index and data files, each in the first local dir that holds it (they may
  // be in different dirs); false if either is missing (or the ids are invalid).
  bool Locate(std::string_view user, std::string_view job, std::string_view attempt,
              MapOutputPaths* out) const;

 private:
  std::string FirstRegularFile(const std::string& rel) const;  // "" if in no local dir

  std::vector<std::string> local_dirs_;
};

}  // namespace hadoop_accel::jbs

#endif
