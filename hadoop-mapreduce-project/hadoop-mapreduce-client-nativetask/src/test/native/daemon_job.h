// Test helper for both daemons as processes: a job's map outputs laid out as a NodeManager
// keeps them (for the fake reducer's job, fake_reducer.h) and the job's ADD_JOB line.
#ifndef HADOOP_ACCEL_JBS_TEST_DAEMON_JOB_H
#define HADOOP_ACCEL_JBS_TEST_DAEMON_JOB_H

#include <filesystem>
#include <string>
#include <vector>

#include "fake_reducer.h"
#include "ifile_writer.h"
#include "map_output_locator.h"
#include "spill_index.h"
#include "test_files.h"

namespace jbs_test {

inline std::string Hex(const std::string& s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

// The control-channel line that gives a daemon the fake reducer's job.
inline std::string AddJobLine() {
  return std::string("ADD_JOB ") + kJob + " " + CurrentUserName() + " " + Hex(kSecret);
}

// file.out + index of map `index` with 2 partitions; kPartition holds recs.
inline void WriteMap(const std::string& local_dir, uint32_t index, const std::vector<Rec>& recs,
                     bool zlib) {
  std::string dir = local_dir + "/" + AttemptOutputDir(CurrentUserName(), kJob, Attempt(index));
  std::filesystem::create_directories(dir);
  Bytes data;
  std::vector<IndexRecord> idx;
  for (uint32_t p = 0; p < 2; ++p) {
    std::vector<Rec> part = p == kPartition ? recs : std::vector<Rec>{};
    Bytes disk = IFileSegment(part, zlib);
    idx.push_back({data.size(), RawRecords(part).size(), disk.size()});
    data.insert(data.end(), disk.begin(), disk.end());
  }
  ScratchDir::WriteAt(dir + "/file.out", data);
  ScratchDir::WriteAt(dir + "/file.out.index", SpillIndex::Serialize(idx));
}

}  // namespace jbs_test

#endif
