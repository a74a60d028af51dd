// End to end on one node: map outputs laid out as a NodeManager keeps them (IFile partitions,
// plain and zlib), a MofServer over TCP loopback whose authorizer checks the FetchMac, the
// NetMerger server on a Unix socket, and a fake reduce task speaking the reducer protocol.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <system_error>
#include <thread>

#include "byte_order.h"
#include "data_engine.h"
#include "fake_reducer.h"
#include "ids.h"
#include "ifile_writer.h"
#include "job_auth.h"
#include "mof_server.h"
#include "net_merger_server.h"
#include "reducer_protocol.h"
#include "spill_index.h"
#include "test_files.h"
#include "unix_socket.h"

using namespace hadoop_accel::jbs;
using namespace jbs_test;

namespace {

class NetMergerE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(supplier_jobs_.Register(kJob, {"alice", kSecret, ::getuid()}));
    ASSERT_TRUE(merger_jobs_.Register(kJob, {"alice", kSecret, std::nullopt}));
    DataEngine::Config cfg;
    cfg.local_dirs = {local_.path()};
    engine_ = std::make_unique<DataEngine>(
        cfg, &supplier_jobs_, &pool_, [](const FetchRequest& r, const JobInfo& j) {
          // FetchMac, then the NetMerger's nonce for the reply proof (job_auth.h).
          return r.auth.size() == kMacLength + kNonceLength &&
                 MacEquals(r.auth.substr(0, kMacLength),
                           FetchMac(j.secret, r.job_id, r.map_attempt_id, r.partition));
        });
    tcp_ = MakeTcpTransport();
    supplier_ = std::make_unique<MofServer>(tcp_.get(), engine_.get(), &pool_);
    ASSERT_EQ(supplier_->Start({"127.0.0.1", 0}), 0);
    socket_ = sock_dir_.path() + "/merger.sock";
  }
  void TearDown() override {
    if (merger_) merger_->Stop();
    supplier_->Stop();
  }

  void StartMerger(uint64_t memory_bytes = 256ull << 20, size_t max_sessions = 1024,
                   int register_timeout_ms = 60000) {
    NetMergerConfig c;
    c.socket_path = socket_;
    c.buffer_bytes = 4096;
    c.memory_bytes = memory_bytes;
    c.spill_dirs = {spill_.path()};
    c.fetch_retries = 1;
    c.retry_backoff_ms = 5;
    c.connect_timeout_ms = 2000;
    c.max_sessions = max_sessions;
    c.register_timeout_ms = register_timeout_ms;
    if (tweak_) tweak_(&c);
    merger_ = std::make_unique<NetMergerServer>(c, &merger_jobs_, tcp_.get());
    ASSERT_EQ(merger_->Start(), 0);
  }

  // Writes map `index`'s file.out + index with 3 partitions; partition kPartition holds recs.
  Bytes WriteMap(uint32_t index, const std::vector<Rec>& recs, bool zlib, uint32_t try_number = 0) {
    std::string dir =
        local_.path() + "/" + AttemptOutputDir("alice", kJob, Attempt(index, try_number));
    std::filesystem::create_directories(dir);
    Bytes data;
    std::vector<IndexRecord> idx;
    Bytes ours;
    for (uint32_t p = 0; p < 3; ++p) {
      std::vector<Rec> part = p == kPartition ? recs : std::vector<Rec>{{TextKey("other"), {}}};
      Bytes raw = RawRecords(part);
      Bytes disk = IFileSegment(part, zlib);
      idx.push_back({data.size(), raw.size(), disk.size()});
      data.insert(data.end(), disk.begin(), disk.end());
      if (p == kPartition) ours = disk;
    }
    ScratchDir::WriteAt(dir + "/file.out", data);
    ScratchDir::WriteAt(dir + "/file.out.index", SpillIndex::Serialize(idx));
    return ours;
  }

  // Runs a whole successful session over `maps` maps; returns the END stats. before_merge runs
  // once every map is MAP_FETCHED, with the maps' total segment bytes.
  EndStats RunJob(const std::vector<std::vector<Rec>>& data, bool zlib, Bytes* stream,
                  const std::function<void(uint64_t)>& before_merge = nullptr) {
    uint64_t disk_total = 0;
    for (uint32_t i = 0; i < data.size(); ++i) disk_total += WriteMap(i, data[i], zlib).size();
    FakeReducer r(socket_);
    Registered reg = r.Register(static_cast<uint32_t>(data.size()), zlib ? 1 : 0);
    EXPECT_EQ(reg.status, RegisterStatus::kOk) << reg.message;
    // Report the maps in a scrambled order, as they finish.
    std::vector<uint32_t> order(data.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng_);
    for (uint32_t i : order) r.MapOutput(i, supplier_->port());
    std::map<uint32_t, uint64_t> fetched;
    while (fetched.size() < data.size()) {
      ReducerFrame t = r.Read();
      if (t != ReducerFrame::kMapFetched) {
        ADD_FAILURE() << "frame " << static_cast<int>(t);
        return {};
      }
      MapFetched mf;
      EXPECT_EQ(DecodeMapFetched(r.body_.data(), r.body_.size(), &mf), WireStatus::kOk);
      EXPECT_EQ(mf.attempt, Attempt(mf.map_index));
      fetched[mf.map_index] = mf.part_length;
    }
    uint64_t reported = 0;
    for (auto& [i, len] : fetched) reported += len;
    EXPECT_EQ(reported, disk_total);
    if (before_merge) before_merge(disk_total);
    r.Merge();
    EndStats end;
    ErrorFrame err;
    EXPECT_TRUE(r.ReadStream(stream, &end, &err)) << err.message;
    EXPECT_EQ(end.fetched_bytes, disk_total);
    return end;
  }

  size_t SpillFiles() const {
    size_t n = 0;
    for (auto& e : std::filesystem::directory_iterator(spill_.path()))
      n += e.path().empty() ? 0 : 1;
    return n;
  }

  // A port nobody listens on (connects to it fail at once).
  uint16_t DeadPort() {
    std::unique_ptr<Listener> l;
    EXPECT_EQ(tcp_->Listen({"127.0.0.1", 0}, &l), 0);
    return l->port();
  }

  std::mt19937 rng_{99};
  std::function<void(NetMergerConfig*)> tweak_;  // adjusts StartMerger's config
  ScratchDir local_, spill_, sock_dir_;
  JobRegistry supplier_jobs_, merger_jobs_;
  BufferPool pool_{4096, 64};
  std::unique_ptr<DataEngine> engine_;
  std::unique_ptr<Transport> tcp_;
  std::unique_ptr<MofServer> supplier_;
  std::unique_ptr<NetMergerServer> merger_;
  std::string socket_;
};

}  // namespace

