// Connection floods (the threat model's unauthenticated peers): 10,000 unauthenticated
// connections to each daemon, run as processes the way a node runs them, while a reduce's
// job goes through both. The job's merged stream must equal the reference merge, the flooded
// daemon must live, its CPU time over the flood stay under a bound and its log stay short.
// Half of the flood's connections stay silent, half send a partial frame and stall.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <random>
#include <sstream>
#include <thread>

#include "daemon_job.h"
#include "fetch_client.h"
#include "job_auth.h"
#include "mof_supplier_process.h"
#include "transport.h"

using namespace hadoop_accel::jbs;
using namespace jbs_test;
using supplier_test::SupplierProcess;

namespace {

constexpr int kFlood = 10000;
// The daemon's CPU time while 10,000 connections arrive (plus the concurrent job). Measured on
// the 2-vCPU VM (shared, loaded): see the commit message; the bound leaves a wide margin and
// is still far below a spinning or thread-per-connection daemon.
constexpr double kMaxFloodCpuSeconds = 2.0;

double CpuSeconds(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  size_t paren = s.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream in(s.substr(paren + 2));  // field 3 (state) onwards
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// Room for `need` descriptors in this process; false if the hard limit does not allow it.
bool RaiseNofile(rlim_t need) {
  rlimit l{};
  if (::getrlimit(RLIMIT_NOFILE, &l) != 0) return false;
  if (l.rlim_cur != RLIM_INFINITY && l.rlim_cur >= need) return true;
  if (l.rlim_max != RLIM_INFINITY && l.rlim_max < need) return false;
  l.rlim_cur = need;
  return ::setrlimit(RLIMIT_NOFILE, &l) == 0;
}

size_t CountLines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The flood: connections held open until the object goes; every other one writes a partial
// frame header (magic only) and stalls.
class Flood {
 public:
  ~Flood() { CloseAll(); }
  void Open(int count, const std::function<int()>& connect_one) {
    static const uint8_t kPartial[] = {'J', 'B', 'S', 'M', 0};
    for (int i = 0; i < count; ++i) {
      int fd = connect_one();
      if (fd < 0) {
        ++failed_;
        continue;
      }
      if (i % 2 == 1) {
        [[maybe_unused]] ssize_t w = ::send(fd, kPartial, 4, MSG_DONTWAIT | MSG_NOSIGNAL);
      }
      fds_.push_back(fd);
    }
  }
  void CloseAll() {
    for (int fd : fds_) ::close(fd);
    fds_.clear();
  }
  size_t opened() const { return fds_.size(); }
  int failed() const { return failed_; }

 private:
  std::vector<int> fds_;
  int failed_ = 0;
};

void SetTimeout(int fd, int ms) {
  timeval tv{ms / 1000, (ms % 1000) * 1000};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));  // bounds connect() too
}

