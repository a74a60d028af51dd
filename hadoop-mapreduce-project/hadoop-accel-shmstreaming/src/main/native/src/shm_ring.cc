// The ShmStreaming ring: one writer, one reader, two processes, one file mapping.
//
// Positions are monotonic 64-bit byte counts (wpos written only by the writer, rpos only by the
// reader), published with release stores and read with acquire loads, so the bytes before a
// position are visible once the position is. A side that cannot proceed raises its flag
// (`empty` for the reader, `full` for the writer), re-checks, and sleeps on that flag with a
// futex. The other side clears the flag with compare-and-swap and wakes it, as in the seed's
// Algorithm 2: after `batch` operations while the flag is up, or at once when it is about to
// sleep itself, flushes or closes. Flag updates and the position updates they guard are
// sequentially consistent, so either the sleeper's re-check sees the new position or the
// other side sees the flag: no lost wake-up. Sleeps time out every 200 ms to check that the
// peer is still alive, which turns a crashed peer into -EPIPE instead of a hang.
#include "hadoop_accel/shm_ring.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <new>
#include <string>
#include <thread>

namespace {

constexpr uint64_t kMagic = 0x31474e524d485348ULL;  // "HSHMRNG1"
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 4096;
constexpr int kLivenessMs = 200;

struct alignas(64) Header {
  uint64_t magic;
  uint32_t version;
  uint32_t header_bytes;
  uint64_t capacity;
  alignas(64) std::atomic<uint64_t> wpos;
  alignas(64) std::atomic<uint64_t> rpos;
  alignas(64) std::atomic<uint32_t> empty;  // reader sleeps (or is about to) on this
  std::atomic<uint32_t> full;               // writer sleeps (or is about to) on this
  std::atomic<uint32_t> attached;           // 0 until the second process attached
  std::atomic<uint32_t> writer_closed;
  std::atomic<uint32_t> reader_closed;
  std::atomic<int32_t> writer_pid;
  std::atomic<int32_t> reader_pid;
};
static_assert(sizeof(Header) <= kHeaderBytes, "header page");
static_assert(std::atomic<uint64_t>::is_always_lock_free, "address-free atomics");
static_assert(std::atomic<uint32_t>::is_always_lock_free, "address-free atomics");

long futex(std::atomic<uint32_t>* word, int op, uint32_t val, const timespec* timeout) {
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), op, val, timeout, nullptr, 0);
}

void wait_on(std::atomic<uint32_t>* word, uint32_t expected, int ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  futex(word, FUTEX_WAIT, expected, &ts);  // EAGAIN / ETIMEDOUT / EINTR: the caller re-checks
}

void wake(std::atomic<uint32_t>* word) { futex(word, FUTEX_WAKE, INT_MAX, nullptr); }

