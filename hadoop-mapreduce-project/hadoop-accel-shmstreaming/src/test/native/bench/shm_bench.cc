// Ring vs pipe between two processes: records/s when the writer hands over one record per
// call (an unbuffered program, seed 000 §III), and GB/s of bulk transfers, copying and
// zero-copy, vs memcpy (cache-hot, with the ring's footprint, and out of lines another core
// has just written: the hardware's ceiling for moving bytes between two processes).
//   shm_bench [capacity]            records and bulk
//   shm_bench capacity pipeline     both sides working on every byte: do they overlap?
// Prints one JSON object per line. Not a test: run it by hand (see README).
#include "hadoop_accel/shm_ring.h"

#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Child writes `count` items of `size` bytes, one call each; parent reads in 64 KiB calls.
double run_ring(size_t capacity, uint32_t batch, size_t size, uint64_t count) {
  std::string path = "/tmp/hshm-bench-" + std::to_string(getpid());
  hshm_ring* r = nullptr;
  if (hshm_ring_create(path.c_str(), capacity, HSHM_READER, &r) != 0) std::exit(1);
  pid_t pid = fork();
  if (pid == 0) {
    hshm_ring* w = nullptr;
    if (hshm_ring_attach(path.c_str(), HSHM_WRITER, 5000, &w) != 0) _exit(1);
    hshm_ring_set_batch(w, batch);
    std::vector<char> rec(size, 'r');
    for (uint64_t i = 0; i < count; i++) hshm_ring_write(w, rec.data(), size);
    hshm_ring_close(w);
    _exit(0);
  }
  hshm_ring_wait_peer(r, 5000);
  unlink(path.c_str());
  std::vector<char> buf(64 * 1024);
  auto start = std::chrono::steady_clock::now();
  while (hshm_ring_read(r, buf.data(), buf.size()) > 0) {
  }
  double s = seconds_since(start);
  waitpid(pid, nullptr, 0);
  hshm_ring_close(r);
  return s;
}

// Zero-copy: the child copies each transfer straight into the ring (reserve/commit); the
// parent takes the bytes in place (peek/consume), touching one byte per cache line so the data
// really crosses to its core.
double run_ring_zero_copy(size_t capacity, size_t size, uint64_t count) {
  std::string path = "/tmp/hshm-bench-" + std::to_string(getpid());
  hshm_ring* r = nullptr;
  if (hshm_ring_create(path.c_str(), capacity, HSHM_READER, &r) != 0) std::exit(1);
  pid_t pid = fork();
  if (pid == 0) {
    hshm_ring* w = nullptr;
    if (hshm_ring_attach(path.c_str(), HSHM_WRITER, 5000, &w) != 0) _exit(1);
    std::vector<char> rec(size, 'r');
    for (uint64_t i = 0; i < count; i++) {
      for (size_t off = 0; off < size;) {
        void* span;
        ssize_t k = hshm_ring_reserve(w, &span);
        if (k <= 0) _exit(2);
        size_t m = std::min(static_cast<size_t>(k), size - off);
        std::memcpy(span, rec.data() + off, m);
        hshm_ring_commit(w, m);
        off += m;
      }
    }
    hshm_ring_close(w);
    _exit(0);
  }
  hshm_ring_wait_peer(r, 5000);
  unlink(path.c_str());
  auto start = std::chrono::steady_clock::now();
  const void* span;
  ssize_t n;
  unsigned sum = 0;
  while ((n = hshm_ring_peek(r, &span)) > 0) {
    const auto* p = static_cast<const unsigned char*>(span);
    for (ssize_t i = 0; i < n; i += 64) sum += p[i];
    hshm_ring_consume(r, static_cast<size_t>(n));
  }
  double s = seconds_since(start);
  waitpid(pid, nullptr, 0);
  hshm_ring_close(r);
  if (sum == 42) std::printf("#\n");  // keep the reads observable
  return s;
}

double run_pipe(size_t size, uint64_t count) {
  int fd[2];
  if (pipe(fd) != 0) std::exit(1);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    std::vector<char> rec(size, 'r');
    for (uint64_t i = 0; i < count; i++) {
      size_t off = 0;
      while (off < size) off += write(fd[1], rec.data() + off, size - off);
    }
    _exit(0);
  }
  close(fd[1]);
  std::vector<char> buf(64 * 1024);
  auto start = std::chrono::steady_clock::now();
  while (read(fd[0], buf.data(), buf.size()) > 0) {
  }
  double s = seconds_since(start);
  close(fd[0]);
  waitpid(pid, nullptr, 0);
  return s;
}

