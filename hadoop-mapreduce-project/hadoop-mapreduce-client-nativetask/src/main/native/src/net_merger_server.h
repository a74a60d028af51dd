// The NetMerger daemon's server (seed 001 §III-C, DESIGN.md §3): a Unix socket every reduce
// task on this node connects to, a gate thread holding connections until they REGISTER
// (RegisterGate: no thread per unauthenticated connection), a session thread (and its
// reader) per registered reducer, and one FetchClient (with its connection pool and a bounded
// set of fetch workers) shared by all sessions.
#ifndef HADOOP_ACCEL_JBS_NET_MERGER_SERVER_H
#define HADOOP_ACCEL_JBS_NET_MERGER_SERVER_H

#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fetch_client.h"
#include "jbs_key_table.h"
#include "job_registry.h"
#include "merger_session.h"
#include "register_gate.h"
#include "thread_launcher.h"
#include "transport.h"
#include "unix_socket.h"

namespace hadoop_accel::jbs {

struct NetMergerConfig {
  std::string socket_path;
  // Reduces run as other users than the daemon (LinuxContainerExecutor): socket 0666 in a
  // 0711 directory; else 0600 in 0700.
  bool socket_shared = false;
  // Defaults from accel-default.xml (the generated jbs_key_table.h).
  size_t buffer_bytes = keys::kJbsBufferBytes.default_value;
  uint64_t memory_bytes = keys::kJbsMergerMemoryBytes.default_value;
  size_t max_connections = keys::kJbsMergerMaxConnections.default_value;
  std::vector<std::string> spill_dirs;
  int connect_timeout_ms = static_cast<int>(keys::kJbsConnectTimeoutMs.default_value);
  // for the transport the caller makes (MakeTcpTransport)
  int read_timeout_ms = static_cast<int>(keys::kJbsReadTimeoutMs.default_value);
  int fetch_retries = static_cast<int>(keys::kJbsFetchRetries.default_value);
  int retry_backoff_ms = static_cast<int>(keys::kJbsFetchRetryBackoffMs.default_value);
  // Documented constants, not keys (README "Limits before authentication"):
  size_t max_sessions = 1024;                // registered reducers at once
  size_t max_unauthenticated = 256;          // connections waiting for their REGISTER (gate)
  int register_timeout_ms = 10000;           // HELLO .. complete REGISTER, else closed
  size_t max_fetch_workers = 64;             // fetch threads (also at most max_connections)
  size_t max_endpoints_per_session = 16384;  // distinct host:port in one session's MAP_OUTPUTs
  ThreadLauncher launch_thread;              // empty: std::thread (tests inject failures)
};

class NetMergerServer {
 public:
  // transport: how to reach MOFSuppliers (TCP); jobs: filled by the control channel.
  NetMergerServer(NetMergerConfig config, const JobRegistry* jobs, Transport* transport);
  ~NetMergerServer() { Stop(); }

  // Listens on the socket (a stale socket file is replaced; mode 0600, or 0666 if shared) and
  // starts accepting. 0 or an errno. The caller checks the directory (SecureSocketDir).
  int Start();
  // Ends every session, stops fetching, joins all threads, removes the socket. Idempotent.
  void Stop();

  size_t live_sessions();
  RegisterGate::Stats gate_stats() const { return gate_.stats(); }
  size_t fetch_workers() const { return fetch_.workers(); }
  size_t fetch_nodes() const { return fetch_.nodes(); }
  ConnectionPool::Stats pool_stats() const { return fetch_.pool_stats(); }
  // Bytes of fetched chunks held (or asked for) and not yet merged, all sessions.
  int64_t read_ahead_held_bytes() const { return read_ahead_.held(); }
  // The control channel's STATS answer (jbs_stats.h).
  std::string StatsLine() const;

 private:
  struct Slot {
    std::unique_ptr<MergerSession> session;
    std::thread thread;
    bool done = false;
  };
  void OnRegister(int fd, const uint8_t* nonce, const std::vector<uint8_t>& body);
  void Reap();
  void ReapLocked(std::vector<std::thread>* finished);

  NetMergerConfig config_;
  ReadAheadBudget read_ahead_;  // before fetch_: outlives every fetch callback
  FetchClient fetch_;
  SessionContext ctx_;
  UnixListener listener_;
  RegisterGate gate_;
  RateLimitedLog refusal_log_{stderr, "jbs_net_merger: "};
  std::mutex mu_;
  std::list<Slot> sessions_;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace hadoop_accel::jbs

#endif
