#include "stream_connection.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

namespace hadoop_accel::jbs {
namespace {

// SO_RCVTIMEO/SO_SNDTIMEO expiring on a blocking socket shows as EAGAIN; say what it means.
int TimeoutAsEtimedout(int e) { return e == EAGAIN || e == EWOULDBLOCK ? ETIMEDOUT : e; }

}  // namespace

StreamConnection::~StreamConnection() {
  Close();
  ::close(fd_);
}

int StreamConnection::SendFrame(const uint8_t* prefix, size_t prefix_len, const uint8_t* payload,
                                size_t payload_len) {
  iovec iov[2] = {{const_cast<uint8_t*>(prefix), prefix_len},
                  {const_cast<uint8_t*>(payload), payload_len}};
  int n = payload_len > 0 ? 2 : 1;
  iovec* v = iov;
  while (n > 0) {
    msghdr msg{};
    msg.msg_iov = v;
    msg.msg_iovlen = static_cast<size_t>(n);
    // MSG_NOSIGNAL: a vanished peer is an EPIPE result, not a process-killing SIGPIPE.
    ssize_t w = ::sendmsg(fd_, &msg, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return TimeoutAsEtimedout(errno);
    size_t done = static_cast<size_t>(w);
    while (n > 0 && done >= v->iov_len) {
      done -= v->iov_len;
      ++v;
      --n;
    }
    if (n > 0) {
      v->iov_base = static_cast<uint8_t*>(v->iov_base) + done;
      v->iov_len -= done;
    }
  }
  return 0;
}

int StreamConnection::RecvExact(uint8_t* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::recv(fd_, buf + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return TimeoutAsEtimedout(errno);
    if (r == 0) return ECONNRESET;
    got += static_cast<size_t>(r);
  }
  return 0;
}

void StreamConnection::Close() {
  std::lock_guard<std::mutex> g(mu_);
  if (!shut_) ::shutdown(fd_, SHUT_RDWR);  // wakes a blocked recv in another thread
  shut_ = true;
}

}  // namespace hadoop_accel::jbs
