// Shared by the supplier's tests: map outputs written in the NodeManager's layout, and a
// pipelining fetch client over the blocking TCP transport that pulls whole partitions chunk
// by chunk the way the NetMerger does, checking that answers come back in request order.
#ifndef HADOOP_ACCEL_JBS_MOF_SUPPLIER_TEST_UTIL_H
#define HADOOP_ACCEL_JBS_MOF_SUPPLIER_TEST_UTIL_H

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "frame_io.h"
#include "job_auth.h"
#include "map_output_locator.h"
#include "spill_index.h"
#include "test_files.h"
#include "transport.h"

namespace supplier_test {

using namespace hadoop_accel::jbs;

// attempt -> partition -> bytes
using MapOutputs = std::map<std::string, std::vector<std::vector<uint8_t>>>;

inline std::string AttemptOf(const std::string& job, int map) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), "attempt_%s_m_%06d_0", job.c_str() + 4, map);
  return buf;
}

// Writes file.out + file.out.index of one map attempt under local_dir, as ShuffleHandler
// expects them; partitions get random bytes of the given sizes.
inline void WriteMapOutput(const std::string& local_dir, const std::string& user,
                           const std::string& job, const std::string& attempt,
                           const std::vector<size_t>& sizes, std::mt19937* rng,
                           MapOutputs* record) {
  std::string dir = local_dir + "/" + AttemptOutputDir(user, job, attempt);
  std::filesystem::create_directories(dir);
  std::vector<uint8_t> data;
  std::vector<IndexRecord> recs;
  for (size_t s : sizes) {
    recs.push_back({data.size(), s * 2, s});
    std::vector<uint8_t> part(s);
    for (auto& b : part) b = static_cast<uint8_t>((*rng)());
    data.insert(data.end(), part.begin(), part.end());
    (*record)[attempt].push_back(std::move(part));
  }
  ScratchDir::WriteAt(dir + "/file.out", data);
  ScratchDir::WriteAt(dir + "/file.out.index", SpillIndex::Serialize(recs));
}

// Pulls many partitions over one connection with up to `window` requests in flight, at most
// one chunk length per request. BUSY answers are asked again. Every answer must echo the
// oldest outstanding request id (in-order answers).
class PipelinedFetcher {
 public:
  struct Result {
    std::map<std::pair<std::string, uint32_t>, std::vector<uint8_t>> data;
    uint64_t busy = 0;
    uint64_t responses = 0;
    bool ok = true;
  };

  PipelinedFetcher(Connection* c, std::string job, std::string secret, uint32_t chunk,
                   size_t window)
      : c_(c), job_(std::move(job)), secret_(std::move(secret)), chunk_(chunk), window_(window) {}

  void Add(const std::string& attempt, uint32_t partition) {
    Stream s;
    s.attempt = attempt;
    s.partition = partition;
    streams_.push_back(std::move(s));
  }

  // `limit` only keeps a broken server from hanging the test; it is no speed assertion, and a
  // loaded CI machine (ctest -j next to builds) must never reach it.
  Result Run(std::chrono::milliseconds limit = std::chrono::seconds(120)) {
    Result res;
    auto deadline = std::chrono::steady_clock::now() + limit;
    std::vector<uint8_t> buf(chunk_);
    for (;;) {
      while (outstanding_.size() < window_ && IssueOne()) {
      }
      if (outstanding_.empty()) break;
      if (std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << "fetch did not finish in time";
        res.ok = false;
        break;
      }
      FetchResponseHeader h;
      FrameIoResult r = ReceiveResponse(c_, &h, buf.data(), buf.size());
      if (!r.ok()) {
        ADD_FAILURE() << "receive: errno " << r.io_error << " " << WireStatusName(r.wire);
        res.ok = false;
        break;
      }
      ++res.responses;
      Pending p = outstanding_.front();
      outstanding_.pop_front();
      if (h.request_id != p.request_id) {
        ADD_FAILURE() << "answer out of order: " << h.request_id << " != " << p.request_id;
        res.ok = false;
        break;
      }
      Stream& s = streams_[p.stream];
      if (h.status == ResponseStatus::kBusy) {
        ++res.busy;
        s.retry.push_back(p.offset);
        continue;
      }
      if (h.status != ResponseStatus::kOk || h.chunk_offset != p.offset) {
        ADD_FAILURE() << "status " << static_cast<int>(h.status) << " at " << p.offset;
        res.ok = false;
        break;
      }
      if (!s.known) {
        s.known = true;
        s.length = h.part_length;
        s.data.resize(h.part_length);
        s.next = h.chunk_length;  // offset 0 was the first request
      }
      std::copy(buf.begin(), buf.begin() + h.chunk_length, s.data.begin() + h.chunk_offset);
      s.received += h.chunk_length;
    }
    for (Stream& s : streams_) res.data[{s.attempt, s.partition}] = std::move(s.data);
    return res;
  }

 private:
  struct Stream {
    std::string attempt;
    uint32_t partition = 0;
    bool known = false;  // length learnt from the first answer
    bool first_sent = false;
    uint64_t length = 0, next = 0, received = 0;
    std::deque<uint64_t> retry;
    std::vector<uint8_t> data;
  };
  struct Pending {
    uint64_t request_id;
    size_t stream;
    uint64_t offset;
  };

  bool IssueOne() {
    for (size_t n = 0; n < streams_.size(); ++n) {
      size_t i = (cursor_ + n) % streams_.size();
      Stream& s = streams_[i];
      uint64_t offset;
      if (!s.retry.empty()) {
        offset = s.retry.front();
        s.retry.pop_front();
      } else if (!s.first_sent) {
        s.first_sent = true;
        offset = 0;
      } else if (s.known && s.next < s.length) {
        offset = s.next;
        s.next += chunk_;
      } else {
        continue;
      }
      cursor_ = i + 1;
      FetchRequest r;
      r.request_id = ++next_id_;
      r.job_id = job_;
      r.map_attempt_id = s.attempt;
      r.partition = s.partition;
      r.offset = offset;
      r.max_length = chunk_;
      r.auth = FetchMac(secret_, job_, s.attempt, s.partition);
      if (!SendRequest(c_, r).ok()) {
        ADD_FAILURE() << "send failed";
        return false;
      }
      outstanding_.push_back({r.request_id, i, offset});
      return true;
    }
    return false;
  }

  Connection* c_;
  std::string job_, secret_;
  uint32_t chunk_;
  size_t window_;
  std::vector<Stream> streams_;
  std::deque<Pending> outstanding_;
  size_t cursor_ = 0;
  uint64_t next_id_ = 0;
};

// A plain blocking client socket to 127.0.0.1:port, for byte-level tests; -1 on failure.
inline int RawConnect(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{5, 0};  // a test never hangs on a silent server
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Everything the peer sends until it closes (or reset / the 5 s receive timeout).
inline std::vector<uint8_t> RecvUntilEof(int fd) {
  std::vector<uint8_t> out;
  uint8_t buf[65536];
  for (;;) {
    ssize_t r = ::recv(fd, buf, sizeof(buf), 0);
    if (r <= 0) return out;
    out.insert(out.end(), buf, buf + r);
  }
}

}  // namespace supplier_test

#endif
