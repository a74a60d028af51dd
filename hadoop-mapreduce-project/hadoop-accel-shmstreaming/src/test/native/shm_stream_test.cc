// The program-side API against a task that feeds awkward lines: a forked "program" reads the
// handshake from its standard input and opens its rings exactly as under streaming, then
// echoes each line as a record.
#include "hadoop_accel/shm_stream.h"
#include "hadoop_accel/sm_stream.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

std::string make_dir() {
  char tmpl[] = "/tmp/hshm-stream-XXXXXX";
  return mkdtemp(tmpl);
}

// A pipe holding `text`, its write end closed: what a program's stdin looks like once the task
// has written the handshake (or something else) and closed it.
int pipe_with(const std::string& text) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  if (write(fds[1], text.data(), text.size()) != static_cast<ssize_t>(text.size())) return -1;
  close(fds[1]);
  return fds[0];
}

// What streaming exports to the program of a task run with -io shm.
void as_shm_task() {
  setenv("stream_map_input_writer_class", "io.hadoopaccel.streaming.shm.ShmTextInputWriter", 1);
}

std::string handshake(const std::string& in, const std::string& out) {
  return "hadoop-shm 1\t" + in + "\t" + out + "\n";
}

TEST(Stream, LinesOfEveryShapeComeBackAsRecords) {
  std::string dir = make_dir();
  std::string attempt = "attempt_1_0001_m_000000_0";
  std::string base = dir + "/hadoop-shm-" + attempt;
  hshm_ring* in = nullptr;
  hshm_ring* out = nullptr;
  ASSERT_EQ(0, hshm_ring_create((base + ".in").c_str(), 64 * 1024, HSHM_WRITER, &in));
  ASSERT_EQ(0, hshm_ring_create((base + ".out").c_str(), 64 * 1024, HSHM_READER, &out));

  std::vector<std::string> lines = {
      "", "hello\tworld", std::string(600 * 1024, 'x'), "\xff\xfe\x80 not utf-8",
      "", "no tab here"};
  for (int i = 0; i < 20000; i++) lines.push_back("w" + std::to_string(i));
  lines.push_back("last line without a newline");

  // Bytes after the handshake stay unread: the program sees only the rings.
  int stdin_fd = pipe_with(handshake(base + ".in", base + ".out") + "not for the program\n");
  ASSERT_GE(stdin_fd, 0);
  pid_t pid = fork();
  if (pid == 0) {
    if (dup2(stdin_fd, STDIN_FILENO) < 0) _exit(9);
    as_shm_task();
    hshm_stream* s = hshm_stream_open();
    if (s == nullptr) _exit(10);
    if (hshm_stream_transport(s) != HSHM_TRANSPORT_RINGS) _exit(13);
    const char* line;
    size_t len;
    int rc;
    while ((rc = hshm_stream_read_line(s, &line, &len)) == 1) {
      std::string n = std::to_string(len);
      if (hshm_stream_write_record(s, line, len, n.data(), n.size()) != 0) _exit(11);
    }
    _exit(rc == 0 && hshm_stream_close(s) == 0 ? 0 : 12);
  }
  close(stdin_fd);
  ASSERT_EQ(0, hshm_ring_wait_peer(in, 5000));
  std::thread feeder([&] {  // the task writes input while it reads output, as streaming does
    for (size_t i = 0; i < lines.size(); i++) {
      hshm_ring_write(in, lines[i].data(), lines[i].size());
      if (i + 1 < lines.size()) hshm_ring_write(in, "\n", 1);
    }
    hshm_ring_close(in);
  });
  std::string expected;
  for (const std::string& l : lines) expected += l + "\t" + std::to_string(l.size()) + "\n";
  std::string got;
  std::vector<char> buf(64 * 1024);
  ssize_t n;
  while ((n = hshm_ring_read(out, buf.data(), buf.size())) > 0) got.append(buf.data(), n);
  feeder.join();
  EXPECT_EQ(0, n);
  EXPECT_EQ(expected.size(), got.size());
  EXPECT_TRUE(expected == got);
  int status = 0;
  ASSERT_EQ(pid, waitpid(pid, &status, 0));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  hshm_ring_close(out);
  std::string rm = "rm -rf " + dir;
  ASSERT_EQ(0, std::system(rm.c_str()));
}

TEST(Stream, InputWithoutTheHandshakeFailsClearly) {
  // What a program reads when the job runs it over pipes: records, not the handshake.
  for (const std::string& text :
       {std::string("hello\tworld\n"), std::string("hadoop-shm 2\ta\tb\n"),
        std::string("hadoop-shm 1\tonly-one-path\n"), std::string("hadoop-shm 1\ta\tb"),
        std::string(20000, 'h')}) {
    int fd = pipe_with(text);
    ASSERT_GE(fd, 0);
    errno = 0;
    EXPECT_EQ(nullptr, hshm_stream_open_fd(fd)) << text.substr(0, 40);
    EXPECT_EQ(EPROTO, errno);
    close(fd);
  }
  int fd = pipe_with(handshake("/nonexistent/a", "/nonexistent/b"));
  EXPECT_EQ(nullptr, hshm_stream_open_fd(fd));
  EXPECT_EQ(ETIMEDOUT, errno);  // attach waits 0 ms: the task creates the rings first
  close(fd);
  int saved = dup(STDIN_FILENO);
  fd = pipe_with("some records\n");
  ASSERT_EQ(STDIN_FILENO, dup2(fd, STDIN_FILENO));
  as_shm_task();
  EXPECT_THROW(hadoop_accel::SMStream(), std::system_error);
  unsetenv("stream_map_input_writer_class");
  dup2(saved, STDIN_FILENO);
  close(saved);
  close(fd);
}

