// The built jbs_mof_supplier as a process, driven as the aux service drives it: READY on
// stdout, ADD_JOB/REMOVE_JOB on stdin, fetches over TCP with job-token MACs, hostile bytes on
// the socket, stdin EOF as the stop signal, and a kill -9 followed by a restart on its port.
#include <gtest/gtest.h>

#include <map>

#include "byte_order.h"
#include "jbs_stats.h"
#include "mof_supplier_process.h"
#include "mof_supplier_test_util.h"

using namespace hadoop_accel::jbs;
using namespace supplier_test;

namespace {

const std::string kJob = "job_1700000000000_0099";
const std::string kUser = CurrentUserName();  // the supplier resolves it and checks owners
const std::string kSecret = "s3cret-job-token";
const std::string kSecretHex = "7333637265742d6a6f622d746f6b656e";  // kSecret in hex
constexpr uint32_t kBuf = 8192;

// A request frame built byte by byte, so tests can send what EncodeRequest would refuse.
std::vector<uint8_t> RawRequest(uint64_t id, uint32_t partition, uint64_t offset, uint32_t max_len,
                                const std::string& job, const std::string& attempt,
                                const std::string& auth) {
  std::vector<uint8_t> body(24);
  StoreBe64(body.data(), id);
  StoreBe32(body.data() + 8, partition);
  StoreBe64(body.data() + 12, offset);
  StoreBe32(body.data() + 20, max_len);
  for (const std::string* s : {&job, &attempt, &auth}) {
    uint8_t len[2];
    StoreBe16(len, static_cast<uint16_t>(s->size()));
    body.insert(body.end(), len, len + 2);
    body.insert(body.end(), s->begin(), s->end());
  }
  std::vector<uint8_t> frame(kFrameHeaderSize);
  StoreBe32(frame.data(), kFrameMagic);
  StoreBe16(frame.data() + 4, kProtocolVersion);
  StoreBe16(frame.data() + 6, 1);
  StoreBe32(frame.data() + 8, static_cast<uint32_t>(body.size()));
  frame.insert(frame.end(), body.begin(), body.end());
  return frame;
}

class SupplierProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937 rng(3);
    for (int m = 0; m < 3; ++m)
      WriteMapOutput(m == 1 ? dir2_.path() : dir1_.path(), kUser, kJob, AttemptOf(kJob, m),
                     {3 * kBuf + 11, 0, 100, kBuf}, &rng, &outputs_);
  }

  std::unique_ptr<SupplierProcess> Launch(uint16_t port = 0) {
    auto p = std::make_unique<SupplierProcess>(
        JBS_MOF_SUPPLIER_BIN,
        std::vector<std::string>{"--listen", "127.0.0.1:" + std::to_string(port), "--local-dirs",
                                 dir1_.path() + "," + dir2_.path(), "--buffer-bytes",
                                 std::to_string(kBuf), "--buffers", "32"},
        logs_.path() + "/stderr.log");
    EXPECT_TRUE(p->started());
    return p;
  }

  std::unique_ptr<Connection> Connect(uint16_t port) {
    std::unique_ptr<Connection> c;
    EXPECT_EQ(tcp_->Connect({"127.0.0.1", port}, 2000, &c), 0);
    return c;
  }

  // Pulls every partition of every map with correct MACs; true if all bytes match.
  bool PullEverything(uint16_t port) {
    auto c = Connect(port);
    if (!c) return false;
    PipelinedFetcher f(c.get(), kJob, kSecret, kBuf, 4);
    for (const auto& [attempt, parts] : outputs_)
      for (uint32_t p = 0; p < parts.size(); ++p) f.Add(attempt, p);
    PipelinedFetcher::Result r = f.Run();
    bool same = r.ok;
    for (const auto& [attempt, parts] : outputs_)
      for (uint32_t p = 0; p < parts.size(); ++p)
        same = same && r.data[std::make_pair(attempt, p)] == parts[p];
    return same;
  }

  FetchResponseHeader AskOnce(uint16_t port, const std::string& auth, uint32_t partition = 0) {
    auto c = Connect(port);
    FetchRequest r;
    r.request_id = 77;
    r.job_id = kJob;
    r.map_attempt_id = AttemptOf(kJob, 0);
    r.partition = partition;
    r.max_length = kBuf;
    r.auth = auth;
    FetchResponseHeader h;
    h.status = ResponseStatus::kServerError;
    std::vector<uint8_t> buf(kBuf);
    EXPECT_TRUE(SendRequest(c.get(), r).ok());
    EXPECT_TRUE(ReceiveResponse(c.get(), &h, buf.data(), buf.size()).ok());
    EXPECT_EQ(h.request_id, 77u);
    return h;
  }

  // Sends raw bytes on a fresh socket (optionally half-closing) and returns all it gets back
  // before the server closes; fails the test if the server does not close within 5 s.
  std::vector<uint8_t> SendRaw(uint16_t port, const std::vector<uint8_t>& bytes,
                               bool half_close = false) {
    int fd = RawConnect(port);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
    if (half_close) ::shutdown(fd, SHUT_WR);
    auto start = std::chrono::steady_clock::now();
    std::vector<uint8_t> got = RecvUntilEof(fd);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4))
        << "server kept a hostile connection open";
    ::close(fd);
    return got;
  }

  ScratchDir dir1_, dir2_, logs_;
  MapOutputs outputs_;
  std::unique_ptr<Transport> tcp_ = MakeTcpTransport();
};

}  // namespace

