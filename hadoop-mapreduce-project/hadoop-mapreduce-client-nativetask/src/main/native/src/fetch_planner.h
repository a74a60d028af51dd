// Turns a fetch request and its map's index into what to read and what to answer: the chunk
// starts `offset` bytes into the partition, covers at most one transport buffer and never runs
// past the partition's on-disk length.
#ifndef HADOOP_ACCEL_JBS_FETCH_PLANNER_H
#define HADOOP_ACCEL_JBS_FETCH_PLANNER_H

#include <cstddef>
#include <cstdint>

#include "spill_index.h"
#include "wire_format.h"

namespace hadoop_accel::jbs {

struct FetchPlan {
  FetchResponseHeader header;  // status kOk, lengths and chunk filled in
  uint64_t file_offset = 0;    // absolute position of the chunk in file.out
};

// kOk with a plan; kNotFound when the partition is not in the index; kBadRequest when the
// offset is past the partition's end. An offset equal to the end gives an empty chunk.
ResponseStatus PlanFetch(const FetchRequest& req, const SpillIndex& index, size_t buffer_size,
                         FetchPlan* out);

}  // namespace hadoop_accel::jbs

#endif
