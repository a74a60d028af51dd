#include "data_engine.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

#include "fetch_planner.h"
#include "job_auth.h"
#include "open_file_cache.h"

namespace hadoop_accel::jbs {
namespace {

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
      on_unsafe_file_(std::move(config.on_unsafe_file)),
      locator_(std::move(config.local_dirs)),
      index_cache_(config.index_cache_bytes) {
  if (jobs_ == nullptr || pool_ == nullptr || !authorize_)
    throw std::invalid_argument("data engine: job registry, buffer pool and authorizer required");
}

PlannedFetch DataEngine::Plan(const FetchRequest& req) {
  PlannedFetch out;
  out.header = Refusal(req, ResponseStatus::kNotFound);
  // An unknown job gets the same answer as a bad MAC, so a prober learns nothing about which
  // jobs this node serves.
  std::optional<JobInfo> job = jobs_->Find(req.job_id);
  if (!job || !authorize_(req, *job)) {
    out.header.status = ResponseStatus::kUnauthorized;
    return out;
  }
  MapOutputPaths paths;
  std::string why;
  Located where =
      job->uid ? locator_.Locate(job->user, *job->uid, req.job_id, req.map_attempt_id, &paths, &why)
               : (why = "user " + job->user + " has no uid on this node", Located::kUnsafe);
  // An unsafe file is answered as if it were missing (NOT_FOUND), with its own log line.
  if (where == Located::kUnsafe && on_unsafe_file_)
    on_unsafe_file_("refused fetch of " + req.map_attempt_id + " (job " + req.job_id + "): " + why);
  if (where != Located::kFound) return out;

  std::shared_ptr<const SpillIndex> index;
  uid_t owner = *job->uid;
  IndexStatus is = index_cache_.Get(
      req.map_attempt_id,
      [this, &paths, owner](const std::string&, SpillIndex* idx) {
        std::string why;
        int fd = locator_.OpenServed(
            paths.index, [owner](const std::string&) { return std::optional<uid_t>(owner); }, &why);
        if (fd < 0) return IndexStatus::kIoError;
        IndexStatus st = SpillIndex::LoadFd(fd, idx);
        ::close(fd);
        return st;
      },
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
  out.header.reply_mac = ReplyMac(job->secret, req.auth);  // the proof the client checks
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
  // The synchronous path keeps no descriptors: one open per read.
  int fd = OpenServed(plan.data_path);
  bool ok = fd >= 0 && PreadExact(fd, pool_->data(*b), plan.header.chunk_length, plan.file_offset);
  if (fd >= 0) ::close(fd);
  if (!ok) {
    pool_->Release(*b);
    return Refusal(req, ResponseStatus::kServerError);
  }
  *buffer = b;
  return plan.header;
}

int DataEngine::OpenServed(const std::string& path) const {
  std::string why;
  int fd = locator_.OpenServed(
      path, [this](const std::string& user) { return jobs_->UidOfUser(user); }, &why);
  if (fd < 0 && on_unsafe_file_) on_unsafe_file_("refused to open " + why);
  return fd;
}

}  // namespace hadoop_accel::jbs