// Work per byte on each side of a pipeline, as a streaming task and its program both do.
uint64_t work(const char* p, size_t n, uint64_t h) {
  for (size_t i = 0; i < n; i++) h = (h ^ static_cast<unsigned char>(p[i])) * 1099511628211ull;
  return h;
}

// A pipeline that moves `total` bytes in 64 KiB hand-offs with work on both sides: whether the
// wake-up rule lets the two sides overlap (time near the slower side) or makes them take turns
// (near the sum). capacity 0 = pipe.
double run_pipeline(size_t capacity, uint32_t batch, uint64_t total) {
  const size_t chunk = 64 * 1024;
  std::string path = "/tmp/hshm-bench-" + std::to_string(getpid());
  int fd[2] = {-1, -1};
  hshm_ring* r = nullptr;
  if (capacity == 0 ? pipe(fd) != 0
                    : hshm_ring_create(path.c_str(), capacity, HSHM_READER, &r) != 0)
    std::exit(1);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    hshm_ring* w = nullptr;
    if (capacity != 0) {
      if (hshm_ring_attach(path.c_str(), HSHM_WRITER, 5000, &w) != 0) _exit(1);
      hshm_ring_set_batch(w, batch);
    }
    std::vector<char> buf(chunk, 'w');
    uint64_t h = 0;
    for (uint64_t sent = 0; sent < total; sent += chunk) {
      h = work(buf.data(), chunk, h);
      buf[0] = static_cast<char>(h);
      if (w != nullptr) {
        hshm_ring_write(w, buf.data(), chunk);
      } else {
        for (size_t off = 0; off < chunk;) off += write(fd[1], buf.data() + off, chunk - off);
      }
    }
    if (w != nullptr) hshm_ring_close(w);
    _exit(static_cast<int>(h & 1));
  }
  if (capacity == 0) close(fd[1]);
  if (r != nullptr) {
    hshm_ring_set_batch(r, batch);
    hshm_ring_wait_peer(r, 5000);
    unlink(path.c_str());
  }
  std::vector<char> buf(chunk);
  uint64_t h = 0;
  ssize_t n;
  while ((n = r != nullptr ? hshm_ring_read(r, buf.data(), buf.size())
                           : read(fd[0], buf.data(), buf.size())) > 0) {
    h = work(buf.data(), static_cast<size_t>(n), h);
  }
  double s = seconds_since(start);
  waitpid(pid, nullptr, 0);
  if (r != nullptr) hshm_ring_close(r);
  if (capacity == 0) close(fd[0]);
  if (h == 42) std::printf("#\n");  // keep the work observable
  return s;
}

// memcpy with the ring's footprint: each transfer lands at the next place of a
// `capacity`-byte buffer, as a writer's copy does, instead of in one cache-hot target.
double run_memcpy_footprint(size_t capacity, size_t size, uint64_t count) {
  std::vector<char> a(size, 'a'), b(std::max(capacity, size));
  size_t slots = b.size() / size;
  auto start = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < count; i++) {
    std::memcpy(b.data() + (i % slots) * size, a.data(), size);
    a[i % size] = b[(i * 7) % b.size()];  // keep the copies observable
  }
  return seconds_since(start);
}

// One core writes `block` bytes, then the other copies them out (timed), turn by turn: the
// copy bandwidth out of another core's dirty cache lines, with no synchronisation in the
// timed part. Any shared-memory transport between two processes moves its bytes this way.
double run_memcpy_cross_core(size_t block, uint64_t bytes) {
  std::vector<char> src(block, 's'), shared(block), out(block);
  uint64_t rounds = std::max<uint64_t>(1, bytes / block);
  std::atomic<uint64_t> turn{0};  // 2i: the writer's turn in round i, 2i+1: the copier's
  std::thread writer([&] {
    for (uint64_t i = 0; i < rounds; i++) {
      while (turn.load(std::memory_order_acquire) != 2 * i) {
      }
      std::memcpy(shared.data(), src.data(), block);
      src[i % block]++;
      turn.store(2 * i + 1, std::memory_order_release);
    }
  });
  double copying = 0;
  for (uint64_t i = 0; i < rounds; i++) {
    while (turn.load(std::memory_order_acquire) != 2 * i + 1) {
    }
    auto start = std::chrono::steady_clock::now();
    std::memcpy(out.data(), shared.data(), block);
    copying += seconds_since(start);
    src[(i * 7) % block] ^= out[(i * 13) % block];  // keep the copies observable
    turn.store(2 * i + 2, std::memory_order_release);
  }
  writer.join();
  return copying / static_cast<double>(rounds) * static_cast<double>(bytes / block);
}