int ConnectUnixRaw(const std::string& path, bool nonblocking) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
  if (fd < 0) return -1;
  SetTimeout(fd, 1000);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof(a.sun_path) - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int ConnectTcpRaw(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  SetTimeout(fd, 1000);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Both daemons as a node runs them, given the fake reducer's job.
class FloodTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!RaiseNofile(kFlood + 512)) {
      rlimit l{};
      ::getrlimit(RLIMIT_NOFILE, &l);
      GTEST_SKIP() << "RLIMIT_NOFILE hard limit " << l.rlim_max << " is below the " << kFlood + 512
                   << " descriptors a 10,000-connection flood needs";
    }
    std::mt19937 rng(11);
    data_ = RandomTextSegments(rng, 6, 40, 3000);
    for (uint32_t i = 0; i < data_.size(); ++i) WriteMap(local_.path(), i, data_[i], false);
  }

  void StartDaemons() {
    supplier_ = std::make_unique<SupplierProcess>(
        JBS_MOF_SUPPLIER_BIN,
        std::vector<std::string>{"--listen", "127.0.0.1:0", "--local-dirs", local_.path()},
        logs_.path() + "/supplier.err");
    port_ = supplier_->WaitReady();
    ASSERT_NE(port_, 0);
    socket_ = sock_dir_.path() + "/m.sock";
    merger_ = std::make_unique<SupplierProcess>(
        JBS_NET_MERGER_BIN,
        std::vector<std::string>{"--socket", socket_, "--spill-dirs", spill_.path()},
        logs_.path() + "/merger.err");
    ASSERT_EQ(merger_->ReadLine(), "READY " + socket_);
    ASSERT_EQ(supplier_->Command(AddJobLine()), "OK");
    ASSERT_EQ(merger_->Command(AddJobLine()), "OK");
  }

  void StopDaemons() {
    for (SupplierProcess* p : {merger_.get(), supplier_.get()}) {
      p->CloseStdin();
      EXPECT_EQ(p->WaitExit(std::chrono::seconds(10)), 0);
    }
  }

  // A whole reduce through both daemons on a registered reducer: its stream must be the
  // reference merge.
  void FinishJob(FakeReducer* r) {
    for (uint32_t i = 0; i < data_.size(); ++i) r->MapOutput(i, port_);
    for (size_t i = 0; i < data_.size(); ++i) ASSERT_EQ(r->Read(), ReducerFrame::kMapFetched);
    r->Merge();
    Bytes stream;
    EndStats end;
    ErrorFrame err;
    ASSERT_TRUE(r->ReadStream(&stream, &end, &err)) << err.message;
    EXPECT_EQ(stream, ReferenceMerge(data_, 1));
  }
  void RunJob() {
    FakeReducer r(socket_);
    ASSERT_EQ(r.Register(static_cast<uint32_t>(data_.size()), 0).status, RegisterStatus::kOk);
    FinishJob(&r);
  }

  bool Alive(SupplierProcess* p) { return ::kill(p->pid(), 0) == 0 && p->WaitExit({}) == -1; }

  ScratchDir local_, spill_, sock_dir_, logs_;
  std::vector<std::vector<Rec>> data_;
  std::unique_ptr<SupplierProcess> supplier_, merger_;
  uint16_t port_ = 0;
  std::string socket_;
};

}  // namespace

TEST_F(FloodTest, NetMergerStaysBoundedUnder10000UnauthenticatedConnections) {
  StartDaemons();
  // A reduce registered before the flood does its whole job during it.
  FakeReducer during(socket_);
  ASSERT_EQ(during.Register(static_cast<uint32_t>(data_.size()), 0).status, RegisterStatus::kOk);
  double cpu0 = CpuSeconds(merger_->pid());
  auto t0 = std::chrono::steady_clock::now();
  Flood flood;
  std::thread flooder([&] { flood.Open(kFlood, [&] { return ConnectUnixRaw(socket_, false); }); });
  FinishJob(&during);
  flooder.join();
  double cpu = CpuSeconds(merger_->pid()) - cpu0;
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "NetMerger flood: %zu connections held (%d refused) in %.2f s wall, daemon CPU %.3f s\n",
      flood.opened(), flood.failed(), wall, cpu);
  RecordProperty("merger_flood_cpu_ms", static_cast<int>(cpu * 1000));
  EXPECT_GE(flood.opened(), static_cast<size_t>(kFlood * 9 / 10));
  EXPECT_LT(cpu, kMaxFloodCpuSeconds);
  ASSERT_TRUE(Alive(merger_.get()));
  // With the flood's connections still open, a new reduce gets in at once (the gate holds a
  // bounded number of them and closes the oldest for a newcomer).
  RunJob();
  flood.CloseAll();
  RunJob();
  std::string log = merger_->Stderr();
  EXPECT_LT(CountLines(log), 60u) << log.substr(0, 4000);  // rate-limited, not one per connection
  StopDaemons();
}