TEST_F(SupplierProcessTest, ServesWithTheRightMacAndRefusesWrongOrMissingOnes) {
  auto d = Launch();
  uint16_t port = d->WaitReady();
  ASSERT_NE(port, 0);
  EXPECT_EQ(d->Command("PING"), "OK");
  EXPECT_EQ(d->Command("ADD_JOB " + kJob + " " + kUser + " " + kSecretHex), "OK");
  EXPECT_TRUE(PullEverything(port));

  EXPECT_EQ(AskOnce(port, FetchMac("wrong", kJob, AttemptOf(kJob, 0), 0)).status,
            ResponseStatus::kUnauthorized);
  EXPECT_EQ(AskOnce(port, "").status, ResponseStatus::kUnauthorized);
  // A MAC is bound to its partition: partition 0's MAC does not open partition 2.
  EXPECT_EQ(AskOnce(port, FetchMac(kSecret, kJob, AttemptOf(kJob, 0), 0), 2).status,
            ResponseStatus::kUnauthorized);
  // STATS on the control channel: every byte pulled once, the three refusals above.
  StatsFields fields;
  std::string error;
  ASSERT_TRUE(DecodeStats(d->Command("STATS"), &fields, &error)) << error;
  std::map<std::string, uint64_t> stats(fields.begin(), fields.end());
  uint64_t total = 0;
  for (const auto& [attempt, parts] : outputs_)
    for (const auto& part : parts) total += part.size();
  EXPECT_EQ(stats["bytes_served"], total);
  EXPECT_EQ(stats["auth_refusals"], 3u);
  EXPECT_GE(stats["requests"], 3u + outputs_.size());
  EXPECT_GE(stats["connections_accepted"], 4u);
  EXPECT_EQ(AskOnce(port, FetchMac(kSecret, kJob, AttemptOf(kJob, 0), 0)).status,
            ResponseStatus::kOk);
  EXPECT_TRUE(PullEverything(port));  // still serving

  d->CloseStdin();
  EXPECT_EQ(d->WaitExit(std::chrono::seconds(2)), 0);
  std::string log = d->Stderr();
  EXPECT_NE(log.find("jbs_mof_supplier: refused fetch"), std::string::npos) << log;
  EXPECT_NE(log.find(kJob), std::string::npos);
  EXPECT_NE(log.find(AttemptOf(kJob, 0)), std::string::npos);
  EXPECT_NE(log.find("127.0.0.1:"), std::string::npos);
  // Every diagnostic is one line with the daemon's prefix (the aux service copies them).
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);)
    EXPECT_EQ(line.rfind("jbs_mof_supplier: ", 0), 0u) << line;
}

