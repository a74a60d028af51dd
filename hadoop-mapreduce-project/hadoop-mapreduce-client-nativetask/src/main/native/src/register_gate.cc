#include "register_gate.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "job_auth.h"

namespace hadoop_accel::jbs {
namespace {

constexpr uint64_t kListenTag = 0;
constexpr uint64_t kWakeTag = UINT64_MAX;
constexpr std::chrono::milliseconds kFirstBackoff{100};
constexpr std::chrono::milliseconds kMaxBackoff{1000};

// One non-blocking send of a small frame to a connection that is about to be closed (or has
// just been accepted): a peer that does not take it loses it, the gate never waits.
bool SendNow(int fd, const std::vector<uint8_t>& frame) {
  ssize_t w = ::send(fd, frame.data(), frame.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  return w == static_cast<ssize_t>(frame.size());
}

}  // namespace

RegisterGate::RegisterGate(Config config, OnRegister on_register, OnTick on_tick)
    : config_(config), on_register_(std::move(on_register)), on_tick_(std::move(on_tick)) {}

int RegisterGate::Start(int listen_fd, const ThreadLauncher& launch) {
  listen_fd_ = listen_fd;
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epoll_fd_ < 0 || wake_fd_ < 0) return errno;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kWakeTag;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev) != 0) return errno;
  ev.data.u64 = kListenTag;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev) != 0) return errno;
  next_tick_ = Clock::now() + std::chrono::seconds(1);
  std::string why;
  if (!TryStartThread(
          launch, [this] { Run(); }, &thread_, &why))
    return EAGAIN;
  started_ = true;
  return 0;
}

void RegisterGate::Stop() {
  if (started_ && !stopping_.exchange(true)) {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t w = ::write(wake_fd_, &one, sizeof(one));
  }
  if (thread_.joinable()) thread_.join();
  while (!pending_.empty()) Close(pending_.begin()->first);
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  epoll_fd_ = wake_fd_ = -1;
}

RegisterGate::Stats RegisterGate::stats() const {
  Stats s;
  s.accepted = accepted_;
  s.evicted = evicted_;
  s.timed_out = timed_out_;
  s.dropped = dropped_;
  s.fd_pauses = fd_pauses_;
  s.registers = registers_;
  s.pending = pending_count_;
  return s;
}

int RegisterGate::WaitMs() const {
  Clock::time_point until = next_tick_;
  if (!pending_.empty()) until = std::min(until, pending_.begin()->second.deadline);
  if (paused_) until = std::min(until, resume_at_);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(ms + 1, 0, 1000));
}

void RegisterGate::Run() {
  epoll_event evs[64];
  while (!stopping_) {
    int n = ::epoll_wait(epoll_fd_, evs, 64, WaitMs());
    if (n < 0 && errno != EINTR) {
      std::fprintf(stderr, "jbs_net_merger: epoll_wait: %s\n", std::strerror(errno));
      return;
    }
    bool accept_now = false;
    // The waiting connections' REGISTERs first, then new connections: a reduce that answered
    // HELLO is handed on before a flood's newer connections can push it out.
    for (int i = 0; i < n; ++i) {
      uint64_t tag = evs[i].data.u64;
      if (tag == kWakeTag) return;
      if (tag == kListenTag)
        accept_now = true;
      else
        OnReadable(tag);
    }
    Clock::time_point now = Clock::now();
    ExpireOld();
    if (paused_ && now >= resume_at_) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = kListenTag;
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev);
      paused_ = false;
    }
    if (accept_now && !paused_) AcceptSome();
    if (now >= next_tick_) {
      if (on_tick_) on_tick_();
      next_tick_ = now + std::chrono::seconds(1);
    }
  }
}

void RegisterGate::AcceptSome() {
  for (size_t k = 0; k < config_.accept_batch; ++k) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      int e = errno;
      if (e == EINTR || e == ECONNABORTED) continue;
      if (e == EAGAIN || e == EWOULDBLOCK) return;
      OutOfDescriptors(e);  // EMFILE, ENFILE, ENOBUFS, ENOMEM, or worse: back off either way
      return;
    }
    backoff_ = kFirstBackoff;
    ++accepted_;
    if (pending_.size() >= std::max<size_t>(1, config_.max_pending)) {
      ++evicted_;
      flood_log_.Log(std::to_string(pending_.size()) +
                     " connections have not sent REGISTER: closing the oldest");
      Close(pending_.begin()->first);
    }
    Pending p;
    p.fd = fd;
    p.deadline = Clock::now() + std::chrono::milliseconds(config_.timeout_ms);
    Hello hello;
    std::vector<uint8_t> f;
    if (!FillNonce(p.nonce)) {
      ::close(fd);
      continue;
    }
    std::memcpy(hello.nonce, p.nonce, kNonceLength);
    EncodeHello(hello, &f);
    uint64_t id = next_id_++;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = id;
    if (!SendNow(fd, f) || ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
      ++dropped_;
      ::close(fd);
      continue;
    }
    pending_.emplace(id, std::move(p));
    ++pending_count_;
  }
}

