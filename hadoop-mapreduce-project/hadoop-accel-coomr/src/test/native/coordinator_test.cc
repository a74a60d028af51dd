#include "coordinator.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "hadoop_accel/spill_index.h"
#include "locs_log.h"

using namespace hadoop_accel::coomr;

namespace {

constexpr uint32_t kBlock = 4096;

// A task's side of the protocol.
class Task {
 public:
  explicit Task(const std::string& socket_path) {
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, socket_path.c_str(), sizeof(addr.sun_path) - 1);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~Task() { Close(); }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  Message Call(const Message& m) {
    Message reply;
    reply.type = MessageType::kError;
    reply.text = "connection lost";
    if (!WriteMessage(fd_, m) || !ReadMessage(fd_, &reply)) reply.text = "connection lost";
    return reply;
  }
  Message Attach(const std::string& job, const std::string& attempt) {
    Message m;
    m.type = MessageType::kAttach;
    m.job = job;
    m.attempt = attempt;
    return Call(m);
  }
  uint64_t Request(uint64_t bytes) { return Call(Of(MessageType::kRequest, bytes)).value; }
  MessageType Release(uint64_t blocks) { return Call(Of(MessageType::kRelease, blocks)).type; }
  MessageType Detach() { return Call(Of(MessageType::kDetach, 0)).type; }
  Message Handover(const std::string& data, const std::string& index) {
    Message m;
    m.type = MessageType::kHandover;
    m.text = data;
    m.index = index;
    return Call(m);
  }
  Message Lookup(const std::string& job, const std::string& attempt) {
    Message m;
    m.type = MessageType::kLookup;
    m.job = job;
    m.attempt = attempt;
    return Call(m);
  }
  static Message Of(MessageType type, uint64_t value) {
    Message m;
    m.type = type;
    m.value = value;
    return m;
  }
  int fd() const { return fd_; }
  bool connected() const { return connected_; }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

class CoordinatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coomr_coordinator_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    Restart(false);
  }
  virtual void Configure(CoordinatorOptions*) {}
  // A new coordinator on the same socket and pool (the old one, if any, stopped first).
  void Restart(bool recover) {
    coordinator_.reset();
    CoordinatorOptions o;
    o.socket_path = dir_ + "/coordinator.sock";
    o.pool_dir = dir_ + "/pool";
    o.pool_bytes = 10 * kBlock;
    o.block_size = kBlock;
    o.recover = recover;
    Configure(&o);
    coordinator_ = std::make_unique<Coordinator>(o);
    coordinator_->Start();
  }
  void TearDown() override {
    coordinator_.reset();
    std::filesystem::remove_all(dir_);
  }
  // Waits (bounded) for the coordinator to have served every connection's end.
  bool ClientsBecome(int n) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (coordinator_->clients() != n) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::yield();
    }
    return true;
  }
  std::string socket() const { return dir_ + "/coordinator.sock"; }
  std::string dir_;
  std::unique_ptr<Coordinator> coordinator_;
};

