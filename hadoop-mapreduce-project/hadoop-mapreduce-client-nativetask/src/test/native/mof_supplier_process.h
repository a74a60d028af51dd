// Runs the built jbs_mof_supplier as a child process the way the aux service will: pipes on
// stdin/stdout for the control channel, stderr into a file the test can read.
#ifndef HADOOP_ACCEL_JBS_MOF_SUPPLIER_PROCESS_H
#define HADOOP_ACCEL_JBS_MOF_SUPPLIER_PROCESS_H

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace supplier_test {

class SupplierProcess {
 public:
  SupplierProcess(const std::string& binary, const std::vector<std::string>& args,
                  const std::string& stderr_path)
      : stderr_path_(stderr_path) {
    // Everything allocated before fork: the child only calls async-signal-safe functions.
    std::vector<char*> argv{const_cast<char*>(binary.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      int err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      if (err >= 0) ::dup2(err, 2);
      ::execv(binary.c_str(), argv.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    stdin_ = in[1];
    stdout_ = out[0];
  }
  ~SupplierProcess() {
    CloseStdin();
    if (stdout_ >= 0) ::close(stdout_);
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // The next line on the daemon's stdout (without '\n'), or "" at EOF / after the deadline.
  std::string ReadLine(std::chrono::milliseconds limit = std::chrono::seconds(5)) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      size_t nl = buffered_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffered_.substr(0, nl);
        buffered_.erase(0, nl + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return "";
      pollfd p{stdout_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return "";
      char buf[512];
      ssize_t r = ::read(stdout_, buf, sizeof(buf));
      if (r <= 0) return "";
      buffered_.append(buf, static_cast<size_t>(r));
    }
  }

  // Waits for "READY <port>"; 0 if it does not come.
  uint16_t WaitReady() {
    std::string line = ReadLine();
    if (line.rfind("READY ", 0) != 0) return 0;
    return static_cast<uint16_t>(std::stoi(line.substr(6)));
  }

  // Sends one control command and returns the answer line.
  std::string Command(const std::string& line) {
    std::string l = line + "\n";
    if (::write(stdin_, l.data(), l.size()) != static_cast<ssize_t>(l.size())) return "";
    return ReadLine();
  }

  void CloseStdin() {
    if (stdin_ >= 0) ::close(stdin_);
    stdin_ = -1;
  }

  // The exit status once the process has ended within the limit; -1 if still running,
  // 128 + signal if killed.
  int WaitExit(std::chrono::milliseconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      int status = 0;
      pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        exited_ = true;
        if (WIFEXITED(status)) return WEXITSTATUS(status);
        if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
        return -2;
      }
      if (std::chrono::steady_clock::now() > deadline) return -1;
      ::poll(nullptr, 0, 2);  // polling the exit with a deadline
    }
  }

  void Kill9() {
    ::kill(pid_, SIGKILL);
    WaitExit(std::chrono::seconds(5));
  }

  std::string Stderr() const {
    std::ifstream f(stderr_path_);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1, stdout_ = -1;
  bool exited_ = false;
  std::string buffered_;
  std::string stderr_path_;
};

}  // namespace supplier_test

#endif
