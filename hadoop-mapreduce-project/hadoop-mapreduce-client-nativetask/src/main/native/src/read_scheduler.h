// The DataCache's prefetch order (seed 001 Fig. 5, seed 004 §3.3.1): pending reads are
// grouped by map output file and kept sorted by offset within a group; the groups take turns
// (round-robin, up to reads_per_turn reads each), so one busy map output cannot starve the
// others while reads from one file stay sequential. Each read fills one free transport buffer;
// when none is free, scheduling stops until a sent chunk's buffer is released.
//
// Pure and single-threaded: the DataEngine's disk thread owns it. Given the same submissions
// and releases it produces the same reads into the same buffers, which is what the tests pin.
#ifndef HADOOP_ACCEL_JBS_READ_SCHEDULER_H
#define HADOOP_ACCEL_JBS_READ_SCHEDULER_H

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "buffer_pool.h"

namespace hadoop_accel::jbs {

struct ReadRequest {
  uint64_t request_id = 0;
  std::string file;          // the map output file (its attempt id or path)
  uint64_t file_offset = 0;  // absolute, in file.out (index start offset + request offset)
  uint64_t length = 0;       // wanted bytes; a read covers at most one buffer of them
};

struct ReadOp {
  uint64_t request_id = 0;
  std::string file;
  uint64_t file_offset = 0;
  uint64_t length = 0;  // <= the pool's buffer size
  uint32_t buffer = 0;  // which transport buffer to fill
};

class ReadScheduler {
 public:
  // reads_per_turn: consecutive reads a group gets before the next group's turn (>= 1;
  // default 4 is a guess to be measured: larger favours sequential disk reads, 1 fairness).
  explicit ReadScheduler(BufferPool* pool, uint32_t reads_per_turn = 4);

  void Submit(ReadRequest req);
  // The next read to issue with a buffer acquired for it, or nullopt when nothing is pending
  // or every buffer is in use.
  std::optional<ReadOp> Next();

  // Removes and returns every pending read (to refuse them all when no buffer comes free).
  std::vector<ReadRequest> TakeAll();

  size_t pending() const { return pending_; }
  size_t groups() const { return ring_.size(); }

 private:
  struct Group {
    // (offset, arrival) -> request: ordered by offset, ties in arrival order.
    std::map<std::pair<uint64_t, uint64_t>, ReadRequest> reads;
    std::list<std::string>::iterator ring_pos;
  };

  BufferPool* pool_;
  const uint32_t reads_per_turn_;
  std::map<std::string, Group> groups_;
  std::list<std::string> ring_;  // turn order of the groups
  std::list<std::string>::iterator cursor_ = ring_.end();
  uint32_t served_this_turn_ = 0;
  uint64_t arrivals_ = 0;
  size_t pending_ = 0;
};

}  // namespace hadoop_accel::jbs

#endif