TEST_F(CoordinatorTest, AttachRequestReleaseDetach) {
  Task t(socket());
  ASSERT_TRUE(t.connected());
  Message a = t.Attach("job_1_0001", "attempt_1_0001_m_000000_0");
  ASSERT_EQ(a.type, MessageType::kAttached) << a.text;
  EXPECT_EQ(a.block_size, kBlock);
  EXPECT_EQ(a.value, 10u);
  EXPECT_EQ(a.text, dir_ + "/pool/job_1_0001/attempt_1_0001_m_000000_0");
  struct stat st;
  ASSERT_EQ(stat(a.text.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(t.Request(3 * kBlock - 100), 3u);  // rounded up to whole blocks
  EXPECT_EQ(coordinator_->free_blocks(), 7u);
  EXPECT_EQ(t.Release(2), MessageType::kOk);
  EXPECT_EQ(t.Release(5), MessageType::kError);  // holds only 1
  EXPECT_EQ(t.Detach(), MessageType::kOk);
  ASSERT_TRUE(ClientsBecome(0));
  EXPECT_EQ(coordinator_->free_blocks(), 10u);  // its last block went with it
  EXPECT_FALSE(std::filesystem::exists(a.text));
}

TEST_F(CoordinatorTest, ATaskOverItsShareIsRefusedWhileAnotherWaits) {
  Task big(socket()), small(socket());
  ASSERT_EQ(big.Attach("job_1_0001", "attempt_m_0").type, MessageType::kAttached);
  ASSERT_EQ(small.Attach("job_1_0001", "attempt_m_1").type, MessageType::kAttached);
  EXPECT_EQ(big.Request(8 * kBlock), 8u);
  EXPECT_EQ(small.Request(4 * kBlock), 0u);  // 2 free: refused, spills to disk
  EXPECT_EQ(big.Request(kBlock), 0u);        // small waits for 4, big's share is 6
  EXPECT_EQ(big.Release(5), MessageType::kOk);
  EXPECT_EQ(small.Request(4 * kBlock), 4u);
  EXPECT_EQ(coordinator_->free_blocks(), 3u);
}

TEST_F(CoordinatorTest, ATaskThatDiesLosesItsBlocksAndItsDir) {
  Task t(socket());
  Message a = t.Attach("job_1_0001", "attempt_m_0");
  ASSERT_EQ(a.type, MessageType::kAttached);
  EXPECT_EQ(t.Request(5 * kBlock), 5u);
  std::ofstream(a.text + "/spill0.out") << "a spill";
  t.Close();  // no DETACH: the task died
  ASSERT_TRUE(ClientsBecome(0));
  EXPECT_EQ(coordinator_->free_blocks(), 10u);
  EXPECT_FALSE(std::filesystem::exists(a.text));
}

TEST_F(CoordinatorTest, RefusesUnsafeNamesAndDropsMalformedFrames) {
  Task t(socket());
  Message a = t.Attach("job_1_0001", "../../etc");
  EXPECT_EQ(a.type, MessageType::kError);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/etc"));

  Task u(socket());
  uint8_t huge[5] = {0xff, 0xff, 0xff, 0x7f, 1};  // a length far over kMaxFrame
  ASSERT_EQ(send(u.fd(), huge, sizeof(huge), MSG_NOSIGNAL), 5);
  uint8_t b;
  EXPECT_LE(read(u.fd(), &b, 1), 0);  // closed (or reset) without an answer

  Task v(socket());
  ASSERT_EQ(v.Attach("job_1_0001", "attempt_m_2").type, MessageType::kAttached);
  Message odd;
  odd.type = MessageType::kGranted;  // a reply, not a request
  EXPECT_EQ(v.Call(odd).text, "connection lost");
  ASSERT_TRUE(ClientsBecome(0));
  EXPECT_EQ(coordinator_->free_blocks(), 10u);
}

TEST_F(CoordinatorTest, AnEndedJobsDirGoesWithWhatItsTasksLeft) {
  Task t(socket());
  Message a = t.Attach("job_1_0001", "attempt_m_0");
  ASSERT_EQ(a.type, MessageType::kAttached);
  std::ofstream(a.text + "/spill0.out") << "a spill";
  EXPECT_TRUE(coordinator_->EndJob("job_1_0001"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/pool/job_1_0001"));
  EXPECT_FALSE(coordinator_->EndJob(".."));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/pool"));
  EXPECT_EQ(t.Detach(), MessageType::kOk);  // the task's own cleanup finds nothing left
}

TEST_F(CoordinatorTest, StartEmptiesThePoolOfAnEarlierRun) {
  Task t(socket());
  Message a = t.Attach("job_1_0001", "attempt_m_0");
  ASSERT_EQ(a.type, MessageType::kAttached);
  std::ofstream(a.text + "/spill0.out") << "left behind";
  t.Close();
  ASSERT_TRUE(ClientsBecome(0));
  std::filesystem::create_directories(dir_ + "/pool/job_0_0001/attempt_m_9");
  std::ofstream(dir_ + "/pool/job_0_0001/attempt_m_9/spill0.out") << "of a killed coordinator";
  Restart(false);
  EXPECT_TRUE(std::filesystem::is_empty(dir_ + "/pool"));
}

TEST_F(CoordinatorTest, AHandoverIsRecordedBesideTheOutput) {
  Task t(socket());
  Message a = t.Attach("job_1_0001", "attempt_m_0");
  ASSERT_EQ(a.type, MessageType::kAttached);
  std::ofstream(a.text + "/file.out") << "map output";
  std::ofstream(a.text + "/file.out.index") << "index";
  std::string disk = dir_ + "/local/attempt_m_0";
  ASSERT_EQ(t.Handover(disk + "/file.out", disk + "/file.out.index").type, MessageType::kOk);
  // The pool copy stays for the 5 s grace period after it is on disk: the record is there.
  std::ifstream record(a.text + "/" + kHandoverRecord);
  std::string data, index;
  ASSERT_TRUE(std::getline(record, data) && std::getline(record, index));
  EXPECT_EQ(data, disk + "/file.out");
  EXPECT_EQ(index, disk + "/file.out.index");
}

// What a coordinator killed mid-job leaves in the pool: one output handed over but not yet on
// disk, and the dir of a map still running (two blocks of spills).
TEST_F(CoordinatorTest, ARecoveringRestartWritesOutHandedOverOutputsAndKeepsRunningTasks) {
  std::string job = dir_ + "/pool/job_1_0001";
  std::string disk = dir_ + "/local/attempt_m_0";
  std::filesystem::create_directories(job + "/attempt_m_0");
  std::ofstream(job + "/attempt_m_0/file.out") << "map output";
  std::ofstream(job + "/attempt_m_0/file.out.index") << "index";
  std::ofstream(job + "/attempt_m_0/" + kHandoverRecord) << disk << "/file.out\n"
                                                         << disk << "/file.out.index\n";
  std::filesystem::create_directories(job + "/attempt_m_1");
  std::ofstream(job + "/attempt_m_1/spill0.out") << std::string(kBlock + 1, 's');
  std::filesystem::create_directories(job + "/attempt_m_2");  // a bad record: not handed over
  std::ofstream(job + "/attempt_m_2/" + kHandoverRecord) << "../etc/passwd\n";
  std::ofstream(dir_ + "/pool/stray") << "not a job dir";
  Restart(true);

  Task shuffle(socket());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (shuffle.Lookup("job_1_0001", "attempt_m_0").text != disk + "/file.out") {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "never written out";
    std::this_thread::yield();
  }
  std::ifstream out(disk + "/file.out");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(out), {}), "map output");
  EXPECT_TRUE(std::filesystem::exists(job + "/attempt_m_1/spill0.out"));  // still readable
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/pool/stray"));
  // Held: the output's block (until its grace period ends) and the running map's two.
  EXPECT_EQ(coordinator_->free_blocks(), 7u);
  EXPECT_TRUE(coordinator_->EndJob("job_1_0001"));
  EXPECT_EQ(coordinator_->free_blocks(), 10u);
  EXPECT_FALSE(std::filesystem::exists(job));
}

TEST_F(CoordinatorTest, AnOrderlyStopRemovesAnEmptyPoolButKeepsAFullOne) {
  {
    Task t(socket());
    ASSERT_EQ(t.Attach("job_1_0001", "attempt_m_0").type, MessageType::kAttached);
    EXPECT_TRUE(coordinator_->EndJob("job_1_0001"));
  }
  coordinator_.reset();
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/pool"));
  Restart(false);
  std::filesystem::create_directories(dir_ + "/pool/job_1_0002");
  coordinator_.reset();
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/pool/job_1_0002"));
}

TEST(CoordinatorPool, RefusesAPoolDirThatIsALink) {
  char tmpl[] = "/tmp/coomr_coordinator_test.XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  std::filesystem::create_directory(dir + "/elsewhere");
  std::ofstream(dir + "/elsewhere/precious") << "not the pool's";
  std::filesystem::create_directory_symlink(dir + "/elsewhere", dir + "/pool");
  CoordinatorOptions o;
  o.socket_path = dir + "/coordinator.sock";
  o.pool_dir = dir + "/pool";
  o.pool_bytes = 10 * kBlock;
  o.block_size = kBlock;
  Coordinator c(o);
  EXPECT_THROW(c.Start(), std::system_error);
  EXPECT_TRUE(std::filesystem::exists(dir + "/elsewhere/precious"));
  std::filesystem::remove_all(dir);
}

class OutputsTest : public CoordinatorTest {
 protected:
  void Configure(CoordinatorOptions* o) override { o->grace = std::chrono::milliseconds(100); }
  void SetUp() override {
    CoordinatorTest::SetUp();
    // The NodeManager's shuffle connects first: only then may maps hand their outputs over.
    shuffle_ = std::make_unique<Task>(socket());
    ASSERT_EQ(shuffle_->Lookup("job_1_0001", "attempt_m_none").type, MessageType::kLocated);
  }
  void TearDown() override {
    shuffle_.reset();
    CoordinatorTest::TearDown();
  }
  std::unique_ptr<Task> shuffle_;
  // Waits (bounded) until the shuffle's lookup of the attempt gives `data` ("" once dropped).
  bool LookupBecomes(const std::string& attempt, const std::string& data) {
    Task shuffle(socket());
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (shuffle.Lookup("job_1_0001", attempt).text != data) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::yield();
    }
    return true;
  }
  // Attaches `t` as `attempt` of job_1_0001, granted `blocks`, with a map output in its dir.
  static Message AttachWithOutput(Task* t, const std::string& attempt, uint64_t blocks) {
    Message a = t->Attach("job_1_0001", attempt);
    EXPECT_EQ(a.type, MessageType::kAttached);
    EXPECT_EQ(t->Request(blocks * kBlock), blocks);
    std::ofstream(a.text + "/file.out") << "map output";
    std::ofstream(a.text + "/file.out.index") << "index";
    return a;
  }
  static std::string Slurp(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

TEST_F(OutputsTest, AHandedOverOutputIsServedFromThePoolThenFromDisk) {
  Task t(socket());
  Message a = AttachWithOutput(&t, "attempt_m_0", 3);
  ASSERT_EQ(a.type, MessageType::kAttached);
  EXPECT_TRUE(a.serves_outputs);
  std::string disk = dir_ + "/local/output/attempt_m_0";
  ASSERT_EQ(t.Handover(disk + "/file.out", disk + "/file.out.index").type, MessageType::kOk);
  // Its blocks are the output's now: the task can only leave, and leaving keeps them.
  EXPECT_EQ(t.Request(kBlock), 0u);
  EXPECT_EQ(t.Detach(), MessageType::kOk);
  ASSERT_TRUE(ClientsBecome(0));
  // Looked up in the pool, or on disk once written out; then the pool copy goes after the
  // grace period, and the shuffle finds it at its disk path as stock's.
  Task shuffle(socket());
  Message where = shuffle.Lookup("job_1_0001", "attempt_m_0");
  ASSERT_EQ(where.type, MessageType::kLocated);
  EXPECT_TRUE(where.text == a.text + "/file.out" || where.text == disk + "/file.out") << where.text;
  EXPECT_TRUE(LookupBecomes("attempt_m_0", ""));
  EXPECT_EQ(Slurp(disk + "/file.out"), "map output");
  EXPECT_EQ(Slurp(disk + "/file.out.index"), "index");
  EXPECT_FALSE(std::filesystem::exists(a.text));
  EXPECT_EQ(coordinator_->free_blocks(), 10u);
  EXPECT_EQ(shuffle.Lookup("job_1_0001", "attempt_m_9").text, "");  // not ours
}

TEST_F(OutputsTest, AHandoverNeedsBothFilesAndSafePaths) {
  Task t(socket());
  Message a = t.Attach("job_1_0001", "attempt_m_1");
  ASSERT_EQ(a.type, MessageType::kAttached);
  std::string disk = dir_ + "/local/attempt_m_1";
  EXPECT_EQ(t.Handover(disk + "/file.out", disk + "/file.out.index").type, MessageType::kError);
  std::ofstream(a.text + "/file.out") << "map output";
  std::ofstream(a.text + "/file.out.index") << "index";
  EXPECT_EQ(t.Handover("relative/file.out", disk + "/i").type, MessageType::kError);
  EXPECT_EQ(t.Handover(disk + "/../../etc/file.out", disk + "/i").type, MessageType::kError);
  EXPECT_EQ(t.Handover(disk + "/file.out", disk + "/file.out.index").type, MessageType::kOk);
  EXPECT_EQ(t.Handover(disk + "/file.out", disk + "/file.out.index").type, MessageType::kError);
  t.Close();  // died after its handover: the output stays the coordinator's
  EXPECT_TRUE(LookupBecomes("attempt_m_1", ""));
  EXPECT_EQ(Slurp(disk + "/file.out"), "map output");
}

// A disk that cannot take the output (full, or here a path through a file): the output stays in
// the pool, served from there with its blocks held, until its job ends.
TEST_F(OutputsTest, AnOutputThatCannotBeWrittenOutIsServedFromThePool) {
  Task t(socket());
  Message a = AttachWithOutput(&t, "attempt_m_3", 2);
  ASSERT_EQ(a.type, MessageType::kAttached);
  std::ofstream(dir_ + "/not-a-dir") << "a file";
  std::string disk = dir_ + "/not-a-dir/attempt_m_3";
  ASSERT_EQ(t.Handover(disk + "/file.out", disk + "/file.out.index").type, MessageType::kOk);
  EXPECT_EQ(t.Detach(), MessageType::kOk);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (coordinator_->outputs_to_move() != 0 || coordinator_->failed_moves() != 1) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the mover never tried";
    std::this_thread::yield();
  }
  Task shuffle(socket());
  EXPECT_EQ(shuffle.Lookup("job_1_0001", "attempt_m_3").text, a.text + "/file.out");
  EXPECT_EQ(Slurp(a.text + "/file.out"), "map output");
  EXPECT_EQ(coordinator_->free_blocks(), 8u);
  EXPECT_TRUE(coordinator_->EndJob("job_1_0001"));
  EXPECT_EQ(coordinator_->free_blocks(), 10u);
}

TEST_F(OutputsTest, AnEndedJobsOutputsGoWithTheirBlocks) {
  Task t(socket());
  Message a = AttachWithOutput(&t, "attempt_m_2", 4);
  ASSERT_EQ(a.type, MessageType::kAttached);
  std::string disk = dir_ + "/local/attempt_m_2";
  ASSERT_EQ(t.Handover(disk + "/file.out", disk + "/file.out.index").type, MessageType::kOk);
  EXPECT_EQ(t.Detach(), MessageType::kOk);
  EXPECT_TRUE(coordinator_->EndJob("job_1_0001"));
  EXPECT_EQ(coordinator_->free_blocks(), 10u);
  Task shuffle(socket());
  EXPECT_EQ(shuffle.Lookup("job_1_0001", "attempt_m_2").text, "");
}

// LOCS: outputs whose disk paths are <app>/output/<attempt>/file.out go into the job's log in
// that <app>/output dir, their indexes to their disk paths with offsets into the log.
class LocsTest : public OutputsTest {
 protected:
  void Configure(CoordinatorOptions* o) override {
    OutputsTest::Configure(o);
    o->locs = true;
  }
  std::string output_dir() const { return dir_ + "/local/app_1/output"; }
  std::string log() const { return output_dir() + "/" + kLocsLogName; }
  // Attaches `t` as `attempt` with a two-partition map output (`parts`) in its dir and hands it
  // over with stock's disk paths.
  Message HandOver(Task* t, const std::string& attempt, const std::string parts[2]) {
    Message a = t->Attach("job_1_0001", attempt);
    EXPECT_EQ(a.type, MessageType::kAttached);
    EXPECT_EQ(t->Request(kBlock), 1u);
    std::ofstream(a.text + "/file.out") << parts[0] << parts[1];
    std::vector<hadoop_accel::mapred::IndexRecord> index = {
        {0, 100 + parts[0].size(), parts[0].size()},
        {parts[0].size(), 100 + parts[1].size(), parts[1].size()}};
    std::vector<uint8_t> bytes = hadoop_accel::mapred::SpillIndex::Serialize(index);
    std::ofstream(a.text + "/file.out.index")
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    std::string disk = output_dir() + "/" + attempt;
    EXPECT_EQ(t->Handover(disk + "/file.out", disk + "/file.out.index").type, MessageType::kOk);
    EXPECT_EQ(t->Detach(), MessageType::kOk);
    return a;
  }
  // What the shuffle serves for a partition: the index's record, read from the data path.
  std::string Serve(const std::string& attempt, uint32_t partition, uint64_t* raw_length) {
    Task shuffle(socket());
    Message where = shuffle.Lookup("job_1_0001", attempt);
    hadoop_accel::mapred::SpillIndex index;
    EXPECT_EQ(hadoop_accel::mapred::SpillIndex::Load(where.index, &index),
              hadoop_accel::mapred::IndexStatus::kOk);
    hadoop_accel::mapred::IndexRecord r;
    EXPECT_EQ(index.Get(partition, &r), hadoop_accel::mapred::IndexStatus::kOk);
    *raw_length = r.raw_length;
    std::ifstream data(where.text);
    data.seekg(static_cast<std::streamoff>(r.start_offset));
    std::string bytes(r.part_length, '\0');
    data.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return bytes;
  }
};

TEST_F(LocsTest, MapOutputsGoIntoTheJobsLogAndAreServedFromIt) {
  const std::string outputs[2][2] = {{"map0-part0", "map0-partition1"}, {"m1p0", "map1-p1"}};
  const std::string attempts[2] = {"attempt_1_0001_m_000000_0", "attempt_1_0001_m_000001_0"};
  for (int m = 0; m < 2; m++) {
    Task t(socket());
    HandOver(&t, attempts[m], outputs[m]);
  }
  for (int m = 0; m < 2; m++) ASSERT_TRUE(LookupBecomes(attempts[m], log()));
  // Written out: the pool copies go after the grace period, and the shuffle still finds both.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (coordinator_->free_blocks() != 10u) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "pool copies never dropped";
    std::this_thread::yield();
  }
  EXPECT_EQ(coordinator_->logged_outputs(), 2);
  for (int m = 0; m < 2; m++) {
    for (uint32_t p = 0; p < 2; p++) {
      uint64_t raw = 0;
      EXPECT_EQ(Serve(attempts[m], p, &raw), outputs[m][p]);
      EXPECT_EQ(raw, 100 + outputs[m][p].size());
    }
    EXPECT_FALSE(std::filesystem::exists(output_dir() + "/" + attempts[m] + "/file.out"));
  }
  // One log for both, its buckets labelled with their maps and partitions.
  LocsLog written = LocsLog::Open(log());
  ASSERT_EQ(written.BucketsOf(1).size(), 2u);
  EXPECT_EQ(written.BucketsOf(1)[0].map, 0u);
  EXPECT_EQ(written.BucketsOf(1)[1].map, 1u);
  // A restarted coordinator still answers for them; the job's end deletes the log.
  Restart(true);
  Task shuffle(socket());
  EXPECT_EQ(shuffle.Lookup("job_1_0001", attempts[1]).text, log());
  EXPECT_TRUE(coordinator_->EndJob("job_1_0001"));
  EXPECT_EQ(shuffle.Lookup("job_1_0001", attempts[1]).text, "");
  while (std::filesystem::exists(log())) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the log was never deleted";
    std::this_thread::yield();
  }
}

