// Program-side buffering over the two rings of a streaming task.
#include "hadoop_accel/shm_stream.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

struct hshm_stream {
  hshm_ring* in = nullptr;
  hshm_ring* out = nullptr;
  std::vector<char> ibuf = std::vector<char>(256 * 1024);
  size_t istart = 0, iend = 0;
  bool ieof = false;
  std::vector<char> obuf = std::vector<char>(64 * 1024);
  size_t oused = 0;
};

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  return (*end == '\0' && n > 0 && n < (1L << 30)) ? static_cast<int>(n) : fallback;
}

// Refills the input buffer after the unparsed bytes [istart, iend), growing it when full.
// Returns bytes added, 0 at end of input, or a negative errno.
ssize_t fill(hshm_stream* s) {
  if (s->ieof) return 0;
  if (s->istart > 0) {
    std::memmove(s->ibuf.data(), s->ibuf.data() + s->istart, s->iend - s->istart);
    s->iend -= s->istart;
    s->istart = 0;
  }
  if (s->iend == s->ibuf.size()) s->ibuf.resize(2 * s->ibuf.size());
  ssize_t n = hshm_ring_read(s->in, s->ibuf.data() + s->iend, s->ibuf.size() - s->iend);
  if (n == 0) s->ieof = true;
  if (n > 0) s->iend += static_cast<size_t>(n);
  return n;
}

}  // namespace

extern "C" {

hshm_stream* hshm_stream_open_paths(const char* in_path, const char* out_path, int timeout_ms) {
  auto* s = new (std::nothrow) hshm_stream();
  if (s == nullptr) {
    errno = ENOMEM;
    return nullptr;
  }
  int rc = hshm_ring_attach(in_path, HSHM_READER, timeout_ms, &s->in);
  if (rc == 0) rc = hshm_ring_attach(out_path, HSHM_WRITER, timeout_ms, &s->out);
  if (rc != 0) {
    std::fprintf(stderr, "hadoop_shm: cannot attach to %s / %s: %s\n", in_path, out_path,
                 std::strerror(-rc));
    if (s->in != nullptr) hshm_ring_close(s->in);
    delete s;
    errno = -rc;
    return nullptr;
  }
  return s;
}

hshm_stream* hshm_stream_open(void) {
  const char* attempt = std::getenv("mapreduce_task_attempt_id");
  if (attempt == nullptr || *attempt == '\0') {
    std::fprintf(stderr, "hadoop_shm: mapreduce_task_attempt_id is not set: not running as a "
                         "Hadoop streaming task with -io shm\n");
    errno = ENOENT;
    return nullptr;
  }
  const char* dir = std::getenv("hadoop_accel_shm_streaming_dir");
  std::string base = std::string(dir != nullptr && *dir != '\0' ? dir : "/dev/shm") +
                     "/hadoop-shm-" + attempt;
  return hshm_stream_open_paths((base + ".in").c_str(), (base + ".out").c_str(),
                                env_int("hadoop_accel_shm_streaming_attach_timeout_ms", 30000));
}

ssize_t hshm_stream_read(hshm_stream* s, void* buf, size_t n) {
  if (s->istart == s->iend) {
    if (n >= s->ibuf.size()) return s->ieof ? 0 : hshm_ring_read(s->in, buf, n);
    ssize_t r = fill(s);
    if (r <= 0) return r;
  }
  size_t k = n < s->iend - s->istart ? n : s->iend - s->istart;
  std::memcpy(buf, s->ibuf.data() + s->istart, k);
  s->istart += k;
  return static_cast<ssize_t>(k);
}

int hshm_stream_read_line(hshm_stream* s, const char** line, size_t* len) {
  size_t scanned = s->istart;
  while (true) {
    const char* from = s->ibuf.data() + scanned;
    auto* nl = static_cast<const char*>(std::memchr(from, '\n', s->iend - scanned));
    if (nl != nullptr) {
      *line = s->ibuf.data() + s->istart;
      *len = static_cast<size_t>(nl - *line);
      s->istart += *len + 1;
      return 1;
    }
    size_t pending = s->iend - s->istart;  // scanned, no '\n' in them
    ssize_t r = fill(s);
    if (r < 0) return static_cast<int>(r);
    if (r == 0) {
      if (pending == 0) return 0;
      *line = s->ibuf.data() + s->istart;  // a last line without '\n'
      *len = pending;
      s->istart = s->iend;
      return 1;
    }
    scanned = s->istart + pending;  // fill() moved the unparsed bytes to the front
  }
}

int hshm_stream_flush(hshm_stream* s) {
  if (s->oused > 0) {
    ssize_t r = hshm_ring_write(s->out, s->obuf.data(), s->oused);
    if (r < 0) return static_cast<int>(r);
    s->oused = 0;
  }
  return hshm_ring_flush(s->out);
}

ssize_t hshm_stream_write(hshm_stream* s, const void* buf, size_t n) {
  if (s->oused + n > s->obuf.size()) {
    if (s->oused > 0) {
      ssize_t r = hshm_ring_write(s->out, s->obuf.data(), s->oused);
      if (r < 0) return r;
      s->oused = 0;
    }
    if (n >= s->obuf.size()) return hshm_ring_write(s->out, buf, n);
  }
  std::memcpy(s->obuf.data() + s->oused, buf, n);
  s->oused += n;
  return static_cast<ssize_t>(n);
}

int hshm_stream_write_record(hshm_stream* s, const char* key, size_t key_len, const char* value,
                             size_t value_len) {
  ssize_t r = hshm_stream_write(s, key, key_len);
  if (r >= 0) r = hshm_stream_write(s, "\t", 1);
  if (r >= 0) r = hshm_stream_write(s, value, value_len);
  if (r >= 0) r = hshm_stream_write(s, "\n", 1);
  return r < 0 ? static_cast<int>(r) : 0;
}

int hshm_stream_close(hshm_stream* s) {
  int rc = 0;
  if (s->oused > 0) {
    ssize_t r = hshm_ring_write(s->out, s->obuf.data(), s->oused);
    if (r < 0) rc = static_cast<int>(r);
  }
  hshm_ring_close(s->out);
  hshm_ring_close(s->in);
  delete s;
  return rc;
}

}  // extern "C"