TEST_F(NetMergerE2eTest, MergedStreamEqualsTheReferenceMerge) {
  StartMerger();
  auto data = RandomTextSegments(rng_, 12, 80, 6000);
  Bytes stream;
  EndStats end = RunJob(data, false, &stream);
  EXPECT_EQ(stream, ReferenceMerge(data, 1));
  size_t records = 0;
  for (auto& s : data) records += s.size();
  EXPECT_EQ(end.records, records);
  EXPECT_EQ(end.stream_bytes, stream.size());
  EXPECT_EQ(end.merge_passes, 1u);
  EXPECT_EQ(end.spilled_bytes, 0u);
  EXPECT_LE(merger_->pool_stats().open, 1u);  // one supplier, one connection
}

TEST_F(NetMergerE2eTest, ZlibSegments) {
  StartMerger();
  auto data = RandomTextSegments(rng_, 7, 60, 3000);
  Bytes stream;
  EndStats end = RunJob(data, true, &stream);
  EXPECT_EQ(stream, ReferenceMerge(data, 1));
  EXPECT_EQ(end.merge_passes, 1u);
}

TEST_F(NetMergerE2eTest, HierarchicalMergeUnderATinyBudgetGivesTheSameStream) {
  StartMerger(3 * 2 * 4096);  // room for three inputs' chunk pairs
  auto data = RandomTextSegments(rng_, 20, 60, 3000);
  Bytes stream;
  EndStats end = RunJob(data, false, &stream);
  EXPECT_EQ(stream, ReferenceMerge(data, 1));
  EXPECT_GT(end.merge_passes, 1u);
  EXPECT_GT(end.spilled_bytes, 0u);
  EXPECT_EQ(SpillFiles(), 0u);  // runs are removed before END
}

TEST_F(NetMergerE2eTest, SegmentsAreFetchedWholeAheadOfTheMergeWhenTheBudgetAllows) {
  StartMerger();                                       // 256 MiB: everything fits
  auto data = RandomTextSegments(rng_, 8, 200, 3000);  // several 4 KiB chunks per segment
  Bytes stream;
  EndStats end = RunJob(data, false, &stream, [this](uint64_t disk_total) {
    // Before MERGE the NetMerger already holds every byte, not just first chunks.
    EXPECT_TRUE(WaitFor([&] {
      return merger_->read_ahead_held_bytes() == static_cast<int64_t>(disk_total);
    })) << merger_->read_ahead_held_bytes()
        << " of " << disk_total;
  });
  EXPECT_EQ(stream, ReferenceMerge(data, 1));
  EXPECT_EQ(end.merge_passes, 1u);
  EXPECT_EQ(merger_->read_ahead_held_bytes(), 0);  // all given back
}

