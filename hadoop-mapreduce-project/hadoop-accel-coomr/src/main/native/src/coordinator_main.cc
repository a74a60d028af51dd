// coomr_coordinator: the node coordinator as a daemon (see coordinator.h), until SIGTERM or SIGINT.
//   coomr_coordinator --socket PATH --pool-dir DIR --pool-bytes N [--block-size N] [--recover]
//                     [--locs] [--supervised]
// --locs writes map outputs through LOCS: one log per job and disk (see coordinator.h).
// --recover keeps what an earlier coordinator left in the pool (the aux service's restarts).
// --supervised is how the NodeManager's aux service runs it (SupervisedDaemon): it prints
// "READY <socket>" on stdout once it listens, answers each stdin line with one line
// ("END_JOB <job>": OK), and stops when stdin closes, so it never outlives the NodeManager.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

#include "coordinator.h"

namespace {

int Usage() {
  fprintf(stderr,
          "usage: coomr_coordinator --socket PATH --pool-dir DIR --pool-bytes N "
          "[--block-size N] [--recover] [--locs] [--supervised]\n");
  return 2;
}

bool ParseSize(const char* s, uint64_t* out) {
  char* end = nullptr;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || *end != '\0' || v == 0) return false;
  *out = v;
  return true;
}

// The coordinator, while the control thread may use it: main clears it (under the mutex) before
// stopping it, since that thread, blocked reading stdin, cannot be joined.
std::mutex control_mu;
hadoop_accel::coomr::Coordinator* controlled = nullptr;

// Answers the supervisor's lines on stdin; its end (the NodeManager gone) stops the daemon.
void ServeControl() {
  std::string line;
  while (std::getline(std::cin, line)) {
    const std::string end_job = "END_JOB ";
    if (line.rfind(end_job, 0) == 0) {
      std::lock_guard<std::mutex> lock(control_mu);
      if (controlled == nullptr) return;  // stopping
      std::cout << (controlled->EndJob(line.substr(end_job.size())) ? "OK" : "ERROR bad job id")
                << std::endl;
    } else {
      std::cout << "ERROR unknown command" << std::endl;
    }
  }
  kill(getpid(), SIGTERM);  // main's sigwait takes it: the same orderly stop as a signal
}

}  // namespace

int main(int argc, char** argv) {
  using hadoop_accel::coomr::Coordinator;
  using hadoop_accel::coomr::CoordinatorOptions;
  CoordinatorOptions o;
  bool supervised = false;
  for (int i = 1; i < argc; i++) {
    std::string k = argv[i];
    uint64_t n = 0;
    if (k == "--supervised") {
      supervised = true;
    } else if (k == "--recover") {
      o.recover = true;
    } else if (k == "--locs") {
      o.locs = true;
    } else if (i + 1 == argc) {
      return Usage();
    } else if (k == "--socket") {
      o.socket_path = argv[++i];
    } else if (k == "--pool-dir") {
      o.pool_dir = argv[++i];
    } else if (k == "--pool-bytes" && ParseSize(argv[i + 1], &n)) {
      o.pool_bytes = n;
      i++;
    } else if (k == "--block-size" && ParseSize(argv[i + 1], &n) && n <= (1u << 30)) {
      o.block_size = static_cast<uint32_t>(n);
      i++;
    } else {
      fprintf(stderr, "coomr_coordinator: bad option %s %s\n", argv[i], argv[i + 1]);
      return Usage();
    }
  }
  if (o.socket_path.empty() || o.pool_dir.empty() || o.pool_bytes == 0) {
    return Usage();
  }
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);  // before any thread starts: only sigwait sees them
  try {
    Coordinator c(o);
    c.Start();
    fprintf(stderr,
            "coomr_coordinator: serving %s, pool %s of %llu bytes in blocks of %u; map outputs "
            "written out %s\n",
            o.socket_path.c_str(), o.pool_dir.c_str(),
            static_cast<unsigned long long>(o.pool_bytes), o.block_size,
            o.locs ? "through LOCS logs" : "one file per map");
    if (supervised) {
      std::cout << "READY " << o.socket_path << std::endl;
      controlled = &c;
      std::thread(ServeControl).detach();
    }
    int sig = 0;
    sigwait(&stop, &sig);
    {
      std::lock_guard<std::mutex> lock(control_mu);
      controlled = nullptr;
    }
    c.Stop();
  } catch (const std::exception& e) {
    fprintf(stderr, "coomr_coordinator: %s\n", e.what());
    return 1;
  }
  return 0;
}
