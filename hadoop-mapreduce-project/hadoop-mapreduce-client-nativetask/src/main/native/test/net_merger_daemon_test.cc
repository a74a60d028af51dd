// The jbs_net_merger process as the aux service runs it: READY on stdout, the control
// channel on stdin, a 0666 socket, exit on stdin EOF with the socket removed; exit 2 naming
// the option on a bad argument.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "reducer_protocol.h"
#include "test_files.h"
#include "unix_socket.h"

using namespace hadoop_accel::jbs;

extern char** environ;

namespace {

struct Child {
  pid_t pid = -1;
  FILE* in = nullptr;   // its stdin
  FILE* out = nullptr;  // its stdout
  FILE* err = nullptr;  // its stderr
};

Child Spawn(std::vector<std::string> args) {
  int in[2], out[2], err[2];
  EXPECT_EQ(pipe2(in, O_CLOEXEC), 0);
  EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
  EXPECT_EQ(pipe2(err, O_CLOEXEC), 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  args.insert(args.begin(), JBS_NET_MERGER_BIN);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  Child c;
  EXPECT_EQ(posix_spawn(&c.pid, JBS_NET_MERGER_BIN, &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  c.in = fdopen(in[1], "w");
  c.out = fdopen(out[0], "r");
  c.err = fdopen(err[0], "r");
  return c;
}

std::string Line(FILE* f) {
  char buf[512];
  if (!std::fgets(buf, sizeof(buf), f)) return "<eof>";
  std::string s = buf;
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

int Wait(Child* c) {
  int status = 0;
  waitpid(c->pid, &status, 0);
  if (c->in) std::fclose(c->in);
  std::fclose(c->out);
  std::fclose(c->err);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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
  EXPECT_EQ(st.st_mode & 0777, 0666u);
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