TEST_F(NetMergerE2eTest, ReadAheadStopsAtTheBudget) {
  // 8 inputs keep 2 chunks each (64 KiB); 3 more chunks of read-ahead fit, not whole segments.
  const uint64_t budget = 8 * 2 * 4096 + 3 * 4096;
  StartMerger(budget);
  auto data = RandomTextSegments(rng_, 8, 200, 3000);
  Bytes stream;
  int64_t before = -1;
  EndStats end = RunJob(data, false, &stream, [&](uint64_t disk_total) {
    before = merger_->read_ahead_held_bytes();
    EXPECT_LT(static_cast<uint64_t>(before), disk_total);
  });
  EXPECT_LE(before, static_cast<int64_t>(budget));
  EXPECT_EQ(stream, ReferenceMerge(data, 1));
  EXPECT_EQ(end.merge_passes, 1u);  // within budget: no spill
  EXPECT_EQ(merger_->read_ahead_held_bytes(), 0);
}

TEST(ReadAheadBudgetTest, NeededChunksAlwaysCountReadAheadOnlyWithinWhatInputsLeave) {
  std::atomic<int64_t> inputs{2};
  ReadAheadBudget b(10 * 100, 100, &inputs);  // 2 inputs keep 400: 600 left
  b.Take(100);                                // needed: counted regardless
  EXPECT_TRUE(b.TryTake(100));
  EXPECT_TRUE(b.TryTake(400));
  EXPECT_EQ(b.held(), 600);
  EXPECT_FALSE(b.TryTake(1));
  inputs = 3;  // a new input's chunks come first
  EXPECT_FALSE(b.TryTake(1));
  b.Give(300);
  EXPECT_TRUE(b.TryTake(100));  // 300 + 100 <= 1000 - 600
  EXPECT_FALSE(b.TryTake(1));
  b.Take(5000);  // needed chunks may exceed it; read-ahead then waits
  EXPECT_FALSE(b.TryTake(1));
}

TEST_F(NetMergerE2eTest, RegisterRefusals) {
  StartMerger();
  // An unknown job and a bad MAC get the same answer (the message names the job asked for).
  const std::string unknown = "job_1700000000000_0099";
  Registered bad_mac = FakeReducer(socket_).Register(1, 0, "wrong-secret");
  Registered no_job = FakeReducer(socket_).Register(1, 0, kSecret, 1, unknown);
  EXPECT_EQ(bad_mac.status, RegisterStatus::kUnauthorized);
  EXPECT_EQ(no_job.status, RegisterStatus::kUnauthorized);
  ASSERT_NE(no_job.message.find(unknown), std::string::npos);
  EXPECT_EQ(no_job.message.replace(no_job.message.find(unknown), unknown.size(), kJob),
            bad_mac.message);
  EXPECT_EQ(FakeReducer(socket_).Register(1, 0, kSecret, 9).status, RegisterStatus::kUnsupported);
  EXPECT_EQ(FakeReducer(socket_).Register(1, 4).status, RegisterStatus::kUnsupported);
  // Snappy and LZ4 are taken exactly when this build has their libraries.
  for (Codec c : {Codec::kSnappy, Codec::kLz4})
    EXPECT_EQ(FakeReducer(socket_).Register(1, static_cast<uint8_t>(c)).status,
              CodecBuiltIn(c) ? RegisterStatus::kOk : RegisterStatus::kUnsupported);
  // A MAC over another session's nonce does not pass either.
  FakeReducer a(socket_), b(socket_);
  ::hadoop_accel::jbs::Register r;
  r.partition = kPartition;
  r.num_maps = 1;
  r.key_type = 1;
  r.job = kJob;
  r.auth = RegisterMac(kSecret, kJob, kPartition, a.hello_.nonce);
  std::vector<uint8_t> f;
  EncodeRegister(r, &f);
  b.Send(f);
  ASSERT_EQ(b.Read(), ReducerFrame::kRegistered);
  Registered out;
  DecodeRegistered(b.body_.data(), b.body_.size(), &out);
  EXPECT_EQ(out.status, RegisterStatus::kUnauthorized);
}

