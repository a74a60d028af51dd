#include "net_merger_server.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
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
  f.max_workers = std::max<size_t>(1, std::min(c.max_fetch_workers, c.max_connections));
  f.launch_thread = c.launch_thread;
  return f;
}

RegisterGate::Config GateConfig(const NetMergerConfig& c) {
  RegisterGate::Config g;
  g.max_pending = c.max_unauthenticated;
  g.timeout_ms = c.register_timeout_ms;
  return g;
}

}  // namespace

NetMergerServer::NetMergerServer(NetMergerConfig config, const JobRegistry* jobs,
                                 Transport* transport)
    : config_(std::move(config)),
      // Only ctx_.inputs' address is taken here; ctx_ is built before anything reads it.
      read_ahead_(config_.memory_bytes, config_.buffer_bytes, &ctx_.inputs),
      fetch_(transport, FetchConfig(config_)),
      gate_(
          GateConfig(config_),
          [this](int fd, const uint8_t* nonce, const std::vector<uint8_t>& body) {
            OnRegister(fd, nonce, body);
          },
          [this] { Reap(); }) {
  ctx_.limits.buffer_bytes = config_.buffer_bytes;
  ctx_.limits.memory_bytes = config_.memory_bytes;
  ctx_.limits.spill_dirs = config_.spill_dirs;
  ctx_.limits.max_sessions = config_.max_sessions;
  ctx_.limits.max_endpoints = config_.max_endpoints_per_session;
  ctx_.launch_thread = config_.launch_thread;
  ctx_.jobs = jobs;
  ctx_.fetch = &fetch_;
  ctx_.read_ahead = &read_ahead_;
}

int NetMergerServer::Start() {
  int e = listener_.Listen(config_.socket_path, config_.socket_shared ? 0666 : 0600);
  if (e != 0) return e;
  if ((e = gate_.Start(listener_.fd(), config_.launch_thread)) != 0) return e;
  started_ = true;
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

void NetMergerServer::Reap() {
  std::vector<std::thread> finished;
  {
    std::lock_guard<std::mutex> g(mu_);
    ReapLocked(&finished);
  }
  for (auto& t : finished) t.join();
}

// On the gate thread, with a complete REGISTER frame: refusals are answered here (no thread
// is ever started for them); an admitted reducer gets its session thread.
void NetMergerServer::OnRegister(int fd, const uint8_t* nonce, const std::vector<uint8_t>& body) {
  Admission admitted;
  std::string why;
  RegisterStatus status = AdmitRegister(body, nonce, &ctx_, &admitted, &why);
  if (status != RegisterStatus::kOk) {
    refusal_log_.Log("REGISTER -> " + std::to_string(static_cast<int>(status)) + " " + why);
    std::vector<uint8_t> f;
    EncodeRegistered({status, why, ""}, &f);
    ::send(fd, f.data(), f.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    ::close(fd);
    return;
  }
  int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);  // sessions use blocking I/O on their threads
  std::vector<std::thread> finished;
  {
    std::lock_guard<std::mutex> g(mu_);
    ReapLocked(&finished);
    sessions_.emplace_back();
    Slot* slot = &sessions_.back();
    slot->session =
        std::make_unique<MergerSession>(WrapStreamSocket(fd), &ctx_, std::move(admitted));
    if (stopped_ || !TryStartThread(
                        config_.launch_thread,
                        [this, slot] {
                          slot->session->Run();
                          std::lock_guard<std::mutex> g2(mu_);
                          slot->done = true;
                        },
                        &slot->thread, &why)) {
      // Out of threads: this reducer hears busy (and runs stock shuffle); the daemon lives.
      slot->session->Refuse(stopped_ ? "stopping" : why);
      sessions_.pop_back();
    }
  }
  for (auto& t : finished) t.join();
}

void NetMergerServer::Stop() {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  gate_.Stop();
  listener_.Close();
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
