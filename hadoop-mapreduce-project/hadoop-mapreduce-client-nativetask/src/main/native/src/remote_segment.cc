#include "remote_segment.h"

namespace hadoop_accel::jbs {

RemoteSegment::~RemoteSegment() {
  if (budget_ == nullptr) return;
  for (const std::vector<uint8_t>& c : ready_) budget_->Give(c.size());
}

void RemoteSegment::Start(FirstDone first) {
  {
    std::lock_guard<std::mutex> g(mu_);
    first_ = std::move(first);
    in_flight_ = true;
    if (budget_ != nullptr) budget_->Take(budget_->chunk_bytes());
  }
  Request(0);
}

void RemoteSegment::Request(uint64_t offset) {
  std::shared_ptr<RemoteSegment> self = shared_from_this();
  client_->Fetch(target_, offset,
                 [self, offset](FetchOutcome o) { self->OnChunk(offset, std::move(o)); });
}

bool RemoteSegment::ClaimRequestLocked(uint64_t* offset, bool ahead) {
  if (in_flight_ || cancelled_ || !started_ || !error_.empty() || next_offset_ >= part_length_)
    return false;
  if (budget_ != nullptr) {
    if (!ahead)
      budget_->Take(budget_->chunk_bytes());
    else if (!budget_->TryTake(budget_->chunk_bytes()))
      return false;
  } else if (ahead) {
    return false;
  }
  in_flight_ = true;
  *offset = next_offset_;
  return true;
}

void RemoteSegment::OnChunk(uint64_t offset, FetchOutcome o) {
  FirstDone first;
  bool ok = false;
  uint64_t ahead_offset = 0;
  bool ahead = false;
  {
    std::lock_guard<std::mutex> g(mu_);
    in_flight_ = false;
    if (budget_ != nullptr) budget_->Give(budget_->chunk_bytes());  // the request's estimate
    if (!o.ok) {
      error_ = o.error;
    } else if (!started_) {
      part_length_ = o.header.part_length;
      raw_length_ = o.header.raw_length;
      started_ = true;
    } else if (o.header.part_length != part_length_) {
      error_ = "the map output changed length between chunks";
    }
    if (error_.empty() && offset < part_length_ && o.chunk.empty())
      error_ = "the supplier sent an empty chunk";
    if (error_.empty()) {
      next_offset_ = offset + o.chunk.size();
      if (fetched_bytes_) fetched_bytes_->fetch_add(o.chunk.size());
      if (budget_ != nullptr) budget_->Take(o.chunk.size());  // what is really held
      if (!o.chunk.empty()) ready_.push_back(std::move(o.chunk));
      ok = true;
      ahead = ClaimRequestLocked(&ahead_offset, /*ahead=*/true);
    }
    first.swap(first_);  // only the first outcome is reported
  }
  cv_.notify_all();
  if (ahead) Request(ahead_offset);
  if (first) first(ok, !ok && o.connect_failed, ok ? std::string() : o.error);
}

void RemoteSegment::Cancel() {
  {
    std::lock_guard<std::mutex> g(mu_);
    cancelled_ = true;
  }
  cv_.notify_all();
}

uint64_t RemoteSegment::disk_length() const {
  std::lock_guard<std::mutex> g(mu_);
  return part_length_;
}

uint64_t RemoteSegment::raw_length() const {
  std::lock_guard<std::mutex> g(mu_);
  return raw_length_;
}

void RemoteSegment::Prefetch() {
  uint64_t offset;
  bool go;
  {
    std::lock_guard<std::mutex> g(mu_);
    go = ready_.empty() && ClaimRequestLocked(&offset);
  }
  if (go) Request(offset);
}

bool RemoteSegment::Next(std::vector<uint8_t>* chunk, std::string* error) {
  std::unique_lock<std::mutex> lock(mu_);
  uint64_t offset;
  if (ready_.empty() && ClaimRequestLocked(&offset)) {
    lock.unlock();
    Request(offset);
    lock.lock();
  }
  cv_.wait(lock,
           [this] { return !ready_.empty() || !error_.empty() || cancelled_ || !in_flight_; });
  if (!ready_.empty()) {
    *chunk = std::move(ready_.front());
    ready_.pop_front();
    if (budget_ != nullptr) budget_->Give(chunk->size());
    return true;
  }
  *error = cancelled_ ? "cancelled" : !error_.empty() ? error_ : "no more chunks";
  return false;
}

}  // namespace hadoop_accel::jbs
