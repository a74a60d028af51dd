#include "pipelined_engine.h"

#include <pthread.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "open_file_cache.h"
#include "prefetch_cache.h"
#include "read_scheduler.h"

namespace hadoop_accel::jbs {
namespace {

using Clock = std::chrono::steady_clock;
using FileOffset = std::pair<std::string, uint64_t>;

// A planned request waiting in the ReadScheduler for its read.
struct Ticket {
  size_t sink;
  uint64_t conn, seq;
  FetchRequest req;
  FetchResponseHeader header;
  uint64_t partition_end;
};

// A chunk worth reading ahead: the one after a chunk just served.
struct Candidate {
  std::string file;
  uint64_t offset;
  uint64_t partition_end;
};

FetchResponseHeader Refused(const FetchRequest& req, ResponseStatus s) {
  FetchResponseHeader h;
  h.request_id = req.request_id;
  h.status = s;
  return h;
}

}  // namespace

PipelinedEngine::PipelinedEngine(DataEngine* planner, BufferPool* pool, Config config,
                                 Notify notify)
    : planner_(planner), pool_(pool), config_(config), notify_(std::move(notify)) {
  if (planner_ == nullptr || pool_ == nullptr || !notify_)
    throw std::invalid_argument("pipelined engine: planner, pool and notify required");
  if (planner_->buffer_size() != pool_->buffer_size())
    throw std::invalid_argument("pipelined engine: planner and pool disagree on buffer size");
  if (config_.max_queued == 0) config_.max_queued = 4 * pool_->count();
  if (config_.max_prefetched == 0) config_.max_prefetched = std::max<size_t>(1, pool_->count() / 4);
  config_.disk_threads = std::clamp<size_t>(config_.disk_threads, 1, 16);
  config_.sinks = std::max<size_t>(config_.sinks, 1);
  done_.resize(config_.sinks);
  for (size_t i = 0; i < config_.disk_threads; ++i) lanes_.push_back(std::make_unique<Lane>());
}

PipelinedEngine::~PipelinedEngine() { Stop(); }

void PipelinedEngine::Start() {
  for (auto& lane : lanes_) {
    Lane* l = lane.get();
    l->thread = std::thread([this, l] {
      ::pthread_setname_np(::pthread_self(), "jbs-disk");  // for top -H, perf, gdb
      DiskLoop(l);
    });
  }
}

void PipelinedEngine::Stop() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stopping_ = true;
  }
  for (auto& lane : lanes_) {
    lane->cv.notify_all();
    if (lane->thread.joinable()) lane->thread.join();
  }
  std::lock_guard<std::mutex> g(mu_);
  for (auto& sink : done_) {
    for (FetchCompletion& c : sink)
      if (c.buffer) pool_->Release(*c.buffer);
    sink.clear();
  }
  for (auto& lane : lanes_) lane->incoming.clear();
}

bool PipelinedEngine::Submit(size_t sink, uint64_t conn, uint64_t seq, FetchRequest req) {
  if (queued_.load() >= config_.max_queued || sink >= done_.size()) return false;
  // One map output's reads always go to the same lane, so they stay in offset order.
  Lane* lane = lanes_[std::hash<std::string>{}(req.map_attempt_id) % lanes_.size()].get();
  {
    std::lock_guard<std::mutex> g(mu_);
    if (stopping_) return false;
    ++queued_;
    lane->incoming.push_back({sink, conn, seq, std::move(req)});
  }
  lane->cv.notify_one();
  return true;
}

void PipelinedEngine::TakeCompletions(size_t sink, std::vector<FetchCompletion>* out) {
  std::lock_guard<std::mutex> g(mu_);
  for (FetchCompletion& c : done_[sink]) out->push_back(std::move(c));
  done_[sink].clear();
}

void PipelinedEngine::ReleaseBuffer(uint32_t buffer) {
  pool_->Release(buffer);
  std::lock_guard<std::mutex> g(mu_);
  for (auto& lane : lanes_) {
    if (!lane->wants_buffers) continue;  // nobody waits: spare a wake-up per send
    lane->released = true;
    lane->cv.notify_one();
  }
}

