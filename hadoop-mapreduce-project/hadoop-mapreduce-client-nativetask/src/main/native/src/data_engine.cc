#include "data_engine.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

#include "fetch_planner.h"
#include "open_file_cache.h"

namespace hadoop_accel::jbs {
namespace {

// Opens file.out for one read (the synchronous path keeps no descriptors).
bool PreadFully(const std::string& path, uint8_t* buf, size_t n, uint64_t off) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = PreadExact(fd, buf, n, off);
  ::close(fd);
  return ok;
}

FetchResponseHeader Refusal(const FetchRequest& req, ResponseStatus s) {
  FetchResponseHeader h;
  h.request_id = req.request_id;
  h.status = s;
  return h;
}

}  // namespace

DataEngine::DataEngine(Config config, const JobRegistry* jobs, BufferPool* pool,
                       Authorize authorize)
    : jobs_(jobs),
      pool_(pool),
      authorize_(std::move(authorize)),
      locator_(std::move(config.local_dirs)),
      index_cache_(config.index_cache_bytes) {
  if (jobs_ == nullptr || pool_ == nullptr || !authorize_)
    throw std::invalid_argument("data engine: job registry, buffer pool and authorizer required");
}

PlannedFetch DataEngine::Plan(const FetchRequest& req) {
  PlannedFetch out;
  out.header = Refusal(req, ResponseStatus::kNotFound);
  std::optional<JobInfo> job = jobs_->Find(req.job_id);
  if (!job) return out;
  if (!authorize_(req, *job)) {
    out.header.status = ResponseStatus::kUnauthorized;
    return out;
  }
  MapOutputPaths paths;
  if (!locator_.Locate(job->user, req.job_id, req.map_attempt_id, &paths)) return out;

  std::shared_ptr<const SpillIndex> index;
  IndexStatus is = index_cache_.Get(
      req.map_attempt_id,
      [&paths](const std::string&, SpillIndex* idx) { return SpillIndex::Load(paths.index, idx); },
      &index);
  if (is != IndexStatus::kOk) {
    out.header.status = ResponseStatus::kServerError;
    return out;
  }
  FetchPlan plan;
  ResponseStatus ps = PlanFetch(req, *index, pool_->buffer_size(), &plan);
  if (ps != ResponseStatus::kOk) {
    out.header.status = ps;
    return out;
  }
  out.header = plan.header;
  out.data_path = std::move(paths.data);
  out.file_offset = plan.file_offset;
  // file_offset - offset is the partition's start; the index parser bounded start + length.
  out.partition_end = plan.file_offset - req.offset + plan.header.part_length;
  return out;
}

FetchResponseHeader DataEngine::Handle(const FetchRequest& req, std::optional<uint32_t>* buffer) {
  buffer->reset();
  PlannedFetch plan = Plan(req);
  if (plan.header.status != ResponseStatus::kOk || plan.header.chunk_length == 0)
    return plan.header;
  std::optional<uint32_t> b = pool_->TryAcquire();
  if (!b) return Refusal(req, ResponseStatus::kBusy);
  if (!PreadFully(plan.data_path, pool_->data(*b), plan.header.chunk_length, plan.file_offset)) {
    pool_->Release(*b);
    return Refusal(req, ResponseStatus::kServerError);
  }
  *buffer = b;
  return plan.header;
}

}  // namespace hadoop_accel::jbs