TEST_F(NetMergerE2eTest, MapOnADeadPortIsFetchFailed) {
  StartMerger();
  // A port that was just free: bind, note, close.
  std::unique_ptr<Listener> l;
  ASSERT_EQ(tcp_->Listen({"127.0.0.1", 0}, &l), 0);
  uint16_t dead = l->port();
  l.reset();
  FakeReducer r(socket_);
  ASSERT_EQ(r.Register(1, 0).status, RegisterStatus::kOk);
  r.MapOutput(0, dead);
  ASSERT_EQ(r.Read(), ReducerFrame::kFetchFailed);
  FetchFailed ff;
  ASSERT_EQ(DecodeFetchFailed(r.body_.data(), r.body_.size(), &ff), WireStatus::kOk);
  EXPECT_EQ(ff.map_index, 0u);
  EXPECT_TRUE(ff.connect_failed);
  EXPECT_EQ(ff.attempt, Attempt(0));
  // The reduce may report the map again (now served) and carry on.
  WriteMap(0, {{TextKey("k"), Bytes(3, 1)}}, false);
  r.MapOutput(0, supplier_->port());
  ASSERT_EQ(r.Read(), ReducerFrame::kMapFetched);
  r.Merge();
  Bytes stream;
  EndStats end;
  ErrorFrame err;
  ASSERT_TRUE(r.ReadStream(&stream, &end, &err)) << err.message;
  EXPECT_EQ(end.records, 1u);
}

TEST_F(NetMergerE2eTest, UnknownMapAttemptIsFetchFailedAtOnce) {
  StartMerger();
  FakeReducer r(socket_);
  ASSERT_EQ(r.Register(2, 0).status, RegisterStatus::kOk);
  r.MapOutput(1, supplier_->port());  // never written: NOT_FOUND, no retries
  ASSERT_EQ(r.Read(), ReducerFrame::kFetchFailed);
  FetchFailed ff;
  ASSERT_EQ(DecodeFetchFailed(r.body_.data(), r.body_.size(), &ff), WireStatus::kOk);
  EXPECT_FALSE(ff.connect_failed);
  EXPECT_NE(ff.message.find("NOT_FOUND"), std::string::npos) << ff.message;
}

TEST_F(NetMergerE2eTest, CorruptedSegmentByteIsAnError) {
  StartMerger();
  auto data = RandomTextSegments(rng_, 3, 40, 200);
  data[1].push_back({TextKey("zzz"), Bytes(500, 7)});  // a long value to corrupt
  for (uint32_t i = 0; i < data.size(); ++i) WriteMap(i, data[i], false);
  // Flip one byte inside map 1's partition (the last record's value, before the trailer).
  std::string file =
      local_.path() + "/" + AttemptOutputDir("alice", kJob, Attempt(1)) + "/file.out";
  std::string index = file + ".index";
  FILE* fi = std::fopen(index.c_str(), "rb");
  uint8_t rec[48];
  ASSERT_EQ(std::fread(rec, 1, sizeof(rec), fi), sizeof(rec));
  std::fclose(fi);
  uint64_t start = LoadBe64(rec + 24), part = LoadBe64(rec + 40);
  FILE* f = std::fopen(file.c_str(), "r+b");
  std::fseek(f, static_cast<long>(start + part - 100), SEEK_SET);
  int c = std::fgetc(f);
  std::fseek(f, static_cast<long>(start + part - 100), SEEK_SET);
  std::fputc(c ^ 0x5A, f);
  std::fclose(f);

  FakeReducer r(socket_);
  ASSERT_EQ(r.Register(3, 0).status, RegisterStatus::kOk);
  for (uint32_t i = 0; i < 3; ++i) r.MapOutput(i, supplier_->port());
  for (int i = 0; i < 3; ++i) ASSERT_EQ(r.Read(), ReducerFrame::kMapFetched);
  r.Merge();
  Bytes stream;
  EndStats end;
  ErrorFrame err;
  EXPECT_FALSE(r.ReadStream(&stream, &end, &err));
  EXPECT_EQ(err.code, ErrorCode::kCorruptSegment);
  EXPECT_NE(err.message.find("checksum"), std::string::npos) << err.message;
}

