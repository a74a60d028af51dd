#include "merger_session.h"

#include <cstdio>
#include <cstring>

#include "block_codec.h"
#include "ids.h"
#include "job_auth.h"
#include "segment_merger.h"

namespace hadoop_accel::jbs {
namespace {

std::string Clip(std::string s) {
  if (s.size() > kMaxMessageLength) s.resize(kMaxMessageLength);
  return s;
}

bool IsClientFrame(ReducerFrame t) {
  return t == ReducerFrame::kRegister || t == ReducerFrame::kMapOutput || t == ReducerFrame::kMerge;
}

}  // namespace

void MergerSession::Inbox::Post(Event e) {
  {
    std::lock_guard<std::mutex> g(mu);
    events.push_back(std::move(e));
  }
  cv.notify_all();
}

RegisterStatus AdmitRegister(const std::vector<uint8_t>& body, const uint8_t* nonce,
                             SessionContext* ctx, Admission* admitted, std::string* message) {
  Register r;
  WireStatus s = DecodeRegister(body.data(), body.size(), &r);
  if (s != WireStatus::kOk) {
    *message = std::string("malformed REGISTER: ") + WireStatusName(s);
    return RegisterStatus::kBadRequest;
  }
  if (ComparatorFor(r.key_type) == nullptr) {
    *message = "unsupported key type " + std::to_string(r.key_type);
    return RegisterStatus::kUnsupported;
  }
  if (r.codec > static_cast<uint8_t>(Codec::kLz4) || !CodecBuiltIn(static_cast<Codec>(r.codec))) {
    *message = "unsupported codec " + std::to_string(r.codec);
    return RegisterStatus::kUnsupported;
  }
  if (r.num_maps > ctx->limits.max_maps) {
    *message = "too many maps: " + std::to_string(r.num_maps);
    return RegisterStatus::kBadRequest;
  }
  // An unknown job gets the same answer as a bad MAC: registration reveals no job's presence.
  std::optional<JobInfo> job = ctx->jobs->Find(r.job);
  if (!job || !MacEquals(RegisterMac(job->secret, r.job, r.partition, nonce), r.auth)) {
    ++ctx->stats.auth_refusals;
    *message = "unknown job or bad REGISTER MAC for " + r.job;
    return RegisterStatus::kUnauthorized;
  }
  if (++ctx->registered > ctx->limits.max_sessions) {
    --ctx->registered;
    *message = "too many reducers on this NetMerger";
    return RegisterStatus::kBusy;
  }
  std::memcpy(admitted->nonce, nonce, kNonceLength);
  admitted->reg = std::move(r);
  admitted->secret = job->secret;
  ++ctx->stats.sessions;
  return RegisterStatus::kOk;
}

MergerSession::MergerSession(std::unique_ptr<Connection> conn, SessionContext* ctx,
                             Admission admitted)
    : conn_(std::move(conn)),
      ctx_(ctx),
      id_(++ctx->session_ids),
      reg_(std::move(admitted.reg)),
      secret_(std::move(admitted.secret)) {
  std::memcpy(nonce_, admitted.nonce, kNonceLength);
}

MergerSession::~MergerSession() {
  conn_->Close();
  if (reader_.joinable()) reader_.join();
}

void MergerSession::Log(const std::string& what) const {
  std::fprintf(stderr, "jbs_net_merger: session %llu %s partition %u: %s\n",
               static_cast<unsigned long long>(id_), reg_.job.c_str(), reg_.partition,
               what.c_str());
}

void MergerSession::Abort() {
  {
    std::lock_guard<std::mutex> g(inbox_->mu);
    inbox_->aborted = true;
  }
  inbox_->cv.notify_all();
  conn_->Close();  // unblocks the reader and any send
}

void MergerSession::ReadLoop() {
  std::shared_ptr<Inbox> inbox = inbox_;
  for (;;) {
    Event e;
    uint8_t header[kFrameHeaderSize];
    int err = conn_->RecvExact(header, sizeof(header));
    uint32_t body_length = 0;
    WireStatus s = WireStatus::kOk;
    if (err == 0) s = DecodeReducerHeader(header, sizeof(header), &e.type, &body_length);
    if (err == 0 && s == WireStatus::kOk && !IsClientFrame(e.type)) s = WireStatus::kBadType;
    if (err == 0 && s == WireStatus::kOk) {
      e.body.resize(body_length);  // bounded by DecodeReducerHeader: <= 2 KiB for these types
      if (body_length > 0) err = conn_->RecvExact(e.body.data(), body_length);
    }
    if (err != 0 || s != WireStatus::kOk) {
      Event done;
      done.kind = Event::kReaderDone;
      done.ok = err != 0;  // a closed socket is an ending, a bad frame a protocol error
      done.message = err != 0 ? std::string("reducer connection: ") + std::strerror(err)
                              : std::string("bad frame from the reducer: ") + WireStatusName(s);
      inbox->Post(std::move(done));
      return;
    }
    e.kind = Event::kFrame;
    inbox->Post(std::move(e));
  }
}

MergerSession::Event MergerSession::Wait() {
  std::unique_lock<std::mutex> lock(inbox_->mu);
  auto ready = [this] { return !inbox_->events.empty() || inbox_->aborted; };
  inbox_->cv.wait(lock, ready);
  if (inbox_->aborted) {
    Event e;
    e.kind = Event::kReaderDone;
    e.ok = false;
    e.message = "the NetMerger is stopping";
    return e;
  }
  Event e = std::move(inbox_->events.front());
  inbox_->events.pop_front();
  return e;
}

bool MergerSession::Send(const std::vector<uint8_t>& frame) {
  int e = conn_->SendFrame(frame.data(), frame.size(), nullptr, 0);
  if (e != 0) Log(std::string("send to the reducer failed: ") + std::strerror(e));
  return e == 0;
}

void MergerSession::SendError(ErrorCode code, const std::string& message) {
  Log("ERROR " + std::to_string(static_cast<int>(code)) + ": " + message);
  std::vector<uint8_t> f;
  if (EncodeError({code, Clip(message)}, &f) == WireStatus::kOk) Send(f);
}

void MergerSession::Refuse(const std::string& why) {
  Log("refused: " + why);
  std::vector<uint8_t> f;
  EncodeRegistered({RegisterStatus::kBusy, Clip("NetMerger busy: " + why), ""}, &f);
  Send(f);
  conn_->Close();
  --ctx_->registered;
}

void MergerSession::Run() {
  // The reader first: without it the session cannot run, and the reducer hears busy instead.
  std::string why;
  if (!TryStartThread(
          ctx_->launch_thread, [this] { ReadLoop(); }, &reader_, &why)) {
    Refuse(why);
    return;
  }
  std::vector<uint8_t> f;
  EncodeRegistered({RegisterStatus::kOk, "registered, " + std::to_string(reg_.num_maps) + " maps",
                    RegisteredMac(secret_, reg_.job, reg_.partition, nonce_, reg_.client_nonce)},
                   &f);
  Log("REGISTER -> 0 registered, " + std::to_string(reg_.num_maps) + " maps");
  bool go = Send(f);
  while (go) {
    Event e = Wait();
    switch (e.kind) {
      case Event::kReaderDone:
        if (e.ok)
          Log(e.message);
        else
          SendError(e.message.find("stopping") != std::string::npos ? ErrorCode::kShutdown
                                                                    : ErrorCode::kProtocol,
                    e.message);
        go = false;
        break;
      case Event::kFirstChunk:
        go = OnFirstChunk(e);
        break;
      case Event::kFrame:
        if (e.type == ReducerFrame::kRegister) {
          SendError(ErrorCode::kProtocol, "REGISTER twice");
          go = false;
        } else if (e.type == ReducerFrame::kMapOutput)
          go = OnMapOutput(e.body);
        else {
          OnMerge();
          go = false;
        }
        break;
    }
  }
  CancelAll();
  conn_->Close();
  if (reader_.joinable()) reader_.join();
  runs_.clear();  // removes the spill files
  CountInputs(-inputs_);
  --ctx_->registered;
}

void MergerSession::CountInputs(int64_t delta) {
  inputs_ += delta;
  ctx_->inputs += delta;
}

void MergerSession::CancelAll() {
  for (auto& [index, slot] : maps_)
    if (slot.segment) slot.segment->Cancel();
}

bool MergerSession::OnMapOutput(const std::vector<uint8_t>& body) {
  MapOutput m;
  WireStatus s = DecodeMapOutput(body.data(), body.size(), &m);
  if (s != WireStatus::kOk) {
    SendError(ErrorCode::kProtocol, std::string("malformed MAP_OUTPUT: ") + WireStatusName(s));
    return false;
  }
  if (m.map_index >= reg_.num_maps || !AttemptBelongsToJob(m.attempt, reg_.job)) {
    SendError(ErrorCode::kProtocol, "MAP_OUTPUT " + std::to_string(m.map_index) + " " + m.attempt +
                                        " is not a map of this job");
    return false;
  }
  std::string endpoint = EndpointKey({m.host, m.port});
  if (endpoints_.count(endpoint) == 0) {
    if (endpoints_.size() >= ctx_->limits.max_endpoints) {
      SendError(ErrorCode::kProtocol, "MAP_OUTPUT names more than " +
                                          std::to_string(ctx_->limits.max_endpoints) +
                                          " distinct MOFSupplier endpoints");
      return false;
    }
    endpoints_.insert(std::move(endpoint));
  }
  auto it = maps_.find(m.map_index);
  if (it != maps_.end()) {
    if (it->second.state == MapState::kSpilled) {
      SendError(ErrorCode::kProtocol,
                "map " + std::to_string(m.map_index) + " was already merged into a spill run");
      return false;
    }
    // A re-run replaces the earlier attempt (its late answer is ignored by generation).
    if (it->second.segment) it->second.segment->Cancel();
    if (it->second.state == MapState::kFetched) CountInputs(-1);
    if (it->second.state == MapState::kFetching) --fetching_;
    Log("map " + std::to_string(m.map_index) + ": " + m.attempt + " replaces " +
        it->second.attempt);
  }
  MapSlot& slot = maps_[m.map_index];
  slot = MapSlot{};
  slot.generation = ++generations_;
  slot.attempt = m.attempt;
  auto target = std::make_shared<FetchTarget>();
  target->node = {m.host, m.port};
  target->job = reg_.job;
  target->attempt = m.attempt;
  target->partition = reg_.partition;
  uint8_t nonce[kNonceLength];
  if (!FillNonce(nonce)) {
    SendError(ErrorCode::kLocalIo, "no random nonce for the fetch");
    return false;
  }
  target->auth = FetchAuth(secret_, reg_.job, m.attempt, reg_.partition, nonce);
  target->reply_mac = ReplyMac(secret_, target->auth);  // what the real supplier answers
  slot.target = std::move(target);
  slot.state = MapState::kQueued;
  queued_.push_back(m.map_index);
  StartQueued();
  return true;
}

// First-chunk fetches in flight are bounded by the inputs the budget allows, so a reducer
// that reports thousands of maps at once does not make the NetMerger hold thousands of
// chunks before the hierarchical merge can spill them; the rest wait their turn here.
void MergerSession::StartQueued() {
  const MergerLimits& lim = ctx_->limits;
  size_t limit =
      static_cast<size_t>(std::max<uint64_t>(2, lim.memory_bytes / (2 * lim.buffer_bytes)));
  while (fetching_ < limit && !queued_.empty()) {
    uint32_t index = queued_.front();
    queued_.pop_front();
    auto it = maps_.find(index);
    if (it == maps_.end() || it->second.state != MapState::kQueued) continue;  // replaced
    MapSlot& slot = it->second;
    slot.state = MapState::kFetching;
    ++fetching_;
    slot.segment =
        std::make_shared<RemoteSegment>(ctx_->fetch, slot.target, fetched_bytes_, ctx_->read_ahead);
    std::shared_ptr<Inbox> inbox = inbox_;
    uint64_t gen = slot.generation;
    slot.segment->Start([inbox, index, gen](bool ok, bool connect_failed, const std::string& err) {
      Event e;
      e.kind = Event::kFirstChunk;
      e.map_index = index;
      e.generation = gen;
      e.ok = ok;
      e.connect_failed = connect_failed;
      e.message = err;
      inbox->Post(std::move(e));
    });
  }
}

bool MergerSession::OnFirstChunk(const Event& e) {
  auto it = maps_.find(e.map_index);
  if (it == maps_.end() || it->second.generation != e.generation) return true;  // replaced
  MapSlot& slot = it->second;
  --fetching_;
  StartQueued();
  std::vector<uint8_t> f;
  if (!e.ok) {
    Log("FETCH_FAILED map " + std::to_string(e.map_index) + " " + slot.attempt + ": " + e.message);
    EncodeFetchFailed({e.map_index, e.connect_failed, slot.attempt, Clip(e.message)}, &f);
    maps_.erase(it);
    return Send(f);
  }
  slot.state = MapState::kFetched;
  CountInputs(1);
  slot.part_length = slot.segment->disk_length();
  EncodeMapFetched({e.map_index, slot.part_length, slot.attempt}, &f);
  return Send(f) && MaybeSpill();
}

// Hierarchical merge: a final merge needs two chunk buffers per input (segment or run).
// When the inputs of all sessions would not fit the daemon's budget, this session merges its
// fetched segments into one more run now (at least two: a lone segment waits). Each byte is
// spilled once (runs are never re-merged), so if runs alone outgrow the budget the final
// merges exceed it.
bool MergerSession::MaybeSpill() {
  const MergerLimits& lim = ctx_->limits;
  uint64_t max_inputs = std::max<uint64_t>(2, lim.memory_bytes / (2 * lim.buffer_bytes));
  std::vector<uint32_t> held;
  for (auto& [index, slot] : maps_)
    if (slot.state == MapState::kFetched) held.push_back(index);
  if (held.size() < 2 ||
      static_cast<uint64_t>(std::max<int64_t>(0, ctx_->inputs.load())) <= max_inputs)
    return true;
  if (lim.spill_dirs.empty()) return true;  // nowhere to spill: stay in memory
  const std::string& dir = lim.spill_dirs[ctx_->next_spill_dir++ % lim.spill_dirs.size()];
  std::string err;
  std::unique_ptr<RunFile> run = RunFile::Create(dir, &err);
  if (!run) {
    SendError(ErrorCode::kLocalIo, err);
    return false;
  }
  std::vector<std::unique_ptr<SegmentReader>> readers;
  std::vector<MergeInput> inputs;
  for (uint32_t index : held) {
    readers.push_back(std::make_unique<SegmentReader>(maps_[index].segment.get(),
                                                      static_cast<Codec>(reg_.codec)));
    inputs.push_back({readers.back().get(), index});
  }
  MergeResult r = MergeSegments(inputs, reg_.key_type, run->sink());
  if (!r.ok) {
    SendError(r.failed_kind == SegmentReader::ErrorKind::kCorrupt  ? ErrorCode::kCorruptSegment
              : r.failed_kind == SegmentReader::ErrorKind::kSource ? ErrorCode::kFetch
                                                                   : ErrorCode::kLocalIo,
              "spill merge: " + r.error);
    return false;
  }
  readers.clear();
  for (uint32_t index : held) {
    maps_[index].state = MapState::kSpilled;
    maps_[index].segment.reset();  // its buffers go
  }
  spilled_bytes_ += run->size();
  ctx_->stats.bytes_spilled += run->size();
  CountInputs(1 - static_cast<int64_t>(held.size()));
  Log("spilled " + std::to_string(held.size()) + " segments (" + std::to_string(r.records) +
      " records) into " + run->path() + ", " + std::to_string(run->size()) + " bytes");
  runs_.push_back(std::move(run));
  return true;
}

bool MergerSession::OnMerge() {
  size_t ready = 0;
  for (auto& [index, slot] : maps_)
    if (slot.state == MapState::kFetched || slot.state == MapState::kSpilled) ++ready;
  if (ready != reg_.num_maps) {
    SendError(ErrorCode::kProtocol, "MERGE with " + std::to_string(ready) + " of " +
                                        std::to_string(reg_.num_maps) + " maps fetched");
    return false;
  }
  std::vector<std::unique_ptr<ChunkSource>> run_sources;
  std::vector<std::unique_ptr<SegmentReader>> readers;
  std::vector<MergeInput> inputs;
  for (auto& run : runs_) {
    run_sources.push_back(run->Open(ctx_->limits.buffer_bytes));
    readers.push_back(std::make_unique<SegmentReader>(run_sources.back().get(), Codec::kNone));
    inputs.push_back({readers.back().get(), 0, true});
  }
  for (auto& [index, slot] : maps_) {
    if (slot.state != MapState::kFetched) continue;
    readers.push_back(
        std::make_unique<SegmentReader>(slot.segment.get(), static_cast<Codec>(reg_.codec)));
    inputs.push_back({readers.back().get(), index});
  }
  Connection* conn = conn_.get();
  StreamSink sink(kMaxDataPayload, [conn](const uint8_t* p, size_t n, std::string* error) {
    uint8_t prefix[kDataPrefixSize];
    EncodeDataPrefix(p, n, prefix);
    int e = conn->SendFrame(prefix, sizeof(prefix), p, n);
    if (e != 0) *error = std::string("send DATA: ") + std::strerror(e);
    return e == 0;
  });
  MergeResult r = MergeSegments(inputs, reg_.key_type, &sink);
  if (!r.ok) {
    if (r.failed_kind == SegmentReader::ErrorKind::kNone) {
      Log("merge stopped: " + r.error);  // the reducer is gone: nobody to tell
    } else {
      SendError(r.failed_kind == SegmentReader::ErrorKind::kCorrupt ? ErrorCode::kCorruptSegment
                                                                    : ErrorCode::kFetch,
                "merge: " + r.error);
    }
    return false;
  }
  EndStats end;
  end.records = sink.records();
  end.stream_bytes = sink.stream_bytes();
  end.fetched_bytes = fetched_bytes_->load();
  end.merge_passes = static_cast<uint32_t>(runs_.size() + 1);
  end.spilled_bytes = spilled_bytes_;
  readers.clear();
  run_sources.clear();
  runs_.clear();  // spill files go before END, so a reducer never sees them outlive the merge
  CountInputs(-inputs_);
  ctx_->stats.bytes_merged += end.stream_bytes;
  ++ctx_->stats.merges;
  std::vector<uint8_t> f;
  EncodeEnd(end, &f);
  Log("END " + std::to_string(end.records) + " records, " + std::to_string(end.stream_bytes) +
      " stream bytes, " + std::to_string(end.fetched_bytes) + " fetched, " +
      std::to_string(end.merge_passes) + " passes, " + std::to_string(end.spilled_bytes) +
      " spilled");
  return Send(f);
}

}  // namespace hadoop_accel::jbs
