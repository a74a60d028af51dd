// A minimal MOFSupplier server: accepts connections on any Transport and answers each one's
// requests in order with the DataEngine, one thread per connection. A connection that sends
// anything but a valid request frame is closed (its request id is unknown, so there is nobody
// to answer); the server and its other connections carry on. The epoll server with a request
// queue and the pipelined DataCache (seed 001 §III-B) replaces the threads, not this interface.
#ifndef HADOOP_ACCEL_JBS_MOF_SERVER_H
#define HADOOP_ACCEL_JBS_MOF_SERVER_H

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

#include "data_engine.h"
#include "fetch_server.h"
#include "transport.h"

namespace hadoop_accel::jbs {

class MofServer : public FetchServer {
 public:
  MofServer(Transport* transport, DataEngine* engine, BufferPool* pool,
            UnauthorizedHook on_unauthorized = nullptr)
      : transport_(transport),
        engine_(engine),
        pool_(pool),
        on_unauthorized_(std::move(on_unauthorized)) {}
  ~MofServer() override { Stop(); }

  // Listens at `at` and starts accepting; 0 or an errno.
  int Start(const Endpoint& at) override;
  uint16_t port() const override { return listener_ ? listener_->port() : 0; }
  // Stops accepting, closes every connection and joins all threads.
  void Stop() override;

  uint64_t rejected_connections() const { return rejected_.load(); }
  uint64_t served_requests() const { return served_.load(); }

 private:
  struct Session {
    std::unique_ptr<Connection> conn;
    std::thread thread;
    std::atomic<bool> done{false};
  };
  void AcceptLoop();
  void Serve(Connection* c);
  void ReapFinishedLocked();  // joins sessions whose peer left, so threads do not pile up

  Transport* transport_;
  DataEngine* engine_;
  BufferPool* pool_;
  UnauthorizedHook on_unauthorized_;
  std::unique_ptr<Listener> listener_;
  std::thread acceptor_;
  std::mutex mu_;
  std::list<Session> sessions_;
  bool stopping_ = false;
  std::atomic<uint64_t> rejected_{0};
  std::atomic<uint64_t> served_{0};
};

}  // namespace hadoop_accel::jbs

#endif
