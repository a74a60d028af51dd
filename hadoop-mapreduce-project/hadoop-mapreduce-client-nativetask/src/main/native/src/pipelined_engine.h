// The pipelined DataEngine (seed 001 Fig. 5, seed 004 §3.3.1): requests from every connection
// go into a queue; a disk thread plans them (registry, MAC, index), reads their chunks in
// ReadScheduler order (grouped by map output file, offset order, files round-robin) into pool
// buffers, and once a chunk is served and nothing else waits, reads the partition's next
// chunk into a spare buffer (the PrefetchCache), so the next request for it is answered from
// memory. Finished responses are
// handed back to the network side, which sends them while the disk thread goes on reading.
// With disk_threads > 1 each thread owns the map outputs whose attempt id hashes to it, so
// reads of one file stay in one thread's offset order while the disk sees several at once.
//
// Backpressure: at most max_queued requests wait at a time (beyond: the caller answers BUSY);
// a read waits for a buffer freed by a finished send, giving up prefetched chunks first, and
// is answered BUSY if no buffer comes free for buffer_wait_ms (buffers held by responses a
// connection cannot send yet, because an earlier answer is still being read, then drain).
#ifndef HADOOP_ACCEL_JBS_PIPELINED_ENGINE_H
#define HADOOP_ACCEL_JBS_PIPELINED_ENGINE_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "buffer_pool.h"
#include "data_engine.h"
#include "wire_format.h"

namespace hadoop_accel::jbs {

struct FetchCompletion {
  size_t sink = 0;  // the submitter's tags, returned as given
  uint64_t conn = 0;
  uint64_t seq = 0;
  FetchRequest request;
  FetchResponseHeader header;
  std::optional<uint32_t> buffer;  // the chunk, when header.chunk_length > 0; release it
};

class PipelinedEngine {
 public:
  struct Config {
    size_t max_queued = 0;        // 0: 4 x the pool's buffer count
    uint32_t reads_per_turn = 4;  // ReadScheduler's turn length
    size_t open_files = 128;      // open-file cache size
    bool prefetch = true;
    size_t max_prefetched = 0;  // 0: a quarter of the pool
    int buffer_wait_ms = 200;
    size_t disk_threads = 1;
    size_t sinks = 1;  // completion queues, one per network thread
  };
  struct Stats {
    uint64_t requests = 0;
    uint64_t disk_reads = 0;  // demand reads
    uint64_t prefetch_reads = 0;
    uint64_t prefetch_hits = 0;  // requests answered from a prefetched chunk
    uint64_t prefetch_dropped = 0;
    uint64_t busy = 0;  // answered BUSY by the engine (buffer wait)
    uint64_t file_opens = 0;
  };
  // Called from a disk thread when completions for `sink` become available (e.g. write that
  // network thread's eventfd).
  using Notify = std::function<void(size_t sink)>;

  PipelinedEngine(DataEngine* planner, BufferPool* pool, Config config, Notify notify);
  ~PipelinedEngine();
  PipelinedEngine(const PipelinedEngine&) = delete;
  PipelinedEngine& operator=(const PipelinedEngine&) = delete;

  void Start();
  // Joins the disk thread and returns every buffer the engine still holds to the pool.
  void Stop();

  // Queues a request whose answer goes to `sink` (< config.sinks); false when max_queued
  // requests already wait (answer BUSY yourself).
  bool Submit(size_t sink, uint64_t conn, uint64_t seq, FetchRequest req);
  // Appends the finished responses for `sink` (in no particular order) to *out.
  void TakeCompletions(size_t sink, std::vector<FetchCompletion>* out);
  // Gives back the buffer of a sent chunk and wakes the disk thread if it waits for one.
  void ReleaseBuffer(uint32_t buffer);

  // Closes the cached descriptors of paths containing `part` ("/<application id>/") on every
  // disk thread, soon (they own the caches): a finished job's deleted files free their space.
  void DropFiles(const std::string& part);

  Stats stats() const;

 private:
  struct Incoming {
    size_t sink;
    uint64_t conn, seq;
    FetchRequest req;
  };
  // One disk thread and what reaches it; guarded by mu_ except the thread itself.
  struct Lane {
    std::condition_variable cv;
    std::deque<Incoming> incoming;
    bool released = false;
    std::vector<std::string> drop_files;  // DropFiles requests, taken by the thread
    bool wants_buffers = false;  // waits with reads to do: wake it when a buffer comes back
    std::thread thread;
  };

  void DiskLoop(Lane* lane);
  void Complete(FetchCompletion c);

  DataEngine* planner_;
  BufferPool* pool_;
  Config config_;
  Notify notify_;

  std::mutex mu_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::vector<std::vector<FetchCompletion>> done_;  // by sink
  bool stopping_ = false;
  std::atomic<size_t> queued_{0};  // submitted, not yet completed

  std::atomic<uint64_t> requests_{0}, disk_reads_{0}, prefetch_reads_{0}, prefetch_hits_{0},
      prefetch_dropped_{0}, busy_{0}, file_opens_{0};
};

}  // namespace hadoop_accel::jbs

#endif