// Alive and not a zombie (a killed child stays a zombie until its parent reaps it).
bool alive(int32_t pid) {
  if (pid <= 0) return true;  // not attached yet: the attach timeout covers that case
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return true;
  char buf[512];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* close_paren = std::strrchr(buf, ')');
  return close_paren == nullptr || close_paren[1] == '\0' || close_paren[2] != 'Z';
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

struct hshm_ring {
  Header* h;
  unsigned char* data;
  size_t mapped;
  uint64_t capacity;
  int role;
  uint32_t batch;    // 0 = auto
  uint32_t pending;  // operations since the peer's flag went up, towards the batch
  // The peer's position as last loaded (writer: rpos, reader: wpos). Reloaded only when it
  // leaves too little room or data, so a side that keeps ahead does not take a cache miss on
  // the peer's line every operation. A stale value only understates room or data.
  uint64_t peer_pos;
  hshm_ring_stats stats;

  uint32_t effective_batch() const {
    if (batch != HSHM_BATCH_AUTO) return batch;
    if (stats.ops == 0 || stats.bytes == 0) return 1;
    // The seed's rule: slightly below capacity / record size.
    double per_op = static_cast<double>(stats.bytes) / static_cast<double>(stats.ops);
    double b = 0.9 * static_cast<double>(capacity) / per_op;
    return b < 1 ? 1 : (b > 1e6 ? 1000000u : static_cast<uint32_t>(b));
  }
  int32_t peer_pid() const {
    return (role == HSHM_WRITER ? h->reader_pid : h->writer_pid).load(std::memory_order_acquire);
  }
  // Wakes the peer sleeping on `flag` (clearing the flag first, so it is woken once).
  void wake_peer(std::atomic<uint32_t>* flag) {
    uint32_t one = 1;
    if (flag->compare_exchange_strong(one, 0)) {
      wake(flag);
      stats.wakeups++;
    }
    pending = 0;
  }
  // After moving our position: count towards the batch if the peer sleeps on `flag`.
  void after_op(std::atomic<uint32_t>* flag) {
    if (flag->load() == 1 && ++pending >= effective_batch()) wake_peer(flag);
  }
};

namespace {

int map_file(int fd, size_t capacity, hshm_ring** out, int role) {
  size_t size = kHeaderBytes + capacity;
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return -errno;
  auto* r = new (std::nothrow) hshm_ring{};
  if (r == nullptr) {
    munmap(p, size);
    return -ENOMEM;
  }
  r->h = static_cast<Header*>(p);
  r->data = static_cast<unsigned char*>(p) + kHeaderBytes;
  r->mapped = size;
  r->capacity = capacity;
  r->role = role;
  *out = r;
  return 0;
}

}  // namespace

extern "C" {

int hshm_ring_create(const char* path, size_t capacity, int role, hshm_ring** out) {
  if (path == nullptr || out == nullptr || capacity == 0 ||
      (role != HSHM_READER && role != HSHM_WRITER))
    return -EINVAL;
  // Build the ring under a private name, then link it into place: the attacher never sees a
  // half-initialised file, and an existing `path` fails with -EEXIST (O_EXCL semantics).
  std::string tmp = std::string(path) + ".init." + std::to_string(getpid());
  int fd = open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return -errno;
  int rc = 0;
  if (fchmod(fd, 0600) != 0 || ftruncate(fd, static_cast<off_t>(kHeaderBytes + capacity)) != 0) {
    rc = -errno;
  } else {
    rc = map_file(fd, capacity, out, role);
  }
  if (rc == 0) {
    Header* h = (*out)->h;
    h->version = kVersion;
    h->header_bytes = kHeaderBytes;
    h->capacity = capacity;
    (role == HSHM_WRITER ? h->writer_pid : h->reader_pid).store(getpid());
    h->magic = kMagic;  // published by link() below: the file has no name at `path` before
    if (link(tmp.c_str(), path) != 0) {
      rc = -errno;
      hshm_ring_close(*out);
      *out = nullptr;
    }
  }
  unlink(tmp.c_str());
  close(fd);
  return rc;
}

int hshm_ring_attach(const char* path, int role, int timeout_ms, hshm_ring** out) {
  if (path == nullptr || out == nullptr || (role != HSHM_READER && role != HSHM_WRITER))
    return -EINVAL;
  int64_t deadline = now_ms() + timeout_ms;
  int sleep_ms = 1;
  int fd;
  while ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0) {
    if (errno != ENOENT) return -errno;
    if (now_ms() >= deadline) return -ETIMEDOUT;
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
    sleep_ms = sleep_ms < 50 ? sleep_ms * 2 : 50;  // polls only until the file appears
  }
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st) != 0) {
    rc = -errno;
  } else if (static_cast<size_t>(st.st_size) <= kHeaderBytes) {
    rc = -EPROTO;
  } else {
    rc = map_file(fd, static_cast<size_t>(st.st_size) - kHeaderBytes, out, role);
  }
  close(fd);
  if (rc != 0) return rc;
  Header* h = (*out)->h;
  if (h->magic != kMagic || h->version != kVersion || h->capacity != (*out)->capacity) {
    hshm_ring_close(*out);
    *out = nullptr;
    return -EPROTO;
  }
  std::atomic<int32_t>& mine = role == HSHM_WRITER ? h->writer_pid : h->reader_pid;
  int32_t none = 0;
  if (!mine.compare_exchange_strong(none, getpid())) {  // that side is taken
    munmap(h, (*out)->mapped);
    delete *out;
    *out = nullptr;
    return -EBUSY;
  }
  h->attached.store(1);
  wake(&h->attached);
  return 0;
}

