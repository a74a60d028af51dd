// Two-process tests of the ring: everything written arrives, byte for byte, whatever the
// write/read sizes, capacity and batch; a dead or closed peer is an error, never a hang.
#include "hadoop_accel/shm_ring.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/hshm-test-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::string cmd = "rm -rf " + path_;
    if (std::system(cmd.c_str()) != 0) std::abort();
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// The byte stream of a test: deterministic from the seed, so both sides can produce it.
unsigned char byte_at(uint64_t seed, uint64_t i) {
  uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ULL ^ seed;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ULL;
  return static_cast<unsigned char>(x >> 56);
}

int64_t ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t)
      .count();
}

// In a forked child: attach as writer and write `total` bytes in random-size writes.
[[noreturn]] void child_writer(const std::string& path, uint64_t seed, uint64_t total,
                               size_t max_write, uint32_t batch) {
  hshm_ring* r = nullptr;
  if (hshm_ring_attach(path.c_str(), HSHM_WRITER, 5000, &r) != 0) _exit(10);
  hshm_ring_set_batch(r, batch);
  std::mt19937_64 rng(seed);
  std::vector<unsigned char> buf(max_write + 1);
  uint64_t sent = 0;
  while (sent < total) {
    size_t n = std::min<uint64_t>(rng() % (max_write + 1), total - sent);
    for (size_t i = 0; i < n; i++) buf[i] = byte_at(seed, sent + i);
    if (hshm_ring_write(r, buf.data(), n) != static_cast<ssize_t>(n)) _exit(11);
    sent += n;
  }
  _exit(hshm_ring_close(r) == 0 ? 0 : 12);
}

using StressParams = std::tuple<size_t /*capacity*/, uint32_t /*batch*/>;

class RingStress : public ::testing::TestWithParam<StressParams> {};

TEST_P(RingStress, EveryByteArrivesInOrder) {
  auto [capacity, batch] = GetParam();
  TempDir dir;
  std::string path = dir.file("ring");
  uint64_t seed = capacity * 7919 + batch;
  uint64_t total = std::min<uint64_t>(4u << 20, capacity * 20000);  // tiny rings: fewer bytes
  hshm_ring* r = nullptr;
  ASSERT_EQ(0, hshm_ring_create(path.c_str(), capacity, HSHM_READER, &r));
  hshm_ring_set_batch(r, batch);
  pid_t pid = fork();
  if (pid == 0) child_writer(path, seed, total, 2 * capacity, batch);  // writes up to 2x capacity
  ASSERT_EQ(0, hshm_ring_wait_peer(r, 5000));
  std::mt19937_64 rng(seed + 1);
  std::vector<unsigned char> buf(2 * capacity + 1);
  uint64_t got = 0;
  uint64_t mismatches = 0;
  while (true) {
    size_t want = 1 + rng() % (2 * capacity);
    ssize_t n = hshm_ring_read(r, buf.data(), want);
    ASSERT_GE(n, 0) << "read failed: " << n;
    if (n == 0) break;
    for (ssize_t i = 0; i < n; i++) mismatches += buf[i] != byte_at(seed, got + i);
    got += n;
  }
  EXPECT_EQ(total, got);
  EXPECT_EQ(0u, mismatches);
  int status = 0;
  ASSERT_EQ(pid, waitpid(pid, &status, 0));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  EXPECT_EQ(0, hshm_ring_close(r));
}

// Tiny rings make both sides sleep all the time (sleep/wake races); big batches make the
// wake-ups come only from blocking, flushing and closing.
INSTANTIATE_TEST_SUITE_P(SizesAndBatches, RingStress,
                         ::testing::Combine(::testing::Values(7, 64, 4096, 1 << 20),
                                            ::testing::Values(1u, 16u, 4096u, HSHM_BATCH_AUTO)));

// Zero-copy on both sides: the writer fills random prefixes of reserved spans, the reader
// consumes random prefixes of peeked spans; spans end at the wrap-around.
[[noreturn]] void child_zero_copy_writer(const std::string& path, uint64_t seed, uint64_t total,
                                         uint32_t batch) {
  hshm_ring* r = nullptr;
  if (hshm_ring_attach(path.c_str(), HSHM_WRITER, 5000, &r) != 0) _exit(10);
  hshm_ring_set_batch(r, batch);
  std::mt19937_64 rng(seed);
  uint64_t sent = 0;
  while (sent < total) {
    void* span;
    ssize_t k = hshm_ring_reserve(r, &span);
    if (k <= 0) _exit(11);
    size_t n = std::min<uint64_t>(1 + rng() % k, total - sent);
    auto* p = static_cast<unsigned char*>(span);
    for (size_t i = 0; i < n; i++) p[i] = byte_at(seed, sent + i);
    if (hshm_ring_commit(r, n) != 0) _exit(12);
    sent += n;
  }
  _exit(hshm_ring_close(r) == 0 ? 0 : 13);
}

