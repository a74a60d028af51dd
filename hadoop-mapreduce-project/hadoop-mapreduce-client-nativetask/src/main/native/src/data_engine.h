// Answers one fetch request from the files on this node: job registry -> authorization ->
// output directory -> IndexCache -> fetch plan -> a positional read into a transport buffer.
// Thread-safe. Handle() does it all synchronously (MofServer); Plan() stops before the read,
// so the pipelined engine (pipelined_engine.h) can order reads across requests itself.
#ifndef HADOOP_ACCEL_JBS_DATA_ENGINE_H
#define HADOOP_ACCEL_JBS_DATA_ENGINE_H

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "buffer_pool.h"
#include "index_cache.h"
#include "job_registry.h"
#include "map_output_locator.h"
#include "wire_format.h"

namespace hadoop_accel::jbs {

// A request checked and planned, not yet read.
struct PlannedFetch {
  FetchResponseHeader header;  // status != kOk, or chunk_length == 0: answer it as it is
  std::string data_path;       // file.out, when there is a chunk to read
  uint64_t file_offset = 0;    // where the chunk starts in file.out
  uint64_t partition_end = 0;  // where the partition ends in file.out (bounds prefetching)
};

class DataEngine {
 public:
  // Decides whether a request may read its job's output (the job-token HMAC check goes here).
  // Required: there is deliberately no allow-all default.
  using Authorize = std::function<bool(const FetchRequest&, const JobInfo&)>;

  struct Config {
    std::vector<std::string> local_dirs;
    size_t index_cache_bytes = 10u << 20;  // Hadoop's indexcache.mb default
    // Told why a request was refused because its files are unsafe to serve (a symlink, not a
    // regular file, not owned by the job's user); one line each, rate-limit it.
    std::function<void(const std::string& why)> on_unsafe_file;
  };

  DataEngine(Config config, const JobRegistry* jobs, BufferPool* pool, Authorize authorize);

  // The response for req. On kOk with a non-empty chunk, *buffer holds the pool buffer with
  // the chunk's bytes: the caller sends them and releases the buffer.
  FetchResponseHeader Handle(const FetchRequest& req, std::optional<uint32_t>* buffer);
  // Every step of Handle but the read.
  PlannedFetch Plan(const FetchRequest& req);
  // Opens a data path a plan named, with the same checks as planning (O_NOFOLLOW below the
  // local dir, regular, owned by its job's user); -1 if they fail now.
  int OpenServed(const std::string& path) const;
  size_t buffer_size() const { return pool_->buffer_size(); }

  IndexCache::Stats index_stats() const { return index_cache_.stats(); }

 private:
  const JobRegistry* jobs_;
  BufferPool* pool_;
  Authorize authorize_;
  std::function<void(const std::string&)> on_unsafe_file_;
  MapOutputLocator locator_;
  IndexCache index_cache_;
};

}  // namespace hadoop_accel::jbs

#endif
