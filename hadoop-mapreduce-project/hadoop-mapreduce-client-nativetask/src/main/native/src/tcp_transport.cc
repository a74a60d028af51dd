// Transport over blocking TCP sockets.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "stream_connection.h"
#include "tcp_socket.h"
#include "transport.h"

namespace hadoop_accel::jbs {
namespace {

class TcpConnection : public StreamConnection {
 public:
  explicit TcpConnection(int fd) : StreamConnection(fd) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  std::string peer() const override { return TcpPeerName(fd()); }
};

class TcpListener : public Listener {
 public:
  TcpListener(int fd, uint16_t port) : fd_(fd), port_(port) {}
  ~TcpListener() override {
    Close();
    ::close(fd_);
  }
  int Accept(std::unique_ptr<Connection>* out) override {
    for (;;) {
      int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c >= 0) {
        *out = std::make_unique<TcpConnection>(c);
        return 0;
      }
      if (errno != EINTR && errno != ECONNABORTED) return errno;
    }
  }
  uint16_t port() const override { return port_; }
  void Close() override { ::shutdown(fd_, SHUT_RDWR); }

 private:
  const int fd_;
  const uint16_t port_;
};

// Resolves host:port (numeric or name) to the first usable address.
int Resolve(const Endpoint& e, bool passive, sockaddr_storage* addr, socklen_t* len) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addrinfo* res = nullptr;
  std::string port = std::to_string(e.port);
  if (::getaddrinfo(e.host.empty() ? nullptr : e.host.c_str(), port.c_str(), &hints, &res) != 0 ||
      res == nullptr)
    return EHOSTUNREACH;
  std::memcpy(addr, res->ai_addr, res->ai_addrlen);
  *len = res->ai_addrlen;
  ::freeaddrinfo(res);
  return 0;
}

class TcpTransport : public Transport {
 public:
  explicit TcpTransport(int io_timeout_ms) : io_timeout_ms_(io_timeout_ms) {}
  const char* name() const override { return "tcp"; }
  int RegisterMemory(void*, size_t) override { return 0; }

  int Listen(const Endpoint& at, std::unique_ptr<Listener>* out) override {
    int fd = -1;
    uint16_t port = 0;
    if (int e = ListenTcp(at, false, &fd, &port)) return e;
    *out = std::make_unique<TcpListener>(fd, port);
    return 0;
  }

  int Connect(const Endpoint& to, int timeout_ms, std::unique_ptr<Connection>* out) override {
    sockaddr_storage addr{};
    socklen_t len = 0;
    if (int e = Resolve(to, false, &addr, &len)) return e;
    int fd = ::socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return errno;
    // Non-blocking connect bounded by poll, then back to blocking for the data path.
    int e = 0;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
      e = errno;
      if (e == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        int r = ::poll(&p, 1, timeout_ms);
        socklen_t el = sizeof(e);
        if (r == 0)
          e = ETIMEDOUT;
        else if (r < 0)
          e = errno;
        else
          ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
      }
    }
    if (e == 0 && ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) e = errno;
    if (e == 0 && io_timeout_ms_ > 0) {
      timeval tv{io_timeout_ms_ / 1000, (io_timeout_ms_ % 1000) * 1000};
      if (::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0 ||
          ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0)
        e = errno;
    }
    if (e != 0) {
      ::close(fd);
      return e;
    }
    *out = std::make_unique<TcpConnection>(fd);
    return 0;
  }

 private:
  const int io_timeout_ms_;
};

}  // namespace

int ListenTcp(const Endpoint& at, bool nonblocking, int* fd_out, uint16_t* port_out) {
  sockaddr_storage addr{};
  socklen_t len = 0;
  if (int e = Resolve(at, true, &addr, &len)) return e;
  int fd =
      ::socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
  if (fd < 0) return errno;
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd, 512) != 0) {
    int e = errno;
    ::close(fd);
    return e;
  }
  sockaddr_storage bound{};
  socklen_t blen = sizeof(bound);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &blen);
  *port_out = bound.ss_family == AF_INET6
                  ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                  : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  *fd_out = fd;
  return 0;
}

std::string TcpPeerName(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof(a);
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return "";
  char host[INET6_ADDRSTRLEN] = "";
  uint16_t port = 0;
  if (a.ss_family == AF_INET6) {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&a);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host));
    port = ntohs(v6->sin6_port);
    return std::string("[") + host + "]:" + std::to_string(port);
  }
  if (a.ss_family != AF_INET) return "";
  auto* v4 = reinterpret_cast<sockaddr_in*>(&a);
  ::inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host));
  port = ntohs(v4->sin_port);
  return std::string(host) + ":" + std::to_string(port);
}

std::unique_ptr<Transport> MakeTcpTransport(int io_timeout_ms) {
  return std::make_unique<TcpTransport>(io_timeout_ms);
}

}  // namespace hadoop_accel::jbs
