// Answers one fetch request from the files on this node: job registry -> authorization ->
// output directory -> IndexCache -> fetch plan -> a positional read into a transport buffer.
// Synchronous and thread-safe; the pipelined version (a disk thread filling buffers in
// ReadScheduler order while sender threads drain them, seed 001 Fig. 5) will drive the same
// steps.
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

class DataEngine {
 public:
  // Decides whether a request may read its job's output (the job-token HMAC check goes here).
  // Required: there is deliberately no allow-all default.
  using Authorize = std::function<bool(const FetchRequest&, const JobInfo&)>;

  struct Config {
    std::vector<std::string> local_dirs;
    size_t index_cache_bytes = 10u << 20;  // Hadoop's indexcache.mb default
  };

  DataEngine(Config config, const JobRegistry* jobs, BufferPool* pool, Authorize authorize);

  // The response for req. On kOk with a non-empty chunk, *buffer holds the pool buffer with
  // the chunk's bytes: the caller sends them and releases the buffer.
  FetchResponseHeader Handle(const FetchRequest& req, std::optional<uint32_t>* buffer);

  IndexCache::Stats index_stats() const { return index_cache_.stats(); }

 private:
  const JobRegistry* jobs_;
  BufferPool* pool_;
  Authorize authorize_;
  MapOutputLocator locator_;
  IndexCache index_cache_;
};

}  // namespace hadoop_accel::jbs

#endif