void PipelinedEngine::DropFiles(const std::string& part) {
  std::lock_guard<std::mutex> g(mu_);
  for (auto& lane : lanes_) {
    lane->drop_files.push_back(part);
    lane->cv.notify_one();
  }
}

void PipelinedEngine::Complete(FetchCompletion c) {
  bool was_empty;
  const size_t sink = c.sink;
  {
    std::lock_guard<std::mutex> g(mu_);
    was_empty = done_[sink].empty();
    done_[sink].push_back(std::move(c));
  }
  --queued_;
  if (was_empty) notify_(sink);  // the taker drains everything, so one wake-up per batch
}

PipelinedEngine::Stats PipelinedEngine::stats() const {
  Stats s;
  s.requests = requests_;
  s.disk_reads = disk_reads_;
  s.prefetch_reads = prefetch_reads_;
  s.prefetch_hits = prefetch_hits_;
  s.prefetch_dropped = prefetch_dropped_;
  s.busy = busy_;
  s.file_opens = file_opens_;
  return s;
}

void PipelinedEngine::DiskLoop(Lane* lane) {
  const size_t lanes = lanes_.size();
  ReadScheduler sched(pool_, config_.reads_per_turn);
  OpenFileCache files(std::max<size_t>(1, config_.open_files / lanes),
                      [this](const std::string& path) { return planner_->OpenServed(path); });
  PrefetchCache cache(std::max<size_t>(1, config_.max_prefetched / lanes));
  std::unordered_map<uint64_t, Ticket> tickets;  // by ReadRequest::request_id
  std::multiset<FileOffset> demanded;            // chunks some ticket will read anyway
  std::deque<Candidate> candidates;
  uint64_t next_ticket = 0;
  uint64_t opens_counted = 0;
  Clock::time_point last_progress = Clock::now();
  const auto buffer_wait = std::chrono::milliseconds(config_.buffer_wait_ms);
  const size_t prefetch_reserve = pool_->count() / 4;  // buffers left to demand reads

  // How far each partition (file, partition end) has been served: a candidate below that was
  // served on demand before its read-ahead came up, and reading it now would be wasted.
  std::map<FileOffset, uint64_t> served_to;
  auto note_served = [&](const std::string& file, uint64_t next, uint64_t end) {
    if (next >= end) {
      served_to.erase({file, end});
      return;
    }
    // Abandoned partitions (a reducer died) would stay forever: past ~6 MB of entries forget
    // them all (the cost: a round of read-aheads skipped as if stale).
    if (served_to.size() > (1u << 16)) served_to.clear();
    uint64_t& to = served_to[{file, end}];
    to = std::max(to, next);
    if (!config_.prefetch) return;
    candidates.push_back({file, next, end});
    if (candidates.size() > 4 * config_.max_prefetched / lanes) candidates.pop_front();
  };
  auto stale = [&](const Candidate& c) {
    auto it = served_to.find({c.file, c.partition_end});
    return it == served_to.end() || it->second > c.offset;
  };
  auto can_prefetch = [&] { return !candidates.empty() && pool_->free_count() > prefetch_reserve; };

  for (;;) {
    std::deque<Incoming> batch;
    std::vector<std::string> drop;
    {
      std::unique_lock<std::mutex> lk(mu_);
      lane->wants_buffers = sched.pending() > 0 || !candidates.empty();
      while (!stopping_ && lane->incoming.empty() && !lane->released && lane->drop_files.empty()) {
        if (sched.pending() > 0 ? pool_->free_count() > 0 : can_prefetch()) break;
        if (sched.pending() == 0) {
          lane->cv.wait(lk);
        } else if (lane->cv.wait_until(lk, last_progress + buffer_wait) ==
                   std::cv_status::timeout) {
          break;
        }
      }
      if (stopping_) break;
      batch.swap(lane->incoming);
      drop.swap(lane->drop_files);
      lane->released = false;
    }
    for (const std::string& part : drop) files.DropContaining(part);
    if (sched.pending() == 0) last_progress = Clock::now();

    // 1. Plan what came in; answer refusals, empty chunks and prefetched chunks at once.
    for (Incoming& in : batch) {
      ++requests_;
      PlannedFetch p = planner_->Plan(in.req);
      const uint32_t len = p.header.chunk_length;
      if (p.header.status != ResponseStatus::kOk || len == 0) {
        Complete({in.sink, in.conn, in.seq, std::move(in.req), p.header, std::nullopt});
        continue;
      }
      if (std::optional<PrefetchedChunk> hit = cache.Take(p.data_path, p.file_offset)) {
        if (hit->length >= len) {
          ++prefetch_hits_;
          note_served(p.data_path, p.file_offset + len, p.partition_end);
          Complete({in.sink, in.conn, in.seq, std::move(in.req), p.header, hit->buffer});
          continue;
        }
        pool_->Release(hit->buffer);  // read shorter than now asked for: read again
      }
      uint64_t id = next_ticket++;
      demanded.insert({p.data_path, p.file_offset});
      sched.Submit({id, p.data_path, p.file_offset, len});
      tickets.emplace(
          id, Ticket{in.sink, in.conn, in.seq, std::move(in.req), p.header, p.partition_end});
    }

    // 2. Demand reads in scheduler order while buffers last; prefetched chunks yield theirs.
    for (;;) {
      std::optional<ReadOp> op = sched.Next();
      if (!op) {
        if (sched.pending() == 0) break;
        std::optional<uint32_t> b = cache.EvictOldest();
        if (!b) break;
        pool_->Release(*b);
        ++prefetch_dropped_;
        continue;
      }
      last_progress = Clock::now();
      auto it = tickets.find(op->request_id);
      Ticket t = std::move(it->second);
      tickets.erase(it);
      if (auto d = demanded.find({op->file, op->file_offset}); d != demanded.end())
        demanded.erase(d);
      FetchCompletion c{t.sink, t.conn, t.seq, std::move(t.req), t.header, std::nullopt};
      if (files.ReadFully(op->file, pool_->data(op->buffer), op->length, op->file_offset)) {
        ++disk_reads_;
        c.buffer = op->buffer;
        note_served(op->file, op->file_offset + op->length, t.partition_end);
      } else {
        pool_->Release(op->buffer);  // file.out shorter than its index says, or I/O error
        c.header = Refused(c.request, ResponseStatus::kServerError);
      }
      Complete(std::move(c));
    }

    // 3. No buffer came free for too long: the buffers are held by answers that cannot be
    // sent before the ones waiting here. Refuse the waiting ones (BUSY) so the others drain.
    if (sched.pending() > 0 && Clock::now() - last_progress >= buffer_wait) {
      for (ReadRequest& r : sched.TakeAll()) {
        auto it = tickets.find(r.request_id);
        Ticket t = std::move(it->second);
        tickets.erase(it);
        ++busy_;
        Complete(
            {t.sink, t.conn, t.seq, t.req, Refused(t.req, ResponseStatus::kBusy), std::nullopt});
      }
      demanded.clear();
      last_progress = Clock::now();
    }

    // 4. Read ahead, a couple of chunks at a time so new requests are not kept waiting.
    for (int n = 0; n < 2 && sched.pending() == 0 && can_prefetch(); ++n) {
      Candidate c = std::move(candidates.front());
      candidates.pop_front();
      if (stale(c) || cache.Contains(c.file, c.offset) || demanded.count({c.file, c.offset}))
        continue;
      if (cache.full()) {
        pool_->Release(*cache.EvictOldest());
        ++prefetch_dropped_;
      }
      std::optional<uint32_t> b = pool_->TryAcquire();
      if (!b) break;
      uint32_t len = static_cast<uint32_t>(
          std::min<uint64_t>(pool_->buffer_size(), c.partition_end - c.offset));
      if (!files.ReadFully(c.file, pool_->data(*b), len, c.offset)) {
        pool_->Release(*b);
        continue;
      }
      ++prefetch_reads_;
      cache.Put(c.file, c.offset, {*b, len});
    }
    file_opens_ += files.opens() - opens_counted;
    opens_counted = files.opens();
  }

  // Stopping: give back what only this thread knows about.
  while (std::optional<uint32_t> b = cache.EvictOldest()) pool_->Release(*b);
}

}  // namespace hadoop_accel::jbs