TEST_F(SupplierProcessTest, HostileRequestsAreRefusedOrClosedAndOthersAreStillServed) {
  auto d = Launch();
  uint16_t port = d->WaitReady();
  ASSERT_NE(port, 0);
  ASSERT_EQ(d->Command("ADD_JOB " + kJob + " " + kUser + " " + kSecretHex), "OK");
  const std::string a0 = AttemptOf(kJob, 0);
  const std::string mac = FetchMac(kSecret, kJob, a0, 0);

  // A client that stays connected throughout and must keep being served.
  auto steady = Connect(port);
  auto steady_fetch = [&] {
    PipelinedFetcher f(steady.get(), kJob, kSecret, kBuf, 2);
    f.Add(a0, 0);
    PipelinedFetcher::Result r = f.Run();
    return r.ok && r.data[std::make_pair(a0, 0u)] == outputs_[a0][0];
  };
  ASSERT_TRUE(steady_fetch());

  // Path traversal in the ids: the decoder refuses them, the connection is closed unanswered.
  EXPECT_TRUE(SendRaw(port, RawRequest(1, 0, 0, kBuf, "job_1/../../../etc", a0, mac)).empty());
  EXPECT_TRUE(SendRaw(port, RawRequest(1, 0, 0, kBuf, kJob,
                                       "attempt_1700000000000_0099_m_000000_0/../../x", mac))
                  .empty());
  EXPECT_TRUE(SendRaw(port, RawRequest(1, 0, 0, kBuf, kJob, "../" + a0, mac)).empty());
  // Another job's attempt under this job's id.
  EXPECT_TRUE(
      SendRaw(port, RawRequest(1, 0, 0, kBuf, kJob, "attempt_1_1_m_000000_0", mac)).empty());
  // Oversized lengths: a 16 MiB + 1 chunk, a 4 GiB body, an auth field past its limit.
  EXPECT_TRUE(SendRaw(port, RawRequest(1, 0, 0, kMaxChunkLength + 1, kJob, a0, mac)).empty());
  std::vector<uint8_t> huge = RawRequest(1, 0, 0, kBuf, kJob, a0, mac);
  StoreBe32(huge.data() + 8, 0xFFFFFFFFu);
  EXPECT_TRUE(SendRaw(port, huge).empty());
  EXPECT_TRUE(SendRaw(port, RawRequest(1, 0, 0, kBuf, kJob, a0, std::string(129, 'x'))).empty());
  // Garbage, and a frame that stops half way before the client closes.
  std::vector<uint8_t> garbage(600);
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<uint8_t>(i * 37 + 11);
  EXPECT_TRUE(SendRaw(port, garbage).empty());
  std::vector<uint8_t> truncated = RawRequest(1, 0, 0, kBuf, kJob, a0, mac);
  truncated.resize(truncated.size() / 2);
  EXPECT_TRUE(SendRaw(port, truncated, /*half_close=*/true).empty());

  // Well-formed but wrong: answered, and the connection stays usable.
  std::vector<uint8_t> past_end = RawRequest(9, 0, 1ull << 40, kBuf, kJob, a0, mac);
  std::vector<uint8_t> bad_partition =
      RawRequest(10, 1u << 30, 0, kBuf, kJob, a0, FetchMac(kSecret, kJob, a0, 1u << 30));
  std::vector<uint8_t> both = past_end;
  both.insert(both.end(), bad_partition.begin(), bad_partition.end());
  std::vector<uint8_t> answers = SendRaw(port, both, /*half_close=*/true);
  FetchResponseHeader h;
  ASSERT_EQ(DecodeResponsePrefix(answers.data(), answers.size(), &h), WireStatus::kOk);
  EXPECT_EQ(h.request_id, 9u);
  EXPECT_EQ(h.status, ResponseStatus::kBadRequest);
  ASSERT_EQ(DecodeResponsePrefix(answers.data() + kResponsePrefixSize,
                                 answers.size() - kResponsePrefixSize, &h),
            WireStatus::kOk);
  EXPECT_EQ(h.request_id, 10u);
  EXPECT_EQ(h.status, ResponseStatus::kNotFound);

  EXPECT_TRUE(steady_fetch());
  EXPECT_TRUE(PullEverything(port));
  EXPECT_EQ(d->Command("PING"), "OK");
}

