// Test helper: a daemon as a child process with pipes on its stdin, stdout and stderr, as the
// NodeManager aux service runs it.
#ifndef HADOOP_ACCEL_JBS_TEST_CHILD_PROCESS_H
#define HADOOP_ACCEL_JBS_TEST_CHILD_PROCESS_H

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

extern char** environ;

namespace jbs_test {

struct Child {
  pid_t pid = -1;
  FILE* in = nullptr;   // its stdin
  FILE* out = nullptr;  // its stdout
  FILE* err = nullptr;  // its stderr
};

// capture_stderr: read it from Child::err (a test must then drain it if the child writes
// much); otherwise the child shares the test's stderr.
inline Child Spawn(const std::string& binary, std::vector<std::string> args,
                   bool capture_stderr = true) {
  int in[2], out[2], err[2];
  EXPECT_EQ(pipe2(in, O_CLOEXEC), 0);
  EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
  EXPECT_EQ(pipe2(err, O_CLOEXEC), 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  if (capture_stderr) posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  args.insert(args.begin(), binary);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  Child c;
  EXPECT_EQ(posix_spawn(&c.pid, binary.c_str(), &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  c.in = fdopen(in[1], "w");
  c.out = fdopen(out[0], "r");
  if (capture_stderr) {
    c.err = fdopen(err[0], "r");
  } else {
    close(err[0]);
  }
  return c;
}

inline std::string Line(FILE* f) {
  char buf[512];
  if (!std::fgets(buf, sizeof(buf), f)) return "<eof>";
  std::string s = buf;
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

inline int Wait(Child* c) {
  int status = 0;
  waitpid(c->pid, &status, 0);
  if (c->in) std::fclose(c->in);
  std::fclose(c->out);
  if (c->err) std::fclose(c->err);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace jbs_test

#endif
