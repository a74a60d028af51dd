#include "fetch_planner.h"

#include <algorithm>

namespace hadoop_accel::jbs {

ResponseStatus PlanFetch(const FetchRequest& req, const SpillIndex& index, size_t buffer_size,
                         FetchPlan* out) {
  IndexRecord rec;
  if (index.Get(req.partition, &rec) != IndexStatus::kOk) return ResponseStatus::kNotFound;
  if (req.offset > rec.part_length) return ResponseStatus::kBadRequest;
  uint64_t len = std::min<uint64_t>(
      {rec.part_length - req.offset, req.max_length, buffer_size, kMaxChunkLength});
  FetchPlan p;
  p.header.request_id = req.request_id;
  p.header.status = ResponseStatus::kOk;
  p.header.raw_length = rec.raw_length;
  p.header.part_length = rec.part_length;
  p.header.chunk_offset = req.offset;
  p.header.chunk_length = static_cast<uint32_t>(len);
  // The index's parser guaranteed start + part_length fits: so does start + offset.
  p.file_offset = rec.start_offset + req.offset;
  *out = p;
  return ResponseStatus::kOk;
}

}  // namespace hadoop_accel::jbs