// A log that cannot be written (a full disk; here a dir in its place), or an output with a
// broken index: the output stays in the pool, served from there.
TEST_F(LocsTest, AnOutputThatCannotBeLoggedIsServedFromThePool) {
  std::filesystem::create_directories(log());
  Task t(socket());
  const std::string parts[2] = {"p0", "p1"};
  Message a = HandOver(&t, "attempt_1_0001_m_000000_0", parts);
  Task u(socket());
  Message b = u.Attach("job_1_0001", "attempt_1_0001_m_000001_0");
  std::ofstream(b.text + "/file.out") << "map output";
  std::ofstream(b.text + "/file.out.index") << "not an index";
  std::string disk = output_dir() + "/attempt_1_0001_m_000001_0";
  ASSERT_EQ(u.Handover(disk + "/file.out", disk + "/file.out.index").type, MessageType::kOk);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (coordinator_->outputs_to_move() != 0 || coordinator_->failed_moves() != 2) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the mover never tried";
    std::this_thread::yield();
  }
  Task shuffle(socket());
  EXPECT_EQ(shuffle.Lookup("job_1_0001", "attempt_1_0001_m_000000_0").text, a.text + "/file.out");
  EXPECT_EQ(shuffle.Lookup("job_1_0001", "attempt_1_0001_m_000001_0").text, b.text + "/file.out");
  EXPECT_EQ(coordinator_->logged_outputs(), 0);
}