TEST_F(NetMergerE2eTest, ProtocolMistakesEndTheSession) {
  StartMerger();
  {
    FakeReducer r(socket_);
    r.Merge();  // before REGISTER
    ASSERT_EQ(r.Read(), ReducerFrame::kError);
  }
  {
    FakeReducer r(socket_);
    ASSERT_EQ(r.Register(2, 0).status, RegisterStatus::kOk);
    r.MapOutput(0, supplier_->port());
    r.Merge();  // map 1 never fetched: ERROR (may follow MAP_FETCHED / FETCH_FAILED of map 0)
    ReducerFrame t;
    while ((t = r.Read()) == ReducerFrame::kMapFetched || t == ReducerFrame::kFetchFailed) {
    }
    EXPECT_EQ(t, ReducerFrame::kError);
  }
  {
    FakeReducer r(socket_);
    ASSERT_EQ(r.Register(2, 0).status, RegisterStatus::kOk);
    r.MapOutput(5, supplier_->port());  // index beyond num_maps
    ASSERT_EQ(r.Read(), ReducerFrame::kError);
  }
  {
    FakeReducer r(socket_);
    const uint8_t junk[] = "GET / HTTP/1.1\r\n\r\n";
    ASSERT_EQ(r.conn_->SendFrame(junk, sizeof(junk) - 1, nullptr, 0), 0);
    ASSERT_EQ(r.Read(), ReducerFrame::kError);
  }
}

TEST_F(NetMergerE2eTest, TheMemoryBudgetIsSharedBySessions) {
  StartMerger(3 * 2 * 4096);  // three inputs in the whole daemon
  auto data = RandomTextSegments(rng_, 3, 40, 2000);
  for (uint32_t i = 0; i < data.size(); ++i) WriteMap(i, data[i], false);
  auto fetch_all = [&](FakeReducer* r) {
    ASSERT_EQ(r->Register(3, 0).status, RegisterStatus::kOk);
    for (uint32_t i = 0; i < 3; ++i) r->MapOutput(i, supplier_->port());
    for (int i = 0; i < 3; ++i) ASSERT_EQ(r->Read(), ReducerFrame::kMapFetched);
  };
  auto merge = [&](FakeReducer* r, EndStats* end) {
    r->Merge();
    Bytes stream;
    ErrorFrame err;
    ASSERT_TRUE(r->ReadStream(&stream, end, &err)) << err.message;
    EXPECT_EQ(stream, ReferenceMerge(data, 1));
  };
  FakeReducer a(socket_);
  fetch_all(&a);  // three inputs: exactly the budget, all in memory
  FakeReducer b(socket_);
  fetch_all(&b);  // over the budget: b spills its segments
  EndStats end_a, end_b;
  merge(&b, &end_b);
  merge(&a, &end_a);
  EXPECT_EQ(end_a.merge_passes, 1u);
  EXPECT_EQ(end_a.spilled_bytes, 0u);
  EXPECT_EQ(end_b.merge_passes, 2u);
  EXPECT_GT(end_b.spilled_bytes, 0u);
}

TEST_F(NetMergerE2eTest, ReducersBeyondTheSessionCapAreBusy) {
  StartMerger(256ull << 20, 1);
  auto first = std::make_unique<FakeReducer>(socket_);
  ASSERT_EQ(first->Register(1, 0).status, RegisterStatus::kOk);
  EXPECT_EQ(FakeReducer(socket_).Register(1, 0).status, RegisterStatus::kBusy);
  // Once the first session is over, its place is free again.
  first->conn_->Close();
  first.reset();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  RegisterStatus s = RegisterStatus::kBusy;
  while (s == RegisterStatus::kBusy && std::chrono::steady_clock::now() < deadline) {
    FakeReducer again(socket_);  // each try is a full round trip, no sleeping
    s = again.Register(1, 0).status;
  }
  EXPECT_EQ(s, RegisterStatus::kOk);
}

TEST_F(NetMergerE2eTest, ARestartedSupplierOnTheSamePortIsReconnected) {
  StartMerger();
  auto data = RandomTextSegments(rng_, 4, 60, 3000);  // several chunks per segment
  for (uint32_t i = 0; i < data.size(); ++i) WriteMap(i, data[i], false);
  FakeReducer r(socket_);
  ASSERT_EQ(r.Register(4, 0).status, RegisterStatus::kOk);
  for (uint32_t i = 0; i < 4; ++i) r.MapOutput(i, supplier_->port());
  for (int i = 0; i < 4; ++i) ASSERT_EQ(r.Read(), ReducerFrame::kMapFetched);
  // The supplier dies and comes back on its port (the aux service restarts it there); the
  // pooled connection is dead, so the later chunks need a fresh one.
  uint16_t port = supplier_->port();
  supplier_->Stop();
  supplier_ = std::make_unique<MofServer>(tcp_.get(), engine_.get(), &pool_);
  ASSERT_EQ(supplier_->Start({"127.0.0.1", port}), 0);
  r.Merge();
  Bytes stream;
  EndStats end;
  ErrorFrame err;
  ASSERT_TRUE(r.ReadStream(&stream, &end, &err)) << err.message;
  EXPECT_EQ(stream, ReferenceMerge(data, 1));
}