// Runs a forked program that echoes line lengths with `stdin_text` as its standard input;
// returns its standard output.
std::string run_over_pipes(const std::string& stdin_text, bool shm_task);

TEST(Stream, DashesMeanPipes) {
  // The task could not create rings: records follow the handshake on stdin, output goes to stdout.
  EXPECT_EQ("len\t3\nlen\t0\nlen\t4\n", run_over_pipes(handshake("-", "-") + "a\tb\n\nlast", true));
}

TEST(Stream, OutsideShmStreamingItIsStdinAndStdout) {
  // No -io shm (or no Hadoop at all): no handshake is read, the input is all records.
  EXPECT_EQ("len\t3\nlen\t0\nlen\t4\n", run_over_pipes("a\tb\n\nlast", false));
}

std::string run_over_pipes(const std::string& stdin_text, bool shm_task) {
  int stdin_fd = pipe_with(stdin_text);
  int out[2];
  if (pipe(out) != 0) return "pipe failed";
  pid_t pid = fork();
  if (pid == 0) {
    if (dup2(stdin_fd, STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0) _exit(9);
    if (shm_task) as_shm_task();
    hshm_stream* s = hshm_stream_open();
    if (s == nullptr) _exit(10);
    if (hshm_stream_transport(s) != HSHM_TRANSPORT_PIPES) _exit(13);
    const char* line;
    size_t len;
    while (hshm_stream_read_line(s, &line, &len) == 1) {
      if (hshm_stream_write_record(s, "len", 3, std::to_string(len).c_str(),
                                   std::to_string(len).size()) != 0)
        _exit(11);
    }
    _exit(hshm_stream_close(s) == 0 ? 0 : 12);
  }
  close(out[1]);
  close(stdin_fd);
  std::string got;
  char buf[256];
  ssize_t n;
  while ((n = read(out[0], buf, sizeof buf)) > 0) got.append(buf, n);
  close(out[0]);
  int status = 0;
  EXPECT_EQ(pid, waitpid(pid, &status, 0));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  return got;
}

TEST(Stream, StdinEndingBeforeTheHandshakeIsAnEmptyStream) {
  // A streaming reducer with no input closes the program's stdin without starting rings.
  int fd = pipe_with("");
  hshm_stream* s = hshm_stream_open_fd(fd);
  ASSERT_NE(nullptr, s);
  EXPECT_EQ(HSHM_TRANSPORT_NONE, hshm_stream_transport(s));
  const char* line;
  size_t len;
  char buf[16];
  EXPECT_EQ(0, hshm_stream_read_line(s, &line, &len));
  EXPECT_EQ(0, hshm_stream_read(s, buf, sizeof buf));
  EXPECT_EQ(0, hshm_stream_write_record(s, "k", 1, "v", 1));
  EXPECT_EQ(0, hshm_stream_flush(s));
  EXPECT_EQ(0, hshm_stream_close(s));
  close(fd);
}

TEST(Stream, ClosingTheOutputEndsItWhileInputGoesOn) {
  // What the preload shim does on close(1): the task sees the end of the output at once.
  std::string dir = make_dir();
  std::string base = dir + "/hadoop-shm-attempt_1_0001_m_000002_0";
  hshm_ring* in = nullptr;
  hshm_ring* out = nullptr;
  ASSERT_EQ(0, hshm_ring_create((base + ".in").c_str(), 4096, HSHM_WRITER, &in));
  ASSERT_EQ(0, hshm_ring_create((base + ".out").c_str(), 4096, HSHM_READER, &out));
  int stdin_fd = pipe_with(handshake(base + ".in", base + ".out"));
  pid_t pid = fork();
  if (pid == 0) {
    hshm_stream* s = hshm_stream_open_fd(stdin_fd);
    if (s == nullptr || hshm_stream_write(s, "head\n", 5) != 5) _exit(10);
    if (hshm_stream_close_output(s) != 0 || hshm_stream_close_output(s) != 0) _exit(11);
    if (hshm_stream_write(s, "late\n", 5) != -EPIPE) _exit(12);
    char buf[64];
    ssize_t n, total = 0;
    while ((n = hshm_stream_read(s, buf, sizeof buf)) > 0) total += n;  // input still flows
    _exit(n == 0 && total == 10000 && hshm_stream_close(s) == 0 ? 0 : 13);
  }
  close(stdin_fd);
  alarm(20);  // a missing end of output would block the read below: fail instead of hanging
  std::string got;
  char buf[64];
  ssize_t n;
  while ((n = hshm_ring_read(out, buf, sizeof buf)) > 0) got.append(buf, n);
  EXPECT_EQ(0, n);
  EXPECT_EQ("head\n", got);
  std::string input(10000, 'i');  // only now: more than the ring holds, so the child must read
  EXPECT_EQ(10000, hshm_ring_write(in, input.data(), input.size()));
  hshm_ring_close(in);
  int status = 0;
  ASSERT_EQ(pid, waitpid(pid, &status, 0));
  alarm(0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  hshm_ring_close(out);
  std::string rm = "rm -rf " + dir;
  ASSERT_EQ(0, std::system(rm.c_str()));
}

}  // namespace