int hshm_ring_wait_peer(hshm_ring* r, int timeout_ms) {
  int64_t deadline = now_ms() + timeout_ms;
  while (r->h->attached.load() == 0) {
    int64_t left = deadline - now_ms();
    if (left <= 0) return -ETIMEDOUT;
    wait_on(&r->h->attached, 0, static_cast<int>(left < kLivenessMs ? left : kLivenessMs));
  }
  return 0;
}

void hshm_ring_set_batch(hshm_ring* r, uint32_t batch) { r->batch = batch; }

}  // extern "C"

namespace {

// Writer: waits for free space; returns the contiguous free span at wpos (> 0) or -EPIPE.
// Reloads rpos when the cached one leaves less than `want` bytes free.
ssize_t wait_writable(hshm_ring* r, unsigned char** span, size_t want) {
  Header* h = r->h;
  while (true) {
    if (h->reader_closed.load(std::memory_order_acquire)) return -EPIPE;
    uint64_t w = h->wpos.load(std::memory_order_relaxed);
    uint64_t free_bytes = r->capacity - (w - r->peer_pos);
    if (free_bytes < want) {
      r->peer_pos = h->rpos.load(std::memory_order_acquire);
      free_bytes = r->capacity - (w - r->peer_pos);
    }
    if (free_bytes > 0) {
      size_t at = static_cast<size_t>(w % r->capacity);
      *span = r->data + at;
      return static_cast<ssize_t>(free_bytes < r->capacity - at ? free_bytes : r->capacity - at);
    }
    // Full: raise our flag, wake a sleeping reader (it will make room), re-check, sleep.
    h->full.store(1);
    r->wake_peer(&h->empty);
    if (r->capacity - (h->wpos.load() - h->rpos.load()) > 0) {
      uint32_t one = 1;
      h->full.compare_exchange_strong(one, 0);
      continue;
    }
    r->stats.sleeps++;
    wait_on(&h->full, 1, kLivenessMs);
    if (!alive(r->peer_pid())) return -EPIPE;
  }
}

// Writer: publishes n bytes at wpos.
void advance_write(hshm_ring* r, size_t n) {
  r->h->wpos.store(r->h->wpos.load(std::memory_order_relaxed) + n);  // seq_cst: before `empty`
  r->stats.bytes += n;
}

// Reader: waits for data; returns the contiguous readable span at rpos (> 0), 0 at end of
// stream, -EPIPE when the writer died without closing. Reloads wpos when the cached one shows
// less than `want` bytes.
ssize_t wait_readable(hshm_ring* r, unsigned char** span, size_t want) {
  Header* h = r->h;
  while (true) {
    uint64_t rp = h->rpos.load(std::memory_order_relaxed);
    uint64_t avail = r->peer_pos - rp;
    if (avail < want) {
      r->peer_pos = h->wpos.load(std::memory_order_acquire);
      avail = r->peer_pos - rp;
    }
    if (avail > 0) {
      size_t at = static_cast<size_t>(rp % r->capacity);
      *span = r->data + at;
      return static_cast<ssize_t>(avail < r->capacity - at ? avail : r->capacity - at);
    }
    if (h->writer_closed.load(std::memory_order_acquire)) {
      if (h->wpos.load(std::memory_order_acquire) == rp) return 0;
      continue;
    }
    // Empty: raise our flag, wake a sleeping writer (it will fill), re-check, sleep.
    h->empty.store(1);
    r->wake_peer(&h->full);
    if (h->wpos.load() != h->rpos.load() || h->writer_closed.load()) {
      uint32_t one = 1;
      h->empty.compare_exchange_strong(one, 0);
      continue;
    }
    r->stats.sleeps++;
    wait_on(&h->empty, 1, kLivenessMs);
    if (h->wpos.load() == rp && !h->writer_closed.load() && !alive(r->peer_pid())) return -EPIPE;
  }
}

// Reader: releases n bytes at rpos, one operation towards the batch.
void advance_read(hshm_ring* r, size_t n) {
  r->h->rpos.store(r->h->rpos.load(std::memory_order_relaxed) + n);  // seq_cst: before `full`
  r->stats.ops++;
  r->stats.bytes += n;
  r->after_op(&r->h->full);
}

}  // namespace

