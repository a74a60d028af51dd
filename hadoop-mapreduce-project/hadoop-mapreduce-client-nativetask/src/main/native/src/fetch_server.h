// What the daemon needs from a fetch server, whatever moves the bytes: the epoll server is the
// TCP implementation (epoll_server.h); MofServer serves any Transport with a thread per
// connection (the path an RDMA transport takes until it has its own event loop).
#ifndef HADOOP_ACCEL_JBS_FETCH_SERVER_H
#define HADOOP_ACCEL_JBS_FETCH_SERVER_H

#include <cstdint>
#include <functional>
#include <string>

#include "transport.h"
#include "wire_format.h"

namespace hadoop_accel::jbs {

// Told about every UNAUTHORIZED answer, with the peer's address ("" if unknown), so the
// daemon can log who tried (rate-limited). Called from a server thread; must be thread-safe.
using UnauthorizedHook = std::function<void(const FetchRequest&, const std::string& peer)>;

class FetchServer {
 public:
  virtual ~FetchServer() = default;
  // Listens at `at` and starts serving; 0 or an errno.
  virtual int Start(const Endpoint& at) = 0;
  virtual uint16_t port() const = 0;
  // Stops accepting, closes every connection, joins every thread; idempotent.
  virtual void Stop() = 0;
};

}  // namespace hadoop_accel::jbs

#endif
