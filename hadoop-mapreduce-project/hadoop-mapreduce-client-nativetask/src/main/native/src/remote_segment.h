// One map's segment for one reducer session, fetched chunk by chunk from its MOFSupplier:
// the first chunk as soon as the map is reported (MAP_FETCHED once it is held), each later
// one when the merge has consumed half of the current chunk (Prefetch) or needs it (Next),
// and, with a ReadAheadBudget, the next one as soon as a chunk arrives while the budget
// allows (so the transfer overlaps the maps instead of the reduce phase). Without read-ahead
// a segment holds at most two chunks. Fetch callbacks only queue a chunk and wake the
// session; the session thread does the parsing and merging.
#ifndef HADOOP_ACCEL_JBS_REMOTE_SEGMENT_H
#define HADOOP_ACCEL_JBS_REMOTE_SEGMENT_H

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fetch_client.h"
#include "ifile_segment.h"
#include "read_ahead_budget.h"

namespace hadoop_accel::jbs {

class RemoteSegment : public ChunkSource, public std::enable_shared_from_this<RemoteSegment> {
 public:
  // ok / connect_failed / error of the first chunk's fetch.
  using FirstDone = std::function<void(bool ok, bool connect_failed, const std::string& error)>;

  // budget: counts every chunk held or in flight and allows read-ahead (null: none); its
  // chunk_bytes must be the fetch client's max_chunk. It must outlive the segment.
  RemoteSegment(FetchClient* client, std::shared_ptr<const FetchTarget> target,
                std::shared_ptr<std::atomic<uint64_t>> fetched_bytes,
                ReadAheadBudget* budget = nullptr)
      : client_(client),
        target_(std::move(target)),
        fetched_bytes_(std::move(fetched_bytes)),
        budget_(budget) {}
  ~RemoteSegment() override;

  // Fetches the first chunk; first runs once, on a fetch thread.
  void Start(FirstDone first);
  // Ends waits in Next with an error (session over, or the map was replaced).
  void Cancel();

  uint64_t disk_length() const override;
  uint64_t raw_length() const override;
  bool Next(std::vector<uint8_t>* chunk, std::string* error) override;
  void Prefetch() override;

  const FetchTarget& target() const { return *target_; }

 private:
  // Under mu_: claims the next request if one is due and counts its chunk in the budget; the
  // caller fetches after unlocking. ahead: only if the budget allows read-ahead.
  bool ClaimRequestLocked(uint64_t* offset, bool ahead = false);
  void Request(uint64_t offset);
  void OnChunk(uint64_t offset, FetchOutcome o);

  FetchClient* client_;
  std::shared_ptr<const FetchTarget> target_;
  std::shared_ptr<std::atomic<uint64_t>> fetched_bytes_;  // the session's count
  ReadAheadBudget* const budget_;
  FirstDone first_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::vector<uint8_t>> ready_;
  bool started_ = false;
  bool in_flight_ = false;
  bool cancelled_ = false;
  uint64_t part_length_ = 0;
  uint64_t raw_length_ = 0;
  uint64_t next_offset_ = 0;  // of the next chunk to ask for
  std::string error_;
};

}  // namespace hadoop_accel::jbs

#endif
