// jbs_net_merger: the per-node NetMerger daemon (DESIGN.md §1, §3). Started and supervised by
// the NodeManager aux service:
//
//   jbs_net_merger --socket PATH [--buffer-bytes 131072] [--memory-bytes 268435456]
//                  [--max-connections 512] [--spill-dirs D1,D2,...]
//                  [--connect-timeout-ms 5000] [--read-timeout-ms 180000]
//                  [--fetch-retries 5] [--retry-backoff-ms 500]
//
// Prints "READY <socket path>" once listening, then serves the control channel on
// stdin/stdout until stdin closes, and exits (sessions ended, socket and spill runs removed).
// At start it removes the spill runs a killed NetMerger left in its spill dirs (spill_sweep.h).
// A bad argument: a message naming the option on stderr, exit 2.
#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "control_channel.h"
#include "jbs_key_table.h"
#include "net_merger_server.h"
#include "spill_sweep.h"
#include "transport.h"

using namespace hadoop_accel::jbs;
namespace keys = hadoop_accel::keys;

namespace {

[[noreturn]] void Usage(const std::string& why) {
  std::fprintf(
      stderr,
      "jbs_net_merger: %s\nusage: jbs_net_merger --socket PATH [--socket-access owner|any] "
      "[--buffer-bytes N] "
      "[--memory-bytes N] [--max-connections N] [--spill-dirs D1,D2,...] "
      "[--connect-timeout-ms N] [--read-timeout-ms N] [--fetch-retries N] "
      "[--retry-backoff-ms N]\n",
      why.c_str());
  std::exit(2);
}

// A decimal within the range accel-default.xml declares for the option's key (the generated
// jbs_key_table.h; JbsConfig checks the key against the same range).
uint64_t Number(const std::string& option, const char* text, const keys::KeyBounds& bounds) {
  if (text == nullptr) Usage(option + " needs a value");
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (*text < '0' || *text > '9' || *end != '\0' || errno != 0 || !bounds.Accepts(v))
    Usage("bad value for " + option + " (" + bounds.key + "): '" + text + "' (want " +
          std::to_string(bounds.min) + ".." + std::to_string(bounds.max) +
          (bounds.step == 1 ? "" : " step " + std::to_string(bounds.step)) + ")");
  return v;
}

// The int options' ranges must fit an int.
static_assert(keys::kJbsConnectTimeoutMs.max <= INT_MAX && keys::kJbsReadTimeoutMs.max <= INT_MAX &&
              keys::kJbsFetchRetries.max <= INT_MAX &&
              keys::kJbsFetchRetryBackoffMs.max <= INT_MAX);

std::vector<std::string> Dirs(const char* text) {
  if (text == nullptr || *text == '\0') Usage("--spill-dirs needs a value");
  std::vector<std::string> dirs;
  std::string s = text;
  for (size_t start = 0; start <= s.size();) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    std::string d = s.substr(start, comma - start);
    struct stat st;
    if (d.empty() || ::stat(d.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      Usage("bad value for --spill-dirs: '" + d + "' is not a directory");
    dirs.push_back(d);
    start = comma + 1;
  }
  return dirs;
}

NetMergerConfig Parse(int argc, char** argv) {
  NetMergerConfig c;
  for (int i = 1; i < argc; i += 2) {  // every option takes a value
    std::string opt = argv[i];
    const char* val = i + 1 < argc ? argv[i + 1] : nullptr;
    if (opt == "--socket") {
      if (val == nullptr || *val == '\0') Usage("--socket needs a value");
      c.socket_path = val;
    } else if (opt == "--socket-access") {
      std::string v = val == nullptr ? "" : val;
      if (v != "owner" && v != "any") Usage("bad value for --socket-access: expected owner|any");
      c.socket_shared = v == "any";
    } else if (opt == "--buffer-bytes") {
      c.buffer_bytes = Number(opt, val, keys::kJbsBufferBytes);
    } else if (opt == "--memory-bytes") {
      c.memory_bytes = Number(opt, val, keys::kJbsMergerMemoryBytes);
    } else if (opt == "--max-connections") {
      c.max_connections = Number(opt, val, keys::kJbsMergerMaxConnections);
    } else if (opt == "--spill-dirs") {
      c.spill_dirs = Dirs(val);
    } else if (opt == "--connect-timeout-ms") {
      c.connect_timeout_ms = static_cast<int>(Number(opt, val, keys::kJbsConnectTimeoutMs));
    } else if (opt == "--read-timeout-ms") {
      c.read_timeout_ms = static_cast<int>(Number(opt, val, keys::kJbsReadTimeoutMs));
    } else if (opt == "--fetch-retries") {
      c.fetch_retries = static_cast<int>(Number(opt, val, keys::kJbsFetchRetries));
    } else if (opt == "--retry-backoff-ms") {
      c.retry_backoff_ms = static_cast<int>(Number(opt, val, keys::kJbsFetchRetryBackoffMs));
    } else {
      Usage("unknown option " + opt);
    }
  }
  if (c.socket_path.empty()) Usage("--socket is required");
  if (c.spill_dirs.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    c.spill_dirs.push_back(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  NetMergerConfig config = Parse(argc, argv);
  ::signal(SIGPIPE, SIG_IGN);  // a vanished peer is an EPIPE result, never a crash
  JobRegistry jobs;
  std::unique_ptr<Transport> tcp = MakeTcpTransport(config.read_timeout_ms);
  NetMergerServer server(config, &jobs, tcp.get());
  std::string why;
  if (!SecureSocketDir(config.socket_path, config.socket_shared ? 0711 : 0700, &why)) {
    std::fprintf(stderr, "jbs_net_merger: %s\n", why.c_str());
    return 1;
  }
  // Runs a killed daemon left behind; the dirs stay locked (shared) while this one runs.
  SpillDirLocks spill_locks;
  SpillDirLocks::Swept swept = spill_locks.LockAndSweep(config.spill_dirs);
  std::string not_swept;
  for (const std::string& n : swept.not_swept) not_swept += "; not swept: " + n;
  std::fprintf(stderr, "jbs_net_merger: swept %llu stale spill runs (%llu bytes)%s\n",
               static_cast<unsigned long long>(swept.files),
               static_cast<unsigned long long>(swept.bytes), not_swept.c_str());
  if (int e = server.Start()) {
    std::fprintf(stderr, "jbs_net_merger: cannot listen on %s: %s\n", config.socket_path.c_str(),
                 std::strerror(e));
    return 1;
  }
  std::fprintf(stderr,
               "jbs_net_merger: listening on %s (buffer %zu B, memory %llu B, max %zu "
               "connections, %zu spill dirs)\n",
               config.socket_path.c_str(), config.buffer_bytes,
               static_cast<unsigned long long>(config.memory_bytes), config.max_connections,
               config.spill_dirs.size());
  std::printf("READY %s\n", config.socket_path.c_str());
  std::fflush(stdout);
  ControlHooks hooks;
  hooks.stats = [&server] { return server.StatsLine(); };
  RunControlChannel(stdin, stdout, &jobs, hooks);
  std::fprintf(stderr, "jbs_net_merger: stdin closed, stopping\n");
  server.Stop();
  return 0;
}
