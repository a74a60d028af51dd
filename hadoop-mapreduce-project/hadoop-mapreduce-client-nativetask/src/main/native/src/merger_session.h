// One reduce task's session with the NetMerger (DESIGN.md §3), once it has registered: HELLO
// with a fresh nonce and the REGISTER check against the job's secret happen before, on the
// server's gate thread (AdmitRegister), so an unauthenticated connection has no thread of its
// own. The session answers REGISTERED with its proof, then MAP_OUTPUT -> fetch of the map's first
// chunk -> MAP_FETCHED / FETCH_FAILED, MERGE -> the levitated merge streamed back in DATA frames ->
// END. Beyond the memory budget, groups of fetched segments are merged into spill runs while
// the shuffle goes on (seed 001 §III-C hierarchical merge). Any ERROR ends the session.
//
// Threads: the session thread (Run) owns all state and does every send; a reader thread only
// turns the reducer's frames into events; fetch threads only post fetch outcomes as events.
#ifndef HADOOP_ACCEL_JBS_MERGER_SESSION_H
#define HADOOP_ACCEL_JBS_MERGER_SESSION_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fetch_client.h"
#include "jbs_stats.h"
#include "job_registry.h"
#include "reducer_protocol.h"
#include "remote_segment.h"
#include "run_file.h"
#include "thread_launcher.h"
#include "transport.h"

namespace hadoop_accel::jbs {

struct MergerLimits {
  size_t buffer_bytes = 128 * 1024;      // one fetched chunk
  uint64_t memory_bytes = 256ull << 20;  // whole daemon: merge inputs' chunk buffers (2 each)
  std::vector<std::string> spill_dirs;   // run files, round-robin
  uint32_t max_maps = 1u << 20;          // REGISTER num_maps above this is a bad request
  size_t max_sessions = 1024;            // registered sessions; more are answered busy (3)
  // Distinct MOFSupplier host:port a session may name in its MAP_OUTPUTs (far above any
  // cluster a job runs on); beyond it the session ends with ERROR 1.
  size_t max_endpoints = 16384;
};

// What every session shares: jobs, the fetch client, the spill-dir cursor, a logger.
struct SessionContext {
  MergerLimits limits;
  const JobRegistry* jobs = nullptr;
  FetchClient* fetch = nullptr;
  ReadAheadBudget* read_ahead = nullptr;  // null: segments hold two chunks, fetch no further
  std::atomic<uint64_t> next_spill_dir{0};
  std::atomic<uint64_t> session_ids{0};
  // Merge inputs held in memory or on disk by all sessions (fetched segments + spill runs),
  // each costing two chunk buffers in its final merge: what --memory-bytes bounds.
  std::atomic<int64_t> inputs{0};
  std::atomic<size_t> registered{0};  // sessions past a successful REGISTER, still running
  ThreadLauncher launch_thread;       // empty: std::thread
  MergerStats stats;                  // for the control channel's STATS
};

// A REGISTER that passed every check: what its session starts from.
struct Admission {
  uint8_t nonce[kNonceLength] = {};  // the HELLO nonce the REGISTER MAC covers
  Register reg;
  std::string secret;
};

// Checks a REGISTER body sent in answer to HELLO nonce: well-formed, supported key type and
// codec, num_maps within bounds, job known and MAC right (an unknown job and a bad MAC get the
// same answer), and a free session place (counted in ctx->registered on success: the session
// gives it back when it ends, or Refuse does). kOk fills *admitted; else *message says why.
RegisterStatus AdmitRegister(const std::vector<uint8_t>& body, const uint8_t* nonce,
                             SessionContext* ctx, Admission* admitted, std::string* message);

class MergerSession {
 public:
  MergerSession(std::unique_ptr<Connection> conn, SessionContext* ctx, Admission admitted);
  ~MergerSession();

  // The whole session, on the caller's thread; returns when it is over.
  void Run();
  // Instead of Run, when no thread could be had for it: REGISTERED busy, place given back.
  void Refuse(const std::string& why);
  // From another thread: ends the session soon (the daemon stops).
  void Abort();

 private:
  struct Event {
    enum Kind { kFrame, kReaderDone, kFirstChunk } kind = kFrame;
    ReducerFrame type = ReducerFrame::kHello;
    std::vector<uint8_t> body;
    uint32_t map_index = 0;
    uint64_t generation = 0;
    bool ok = false;
    bool connect_failed = false;
    std::string message;
  };
  // Where the reader thread and fetch callbacks post events; shared, because a fetch may
  // complete after its session is gone.
  struct Inbox {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<Event> events;
    bool aborted = false;
    void Post(Event e);
  };
  // kQueued: reported, waiting for a first-fetch slot; kFetching: first chunk asked for;
  // kFetched: first chunk held (MAP_FETCHED sent); kSpilled: merged into a run.
  enum class MapState { kQueued, kFetching, kFetched, kSpilled };
  struct MapSlot {
    MapState state = MapState::kQueued;
    uint64_t generation = 0;
    std::string attempt;
    std::shared_ptr<const FetchTarget> target;
    std::shared_ptr<RemoteSegment> segment;
    uint64_t part_length = 0;
  };

  void ReadLoop();
  Event Wait();
  bool Send(const std::vector<uint8_t>& frame);
  void SendError(ErrorCode code, const std::string& message);
  // Handlers return false when the session is over.
  bool OnMapOutput(const std::vector<uint8_t>& body);
  bool OnFirstChunk(const Event& e);
  bool OnMerge();
  bool MaybeSpill();
  void StartQueued();
  void CountInputs(int64_t delta);
  void CancelAll();
  void Log(const std::string& what) const;

  std::unique_ptr<Connection> conn_;
  SessionContext* ctx_;
  const uint64_t id_;
  uint8_t nonce_[kNonceLength] = {};

  std::shared_ptr<Inbox> inbox_ = std::make_shared<Inbox>();
  std::shared_ptr<std::atomic<uint64_t>> fetched_bytes_ =
      std::make_shared<std::atomic<uint64_t>>(0);
  std::thread reader_;

  // Session thread only.
  Register reg_;
  std::string secret_;
  std::set<std::string> endpoints_;  // host:port named in MAP_OUTPUTs
  std::map<uint32_t, MapSlot> maps_;
  uint64_t generations_ = 0;
  std::deque<uint32_t> queued_;  // map indexes waiting for a first-fetch slot
  size_t fetching_ = 0;          // maps in kFetching
  std::vector<std::unique_ptr<RunFile>> runs_;
  uint64_t spilled_bytes_ = 0;
  int64_t inputs_ = 0;  // this session's share of ctx_->inputs
};

}  // namespace hadoop_accel::jbs

#endif
