// Test helper: the reduce task's side of the reducer protocol (DESIGN.md §3) over the
// NetMerger's Unix socket, for one fixed job whose map attempts are Attempt(i).
#ifndef HADOOP_ACCEL_JBS_TEST_FAKE_REDUCER_H
#define HADOOP_ACCEL_JBS_TEST_FAKE_REDUCER_H

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "ifile_writer.h"
#include "job_auth.h"
#include "reducer_protocol.h"
#include "unix_socket.h"

namespace jbs_test {

using namespace hadoop_accel::jbs;

constexpr const char* kJob = "job_1700000000000_0042";
constexpr const char* kSecret = "job-token-password";
constexpr uint32_t kPartition = 1;

inline std::string Attempt(uint32_t map, uint32_t try_number = 0) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "attempt_1700000000000_0042_m_%06u_%u", map, try_number);
  return buf;
}

// The reduce task's side of the protocol.
class FakeReducer {
 public:
  explicit FakeReducer(const std::string& socket) {
    EXPECT_EQ(ConnectUnix(socket, &conn_), 0);
    ReducerFrame t = Read();
    EXPECT_EQ(t, ReducerFrame::kHello);
    EXPECT_EQ(DecodeHello(body_.data(), body_.size(), &hello_), WireStatus::kOk);
  }

  ReducerFrame Read() {
    uint8_t h[kFrameHeaderSize];
    ReducerFrame t = ReducerFrame::kError;
    uint32_t len = 0;
    if (conn_->RecvExact(h, sizeof(h)) != 0) return static_cast<ReducerFrame>(0);
    EXPECT_EQ(DecodeReducerHeader(h, sizeof(h), &t, &len), WireStatus::kOk);
    body_.resize(len);
    if (len > 0) {
      EXPECT_EQ(conn_->RecvExact(body_.data(), len), 0);
    }
    return t;
  }

  void Send(const std::vector<uint8_t>& f) {
    ASSERT_EQ(conn_->SendFrame(f.data(), f.size(), nullptr, 0), 0);
  }

  Registered Register(uint32_t num_maps, uint8_t codec, const std::string& secret = kSecret,
                      uint8_t key_type = 1, const std::string& job = kJob) {
    ::hadoop_accel::jbs::Register r;
    r.partition = kPartition;
    r.num_maps = num_maps;
    r.key_type = key_type;
    r.codec = codec;
    r.job = job;
    r.auth = RegisterMac(secret, job, kPartition, hello_.nonce);
    EXPECT_TRUE(FillNonce(r.client_nonce));
    std::vector<uint8_t> f;
    EXPECT_EQ(EncodeRegister(r, &f), WireStatus::kOk);
    Send(f);
    Registered out;
    EXPECT_EQ(Read(), ReducerFrame::kRegistered);
    EXPECT_EQ(DecodeRegistered(body_.data(), body_.size(), &out), WireStatus::kOk);
    // The NetMerger proves the job secret over both nonces, as the Java reduce checks.
    if (out.status == RegisterStatus::kOk)
      EXPECT_TRUE(MacEquals(out.proof,
                            RegisteredMac(secret, job, kPartition, hello_.nonce, r.client_nonce)));
    else
      EXPECT_TRUE(out.proof.empty());
    return out;
  }

  void MapOutput(uint32_t index, uint16_t port, const std::string& host = "127.0.0.1",
                 uint32_t try_number = 0) {
    std::vector<uint8_t> f;
    ASSERT_EQ(EncodeMapOutput({index, port, Attempt(index, try_number), host}, &f),
              WireStatus::kOk);
    Send(f);
  }

  void Merge() {
    std::vector<uint8_t> f;
    EncodeMerge(&f);
    Send(f);
  }

  // DATA frames until END (true) or ERROR / a closed socket (false).
  bool ReadStream(Bytes* stream, EndStats* end, ErrorFrame* error) {
    for (;;) {
      ReducerFrame t = Read();
      if (t == ReducerFrame::kData) {
        const uint8_t* p;
        size_t n;
        EXPECT_EQ(DecodeData(body_.data(), body_.size(), &p, &n), WireStatus::kOk);
        EXPECT_LE(n, kMaxDataPayload);
        stream->insert(stream->end(), p, p + n);
      } else if (t == ReducerFrame::kEnd) {
        EXPECT_EQ(DecodeEnd(body_.data(), body_.size(), end), WireStatus::kOk);
        return true;
      } else if (t == ReducerFrame::kError) {
        EXPECT_EQ(DecodeError(body_.data(), body_.size(), error), WireStatus::kOk);
        return false;
      } else {
        ADD_FAILURE() << "unexpected frame " << static_cast<int>(t);
        return false;
      }
    }
  }

  std::vector<uint8_t> body_;
  std::unique_ptr<Connection> conn_;
  Hello hello_;
};

}  // namespace jbs_test

#endif