TEST_F(NetMergerE2eTest, AReRunMapReplacesItsEarlierAttempt) {
  StartMerger();
  std::vector<std::vector<Rec>> data = {{{TextKey("a"), Bytes(1, 0)}},
                                        {{TextKey("b"), Bytes(1, 1)}}};
  std::vector<Rec> rerun = {{TextKey("c"), Bytes(1, 2)}};
  WriteMap(0, data[0], false);
  WriteMap(1, data[1], false);
  WriteMap(1, rerun, false, 1);
  FakeReducer r(socket_);
  ASSERT_EQ(r.Register(2, 0).status, RegisterStatus::kOk);
  r.MapOutput(0, supplier_->port());
  r.MapOutput(1, supplier_->port());
  for (int i = 0; i < 2; ++i) ASSERT_EQ(r.Read(), ReducerFrame::kMapFetched);
  r.MapOutput(1, supplier_->port(), "127.0.0.1", 1);  // map 1 was re-run
  ASSERT_EQ(r.Read(), ReducerFrame::kMapFetched);
  MapFetched mf;
  ASSERT_EQ(DecodeMapFetched(r.body_.data(), r.body_.size(), &mf), WireStatus::kOk);
  EXPECT_EQ(mf.attempt, Attempt(1, 1));
  r.Merge();
  Bytes stream;
  EndStats end;
  ErrorFrame err;
  ASSERT_TRUE(r.ReadStream(&stream, &end, &err)) << err.message;
  EXPECT_EQ(stream, ReferenceMerge({data[0], rerun}, 1));
}

TEST_F(NetMergerE2eTest, FirstFetchesAreQueuedBeyondTheBudgetAndFailuresFreeTheirPlace) {
  StartMerger(2 * 2 * 4096);  // two inputs: at most two first fetches in flight
  auto data = RandomTextSegments(rng_, 6, 30, 500);
  for (uint32_t i = 0; i < data.size(); ++i) WriteMap(i, data[i], false);
  std::unique_ptr<Listener> l;
  ASSERT_EQ(tcp_->Listen({"127.0.0.1", 0}, &l), 0);
  uint16_t dead = l->port();
  l.reset();
  FakeReducer r(socket_);
  ASSERT_EQ(r.Register(6, 0).status, RegisterStatus::kOk);
  r.MapOutput(0, dead);  // these two take the first places and fail
  r.MapOutput(1, dead);
  for (uint32_t i = 2; i < 6; ++i) r.MapOutput(i, supplier_->port());
  size_t fetched = 0, failed = 0;
  while (fetched < 6) {  // the failures may come before, between or after the others
    ReducerFrame t = r.Read();
    if (t == ReducerFrame::kFetchFailed) {
      FetchFailed ff;
      ASSERT_EQ(DecodeFetchFailed(r.body_.data(), r.body_.size(), &ff), WireStatus::kOk);
      EXPECT_LT(ff.map_index, 2u);
      ++failed;
      r.MapOutput(ff.map_index, supplier_->port());  // handed out again, now reachable
    } else {
      ASSERT_EQ(t, ReducerFrame::kMapFetched);
      ++fetched;
    }
  }
  EXPECT_EQ(failed, 2u);
  r.Merge();
  Bytes stream;
  EndStats end;
  ErrorFrame err;
  ASSERT_TRUE(r.ReadStream(&stream, &end, &err)) << err.message;
  EXPECT_EQ(stream, ReferenceMerge(data, 1));
}

TEST_F(NetMergerE2eTest, AConnectionThatNeverRegistersIsClosed) {
  StartMerger(256ull << 20, 1024, 50);
  FakeReducer idle(socket_);                     // HELLO read, then silence
  ASSERT_EQ(idle.Read(), ReducerFrame::kError);  // after 50 ms
  ErrorFrame err;
  ASSERT_EQ(DecodeError(idle.body_.data(), idle.body_.size(), &err), WireStatus::kOk);
  EXPECT_NE(err.message.find("no REGISTER"), std::string::npos) << err.message;
  uint8_t b;
  EXPECT_EQ(idle.conn_->RecvExact(&b, 1), ECONNRESET);
  FakeReducer quick(socket_);
  EXPECT_EQ(quick.Register(1, 0).status, RegisterStatus::kOk);
}