// An unknown job is answered as a bad MAC is, so a prober cannot tell which jobs are served.
TEST_F(SupplierProcessTest, RemovedJobIsUnauthorizedLikeABadMac) {
  auto d = Launch();
  uint16_t port = d->WaitReady();
  ASSERT_NE(port, 0);
  const std::string mac = FetchMac(kSecret, kJob, AttemptOf(kJob, 0), 0);
  EXPECT_EQ(AskOnce(port, mac).status, ResponseStatus::kUnauthorized);  // not added yet
  ASSERT_EQ(d->Command("ADD_JOB " + kJob + " " + kUser + " " + kSecretHex), "OK");
  EXPECT_EQ(AskOnce(port, mac).status, ResponseStatus::kOk);
  EXPECT_EQ(AskOnce(port, std::string(mac.size(), 'x')).status, ResponseStatus::kUnauthorized);
  ASSERT_EQ(d->Command("REMOVE_JOB " + kJob), "OK");
  EXPECT_EQ(AskOnce(port, mac).status, ResponseStatus::kUnauthorized);
  EXPECT_EQ(d->Command("ADD_JOB " + kJob + " ../x " + kSecretHex).rfind("ERR", 0), 0u);
}

// Descriptors the process holds on files whose path contains `part`.
size_t OpenFilesContaining(pid_t pid, const std::string& part) {
  size_t n = 0;
  std::error_code ec;
  for (const auto& e :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::error_code link_ec;
    std::filesystem::path target = std::filesystem::read_symlink(e.path(), link_ec);
    if (!link_ec && target.string().find(part) != std::string::npos) ++n;
  }
  return n;
}

// REMOVE_JOB closes the job's cached map output descriptors (the NodeManager deletes its files
// next, and their disk space must come back at once) and leaves other jobs' open.
TEST_F(SupplierProcessTest, RemoveJobClosesThatJobsCachedFilesOnly) {
  const std::string other = "job_1700000000000_0098";
  std::mt19937 rng(4);
  MapOutputs others;
  WriteMapOutput(dir1_.path(), kUser, other, AttemptOf(other, 0), {kBuf + 5, 7}, &rng, &others);
  auto d = Launch();
  uint16_t port = d->WaitReady();
  ASSERT_NE(port, 0);
  ASSERT_EQ(d->Command("ADD_JOB " + kJob + " " + kUser + " " + kSecretHex), "OK");
  ASSERT_EQ(d->Command("ADD_JOB " + other + " " + kUser + " " + kSecretHex), "OK");
  ASSERT_TRUE(PullEverything(port));
  auto c = Connect(port);
  PipelinedFetcher f(c.get(), other, kSecret, kBuf, 4);
  for (uint32_t p = 0; p < 2; ++p) f.Add(AttemptOf(other, 0), p);
  ASSERT_TRUE(f.Run().ok);

  const std::string mine = "/application_1700000000000_0099/";
  const std::string theirs = "/application_1700000000000_0098/";
  ASSERT_GE(OpenFilesContaining(d->pid(), mine), 3u);  // file.out of each map, kept open
  ASSERT_GE(OpenFilesContaining(d->pid(), theirs), 1u);
  ASSERT_EQ(d->Command("REMOVE_JOB " + kJob), "OK");
  // The disk thread closes them when it wakes for the request: poll with a bound.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (OpenFilesContaining(d->pid(), mine) != 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(OpenFilesContaining(d->pid(), mine), 0u);
  EXPECT_GE(OpenFilesContaining(d->pid(), theirs), 1u);
}

