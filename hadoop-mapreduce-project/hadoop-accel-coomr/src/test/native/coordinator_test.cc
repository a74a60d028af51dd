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
#include <string>
#include <thread>

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
    CoordinatorOptions o;
    o.socket_path = dir_ + "/coordinator.sock";
    o.pool_dir = dir_ + "/pool";
    o.pool_bytes = 10 * kBlock;
    o.block_size = kBlock;
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

TEST(CoordinatorProtocol, EncodesAndDecodesEveryMessage) {
  Message m;
  m.type = MessageType::kAttached;
  m.block_size = 262144;
  m.value = 4096;
  m.text = "/dev/shm/pool/job/attempt";
  std::vector<uint8_t> f = Encode(m);
  std::optional<Message> d = Decode(f.data() + 4, f.size() - 4);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->block_size, 262144u);
  EXPECT_EQ(d->value, 4096u);
  EXPECT_EQ(d->text, m.text);
  EXPECT_FALSE(Decode(f.data() + 4, f.size() - 5).has_value());  // cut short
  uint8_t unknown = 42;
  EXPECT_FALSE(Decode(&unknown, 1).has_value());
}

}  // namespace
