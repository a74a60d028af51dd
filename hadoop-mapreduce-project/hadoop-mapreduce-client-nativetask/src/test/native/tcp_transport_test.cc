// The TCP transport over loopback, speaking the fetch protocol through frame_io.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include "buffer_pool.h"
#include "frame_io.h"
#include "transport.h"

using namespace hadoop_accel::jbs;

namespace {

FetchRequest Sample(uint64_t id, uint64_t offset) {
  FetchRequest r;
  r.request_id = id;
  r.partition = 2;
  r.offset = offset;
  r.max_length = 128 * 1024;
  r.job_id = "job_1700000000000_0001";
  r.map_attempt_id = "attempt_1700000000000_0001_m_000001_0";
  return r;
}

class TcpLoopback : public ::testing::Test {
 protected:
  void SetUp() override {
    transport_ = MakeTcpTransport();
    ASSERT_STREQ(transport_->name(), "tcp");
    ASSERT_EQ(transport_->Listen({"127.0.0.1", 0}, &listener_), 0);
    ASSERT_NE(listener_->port(), 0);
  }
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<Listener> listener_;
};

}  // namespace

TEST_F(TcpLoopback, ServesChunksFromPoolBuffers) {
  // A partition of 300 KiB served in transport-buffer-sized chunks, as the MOFSupplier will.
  const size_t part = 300 * 1024;
  std::vector<uint8_t> partition(part);
  for (size_t i = 0; i < part; ++i) partition[i] = static_cast<uint8_t>(i * 31 + 7);
  BufferPool pool(kDefaultTransportBufferSize, 2);
  ASSERT_EQ(transport_->RegisterMemory(pool.base(), pool.buffer_size() * pool.count()), 0);

  std::thread server([&] {
    std::unique_ptr<Connection> c;
    ASSERT_EQ(listener_->Accept(&c), 0);
    for (;;) {
      FetchRequest req;
      FrameIoResult r = ReceiveRequest(c.get(), &req);
      if (r.io_error == ECONNRESET) return;  // client done
      ASSERT_TRUE(r.ok());
      uint32_t buf = *pool.TryAcquire();
      size_t n = std::min<size_t>({req.max_length, pool.buffer_size(), part - req.offset});
      std::memcpy(pool.data(buf), partition.data() + req.offset, n);  // the "disk read"
      FetchResponseHeader h;
      h.request_id = req.request_id;
      h.raw_length = part;
      h.part_length = part;
      h.chunk_offset = req.offset;
      h.chunk_length = static_cast<uint32_t>(n);
      ASSERT_TRUE(SendResponse(c.get(), h, pool.data(buf)).ok());
      pool.Release(buf);
    }
  });

  std::unique_ptr<Connection> client;
  ASSERT_EQ(transport_->Connect({"127.0.0.1", listener_->port()}, 2000, &client), 0);
  std::vector<uint8_t> got;
  std::vector<uint8_t> chunk(kDefaultTransportBufferSize);
  for (uint64_t id = 1; got.size() < part; ++id) {
    ASSERT_TRUE(SendRequest(client.get(), Sample(id, got.size())).ok());
    FetchResponseHeader h;
    FrameIoResult r = ReceiveResponse(client.get(), &h, chunk.data(), chunk.size());
    ASSERT_TRUE(r.ok()) << r.io_error << " " << WireStatusName(r.wire);
    EXPECT_EQ(h.request_id, id);
    EXPECT_EQ(h.chunk_offset, got.size());
    got.insert(got.end(), chunk.begin(), chunk.begin() + h.chunk_length);
  }
  client->Close();
  server.join();
  EXPECT_EQ(got, partition);
  EXPECT_EQ(pool.free_count(), 2u);
}

TEST_F(TcpLoopback, ServerRefusesJunkWithoutReadingABody) {
  std::thread client_thread([&] {
    std::unique_ptr<Connection> c;
    ASSERT_EQ(transport_->Connect({"127.0.0.1", listener_->port()}, 2000, &c), 0);
    const char http[] = "GET /mapOutput?job=../../etc HTTP/1.1\r\n\r\n";
    ASSERT_EQ(c->SendFrame(reinterpret_cast<const uint8_t*>(http), sizeof(http) - 1, nullptr, 0),
              0);
    uint8_t b;
    EXPECT_EQ(c->RecvExact(&b, 1), ECONNRESET);  // the server hangs up
  });
  std::unique_ptr<Connection> c;
  ASSERT_EQ(listener_->Accept(&c), 0);
  FetchRequest req;
  FrameIoResult r = ReceiveRequest(c.get(), &req);
  EXPECT_EQ(r.io_error, 0);
  EXPECT_EQ(r.wire, WireStatus::kBadMagic);
  c->Close();
  client_thread.join();
}

TEST_F(TcpLoopback, OversizedChunkIsRefusedByTheReceiver) {
  std::thread server([&] {
    std::unique_ptr<Connection> c;
    ASSERT_EQ(listener_->Accept(&c), 0);
    FetchResponseHeader h;
    h.part_length = 8192;
    h.chunk_length = 8192;
    std::vector<uint8_t> data(8192, 1);
    SendResponse(c.get(), h, data.data());
  });
  std::unique_ptr<Connection> client;
  ASSERT_EQ(transport_->Connect({"127.0.0.1", listener_->port()}, 2000, &client), 0);
  FetchResponseHeader h;
  uint8_t small[4096];
  EXPECT_EQ(ReceiveResponse(client.get(), &h, small, sizeof(small)).wire,
            WireStatus::kBufferTooSmall);
  server.join();
}

TEST(TcpTransport, ConnectToAClosedPortFails) {
  auto t = MakeTcpTransport();
  std::unique_ptr<Listener> l;
  ASSERT_EQ(t->Listen({"127.0.0.1", 0}, &l), 0);
  uint16_t port = l->port();
  l.reset();  // nobody listens there now
  std::unique_ptr<Connection> c;
  EXPECT_EQ(t->Connect({"127.0.0.1", port}, 2000, &c), ECONNREFUSED);
  EXPECT_EQ(c, nullptr);
}
