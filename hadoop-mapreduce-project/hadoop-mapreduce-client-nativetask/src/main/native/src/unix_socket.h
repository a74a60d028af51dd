// Unix stream sockets for the reducer protocol: a listener that can be woken for shutdown and
// connections with the Transport Connection interface (frames sent whole with MSG_NOSIGNAL).
#ifndef HADOOP_ACCEL_JBS_UNIX_SOCKET_H
#define HADOOP_ACCEL_JBS_UNIX_SOCKET_H

#include <memory>
#include <string>

#include "transport.h"

namespace hadoop_accel::jbs {

// A connection over a connected stream socket fd (owned).
std::unique_ptr<Connection> WrapStreamSocket(int fd);
// Connects to a Unix socket path (tests, clients); 0 or an errno.
int ConnectUnix(const std::string& path, std::unique_ptr<Connection>* out);

// The socket's directory must be this daemon's alone, so nobody else can bind the path while
// the daemon is down (in sticky /tmp another user could, and feed reduces forged records).
// Creates the last component (mode dir_mode) if missing; else it must be a directory, not a
// symlink, owned by this process's euid and not writable by group or others (then it is
// chmod'ed to dir_mode). False with *why otherwise.
bool SecureSocketDir(const std::string& socket_path, unsigned dir_mode, std::string* why);

class UnixListener {
 public:
  ~UnixListener();
  // Removes a stale socket file at path, binds, listens, chmods to mode. 0 or an errno.
  int Listen(const std::string& path, unsigned mode);
  // Blocks for the next connection; ESHUTDOWN once Close was called.
  int Accept(std::unique_ptr<Connection>* out);
  // Wakes Accept for good and removes the socket file. Idempotent.
  void Close();
  // The listening socket (non-blocking), for callers with an event loop of their own.
  int fd() const { return fd_; }

 private:
  std::string path_;
  int fd_ = -1;
  int wake_fd_ = -1;  // eventfd: poll() on it and on fd_
};

}  // namespace hadoop_accel::jbs

#endif
