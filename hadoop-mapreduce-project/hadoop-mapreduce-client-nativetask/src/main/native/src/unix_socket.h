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

class UnixListener {
 public:
  ~UnixListener();
  // Removes a stale socket file at path, binds, listens, chmods to mode. 0 or an errno.
  int Listen(const std::string& path, unsigned mode);
  // Blocks for the next connection; ESHUTDOWN once Close was called.
  int Accept(std::unique_ptr<Connection>* out);
  // Wakes Accept for good and removes the socket file. Idempotent.
  void Close();

 private:
  std::string path_;
  int fd_ = -1;
  int wake_fd_ = -1;  // eventfd: poll() on it and on fd_
};

}  // namespace hadoop_accel::jbs

#endif
