// The program-side API against a task that feeds awkward lines: a forked "program" opens its
// rings from the environment exactly as under streaming and echoes each line as a record.
#include "hadoop_accel/shm_stream.h"
#include "hadoop_accel/sm_stream.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

std::string make_dir() {
  char tmpl[] = "/tmp/hshm-stream-XXXXXX";
  return mkdtemp(tmpl);
}

TEST(Stream, LinesOfEveryShapeComeBackAsRecords) {
  std::string dir = make_dir();
  std::string attempt = "attempt_1_0001_m_000000_0";
  std::string base = dir + "/hadoop-shm-" + attempt;
  hshm_ring* in = nullptr;
  hshm_ring* out = nullptr;
  ASSERT_EQ(0, hshm_ring_create((base + ".in").c_str(), 64 * 1024, HSHM_WRITER, &in));
  ASSERT_EQ(0, hshm_ring_create((base + ".out").c_str(), 64 * 1024, HSHM_READER, &out));

  std::vector<std::string> lines = {"", "hello\tworld", std::string(600 * 1024, 'x'),
                                    "\xff\xfe\x80 not utf-8", "", "no tab here"};
  for (int i = 0; i < 20000; i++) lines.push_back("w" + std::to_string(i));
  lines.push_back("last line without a newline");

  pid_t pid = fork();
  if (pid == 0) {
    setenv("hadoop_accel_shm_streaming_dir", dir.c_str(), 1);
    setenv("mapreduce_task_attempt_id", attempt.c_str(), 1);
    hshm_stream* s = hshm_stream_open();
    if (s == nullptr) _exit(10);
    const char* line;
    size_t len;
    int rc;
    while ((rc = hshm_stream_read_line(s, &line, &len)) == 1) {
      std::string n = std::to_string(len);
      if (hshm_stream_write_record(s, line, len, n.data(), n.size()) != 0) _exit(11);
    }
    _exit(rc == 0 && hshm_stream_close(s) == 0 ? 0 : 12);
  }
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

TEST(Stream, OpenOutsideStreamingFailsClearly) {
  unsetenv("mapreduce_task_attempt_id");
  errno = 0;
  EXPECT_EQ(nullptr, hshm_stream_open());
  EXPECT_EQ(ENOENT, errno);
  EXPECT_EQ(nullptr, hshm_stream_open_paths("/nonexistent/a", "/nonexistent/b", 50));
  EXPECT_EQ(ETIMEDOUT, errno);
  EXPECT_THROW(hadoop_accel::SMStream(), std::system_error);
}

}  // namespace
