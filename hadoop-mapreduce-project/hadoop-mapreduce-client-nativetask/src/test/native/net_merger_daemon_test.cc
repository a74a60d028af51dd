// The jbs_net_merger process as the aux service runs it: READY on stdout, the control
// channel on stdin, a 0666 socket, exit on stdin EOF with the socket removed; exit 2 naming
// the option on a bad argument.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "child_process.h"
#include "reducer_protocol.h"
#include "test_files.h"
#include "unix_socket.h"

using namespace hadoop_accel::jbs;
using namespace jbs_test;

namespace {

Child Spawn(std::vector<std::string> args) {
  return jbs_test::Spawn(JBS_NET_MERGER_BIN, std::move(args));
}

}  // namespace

TEST(NetMergerDaemonTest, ReadyControlChannelAndExitOnStdinEof) {
  ScratchDir dir;
  std::string sock = dir.path() + "/m.sock";
  Child c = Spawn({"--socket", sock, "--spill-dirs", dir.path(), "--buffer-bytes", "65536"});
  EXPECT_EQ(Line(c.out), "READY " + sock);
  struct stat st;
  ASSERT_EQ(stat(sock.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);  // reduces run as the daemon's user by default
  ASSERT_EQ(stat(dir.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  std::fprintf(c.in, "ADD_JOB job_1700000000000_0001 alice 0a0b\nPING\n");
  std::fflush(c.in);
  EXPECT_EQ(Line(c.out), "OK");
  EXPECT_EQ(Line(c.out), "OK");
  std::unique_ptr<Connection> conn;
  ASSERT_EQ(ConnectUnix(sock, &conn), 0);
  uint8_t h[kFrameHeaderSize + kNonceLength];
  ASSERT_EQ(conn->RecvExact(h, sizeof(h)), 0);
  ReducerFrame t;
  uint32_t len;
  ASSERT_EQ(DecodeReducerHeader(h, kFrameHeaderSize, &t, &len), WireStatus::kOk);
  EXPECT_EQ(t, ReducerFrame::kHello);
  std::fclose(c.in);  // the supervisor goes away
  c.in = nullptr;
  // A connected reducer hears ERROR (shutdown) or a closed socket, then the daemon exits.
  uint8_t b[kFrameHeaderSize];
  if (conn->RecvExact(b, sizeof(b)) == 0) {
    ASSERT_EQ(DecodeReducerHeader(b, sizeof(b), &t, &len), WireStatus::kOk);
    EXPECT_EQ(t, ReducerFrame::kError);
  }
  EXPECT_EQ(Wait(&c), 0);
  EXPECT_NE(stat(sock.c_str(), &st), 0);  // socket removed
}

TEST(NetMergerDaemonTest, StaleSocketIsReplaced) {
  ScratchDir dir;
  std::string sock = dir.path() + "/m.sock";
  Child first = Spawn({"--socket", sock});
  EXPECT_EQ(Line(first.out), "READY " + sock);
  kill(first.pid, SIGKILL);  // a crash leaves the socket file behind
  Wait(&first);
  struct stat st;
  ASSERT_EQ(stat(sock.c_str(), &st), 0);  // stale: nobody listens on it
  Child second = Spawn({"--socket", sock});
  EXPECT_EQ(Line(second.out), "READY " + sock);
  std::fclose(second.in);
  second.in = nullptr;
  EXPECT_EQ(Wait(&second), 0);
}

TEST(NetMergerDaemonTest, BadArgumentsExitTwoNamingTheOption) {
  struct Case {
    std::vector<std::string> args;
    std::string option;
  };
  std::vector<Case> cases = {
      {{}, "--socket"},
      {{"--socket", "/tmp/x.sock", "--buffer-bytes", "12x"}, "--buffer-bytes"},
      {{"--socket", "/tmp/x.sock", "--buffer-bytes", "100"}, "--buffer-bytes"},
      {{"--socket", "/tmp/x.sock", "--memory-bytes", "-1"}, "--memory-bytes"},
      {{"--socket", "/tmp/x.sock", "--max-connections", "0"}, "--max-connections"},
      {{"--socket", "/tmp/x.sock", "--spill-dirs", "/nonexistent/dir"}, "--spill-dirs"},
      {{"--socket", "/tmp/x.sock", "--fetch-retries"}, "--fetch-retries"},
      {{"--socket", "/tmp/x.sock", "--bogus", "1"}, "--bogus"},
  };
  for (auto& k : cases) {
    Child c = Spawn(k.args);
    std::string err = Line(c.err);
    EXPECT_NE(err.find(k.option), std::string::npos) << err;
    EXPECT_EQ(Wait(&c), 2) << k.option;
  }
}

// The socket's directory must be the daemon's alone: a directory others can write, or one of
// another user, would let them take the path while the daemon is down.
TEST(NetMergerDaemonTest, RefusesASocketDirOfAnotherUserAndCreatesItsOwn) {
  ScratchDir dir;
  std::string theirs = dir.path() + "/theirs";
  ASSERT_EQ(::mkdir(theirs.c_str(), 0755), 0);
  ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);  // nobody (the tests run as root)
  Child c = Spawn({"--socket", theirs + "/m.sock", "--spill-dirs", dir.path()});
  EXPECT_EQ(Wait(&c), 1);
  std::string mine = dir.path() + "/mine";
  Child d =
      Spawn({"--socket", mine + "/m.sock", "--spill-dirs", dir.path(), "--socket-access", "any"});
  EXPECT_EQ(Line(d.out), "READY " + mine + "/m.sock");
  struct stat st;
  ASSERT_EQ(stat(mine.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0711u);  // others may reach the socket, not replace it
  ASSERT_EQ(stat((mine + "/m.sock").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666u);
  std::fclose(d.in);
  d.in = nullptr;
  EXPECT_EQ(Wait(&d), 0);
}

// Spill runs a killed NetMerger left behind are removed at the next start: only regular run
// files of the daemon's user, never a symlink's target, never another file; and not while
// another live NetMerger uses the dir.
TEST(NetMergerDaemonTest, SweepsStaleSpillRunsAtStart) {
  ScratchDir dir, spill, elsewhere;
  std::string sock = dir.path() + "/m.sock";
  ScratchDir::WriteAt(spill.path() + "/jbs_run_a1B2c3",
                      std::vector<uint8_t>(1000, 7));                                   // stale run
  ScratchDir::WriteAt(spill.path() + "/jbs_run_d4E5f6", std::vector<uint8_t>(234, 7));  // stale run
  std::string precious =
      ScratchDir::WriteAt(elsewhere.path() + "/precious", std::vector<uint8_t>(10, 1));
  ASSERT_EQ(::symlink(precious.c_str(), (spill.path() + "/jbs_run_link00").c_str()), 0);
  std::string theirs =
      ScratchDir::WriteAt(spill.path() + "/jbs_run_theirs", std::vector<uint8_t>(5, 1));
  ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);  // another user's (tests run as root)
  std::string other =
      ScratchDir::WriteAt(spill.path() + "/jbs_run_other_name", std::vector<uint8_t>(5, 1));
  std::string keep = ScratchDir::WriteAt(spill.path() + "/notes.txt", std::vector<uint8_t>(5, 1));
  Child c = Spawn({"--socket", sock, "--spill-dirs", spill.path()});
  EXPECT_EQ(Line(c.err), "jbs_net_merger: swept 2 stale spill runs (1234 bytes)");
  EXPECT_EQ(Line(c.out), "READY " + sock);
  struct stat st;
  EXPECT_NE(::lstat((spill.path() + "/jbs_run_a1B2c3").c_str(), &st), 0);
  EXPECT_NE(::lstat((spill.path() + "/jbs_run_d4E5f6").c_str(), &st), 0);
  EXPECT_EQ(::lstat((spill.path() + "/jbs_run_link00").c_str(), &st), 0);  // not followed
  EXPECT_EQ(::stat(precious.c_str(), &st), 0);
  EXPECT_EQ(::stat(theirs.c_str(), &st), 0);
  EXPECT_EQ(::stat(other.c_str(), &st), 0);
  EXPECT_EQ(::stat(keep.c_str(), &st), 0);
  // A second NetMerger on the same spill dir while the first runs sweeps nothing there: the
  // first one's runs belong to live sessions.
  ScratchDir::WriteAt(spill.path() + "/jbs_run_live01", std::vector<uint8_t>(100, 7));
  Child d = Spawn({"--socket", dir.path() + "/n.sock", "--spill-dirs", spill.path()});
  std::string line = Line(d.err);
  EXPECT_EQ(line.rfind("jbs_net_merger: swept 0 stale spill runs (0 bytes); not swept: ", 0), 0u)
      << line;
  EXPECT_NE(line.find("in use by another NetMerger"), std::string::npos) << line;
  EXPECT_EQ(Line(d.out), "READY " + dir.path() + "/n.sock");
  EXPECT_EQ(::stat((spill.path() + "/jbs_run_live01").c_str(), &st), 0);
  for (Child* x : {&c, &d}) {
    std::fclose(x->in);
    x->in = nullptr;
    EXPECT_EQ(Wait(x), 0);
  }
}
