#include "net_merger_server.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace hadoop_accel::jbs {
namespace {

FetchClient::Config FetchConfig(const NetMergerConfig& c) {
  FetchClient::Config f;
  f.max_connections = c.max_connections;
  f.connect_timeout_ms = c.connect_timeout_ms;
  f.retries = c.fetch_retries;
  f.backoff_ms = c.retry_backoff_ms;
  f.max_chunk = static_cast<uint32_t>(c.buffer_bytes);
  return f;
}

}  // namespace

NetMergerServer::NetMergerServer(NetMergerConfig config, const JobRegistry* jobs,
                                 Transport* transport)
    : config_(std::move(config)),
      // Only ctx_.inputs' address is taken here; ctx_ is built before anything reads it.
      read_ahead_(config_.memory_bytes, config_.buffer_bytes, &ctx_.inputs),
      fetch_(transport, FetchConfig(config_)) {
  ctx_.limits.buffer_bytes = config_.buffer_bytes;
  ctx_.limits.memory_bytes = config_.memory_bytes;
  ctx_.limits.spill_dirs = config_.spill_dirs;
  ctx_.limits.max_sessions = config_.max_sessions;
  ctx_.limits.register_timeout_ms = config_.register_timeout_ms;
  ctx_.jobs = jobs;
  ctx_.fetch = &fetch_;
  ctx_.read_ahead = &read_ahead_;
}

int NetMergerServer::Start() {
  int e = listener_.Listen(config_.socket_path, config_.socket_shared ? 0666 : 0600);
  if (e != 0) return e;
  started_ = true;
  acceptor_ = std::thread(&NetMergerServer::AcceptLoop, this);
  return 0;
}

std::string NetMergerServer::StatsLine() const {
  const MergerStats& m = ctx_.stats;
  const FetchStats& f = fetch_.stats();
  StatsFields fields = {{"bytes_fetched", f.bytes.load()},
                        {"bytes_merged", m.bytes_merged.load()},
                        {"bytes_spilled", m.bytes_spilled.load()},
                        {"sessions", m.sessions.load()},
                        {"active_sessions", ctx_.registered.load()},
                        {"merges", m.merges.load()},
                        {"fetch_failures", f.failures.load()},
                        {"fetch_retries", fetch_.retries()},
                        {"auth_refusals", m.auth_refusals.load()},
                        {"active_connections", fetch_.pool_stats().open}};
  f.latency.AppendTo("fetch_latency", &fields);
  return EncodeStats(fields);
}

size_t NetMergerServer::live_sessions() {
  std::lock_guard<std::mutex> g(mu_);
  size_t n = 0;
  for (const Slot& s : sessions_) n += s.done ? 0 : 1;
  return n;
}

void NetMergerServer::ReapLocked(std::vector<std::thread>* finished) {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (it->done) {
      finished->push_back(std::move(it->thread));
      it = sessions_.erase(it);  // the session ended its Run: destroying it joins its reader
    } else {
      ++it;
    }
  }
}

void NetMergerServer::AcceptLoop() {
  for (;;) {
    std::unique_ptr<Connection> conn;
    int e = listener_.Accept(&conn);
    if (e == ESHUTDOWN) return;
    if (e != 0) {
      std::fprintf(stderr, "jbs_net_merger: accept: %s\n", std::strerror(e));
      if (e == EMFILE || e == ENFILE || e == ENOMEM || e == ENOBUFS) {
        continue;  // a session ending frees descriptors; poll() blocks until then
      }
      return;
    }
    std::vector<std::thread> finished;
    {
      std::lock_guard<std::mutex> g(mu_);
      ReapLocked(&finished);
      if (stopped_) return;
      sessions_.emplace_back();
      Slot* slot = &sessions_.back();
      slot->session = std::make_unique<MergerSession>(std::move(conn), &ctx_);
      slot->thread = std::thread([this, slot] {
        slot->session->Run();
        std::lock_guard<std::mutex> g2(mu_);
        slot->done = true;
      });
    }
    for (auto& t : finished) t.join();
  }
}

void NetMergerServer::Stop() {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  listener_.Close();
  if (acceptor_.joinable()) acceptor_.join();
  {
    std::lock_guard<std::mutex> g(mu_);
    for (Slot& s : sessions_) s.session->Abort();
  }
  fetch_.Stop();  // fails in-flight fetches, so a merge waiting for a chunk ends
  std::list<Slot> all;
  {
    std::lock_guard<std::mutex> g(mu_);
    all.swap(sessions_);
  }
  for (Slot& s : all)
    if (s.thread.joinable()) s.thread.join();
  all.clear();
}

}  // namespace hadoop_accel::jbs
