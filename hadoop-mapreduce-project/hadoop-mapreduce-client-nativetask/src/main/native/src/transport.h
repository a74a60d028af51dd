// The byte-moving layer under MOFSupplier and NetMerger, kept abstract so that TCP now and
// RDMA later (seed 001 §IV) slot in without touching the protocol, caches or scheduler. Calls are
// blocking and return 0 or a positive errno value. Memory that will be sent from or received
// into (the BufferPool's block) is registered once: a no-op for TCP, ibv_reg_mr for RDMA.
#ifndef HADOOP_ACCEL_JBS_TRANSPORT_H
#define HADOOP_ACCEL_JBS_TRANSPORT_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace hadoop_accel::jbs {

struct Endpoint {
  std::string host;   // numeric address or name
  uint16_t port = 0;  // 0 when listening: pick a free port
};

class Connection {
 public:
  virtual ~Connection() = default;
  // Sends one frame as a unit: its encoded prefix, then payload (may be null when 0 bytes).
  // Frames sent from one thread arrive whole and in order.
  virtual int SendFrame(const uint8_t* prefix, size_t prefix_len, const uint8_t* payload,
                        size_t payload_len) = 0;
  // Receives exactly n bytes; ECONNRESET if the peer closes first.
  virtual int RecvExact(uint8_t* buf, size_t n) = 0;
  // Unblocks pending calls and releases the connection; idempotent.
  virtual void Close() = 0;
  // The peer's address for log lines ("host:port"), "" if the transport cannot tell.
  virtual std::string peer() const { return ""; }
};

class Listener {
 public:
  virtual ~Listener() = default;
  virtual int Accept(std::unique_ptr<Connection>* out) = 0;
  virtual uint16_t port() const = 0;  // the bound port (useful after listening on 0)
  virtual void Close() = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual const char* name() const = 0;
  virtual int RegisterMemory(void* base, size_t len) = 0;
  virtual int Listen(const Endpoint& at, std::unique_ptr<Listener>* out) = 0;
  virtual int Connect(const Endpoint& to, int timeout_ms, std::unique_ptr<Connection>* out) = 0;
};

// Plain blocking TCP sockets with TCP_NODELAY (frames are already batched into buffers).
// io_timeout_ms > 0: on connections it makes, a send or receive that makes no progress for that
// long fails with ETIMEDOUT (a hung peer must not block a fetch forever).
std::unique_ptr<Transport> MakeTcpTransport(int io_timeout_ms = 0);

}  // namespace hadoop_accel::jbs

#endif