// A supplier that serves the files but does not hold the job secret (a process that took the
// supplier's port): its answers lack the reply proof, and the NetMerger uses none of its data.
TEST(NetMergerForgedSupplierTest, ASupplierWithoutTheJobSecretIsRejected) {
  ScratchDir local, sock_dir, spill;
  const std::string job = "job_1700000000000_0042";
  JobRegistry forged_jobs, merger_jobs;
  ASSERT_TRUE(forged_jobs.Register(job, {"alice", "not the job secret", ::getuid()}));
  ASSERT_TRUE(merger_jobs.Register(job, {"alice", "the job secret", std::nullopt}));
  std::string attempt = "attempt_1700000000000_0042_m_000000_0";
  std::string dir = local.path() + "/" + AttemptOutputDir("alice", job, attempt);
  std::filesystem::create_directories(dir);
  ScratchDir::WriteAt(dir + "/file.out", Bytes(100, 1));
  ScratchDir::WriteAt(dir + "/file.out.index",
                      SpillIndex::Serialize({{0, 100, 100}, {0, 100, 100}}));
  BufferPool pool(4096, 8);
  DataEngine::Config cfg;
  cfg.local_dirs = {local.path()};
  DataEngine engine(cfg, &forged_jobs, &pool,
                    [](const FetchRequest&, const JobInfo&) { return true; });  // accepts all
  std::unique_ptr<Transport> tcp = MakeTcpTransport();
  MofServer forged(tcp.get(), &engine, &pool);
  ASSERT_EQ(forged.Start({"127.0.0.1", 0}), 0);
  NetMergerConfig mc;
  mc.socket_path = sock_dir.path() + "/m.sock";
  mc.spill_dirs = {spill.path()};
  mc.buffer_bytes = 4096;
  mc.fetch_retries = 0;
  NetMergerServer merger(mc, &merger_jobs, tcp.get());
  ASSERT_EQ(merger.Start(), 0);
  {
    FakeReducer r(mc.socket_path);
    ASSERT_EQ(r.Register(1, 0, "the job secret").status, RegisterStatus::kOk);
    r.MapOutput(0, forged.port());
    ASSERT_EQ(r.Read(), ReducerFrame::kFetchFailed);  // never MAP_FETCHED
    FetchFailed ff;
    ASSERT_EQ(DecodeFetchFailed(r.body_.data(), r.body_.size(), &ff), WireStatus::kOk);
    EXPECT_NE(ff.message.find("could not prove it holds the job secret"), std::string::npos)
        << ff.message;
  }
  merger.Stop();
  forged.Stop();
}

// A launcher that fails on demand: the first `skip` launches work, the next `fail` throw as
// std::thread does when the system has no thread to give.
struct FailingLauncher {
  std::atomic<int> skip{0}, fail{0}, failed{0};
  ThreadLauncher launcher() {
    return [this](std::function<void()> body) {
      if (skip > 0) {
        --skip;
      } else if (fail > 0) {
        --fail;
        ++failed;
        throw std::system_error(EAGAIN, std::generic_category(), "pthread_create");
      }
      return std::thread(std::move(body));
    };
  }
};

TEST_F(NetMergerE2eTest, AFailedThreadCreationRefusesThatReducerAndTheDaemonLives) {
  FailingLauncher launch;
  tweak_ = [&](NetMergerConfig* c) { c->launch_thread = launch.launcher(); };
  StartMerger();  // its gate thread is the first launch
  auto data = RandomTextSegments(rng_, 3, 30, 500);
  for (uint32_t i = 0; i < data.size(); ++i) WriteMap(i, data[i], false);
  // No session thread, then no reader thread: each time that reducer hears busy.
  for (int skip : {0, 1}) {
    launch.skip = skip;
    launch.fail = 1;
    Registered reg = FakeReducer(socket_).Register(3, 0);
    EXPECT_EQ(reg.status, RegisterStatus::kBusy);
    EXPECT_NE(reg.message.find("cannot start a thread"), std::string::npos) << reg.message;
    EXPECT_EQ(launch.fail, 0);
  }
  // No fetch worker: that map is FETCH_FAILED (the reduce reports it; the map is handed out
  // again), and the session goes on.
  FakeReducer r(socket_);
  launch.skip = 2;  // session and reader threads
  launch.fail = 1;
  ASSERT_EQ(r.Register(3, 0).status, RegisterStatus::kOk);
  r.MapOutput(0, supplier_->port());
  ASSERT_EQ(r.Read(), ReducerFrame::kFetchFailed);
  FetchFailed ff;
  ASSERT_EQ(DecodeFetchFailed(r.body_.data(), r.body_.size(), &ff), WireStatus::kOk);
  EXPECT_NE(ff.message.find("cannot start a thread"), std::string::npos) << ff.message;
  for (uint32_t i = 0; i < 3; ++i) r.MapOutput(i, supplier_->port());
  for (int i = 0; i < 3; ++i) ASSERT_EQ(r.Read(), ReducerFrame::kMapFetched);
  r.Merge();
  Bytes stream;
  EndStats end;
  ErrorFrame err;
  ASSERT_TRUE(r.ReadStream(&stream, &end, &err)) << err.message;
  EXPECT_EQ(stream, ReferenceMerge(data, 1));
  EXPECT_EQ(launch.failed, 3);
}

