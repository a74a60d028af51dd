// Where a map attempt's output lives on this node, the way Hadoop 3.5.0's ShuffleHandler finds
// it: <local dir>/usercache/<user>/appcache/<application id>/output/<attempt>/file.out and
// file.out.index, searched across yarn.nodemanager.local-dirs. Every component comes from a
// checked id or user name, so the result always stays under one of the local dirs.
//
// Files are opened as stock's SecureIOUtils does, and stricter: no component below the local
// dir may be a symlink (openat with O_NOFOLLOW per component: a task owns its output dir and
// could otherwise point file.out at anything the NodeManager user can read), the file must be
// regular and owned by the job's user (fstat after open, so a swap between check and use
// cannot help).
#ifndef HADOOP_ACCEL_JBS_MAP_OUTPUT_LOCATOR_H
#define HADOOP_ACCEL_JBS_MAP_OUTPUT_LOCATOR_H

#include <sys/types.h>

#include <functional>
#include <optional>
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

// Opens root/rel read-only: root itself is followed (an administrator may link a local dir),
// every component of rel is opened with O_NOFOLLOW, so a symlink anywhere below root fails.
// Returns the descriptor, or -1 with *err = errno (ELOOP/ENOTDIR: a symlink in the way).
int OpenBelow(const std::string& root, std::string_view rel, int* err);

// The file behind fd is a regular file owned by owner; else false with *why set.
bool IsServableFile(int fd, uid_t owner, std::string* why);

enum class Located { kFound, kMissing, kUnsafe };

class MapOutputLocator {
 public:
  explicit MapOutputLocator(std::vector<std::string> local_dirs);
  // The attempt's index and data files, each in the first local dir that holds it (they may
  // be in different dirs). kMissing if either is missing (or the ids are invalid); kUnsafe,
  // with *why, if one is reached through a symlink, is not a regular file, or is not owned by
  // owner.
  Located Locate(std::string_view user, uid_t owner, std::string_view job, std::string_view attempt,
                 MapOutputPaths* out, std::string* why) const;
  // Opens a path Locate returned (local dir + "/usercache/<user>/..."), as OpenBelow +
  // IsServableFile do with owner_of(<user>) as the owner; -1 with *why if the path is under no
  // local dir, the user has no known uid, or the file fails the checks.
  using OwnerOf = std::function<std::optional<uid_t>(const std::string& user)>;
  int OpenServed(const std::string& path, const OwnerOf& owner_of, std::string* why) const;

 private:
  Located FirstFile(const std::string& rel, uid_t owner, std::string* path, std::string* why) const;

  std::vector<std::string> local_dirs_;
};

}  // namespace hadoop_accel::jbs

#endif