void RegisterGate::OutOfDescriptors(int err) {
  ++fd_pauses_;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
  paused_ = true;
  resume_at_ = Clock::now() + backoff_;
  fd_log_.Log(std::string("accepting reducers: ") + std::strerror(err) + "; pausing accepts for " +
              std::to_string(backoff_.count()) + " ms");
  backoff_ = std::min(backoff_ * 2, kMaxBackoff);
  // Give a descriptor back for registered sessions' work (fetches, spill runs).
  if (!pending_.empty()) {
    ++evicted_;
    Close(pending_.begin()->first);
  }
}

void RegisterGate::OnReadable(uint64_t id) {
  auto it = pending_.find(id);
  if (it == pending_.end()) return;
  Pending& p = it->second;
  for (;;) {
    size_t want = kFrameHeaderSize;
    ReducerFrame type = ReducerFrame::kHello;
    uint32_t body_length = 0;
    if (p.in.size() >= kFrameHeaderSize) {
      WireStatus s = DecodeReducerHeader(p.in.data(), kFrameHeaderSize, &type, &body_length);
      if (s != WireStatus::kOk) {
        Refuse(id, std::string("bad frame from the reducer: ") + WireStatusName(s));
        return;
      }
      if (type != ReducerFrame::kRegister) {
        Refuse(id, type == ReducerFrame::kMapOutput || type == ReducerFrame::kMerge
                       ? std::string("the first frame must be REGISTER")
                       : std::string("bad frame from the reducer: ") +
                             WireStatusName(WireStatus::kBadType));
        return;
      }
      want = kFrameHeaderSize + body_length;  // <= 12 + 2 KiB, bounded by the decoder
    }
    if (p.in.size() == want) {
      int fd = p.fd;
      std::vector<uint8_t> body(p.in.begin() + kFrameHeaderSize, p.in.end());
      uint8_t nonce[kNonceLength];
      std::memcpy(nonce, p.nonce, kNonceLength);
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
      pending_.erase(it);
      --pending_count_;
      ++registers_;
      on_register_(fd, nonce, body);
      return;
    }
    size_t have = p.in.size();
    p.in.resize(want);
    ssize_t r = ::recv(p.fd, p.in.data() + have, want - have, 0);
    p.in.resize(have + static_cast<size_t>(std::max<ssize_t>(r, 0)));
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (r <= 0) {  // the peer went away (or an error): nothing to answer
      ++dropped_;
      Close(id);
      return;
    }
  }
}

void RegisterGate::Refuse(uint64_t id, const std::string& why) {
  ++dropped_;
  flood_log_.Log("closing a connection before REGISTER: " + why);
  std::vector<uint8_t> f;
  EncodeError({ErrorCode::kProtocol, why}, &f);
  Close(id, f);
}

void RegisterGate::Close(uint64_t id, const std::vector<uint8_t>& last_words) {
  auto it = pending_.find(id);
  if (it == pending_.end()) return;
  if (!last_words.empty()) SendNow(it->second.fd, last_words);
  if (epoll_fd_ >= 0) ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, it->second.fd, nullptr);
  ::close(it->second.fd);
  pending_.erase(it);
  --pending_count_;
}

void RegisterGate::ExpireOld() {
  Clock::time_point now = Clock::now();
  while (!pending_.empty() && pending_.begin()->second.deadline <= now) {
    ++timed_out_;
    std::string why = "no REGISTER within " + std::to_string(config_.timeout_ms) + " ms";
    flood_log_.Log("closing a connection: " + why);
    std::vector<uint8_t> f;
    EncodeError({ErrorCode::kProtocol, why}, &f);
    Close(pending_.begin()->first, f);
  }
}

}  // namespace hadoop_accel::jbs