TEST_P(RingStress, ZeroCopyEveryByteArrivesInOrder) {
  auto [capacity, batch] = GetParam();
  TempDir dir;
  std::string path = dir.file("ring");
  uint64_t seed = capacity * 104729 + batch;
  uint64_t total = std::min<uint64_t>(4u << 20, capacity * 20000);
  hshm_ring* r = nullptr;
  ASSERT_EQ(0, hshm_ring_create(path.c_str(), capacity, HSHM_READER, &r));
  hshm_ring_set_batch(r, batch);
  pid_t pid = fork();
  if (pid == 0) child_zero_copy_writer(path, seed, total, batch);
  ASSERT_EQ(0, hshm_ring_wait_peer(r, 5000));
  std::mt19937_64 rng(seed + 1);
  uint64_t got = 0;
  uint64_t mismatches = 0;
  while (true) {
    const void* span;
    ssize_t k = hshm_ring_peek(r, &span);
    ASSERT_GE(k, 0) << "peek failed: " << k;
    if (k == 0) break;
    ASSERT_LE(static_cast<size_t>(k), capacity);
    size_t n = 1 + rng() % k;
    const auto* p = static_cast<const unsigned char*>(span);
    for (size_t i = 0; i < n; i++) mismatches += p[i] != byte_at(seed, got + i);
    ASSERT_EQ(0, hshm_ring_consume(r, n));
    got += n;
  }
  EXPECT_EQ(-EINVAL, hshm_ring_consume(r, 1));  // nothing left to release
  EXPECT_EQ(total, got);
  EXPECT_EQ(0u, mismatches);
  int status = 0;
  ASSERT_EQ(pid, waitpid(pid, &status, 0));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  EXPECT_EQ(0, hshm_ring_close(r));
}

TEST(Ring, CommitAndConsumeRefuseMoreThanTheSpan) {
  TempDir dir;
  std::string path = dir.file("ring");
  hshm_ring* w = nullptr;
  hshm_ring* rd = nullptr;
  ASSERT_EQ(0, hshm_ring_create(path.c_str(), 16, HSHM_WRITER, &w));
  ASSERT_EQ(0, hshm_ring_attach(path.c_str(), HSHM_READER, 1000, &rd));
  void* span;
  ASSERT_EQ(16, hshm_ring_reserve(w, &span));
  EXPECT_EQ(-EINVAL, hshm_ring_commit(w, 17));
  ASSERT_EQ(0, hshm_ring_commit(w, 10));
  const void* in;
  ASSERT_EQ(10, hshm_ring_peek(rd, &in));
  EXPECT_EQ(-EINVAL, hshm_ring_consume(rd, 11));
  ASSERT_EQ(0, hshm_ring_consume(rd, 10));
  ASSERT_EQ(6, hshm_ring_reserve(w, &span));  // up to the wrap-around
  EXPECT_EQ(-EINVAL, hshm_ring_commit(w, 7));
  EXPECT_EQ(-EBADF, hshm_ring_peek(w, &in));
  EXPECT_EQ(-EBADF, hshm_ring_reserve(rd, &span));
  EXPECT_EQ(0, hshm_ring_close(w));
  EXPECT_EQ(0, hshm_ring_peek(rd, &in));  // end of stream
  EXPECT_EQ(0, hshm_ring_close(rd));
}

TEST(Ring, FileIsPrivateAndCreateIsExclusive) {
  TempDir dir;
  std::string path = dir.file("ring");
  hshm_ring* r = nullptr;
  ASSERT_EQ(0, hshm_ring_create(path.c_str(), 4096, HSHM_WRITER, &r));
  struct stat st;
  ASSERT_EQ(0, stat(path.c_str(), &st));
  EXPECT_EQ(0600u, st.st_mode & 0777);
  hshm_ring* again = nullptr;
  EXPECT_EQ(-EEXIST, hshm_ring_create(path.c_str(), 4096, HSHM_WRITER, &again));
  hshm_ring* same_side = nullptr;
  EXPECT_EQ(-EBUSY, hshm_ring_attach(path.c_str(), HSHM_WRITER, 100, &same_side));
  EXPECT_EQ(0, hshm_ring_close(r));
}

TEST(Ring, AttachGivesUpAfterTheTimeout) {
  TempDir dir;
  hshm_ring* r = nullptr;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(-ETIMEDOUT, hshm_ring_attach(dir.file("never").c_str(), HSHM_READER, 150, &r));
  EXPECT_GE(ms_since(start), 150);
  hshm_ring* c = nullptr;
  ASSERT_EQ(0, hshm_ring_create(dir.file("lonely").c_str(), 64, HSHM_WRITER, &c));
  EXPECT_EQ(-ETIMEDOUT, hshm_ring_wait_peer(c, 100));
  EXPECT_EQ(0, hshm_ring_close(c));
}

