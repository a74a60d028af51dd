#include "read_scheduler.h"

#include <algorithm>
#include <stdexcept>

namespace hadoop_accel::jbs {

ReadScheduler::ReadScheduler(BufferPool* pool, uint32_t reads_per_turn)
    : pool_(pool), reads_per_turn_(reads_per_turn) {
  if (pool == nullptr || reads_per_turn == 0)
    throw std::invalid_argument("read scheduler: pool and reads_per_turn >= 1 required");
}

void ReadScheduler::Submit(ReadRequest req) {
  auto [it, created] = groups_.try_emplace(req.file);
  if (created) {
    // A new file queues behind every file already waiting: just before the one whose turn
    // is next, i.e. last in the rotation from here.
    it->second.ring_pos = ring_.insert(cursor_, req.file);
    if (cursor_ == ring_.end()) cursor_ = ring_.begin();
  }
  uint64_t offset = req.file_offset;
  it->second.reads.emplace(std::make_pair(offset, arrivals_++), std::move(req));
  ++pending_;
}

std::optional<ReadOp> ReadScheduler::Next() {
  if (pending_ == 0) return std::nullopt;
  std::optional<uint32_t> buffer = pool_->TryAcquire();
  if (!buffer) return std::nullopt;

  auto git = groups_.find(*cursor_);
  Group& g = git->second;
  auto rit = g.reads.begin();
  ReadRequest& r = rit->second;
  ReadOp op{r.request_id, r.file, r.file_offset, std::min<uint64_t>(r.length, pool_->buffer_size()),
            *buffer};
  g.reads.erase(rit);
  --pending_;

  bool turn_over = ++served_this_turn_ >= reads_per_turn_;
  if (g.reads.empty()) {
    cursor_ = ring_.erase(g.ring_pos);
    groups_.erase(git);
    turn_over = true;
  } else if (turn_over) {
    ++cursor_;
  }
  if (turn_over) {
    served_this_turn_ = 0;
    if (cursor_ == ring_.end()) cursor_ = ring_.begin();
  }
  return op;
}

std::vector<ReadRequest> ReadScheduler::TakeAll() {
  std::vector<ReadRequest> all;
  all.reserve(pending_);
  for (auto& [file, g] : groups_)
    for (auto& [key, r] : g.reads) all.push_back(std::move(r));
  groups_.clear();
  ring_.clear();
  cursor_ = ring_.end();
  served_this_turn_ = 0;
  pending_ = 0;
  return all;
}

}  // namespace hadoop_accel::jbs
