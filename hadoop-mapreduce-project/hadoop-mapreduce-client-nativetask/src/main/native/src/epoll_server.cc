#include "epoll_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tcp_socket.h"

namespace hadoop_accel::jbs {
namespace {

constexpr uint64_t kListenTag = 0;
constexpr uint64_t kWakeTag = UINT64_MAX;
// Room for several whole request frames (each at most 12 + 512 bytes).
constexpr size_t kInputCapacity = 16 * 1024;
constexpr int kMaxIov = 64;
constexpr int kAcceptBatch = 64;
using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kAcceptBackoff{100};

}  // namespace

struct EpollServer::Conn {
  // A response on its way out: frame prefix, then the chunk from its pool buffer.
  struct Out {
    uint8_t prefix[kResponsePrefixSize];
    std::optional<uint32_t> buffer;
    uint32_t chunk_length = 0;
    size_t sent = 0;  // of prefix + chunk
  };

  EventLoop* loop = nullptr;
  uint64_t id = 0;
  int fd = -1;
  std::string peer;
  uint8_t in[kInputCapacity];
  size_t in_len = 0;
  uint64_t next_seq = 0;                      // given to the next request parsed
  uint64_t next_send = 0;                     // the request whose answer goes out next
  size_t unanswered = 0;                      // parsed, answer not yet fully sent
  std::map<uint64_t, FetchCompletion> ready;  // answers that came back ahead of their turn
  std::deque<Out> out;
  bool paused = false;     // not reading: too many unanswered, or the peer finished sending
  bool peer_done = false;  // the peer shut down its sending side
  uint32_t events = 0;     // what epoll watches now
  Clock::time_point last_io = Clock::now();  // last byte received or sent
  Clock::time_point accepted_at = Clock::now();
  bool authenticated = false;  // a request of it passed the MAC check
};

struct EpollServer::EventLoop {
  size_t index = 0;  // also the engine's completion sink
  int epoll_fd = -1;
  int wake_fd = -1;  // eventfd: completions ready, or Stop()
  bool accepting = true;
  Clock::time_point resume_at;  // when not accepting: try again from then on
  std::thread thread;
  std::unordered_map<uint64_t, std::unique_ptr<Conn>> conns;
  std::deque<uint64_t> unauthenticated;  // in accept order; stale ids skipped lazily
  size_t unauthenticated_open = 0;
};

namespace {

PipelinedEngine::Config WithSinks(PipelinedEngine::Config c, size_t sinks) {
  c.sinks = sinks;
  return c;
}

}  // namespace

EpollServer::EpollServer(DataEngine* planner, BufferPool* pool, Config config,
                         UnauthorizedHook on_unauthorized)
    : pool_(pool),
      config_(config),
      on_unauthorized_(std::move(on_unauthorized)),
      loops_([&] {
        std::vector<std::unique_ptr<EventLoop>> v;
        for (size_t i = 0; i < std::clamp<size_t>(config.network_threads, 1, 64); ++i) {
          v.push_back(std::make_unique<EventLoop>());
          v.back()->index = i;
        }
        return v;
      }()),
      engine_(planner, pool, WithSinks(config.engine, loops_.size()),
              [this](size_t sink) { Wake(loops_[sink].get()); }) {
  if (config_.max_inflight == 0) config_.max_inflight = 1;
}

void EpollServer::Wake(EventLoop* l) {
  uint64_t one = 1;
  // The counter only saturates after 2^64 - 2 wake-ups without a read: ignore EAGAIN.
  [[maybe_unused]] ssize_t w = ::write(l->wake_fd, &one, sizeof(one));
}

EpollServer::~EpollServer() { Stop(); }

int EpollServer::Start(const Endpoint& at) {
  if (started_) return EALREADY;
  rlimit nofile{};
  if (::getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY &&
      nofile.rlim_cur > 64)  // leave room for map output files, pipes and the epoll fds
    config_.max_connections = std::min<size_t>(config_.max_connections, nofile.rlim_cur - 64);
  if (int e = ListenTcp(at, true, &listen_fd_, &port_)) return e;
  int err = 0;
  for (auto& l : loops_) {
    l->epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
    l->wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (l->epoll_fd < 0 || l->wake_fd < 0) {
      err = errno;
      break;
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kWakeTag;
    ::epoll_ctl(l->epoll_fd, EPOLL_CTL_ADD, l->wake_fd, &ev);
    SetAccepting(l.get(), true);
  }
  if (err != 0) {
    for (auto& l : loops_) {
      if (l->epoll_fd >= 0) ::close(l->epoll_fd);
      if (l->wake_fd >= 0) ::close(l->wake_fd);
      l->epoll_fd = l->wake_fd = -1;
    }
    ::close(listen_fd_);
    listen_fd_ = -1;
    return err;
  }
  started_ = true;
  engine_.Start();
  for (auto& l : loops_) {
    EventLoop* loop = l.get();
    loop->thread = std::thread([this, loop] {
      ::pthread_setname_np(::pthread_self(), "jbs-epoll");  // for top -H, perf, gdb
      Run(loop);
    });
  }
  return 0;
}

void EpollServer::Stop() {
  if (!started_) return;
  started_ = false;
  stopping_ = true;
  for (auto& l : loops_) Wake(l.get());
  for (auto& l : loops_)
    if (l->thread.joinable()) l->thread.join();  // each closes its connections on its way out
  engine_.Stop();                                // returns the buffers of answers nobody took
  for (auto& l : loops_) {
    ::close(l->epoll_fd);
    ::close(l->wake_fd);
    l->epoll_fd = l->wake_fd = -1;
  }
  ::close(listen_fd_);
  listen_fd_ = -1;
}

EpollServer::Stats EpollServer::stats() const {
  Stats s;
  s.accepted = accepted_;
  s.rejected_connections = rejected_;
  s.served = served_;
  s.busy = busy_;
  s.stalled = stalled_;
  s.open_connections = open_;
  s.unauthenticated_closed = unauth_closed_;
  s.idle_closed = idle_closed_;
  s.fd_pauses = fd_pauses_;
  s.served_bytes = served_bytes_;
  s.refused_at_cap = refused_at_cap_;
  return s;
}

void EpollServer::Run(EventLoop* l) {
  epoll_event evs[128];
  // Stalled connections are looked for a few times per timeout (at most once a second).
  const auto sweep_every = std::clamp<Clock::duration>(
      std::min<Clock::duration>(
          {config_.stall_timeout, config_.pre_auth_timeout, config_.idle_timeout}) /
          4,
      std::chrono::milliseconds(1), std::chrono::seconds(1));
  const int wait_ms =
      static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(sweep_every).count()) +
      1;
  Clock::time_point next_sweep = Clock::now() + sweep_every;
  while (!stopping_) {
    int n = ::epoll_wait(l->epoll_fd, evs, 128, wait_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (Clock::now() >= next_sweep) {
      CloseStalled(l);
      next_sweep = Clock::now() + sweep_every;
    }
    if (!l->accepting && Clock::now() >= l->resume_at) SetAccepting(l, true);
    for (int i = 0; i < n && !stopping_; ++i) {
      uint64_t tag = evs[i].data.u64;
      if (tag == kListenTag) {
        AcceptAll(l);
        continue;
      }
      if (tag == kWakeTag) {
        uint64_t count;
        [[maybe_unused]] ssize_t r = ::read(l->wake_fd, &count, sizeof(count));
        OnCompletions(l);
        continue;
      }
      auto it = l->conns.find(tag);
      if (it == l->conns.end()) continue;  // closed earlier in this batch
      Conn* c = it->second.get();
      if (evs[i].events & (EPOLLERR | EPOLLHUP)) {  // nothing more can reach the peer
        CloseConn(c);
        continue;
      }
      if (evs[i].events & EPOLLIN) {
        OnReadable(c);
        if (l->conns.count(tag) == 0) continue;
      }
      if (evs[i].events & EPOLLOUT) Pump(c);
    }
  }
  while (!l->conns.empty()) CloseConn(l->conns.begin()->second.get());
}

void EpollServer::AcceptAll(EventLoop* l) {
  // A bounded batch per wake-up: under a connection flood the requests of connections already
  // accepted are read in between, before newer connections can push them out.
  for (int batch = 0; batch < kAcceptBatch; ++batch) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        // EMFILE, ENFILE, ENOBUFS, ...: a level-triggered listening socket would wake the loop
        // endlessly. Stop accepting until a connection closes or the back-off has passed.
        ++fd_pauses_;
        SetAccepting(l, false);
        l->resume_at = Clock::now() + kAcceptBackoff;
      }
      return;  // EAGAIN: no more waiting (or another loop took it)
    }
    if (open_.load() >= config_.max_connections) {
      ++refused_at_cap_;
      ::close(fd);
      continue;
    }
    // Room for one more unauthenticated connection: the oldest goes, unless its first request
    // is under the MAC check right now (a NetMerger sends it at once; a flood's connections
    // send nothing). With every one of them in that state, the new connection is refused.
    if (l->unauthenticated_open >= config_.max_unauthenticated) {
      bool made_room = false;
      for (auto it = l->unauthenticated.begin(); it != l->unauthenticated.end();) {
        auto c = l->conns.find(*it);
        if (c == l->conns.end() || c->second->authenticated) {
          it = l->unauthenticated.erase(it);
          continue;
        }
        if (c->second->next_seq > 0 && c->second->next_send == 0) {
          ++it;
          continue;
        }
        l->unauthenticated.erase(it);
        ++unauth_closed_;
        CloseConn(c->second.get());
        made_room = true;
        break;
      }
      if (!made_room) {
        ++unauth_closed_;
        ::close(fd);
        continue;
      }
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    auto c = std::make_unique<Conn>();
    c->loop = l;
    c->id = next_conn_id_++;
    c->fd = fd;
    c->peer = TcpPeerName(fd);
    c->events = EPOLLIN;
    epoll_event ev{};
    ev.events = c->events;
    ev.data.u64 = c->id;
    if (::epoll_ctl(l->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
      ::close(fd);
      continue;
    }
    ++accepted_;
    ++open_;
    l->unauthenticated.push_back(c->id);
    ++l->unauthenticated_open;
    l->conns.emplace(c->id, std::move(c));
  }
}

void EpollServer::OnReadable(Conn* c) {
  uint64_t id = c->id;
  EventLoop* l = c->loop;
  // A few reads per readiness, then the next connection's turn (epoll is level-triggered).
  for (int round = 0; round < 4 && !c->paused; ++round) {
    if (c->in_len == kInputCapacity) break;  // parse first
    ssize_t r = ::recv(c->fd, c->in + c->in_len, kInputCapacity - c->in_len, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (r < 0) {
      CloseConn(c);
      return;
    }
    if (r == 0) {
      // The peer is done sending. A partial frame will never complete; otherwise answer what
      // it asked for, then close.
      if (c->in_len > 0 || c->unanswered == 0) {
        CloseConn(c);
        return;
      }
      c->peer_done = c->paused = true;
      break;
    }
    c->in_len += static_cast<size_t>(r);
    c->last_io = Clock::now();
    if (!ParseRequests(c)) return;
  }
  if (l->conns.count(id)) Pump(c);
}

bool EpollServer::ParseRequests(Conn* c) {
  size_t pos = 0;
  while (c->unanswered < config_.max_inflight) {
    FetchRequest req;
    size_t used = 0;
    WireStatus s = DecodeRequest(c->in + pos, c->in_len - pos, &req, &used);
    if (s == WireStatus::kNeedMore) break;
    if (s != WireStatus::kOk) {  // junk: its request id is unknown, nobody to answer
      ++rejected_;
      CloseConn(c);
      return false;
    }
    pos += used;
    uint64_t seq = c->next_seq++;
    ++c->unanswered;
    uint64_t request_id = req.request_id;
    if (!engine_.Submit(c->loop->index, c->id, seq, std::move(req))) {
      ++busy_;
      FetchCompletion busy;
      busy.conn = c->id;
      busy.seq = seq;
      busy.request.request_id = request_id;
      busy.header.request_id = request_id;
      busy.header.status = ResponseStatus::kBusy;
      c->ready.emplace(seq, std::move(busy));
    }
  }
  if (pos > 0) {
    std::memmove(c->in, c->in + pos, c->in_len - pos);
    c->in_len -= pos;
  }
  if (c->unanswered >= config_.max_inflight) c->paused = true;
  return true;
}

void EpollServer::OnCompletions(EventLoop* l) {
  std::vector<FetchCompletion> done;
  engine_.TakeCompletions(l->index, &done);
  std::vector<uint64_t> touched;
  for (FetchCompletion& d : done) {
    auto it = l->conns.find(d.conn);
    if (it == l->conns.end()) {  // the connection closed while its read was under way
      if (d.buffer) engine_.ReleaseBuffer(*d.buffer);
      continue;
    }
    if (d.header.status == ResponseStatus::kUnauthorized && on_unauthorized_)
      on_unauthorized_(d.request, it->second->peer);
    // Past the MAC check (refusals before it are UNAUTHORIZED, or BUSY from a full queue).
    if (!it->second->authenticated && d.header.status != ResponseStatus::kUnauthorized &&
        d.header.status != ResponseStatus::kBusy) {
      it->second->authenticated = true;
      --l->unauthenticated_open;
    }
    if (d.header.status == ResponseStatus::kBusy) ++busy_;
    touched.push_back(d.conn);
    uint64_t seq = d.seq;
    it->second->ready.emplace(seq, std::move(d));
  }
  for (uint64_t id : touched) {
    auto it = l->conns.find(id);
    if (it != l->conns.end()) Pump(it->second.get());
  }
}

void EpollServer::FlushInOrder(Conn* c) {
  for (auto it = c->ready.begin(); it != c->ready.end() && it->first == c->next_send;
       it = c->ready.erase(it), ++c->next_send) {
    FetchCompletion& d = it->second;
    Conn::Out& o = c->out.emplace_back();
    if (EncodeResponsePrefix(d.header, o.prefix, sizeof(o.prefix)) != WireStatus::kOk) {
      // Cannot happen for headers the planner built; never send what the client would refuse.
      if (d.buffer) engine_.ReleaseBuffer(*d.buffer);
      d.buffer.reset();
      FetchResponseHeader err;
      err.request_id = d.header.request_id;
      err.status = ResponseStatus::kServerError;
      EncodeResponsePrefix(err, o.prefix, sizeof(o.prefix));
      continue;
    }
    o.buffer = d.buffer;
    o.chunk_length = d.buffer ? d.header.chunk_length : 0;
  }
}

bool EpollServer::Send(Conn* c) {
  while (!c->out.empty()) {
    iovec iov[kMaxIov];
    int n = 0;
    for (const Conn::Out& o : c->out) {
      if (n + 2 > kMaxIov) break;
      size_t s = o.sent;
      if (s < kResponsePrefixSize) {
        iov[n++] = {const_cast<uint8_t*>(o.prefix) + s, kResponsePrefixSize - s};
        s = 0;
      } else {
        s -= kResponsePrefixSize;
      }
      if (o.chunk_length > s) iov[n++] = {pool_->data(*o.buffer) + s, o.chunk_length - s};
    }
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<size_t>(n);
    ssize_t w = ::sendmsg(c->fd, &msg, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;  // EPOLLOUT resumes
    if (w < 0) {
      CloseConn(c);
      return false;
    }
    size_t done = static_cast<size_t>(w);
    if (done > 0) c->last_io = Clock::now();
    while (done > 0) {
      Conn::Out& o = c->out.front();
      size_t left = kResponsePrefixSize + o.chunk_length - o.sent;
      if (done < left) {
        o.sent += done;
        break;
      }
      done -= left;
      if (o.buffer) engine_.ReleaseBuffer(*o.buffer);
      served_bytes_ += o.chunk_length;
      c->out.pop_front();
      --c->unanswered;
      ++served_;
    }
  }
  return true;
}

void EpollServer::Pump(Conn* c) {
  FlushInOrder(c);
  if (!Send(c)) return;
  if (c->paused && !c->peer_done && c->unanswered < config_.max_inflight) {
    c->paused = false;  // answers drained: take the requests already buffered, read again
    if (!ParseRequests(c)) return;
    FlushInOrder(c);
    if (!Send(c)) return;
  }
  if (c->peer_done && c->unanswered == 0) {
    CloseConn(c);
    return;
  }
  UpdateInterest(c);
}

void EpollServer::UpdateInterest(Conn* c) {
  uint32_t want = (c->paused ? 0u : static_cast<uint32_t>(EPOLLIN)) |
                  (c->out.empty() ? 0u : static_cast<uint32_t>(EPOLLOUT));
  if (want == c->events) return;
  epoll_event ev{};
  ev.events = want;
  ev.data.u64 = c->id;
  ::epoll_ctl(c->loop->epoll_fd, EPOLL_CTL_MOD, c->fd, &ev);
  c->events = want;
}

void EpollServer::CloseStalled(EventLoop* l) {
  const Clock::time_point now = Clock::now();
  std::vector<Conn*> stalled;
  std::vector<Conn*> unauth, idle;
  for (auto& [id, c] : l->conns) {
    bool owes = c->in_len > 0 || !c->out.empty();
    if (owes && now - c->last_io > config_.stall_timeout)
      stalled.push_back(c.get());
    else if (!c->authenticated && c->unanswered == 0 &&
             now - c->accepted_at > config_.pre_auth_timeout)
      unauth.push_back(c.get());
    else if (c->authenticated && !owes && c->unanswered == 0 &&
             now - c->last_io > config_.idle_timeout)
      idle.push_back(c.get());
  }
  for (Conn* c : stalled) {
    ++stalled_;
    CloseConn(c);
  }
  for (Conn* c : unauth) {
    ++unauth_closed_;
    CloseConn(c);
  }
  for (Conn* c : idle) {
    ++idle_closed_;
    CloseConn(c);
  }
  // Ids of connections that closed or authenticated since: keep the queue bounded.
  if (l->unauthenticated.size() > 2 * l->unauthenticated_open + 64) {
    std::deque<uint64_t> keep;
    for (uint64_t id : l->unauthenticated) {
      auto it = l->conns.find(id);
      if (it != l->conns.end() && !it->second->authenticated) keep.push_back(id);
    }
    l->unauthenticated.swap(keep);
  }
}

void EpollServer::CloseConn(Conn* c) {
  EventLoop* l = c->loop;
  ::epoll_ctl(l->epoll_fd, EPOLL_CTL_DEL, c->fd, nullptr);
  ::close(c->fd);
  for (Conn::Out& o : c->out)
    if (o.buffer) engine_.ReleaseBuffer(*o.buffer);
  for (auto& [seq, d] : c->ready)
    if (d.buffer) engine_.ReleaseBuffer(*d.buffer);
  if (!c->authenticated) --l->unauthenticated_open;
  l->conns.erase(c->id);  // frees c
  --open_;
  if (!l->accepting) SetAccepting(l, true);
}

void EpollServer::SetAccepting(EventLoop* l, bool on) {
  // Out of descriptors, a level-triggered listening socket would wake the loop endlessly.
  // EPOLLEXCLUSIVE: a new connection wakes one loop, not all (it cannot be MODified, so the
  // listening socket leaves and rejoins the loop's set).
  if (!on) {
    ::epoll_ctl(l->epoll_fd, EPOLL_CTL_DEL, listen_fd_, nullptr);
  } else {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLEXCLUSIVE;
    ev.data.u64 = kListenTag;
    ::epoll_ctl(l->epoll_fd, EPOLL_CTL_ADD, listen_fd_, &ev);
  }
  l->accepting = on;
}

}  // namespace hadoop_accel::jbs