TEST_F(CoordinatorTest, MapsKeepTheirOutputsWhileNoShuffleIsConnected) {
  Task t(socket());
  Message a = t.Attach("job_1_0001", "attempt_m_0");
  ASSERT_EQ(a.type, MessageType::kAttached);
  EXPECT_FALSE(a.serves_outputs);
  {
    Task shuffle(socket());
    ASSERT_EQ(shuffle.Lookup("job_1_0001", "attempt_m_0").type, MessageType::kLocated);
    Task u(socket());
    EXPECT_TRUE(u.Attach("job_1_0001", "attempt_m_1").serves_outputs);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (coordinator_->shuffles() != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  ASSERT_EQ(coordinator_->shuffles(), 0);  // the shuffle's end is served
  Task v(socket());
  EXPECT_FALSE(v.Attach("job_1_0001", "attempt_m_2").serves_outputs);
}

TEST(CoordinatorProtocol, EncodesAndDecodesEveryMessage) {
  Message m;
  m.type = MessageType::kAttached;
  m.block_size = 262144;
  m.value = 4096;
  m.text = "/dev/shm/pool/job/attempt";
  m.serves_outputs = true;
  std::vector<uint8_t> f = Encode(m);
  std::optional<Message> d = Decode(f.data() + 4, f.size() - 4);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->block_size, 262144u);
  EXPECT_EQ(d->value, 4096u);
  EXPECT_EQ(d->text, m.text);
  EXPECT_TRUE(d->serves_outputs);
  EXPECT_FALSE(Decode(f.data() + 4, f.size() - 5).has_value());  // cut short
  Message h;
  h.type = MessageType::kHandover;
  h.text = "/data/nm-local/usercache/u/appcache/app/output/attempt/file.out";
  h.index = h.text + ".index";
  f = Encode(h);
  d = Decode(f.data() + 4, f.size() - 4);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->text, h.text);
  EXPECT_EQ(d->index, h.index);
  uint8_t unknown = 42;
  EXPECT_FALSE(Decode(&unknown, 1).has_value());
}

}  // namespace
