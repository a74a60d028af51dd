#include "unix_socket.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "stream_connection.h"

namespace hadoop_accel::jbs {
namespace {

bool FillAddress(const std::string& path, sockaddr_un* addr) {
  if (path.empty() || path.size() >= sizeof(addr->sun_path)) return false;
  std::memset(addr, 0, sizeof(*addr));
  addr->sun_family = AF_UNIX;
  std::memcpy(addr->sun_path, path.c_str(), path.size() + 1);
  return true;
}

}  // namespace

std::unique_ptr<Connection> WrapStreamSocket(int fd) {
  return std::make_unique<StreamConnection>(fd);
}

int ConnectUnix(const std::string& path, std::unique_ptr<Connection>* out) {
  sockaddr_un addr;
  if (!FillAddress(path, &addr)) return ENAMETOOLONG;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    int e = errno;
    ::close(fd);
    return e;
  }
  *out = WrapStreamSocket(fd);
  return 0;
}

bool SecureSocketDir(const std::string& socket_path, unsigned dir_mode, std::string* why) {
  size_t slash = socket_path.rfind('/');
  std::string dir = slash == std::string::npos ? "."
                    : slash == 0               ? "/"
                                               : socket_path.substr(0, slash);
  if (::mkdir(dir.c_str(), dir_mode) == 0) return true;  // ours, with our mode (umask aside)
  if (errno != EEXIST) {
    *why = "cannot create socket directory " + dir + ": " + std::strerror(errno);
    return false;
  }
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *why = "socket directory " + dir + " is not a directory (a symlink?)";
    return false;
  }
  if (st.st_uid != ::geteuid()) {
    *why = "socket directory " + dir + " is owned by uid " + std::to_string(st.st_uid) +
           ", not by this daemon's user (uid " + std::to_string(::geteuid()) +
           "): another user could replace the socket; choose a directory of our own";
    return false;
  }
  if ((st.st_mode & 07777) != dir_mode && ::chmod(dir.c_str(), dir_mode) != 0) {
    *why = "cannot chmod socket directory " + dir + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

UnixListener::~UnixListener() {
  Close();
  if (fd_ >= 0) ::close(fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

int UnixListener::Listen(const std::string& path, unsigned mode) {
  sockaddr_un addr;
  if (!FillAddress(path, &addr)) return ENAMETOOLONG;
  struct stat st;
  // Only a stale socket is removed: never a regular file someone pointed us at by mistake.
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) return EEXIST;
    ::unlink(path.c_str());
  }
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) return errno;
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd_ < 0) return errno;
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) return errno;
  path_ = path;
  // 0600 when reduces run as the daemon's user, 0666 when they run as others (then the
  // directory, not the socket, keeps other users from replacing it; REGISTER authenticates).
  if (::chmod(path.c_str(), mode) != 0 || ::listen(fd_, 128) != 0) return errno;
  return 0;
}

int UnixListener::Accept(std::unique_ptr<Connection>* out) {
  for (;;) {
    pollfd p[2] = {{fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    int r = ::poll(p, 2, -1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno;
    if (p[1].revents != 0) return ESHUTDOWN;
    if (p[0].revents == 0) continue;
    int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c >= 0) {
      *out = WrapStreamSocket(c);
      return 0;
    }
    if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN) return errno;
  }
}

void UnixListener::Close() {
  if (wake_fd_ >= 0) {
    uint64_t one = 1;
    ssize_t w = ::write(wake_fd_, &one, sizeof(one));
    (void)w;
  }
  if (!path_.empty()) {
    ::unlink(path_.c_str());
    path_.clear();
  }
}

}  // namespace hadoop_accel::jbs