extern "C" {

ssize_t hshm_ring_write(hshm_ring* r, const void* buf, size_t n) {
  if (r->role != HSHM_WRITER) return -EBADF;
  const auto* src = static_cast<const unsigned char*>(buf);
  size_t left = n;
  r->stats.ops++;
  while (left > 0) {
    unsigned char* span;
    ssize_t k = wait_writable(r, &span, left);
    if (k < 0) return k;
    size_t m = left < static_cast<size_t>(k) ? left : static_cast<size_t>(k);
    std::memcpy(span, src, m);
    advance_write(r, m);
    src += m;
    left -= m;
  }
  r->after_op(&r->h->empty);
  return static_cast<ssize_t>(n);
}

ssize_t hshm_ring_read(hshm_ring* r, void* buf, size_t n) {
  if (r->role != HSHM_READER) return -EBADF;
  if (n == 0) return 0;
  unsigned char* span;
  ssize_t ready = wait_readable(r, &span, n);
  if (ready <= 0) return ready;
  // Take what is readable (as of wait_readable), both sides of the wrap-around, up to n.
  uint64_t rp = r->h->rpos.load(std::memory_order_relaxed);
  uint64_t avail = r->peer_pos - rp;
  size_t k = n < avail ? n : static_cast<size_t>(avail);
  size_t at = static_cast<size_t>(rp % r->capacity);
  size_t first = k < r->capacity - at ? k : r->capacity - at;
  std::memcpy(buf, r->data + at, first);
  std::memcpy(static_cast<unsigned char*>(buf) + first, r->data, k - first);
  advance_read(r, k);
  return static_cast<ssize_t>(k);
}

ssize_t hshm_ring_reserve(hshm_ring* r, void** data) {
  if (r->role != HSHM_WRITER) return -EBADF;
  unsigned char* span;
  ssize_t k = wait_writable(r, &span, r->capacity);  // the largest span: always reload
  if (k > 0) *data = span;
  return k;
}

int hshm_ring_commit(hshm_ring* r, size_t n) {
  if (r->role != HSHM_WRITER) return -EBADF;
  uint64_t w = r->h->wpos.load(std::memory_order_relaxed);
  if (n > r->capacity - (w - r->h->rpos.load(std::memory_order_acquire)) ||
      n > r->capacity - w % r->capacity) {
    return -EINVAL;
  }
  r->stats.ops++;
  advance_write(r, n);
  r->after_op(&r->h->empty);
  return 0;
}

ssize_t hshm_ring_peek(hshm_ring* r, const void** data) {
  if (r->role != HSHM_READER) return -EBADF;
  unsigned char* span;
  ssize_t k = wait_readable(r, &span, r->capacity);  // the largest span: always reload
  if (k > 0) *data = span;
  return k;
}

int hshm_ring_consume(hshm_ring* r, size_t n) {
  if (r->role != HSHM_READER) return -EBADF;
  uint64_t rp = r->h->rpos.load(std::memory_order_relaxed);
  if (n > r->h->wpos.load(std::memory_order_acquire) - rp || n > r->capacity - rp % r->capacity) {
    return -EINVAL;
  }
  advance_read(r, n);
  return 0;
}

int hshm_ring_flush(hshm_ring* r) {
  if (r->role != HSHM_WRITER) return -EBADF;
  r->wake_peer(&r->h->empty);
  return 0;
}

int hshm_ring_close(hshm_ring* r) {
  if (r == nullptr) return -EINVAL;
  Header* h = r->h;
  if (r->role == HSHM_WRITER) {
    h->writer_closed.store(1);
    r->wake_peer(&h->empty);
  } else {
    h->reader_closed.store(1);
    r->wake_peer(&h->full);
  }
  int rc = munmap(h, r->mapped) == 0 ? 0 : -errno;
  delete r;
  return rc;
}

int hshm_ring_end(hshm_ring* r) {
  if (r == nullptr || r->role != HSHM_WRITER) return -EBADF;
  r->h->writer_closed.store(1);
  r->wake_peer(&r->h->empty);
  return 0;
}

int64_t hshm_ring_unread(const hshm_ring* r) {
  Header* h = r->h;
  if (!h->reader_closed.load(std::memory_order_acquire)) return -1;
  return static_cast<int64_t>(h->wpos.load() - h->rpos.load());
}

void hshm_ring_get_stats(const hshm_ring* r, struct hshm_ring_stats* out) { *out = r->stats; }

}  // extern "C"