// The writer is killed (and, like a crashed streaming program, not yet reaped: a zombie) while
// the reader waits: the reader gets what was written, then -EPIPE, within a second.
TEST(Ring, KilledWriterIsAnErrorNotAHang) {
  TempDir dir;
  std::string path = dir.file("ring");
  hshm_ring* r = nullptr;
  ASSERT_EQ(0, hshm_ring_create(path.c_str(), 4096, HSHM_READER, &r));
  pid_t pid = fork();
  if (pid == 0) {
    hshm_ring* w = nullptr;
    if (hshm_ring_attach(path.c_str(), HSHM_WRITER, 5000, &w) != 0) _exit(10);
    hshm_ring_set_batch(w, 1000);  // no wake-up from batching: only the flush below
    if (hshm_ring_write(w, "hello", 5) != 5) _exit(11);
    hshm_ring_flush(w);
    pause();
    _exit(0);
  }
  char buf[16];
  ASSERT_EQ(5, hshm_ring_read(r, buf, sizeof buf));
  kill(pid, SIGKILL);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(-EPIPE, hshm_ring_read(r, buf, sizeof buf));
  EXPECT_LT(ms_since(start), 1000);
  int status;
  waitpid(pid, &status, 0);
  EXPECT_EQ(0, hshm_ring_close(r));
}

// The reader stops (closes) or dies while the writer is blocked on a full ring.
class ReaderGone : public ::testing::TestWithParam<bool /*killed*/> {};

TEST_P(ReaderGone, BlockedWriterGetsEpipe) {
  bool killed = GetParam();
  TempDir dir;
  std::string path = dir.file("ring");
  hshm_ring* w = nullptr;
  ASSERT_EQ(0, hshm_ring_create(path.c_str(), 256, HSHM_WRITER, &w));
  int done[2];
  ASSERT_EQ(0, pipe(done));
  pid_t pid = fork();
  if (pid == 0) {
    hshm_ring* r = nullptr;
    if (hshm_ring_attach(path.c_str(), HSHM_READER, 5000, &r) != 0) _exit(10);
    char buf[100];
    size_t got = 0;
    while (got < sizeof buf) {
      ssize_t n = hshm_ring_read(r, buf, sizeof buf - got);
      if (n <= 0) _exit(11);
      got += n;
    }
    if (!killed) hshm_ring_close(r);
    if (write(done[1], "x", 1) != 1) _exit(12);  // tell the parent we are done reading
    pause();                                     // the parent kills us either way
    _exit(0);
  }
  close(done[1]);
  ASSERT_EQ(0, hshm_ring_wait_peer(w, 5000));
  std::vector<char> chunk(1000, 'x');
  ASSERT_EQ(100, hshm_ring_write(w, chunk.data(), 100));
  char c;
  ASSERT_EQ(1, read(done[0], &c, 1));
  if (killed) kill(pid, SIGKILL);  // not reaped yet: a zombie, like a crashed program
  auto start = std::chrono::steady_clock::now();
  ssize_t rc = hshm_ring_write(w, chunk.data(), chunk.size());  // more than the ring holds
  EXPECT_EQ(-EPIPE, rc);
  EXPECT_LT(ms_since(start), 1000);
  if (!killed) kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  close(done[0]);
  EXPECT_EQ(0, hshm_ring_close(w));
}

INSTANTIATE_TEST_SUITE_P(ClosedOrKilled, ReaderGone, ::testing::Values(false, true));

// Algorithm 2's point: with batching, a stream of small records costs far fewer wake-ups (futex
// system calls) than records; with batch 1 the sleeping side is woken for nearly every one.
TEST(Ring, BatchingCutsWakeups) {
  auto run = [](uint32_t batch) {
    TempDir dir;
    std::string path = dir.file("ring");
    hshm_ring* r = nullptr;
    EXPECT_EQ(0, hshm_ring_create(path.c_str(), 64 * 1024, HSHM_READER, &r));
    pid_t pid = fork();
    if (pid == 0) {
      hshm_ring* w = nullptr;
      if (hshm_ring_attach(path.c_str(), HSHM_WRITER, 5000, &w) != 0) _exit(10);
      hshm_ring_set_batch(w, batch);
      char rec[32] = "0123456789abcdef0123456789abcd\n";
      for (int i = 0; i < 200000; i++) {
        if (hshm_ring_write(w, rec, 32) != 32) _exit(11);
        if (i % 1000 == 0) usleep(100);  // let the reader catch up and fall asleep
      }
      hshm_ring_stats s;
      hshm_ring_get_stats(w, &s);
      hshm_ring_close(w);
      // Report the writer's wake-ups of the reader through the exit status (scaled).
      _exit(static_cast<int>(std::min<uint64_t>(s.wakeups / 100, 250)));
    }
    char buf[4096];
    uint64_t got = 0;
    ssize_t n;
    while ((n = hshm_ring_read(r, buf, 32)) > 0) got += n;  // record-sized reads
    EXPECT_EQ(200000u * 32, got);
    int status = 0;
    waitpid(pid, &status, 0);
    hshm_ring_close(r);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 255;
  };
  int batched = run(HSHM_BATCH_AUTO);
  EXPECT_LE(batched, 2) << "auto batch: wake-ups/100";
}

}  // namespace
