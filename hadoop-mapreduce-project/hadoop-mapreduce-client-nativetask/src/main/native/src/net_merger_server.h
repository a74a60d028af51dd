// The NetMerger daemon's server (seed 001 §III-C, DESIGN.md §3): a Unix socket every reduce
// task on this node connects to, one thread per reducer session, and one FetchClient (with
// its connection pool and per-node workers) shared by all sessions.
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
  size_t max_sessions = 1024;       // registered reducers at once (not a command-line option)
  int register_timeout_ms = 60000;  // a connection must REGISTER within this (nor this)
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
  void AcceptLoop();
  void ReapLocked(std::vector<std::thread>* finished);

  NetMergerConfig config_;
  ReadAheadBudget read_ahead_;  // before fetch_: outlives every fetch callback
  FetchClient fetch_;
  SessionContext ctx_;
  UnixListener listener_;
  std::thread acceptor_;
  std::mutex mu_;
  std::list<Slot> sessions_;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace hadoop_accel::jbs

#endif