TEST_F(SupplierProcessTest, ExitsWithinTwoSecondsOfStdinClosingEvenWithClientsConnected) {
  auto d = Launch();
  uint16_t port = d->WaitReady();
  ASSERT_NE(port, 0);
  ASSERT_EQ(d->Command("ADD_JOB " + kJob + " " + kUser + " " + kSecretHex), "OK");
  auto idle = Connect(port);
  auto fetching = Connect(port);
  FetchRequest r;
  r.request_id = 1;
  r.job_id = kJob;
  r.map_attempt_id = AttemptOf(kJob, 0);
  r.max_length = kBuf;
  r.auth = FetchMac(kSecret, kJob, r.map_attempt_id, 0);
  ASSERT_TRUE(SendRequest(fetching.get(), r).ok());  // answer left unread
  auto start = std::chrono::steady_clock::now();
  d->CloseStdin();
  EXPECT_EQ(d->WaitExit(std::chrono::seconds(2)), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST_F(SupplierProcessTest, RestartsOnTheSamePortAfterKill9) {
  auto d = Launch();
  uint16_t port = d->WaitReady();
  ASSERT_NE(port, 0);
  ASSERT_EQ(d->Command("ADD_JOB " + kJob + " " + kUser + " " + kSecretHex), "OK");
  auto conn = Connect(port);  // an established connection: the kill leaves it behind
  EXPECT_TRUE(PullEverything(port));
  d->Kill9();
  conn.reset();
  auto again = Launch(port);
  EXPECT_EQ(again->WaitReady(), port) << again->Stderr();
  ASSERT_EQ(again->Command("ADD_JOB " + kJob + " " + kUser + " " + kSecretHex), "OK");
  EXPECT_TRUE(PullEverything(port));
  again->CloseStdin();
  EXPECT_EQ(again->WaitExit(std::chrono::seconds(2)), 0);
}

TEST_F(SupplierProcessTest, BadArgumentsExitTwoNamingTheOption) {
  auto d = std::make_unique<SupplierProcess>(
      JBS_MOF_SUPPLIER_BIN,
      std::vector<std::string>{"--listen", "127.0.0.1:0", "--local-dirs", dir1_.path(),
                               "--buffer-bytes", "1000"},
      logs_.path() + "/bad.log");
  EXPECT_EQ(d->WaitExit(std::chrono::seconds(5)), 2);
  EXPECT_NE(d->Stderr().find("jbs_mof_supplier: --buffer-bytes"), std::string::npos);
  auto e = std::make_unique<SupplierProcess>(JBS_MOF_SUPPLIER_BIN,
                                             std::vector<std::string>{"--local-dirs", dir1_.path()},
                                             logs_.path() + "/bad2.log");
  EXPECT_EQ(e->WaitExit(std::chrono::seconds(5)), 2);
  EXPECT_NE(e->Stderr().find("--listen"), std::string::npos);
}

TEST_F(SupplierProcessTest, AFloodOfBadMacsIsAnsweredButBarelyLogged) {
  auto d = Launch();
  uint16_t port = d->WaitReady();
  ASSERT_NE(port, 0);
  ASSERT_EQ(d->Command("ADD_JOB " + kJob + " " + kUser + " " + kSecretHex), "OK");
  // 1000 pipelined requests with a wrong MAC on one connection, while others fetch. (The
  // client sends them all before reading: their 52 KB of answers fit the socket buffers.)
  const std::string a0 = AttemptOf(kJob, 0);
  std::vector<uint8_t> flood;
  for (uint64_t i = 1; i <= 1000; ++i) {
    std::vector<uint8_t> f = RawRequest(i, 0, 0, kBuf, kJob, a0, std::string(20, 'x'));
    flood.insert(flood.end(), f.begin(), f.end());
  }
  std::thread fetcher([&] { EXPECT_TRUE(PullEverything(port)); });
  std::vector<uint8_t> answers = SendRaw(port, flood, /*half_close=*/true);
  fetcher.join();
  ASSERT_EQ(answers.size(), 1000 * kResponsePrefixSize);
  for (size_t i = 0; i < 1000; ++i) {
    FetchResponseHeader h;
    ASSERT_EQ(
        DecodeResponsePrefix(answers.data() + i * kResponsePrefixSize, kResponsePrefixSize, &h),
        WireStatus::kOk);
    EXPECT_EQ(h.request_id, i + 1);
    EXPECT_EQ(h.status, ResponseStatus::kUnauthorized);
  }
  d->CloseStdin();
  EXPECT_EQ(d->WaitExit(std::chrono::seconds(2)), 0);
  std::string log = d->Stderr();
  size_t refusals = 0;
  for (size_t p = 0; (p = log.find("refused fetch", p)) != std::string::npos; ++p) ++refusals;
  EXPECT_GE(refusals, 1u);
  EXPECT_LE(refusals, 5u) << log;  // one a second at most, and this took well under 5 s
}