double run_memcpy(size_t size, uint64_t count) {
  std::vector<char> a(size, 'a'), b(size);
  auto start = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < count; i++) {
    std::memcpy(b.data(), a.data(), size);
    a[i % size] = b[(i * 7) % size];  // keep the copies observable
  }
  return seconds_since(start);
}

}  // namespace

int main(int argc, char** argv) {
  size_t capacity = argc > 1 ? std::strtoul(argv[1], nullptr, 0) : (1u << 20);
  if (argc > 2 && std::strcmp(argv[2], "pipeline") == 0) {
    uint64_t total = 512ull << 20;
    for (int rep = 0; rep < 3; rep++) {
      double pipe_s = run_pipeline(0, 0, total);
      for (uint32_t batch : {1u, 2u, 4u, 8u, 14u, 0u}) {
        double s = run_pipeline(capacity, batch, total);
        std::printf(
            "{\"kind\":\"pipeline\",\"capacity\":%zu,\"batch\":%s,\"pipe_s\":%.3f,\"ring_s\":%.3f,"
            "\"vs_pipe\":%.2f}\n",
            capacity, batch ? std::to_string(batch).c_str() : "\"auto\"", pipe_s, s, pipe_s / s);
      }
    }
    return 0;
  }
  for (size_t size : {16, 32, 64, 128, 256}) {
    uint64_t count = 2000000;
    double pipe_s = run_pipe(size, count);
    std::printf(
        "{\"kind\":\"records\",\"transport\":\"pipe\",\"record\":%zu,\"records_per_s\":%.0f}\n",
        size, count / pipe_s);
    for (uint32_t batch : {1u, 16u, 256u, 4096u, 0u}) {
      double s = run_ring(capacity, batch, size, count);
      std::printf(
          "{\"kind\":\"records\",\"transport\":\"ring\",\"capacity\":%zu,\"batch\":%s,"
          "\"record\":%zu,\"records_per_s\":%.0f,\"vs_pipe\":%.2f}\n",
          capacity, batch ? std::to_string(batch).c_str() : "\"auto\"", size, count / s,
          pipe_s / s);
    }
  }
  for (size_t size : {4096, 65536, 1048576}) {
    uint64_t count = (2ull << 30) / size;  // 2 GiB
    double mem = run_memcpy(size, count);
    double mem_fp = run_memcpy_footprint(std::max<size_t>(capacity, 2 * size), size, count);
    double mem_x = run_memcpy_cross_core(std::max<size_t>(capacity, 2 * size), size * count);
    double ring = run_ring(std::max<size_t>(capacity, 2 * size), 0, size, count);
    // Batch 1 wakes a sleeping reader at once: both sides keep working (see README).
    double ring1 = run_ring(std::max<size_t>(capacity, 2 * size), 1, size, count);
    double zero = run_ring_zero_copy(std::max<size_t>(capacity, 2 * size), size, count);
    double pipe_s = run_pipe(size, count);
    double gb = double(size) * count / 1e9;
    std::printf(
        "{\"kind\":\"bulk\",\"transfer\":%zu,\"memcpy_gbps\":%.2f,"
        "\"memcpy_ring_footprint_gbps\":%.2f,\"memcpy_cross_core_gbps\":%.2f,"
        "\"ring_gbps\":%.2f,\"ring_batch1_gbps\":%.2f,"
        "\"ring_zero_copy_gbps\":%.2f,\"pipe_gbps\":%.2f,\"ring_vs_memcpy\":%.2f,"
        "\"ring_zero_copy_vs_memcpy\":%.2f,\"ring_zero_copy_vs_memcpy_footprint\":%.2f,"
        "\"ring_vs_memcpy_cross_core\":%.2f,\"ring_zero_copy_vs_memcpy_cross_core\":%.2f}\n",
        size, gb / mem, gb / mem_fp, gb / mem_x, gb / ring, gb / ring1, gb / zero, gb / pipe_s,
        mem / ring, mem / zero, mem_fp / zero, mem_x / ring, mem_x / zero);
  }
  return 0;
}
