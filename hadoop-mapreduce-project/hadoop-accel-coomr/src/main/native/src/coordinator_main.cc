// coomr_coordinator: the node coordinator as a daemon (see coordinator.h), until SIGTERM or SIGINT.
//   coomr_coordinator --socket PATH --pool-dir DIR --pool-bytes N [--block-size N]
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "coordinator.h"

namespace {

int Usage() {
  fprintf(stderr,
          "usage: coomr_coordinator --socket PATH --pool-dir DIR --pool-bytes N "
          "[--block-size N]\n");
  return 2;
}

bool ParseSize(const char* s, uint64_t* out) {
  char* end = nullptr;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || *end != '\0' || v == 0) return false;
  *out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using hadoop_accel::coomr::Coordinator;
  using hadoop_accel::coomr::CoordinatorOptions;
  CoordinatorOptions o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    uint64_t n = 0;
    if (k == "--socket") {
      o.socket_path = argv[i + 1];
    } else if (k == "--pool-dir") {
      o.pool_dir = argv[i + 1];
    } else if (k == "--pool-bytes" && ParseSize(argv[i + 1], &n)) {
      o.pool_bytes = n;
    } else if (k == "--block-size" && ParseSize(argv[i + 1], &n) && n <= (1u << 30)) {
      o.block_size = static_cast<uint32_t>(n);
    } else {
      fprintf(stderr, "coomr_coordinator: bad option %s %s\n", argv[i], argv[i + 1]);
      return Usage();
    }
  }
  if (argc % 2 == 0 || o.socket_path.empty() || o.pool_dir.empty() || o.pool_bytes == 0) {
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
    fprintf(stderr, "coomr_coordinator: serving %s, pool %s of %llu bytes in blocks of %u\n",
            o.socket_path.c_str(), o.pool_dir.c_str(),
            static_cast<unsigned long long>(o.pool_bytes), o.block_size);
    int sig = 0;
    sigwait(&stop, &sig);
    c.Stop();
  } catch (const std::exception& e) {
    fprintf(stderr, "coomr_coordinator: %s\n", e.what());
    return 1;
  }
  return 0;
}