TEST_F(NetMergerE2eTest, MapOutputEndpointsAreBoundedPerSession) {
  tweak_ = [](NetMergerConfig* c) { c->max_endpoints_per_session = 3; };
  StartMerger();
  FakeReducer r(socket_);
  ASSERT_EQ(r.Register(5, 0).status, RegisterStatus::kOk);
  for (uint32_t i = 0; i < 4; ++i) r.MapOutput(i, DeadPort());  // four distinct endpoints
  ReducerFrame t;
  while ((t = r.Read()) == ReducerFrame::kFetchFailed) {
  }
  ASSERT_EQ(t, ReducerFrame::kError);
  ErrorFrame err;
  ASSERT_EQ(DecodeError(r.body_.data(), r.body_.size(), &err), WireStatus::kOk);
  EXPECT_EQ(err.code, ErrorCode::kProtocol);
  EXPECT_NE(err.message.find("more than 3 distinct"), std::string::npos) << err.message;
}

// A reducer naming many endpoints gets at most max_fetch_workers threads working for them,
// and once their fetches are over the workers and the endpoints' state are gone.
TEST_F(NetMergerE2eTest, FetchWorkersAreBoundedAndForgottenWhenIdle) {
  tweak_ = [](NetMergerConfig* c) { c->max_fetch_workers = 2; };
  StartMerger();
  std::atomic<bool> sampling{true};
  std::atomic<size_t> most{0};
  std::thread sampler([&] {
    while (sampling) {
      most = std::max<size_t>(most, merger_->fetch_workers());
      std::this_thread::yield();
    }
  });
  FakeReducer r(socket_);
  ASSERT_EQ(r.Register(12, 0).status, RegisterStatus::kOk);
  std::vector<uint16_t> dead;
  for (int i = 0; i < 12; ++i) dead.push_back(DeadPort());  // 12 endpoints, each refused
  for (uint32_t i = 0; i < 12; ++i) r.MapOutput(i, dead[i]);
  for (int i = 0; i < 12; ++i) ASSERT_EQ(r.Read(), ReducerFrame::kFetchFailed);
  EXPECT_TRUE(WaitFor([&] { return merger_->fetch_workers() == 0 && merger_->fetch_nodes() == 0; }))
      << merger_->fetch_workers() << " workers, " << merger_->fetch_nodes() << " nodes";
  sampling = false;
  sampler.join();
  EXPECT_GE(most.load(), 1u);
  EXPECT_LE(most.load(), 2u);
  // The endpoints being forgotten changes nothing for later work.
  auto data = RandomTextSegments(rng_, 3, 30, 500);
  Bytes stream;
  RunJob(data, false, &stream);
  EXPECT_EQ(stream, ReferenceMerge(data, 1));
}

// Beyond max_unauthenticated connections waiting for their REGISTER, the oldest is closed to
// make room; a reducer that registers at once is never the one.
TEST_F(NetMergerE2eTest, BeyondTheUnauthenticatedCapTheOldestConnectionIsClosed) {
  tweak_ = [](NetMergerConfig* c) { c->max_unauthenticated = 4; };
  StartMerger();
  std::vector<std::unique_ptr<FakeReducer>> idle;
  for (int i = 0; i < 4; ++i) idle.push_back(std::make_unique<FakeReducer>(socket_));
  FakeReducer quick(socket_);  // the fifth: the oldest idle one goes
  EXPECT_EQ(quick.Register(1, 0).status, RegisterStatus::kOk);
  uint8_t b;
  EXPECT_EQ(idle[0]->conn_->RecvExact(&b, 1), ECONNRESET);
  EXPECT_EQ(merger_->gate_stats().evicted, 1u);
  EXPECT_EQ(merger_->gate_stats().pending, 3u);
  EXPECT_EQ(merger_->live_sessions(), 1u);
}