TEST_F(FloodTest, MofSupplierStaysBoundedUnder10000UnauthenticatedConnections) {
  StartDaemons();
  RunJob();  // the NetMerger now holds an authenticated connection to the supplier
  double cpu0 = CpuSeconds(supplier_->pid());
  auto t0 = std::chrono::steady_clock::now();
  Flood flood;
  std::thread flooder([&] { flood.Open(kFlood, [&] { return ConnectTcpRaw(port_); }); });
  RunJob();  // during the flood
  flooder.join();
  double cpu = CpuSeconds(supplier_->pid()) - cpu0;
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "MOFSupplier flood: %zu connections held (%d refused) in %.2f s wall, daemon CPU %.3f s\n",
      flood.opened(), flood.failed(), wall, cpu);
  RecordProperty("supplier_flood_cpu_ms", static_cast<int>(cpu * 1000));
  EXPECT_GE(flood.opened(), static_cast<size_t>(kFlood * 9 / 10));
  EXPECT_LT(cpu, kMaxFloodCpuSeconds);
  ASSERT_TRUE(Alive(supplier_.get()));
  // A fresh connection from a client that holds the job secret is served while the flood's
  // connections are still open: it makes the oldest unauthenticated one go.
  std::unique_ptr<Transport> tcp = MakeTcpTransport(5000);
  FetchClient::Config fc;
  fc.retries = 0;
  FetchClient client(tcp.get(), fc);
  auto target = std::make_shared<FetchTarget>();
  target->node = {"127.0.0.1", port_};
  target->job = kJob;
  target->attempt = Attempt(0);
  target->partition = kPartition;
  uint8_t nonce[kNonceLength];
  ASSERT_TRUE(FillNonce(nonce));
  target->auth = FetchAuth(kSecret, kJob, Attempt(0), kPartition, nonce);
  target->reply_mac = ReplyMac(kSecret, target->auth);
  std::promise<FetchOutcome> got;
  client.Fetch(target, 0, [&](FetchOutcome o) { got.set_value(std::move(o)); });
  auto future = got.get_future();
  ASSERT_EQ(future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  FetchOutcome o = future.get();
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.chunk, IFileSegment(data_[0], false));
  client.Stop();
  flood.CloseAll();
  RunJob();
  std::string log = supplier_->Stderr();
  EXPECT_LT(CountLines(log), 60u) << log.substr(0, 4000);
  StopDaemons();
}

// Out of descriptors, the NetMerger's accept loop pauses instead of spinning, logs it at a
// bounded rate, and takes reducers again once descriptors are free.
TEST_F(FloodTest, NetMergerAtTheDescriptorLimitBacksOffWithoutSpinning) {
  StartDaemons();
  rlimit low{48, 48};  // a few dozen connections exhaust it
  ASSERT_EQ(::prlimit(merger_->pid(), RLIMIT_NOFILE, &low, nullptr), 0);
  double cpu0 = CpuSeconds(merger_->pid());
  Flood flood;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  int attempts = 0;
  // Non-blocking connects for 3 s: once the daemon stops accepting, its backlog fills and
  // further connects fail at once, so this keeps knocking all the time.
  while (std::chrono::steady_clock::now() < until && attempts < 20 * kFlood) {
    flood.Open(100, [&] { return ConnectUnixRaw(socket_, true); });
    attempts += 100;
  }
  double cpu = CpuSeconds(merger_->pid()) - cpu0;
  std::printf(
      "NetMerger at its descriptor limit: %d connects tried in 3 s, %zu held, daemon CPU %.3f s\n",
      attempts, flood.opened(), cpu);
  EXPECT_LT(cpu, 0.5);  // a spinning accept loop burns the whole 3 s
  ASSERT_TRUE(Alive(merger_.get()));
  std::string log = merger_->Stderr();
  size_t pauses = 0;
  for (size_t at = 0; (at = log.find("pausing accepts", at)) != std::string::npos; ++at) ++pauses;
  EXPECT_GE(pauses, 1u) << log.substr(0, 4000);
  EXPECT_LE(pauses, 2u) << log.substr(0, 4000);  // one line per 10 s
  // A loop that retries accept at once logs (or at least wakes) per try: 148,631 lines in
  // these 3 s before the gate, and only ~0.2 CPU-s of them on this loaded VM.
  EXPECT_LT(CountLines(log), 60u) << log.substr(0, 4000);
  flood.CloseAll();
  RunJob();  // descriptors are back: the next reduce is served
  StopDaemons();
}
