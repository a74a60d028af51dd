// A Connection over any connected blocking stream socket (TCP or Unix): frames sent whole with
// sendmsg (prefix + payload, partial writes resumed), exact receives, and a Close that wakes a
// receive blocked in another thread. Takes ownership of the descriptor.
#ifndef HADOOP_ACCEL_JBS_STREAM_CONNECTION_H
#define HADOOP_ACCEL_JBS_STREAM_CONNECTION_H

#include <mutex>

#include "transport.h"

namespace hadoop_accel::jbs {

class StreamConnection : public Connection {
 public:
  explicit StreamConnection(int fd) : fd_(fd) {}
  ~StreamConnection() override;
  int SendFrame(const uint8_t* prefix, size_t prefix_len, const uint8_t* payload,
                size_t payload_len) override;
  int RecvExact(uint8_t* buf, size_t n) override;
  void Close() override;

 protected:
  int fd() const { return fd_; }

 private:
  const int fd_;
  std::mutex mu_;
  bool shut_ = false;
};

}  // namespace hadoop_accel::jbs

#endif
