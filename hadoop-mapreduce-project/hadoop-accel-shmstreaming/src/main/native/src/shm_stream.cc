// Program-side buffering over the two rings of a streaming task. Without rings the same API
// runs over stdin/stdout (the task said "-": it could not set rings up and uses pipes) or over
// nothing (stdin ended before the handshake: a reducer without input).
#include "hadoop_accel/shm_stream.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <unistd.h>

struct hshm_stream {
  hshm_ring* in = nullptr;
  hshm_ring* out = nullptr;
  int in_fd = -1;   // pipe mode: input from here instead of a ring
  int out_fd = -1;  // pipe mode: output to here
  std::vector<char> ibuf = std::vector<char>(256 * 1024);
  size_t istart = 0, iend = 0;
  bool ieof = false;
  std::vector<char> obuf = std::vector<char>(64 * 1024);
  size_t oused = 0;
  bool oclosed = false;  // hshm_stream_close_output ran
  int transport = HSHM_TRANSPORT_NONE;
};

namespace {

ssize_t source_read(hshm_stream* s, void* buf, size_t n) {
  if (s->in != nullptr) return hshm_ring_read(s->in, buf, n);
  if (s->in_fd < 0) return 0;
  while (true) {
    ssize_t r = ::read(s->in_fd, buf, n);
    if (r >= 0) return r;
    if (errno != EINTR) return -errno;
  }
}

ssize_t sink_write(hshm_stream* s, const void* buf, size_t n) {
  if (s->oclosed) return -EPIPE;
  if (s->out != nullptr) return hshm_ring_write(s->out, buf, n);
  if (s->out_fd < 0) return static_cast<ssize_t>(n);  // nobody reads it
  const char* p = static_cast<const char*>(buf);
  size_t left = n;
  while (left > 0) {
    ssize_t w = ::write(s->out_fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return -errno;
    p += w;
    left -= static_cast<size_t>(w);
  }
  return static_cast<ssize_t>(n);
}

// Hands the buffered output to the sink.
ssize_t drain(hshm_stream* s) {
  if (s->oused == 0) return 0;
  ssize_t r = sink_write(s, s->obuf.data(), s->oused);
  if (r >= 0) s->oused = 0;
  return r;
}

constexpr char kHandshakeMagic[] = "hadoop-shm 1\t";
constexpr char kShmPackage[] = "io.hadoopaccel.streaming.shm.";
constexpr size_t kMaxHandshake = 8192;

// Reads the one line the task writes to our stdin before anything else (DESIGN.md):
// "hadoop-shm 1 TAB <input ring> TAB <output ring> NEWLINE", byte by byte so that nothing
// after it is consumed. Returns 1 with the paths, 0 when stdin ends before the first byte
// (a reducer without input: streaming closes stdin and starts no rings), or a negative errno.
int read_handshake(int fd, std::string* in_path, std::string* out_path) {
  std::string line;
  while (true) {
    char c;
    ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -errno;
    if (n == 0) return line.empty() ? 0 : -EPROTO;
    if (c == '\n') break;
    line.push_back(c);
    if (line.size() > kMaxHandshake || (line.size() <= sizeof(kHandshakeMagic) - 1 &&
                                        line.back() != kHandshakeMagic[line.size() - 1])) {
      return -EPROTO;
    }
  }
  size_t magic = sizeof(kHandshakeMagic) - 1;
  size_t tab = line.find('\t', magic);
  if (line.size() < magic || tab == std::string::npos) return -EPROTO;
  *in_path = line.substr(magic, tab - magic);
  *out_path = line.substr(tab + 1);
  return in_path->empty() || out_path->empty() ? -EPROTO : 1;
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
  ssize_t n = source_read(s, s->ibuf.data() + s->iend, s->ibuf.size() - s->iend);
  if (n == 0) s->ieof = true;
  if (n > 0) s->iend += static_cast<size_t>(n);
  return n;
}

// Whether streaming set this task up with ShmStreaming's input writer (it exports the job
// configuration to our environment, dots as underscores). When neither side is, the task
// sends no handshake and the program simply runs over stdin/stdout.
bool task_uses_rings() {
  for (const char* key : {"stream_map_input_writer_class", "stream_reduce_input_writer_class"}) {
    const char* v = std::getenv(key);
    if (v != nullptr && std::strncmp(v, kShmPackage, sizeof(kShmPackage) - 1) == 0) return true;
  }
  return false;
}

// A stream over fds 0 and 1 (pipes, or the preload shim's routing of them).
hshm_stream* fd_stream(int in_fd) {
  auto* s = new (std::nothrow) hshm_stream();
  if (s == nullptr) {
    errno = ENOMEM;
  } else {
    s->in_fd = in_fd;
    s->out_fd = STDOUT_FILENO;
    s->transport = HSHM_TRANSPORT_PIPES;
  }
  return s;
}

}  // namespace

extern "C" {

int hshm_stream_task_uses_rings(void) { return task_uses_rings() ? 1 : 0; }

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
  s->transport = HSHM_TRANSPORT_RINGS;
  return s;
}

hshm_stream* hshm_stream_open(void) {
  if (!task_uses_rings()) return fd_stream(STDIN_FILENO);
  // The preload shim (libhadoop_shm_preload.so, preloaded by the task) routes fds 0/1 only once
  // the program uses them: before that it stands aside and the rings are ours; after, we go
  // through fds 0/1 and it routes them, so the program is never wrapped twice.
  using StandAside = int (*)(void);
  auto stand_aside =
      reinterpret_cast<StandAside>(dlsym(RTLD_DEFAULT, "hadoop_shm_preload_stand_aside"));
  if (stand_aside != nullptr && stand_aside() == 0) return fd_stream(STDIN_FILENO);
  return hshm_stream_open_fd(STDIN_FILENO);
}

hshm_stream* hshm_stream_open_fd(int fd) {
  std::string in_path, out_path;
  int rc = read_handshake(fd, &in_path, &out_path);
  if (rc == 0) {
    auto* s = new (std::nothrow) hshm_stream();  // no input, no rings: reads end, writes vanish
    if (s == nullptr) errno = ENOMEM;
    return s;
  }
  if (rc > 0 && in_path == "-" && out_path == "-") return fd_stream(fd);  // pipes this attempt
  if (rc > 0 && in_path == "+" && out_path == "+") {
    std::fprintf(stderr,
                 "hadoop_shm: another process of this task's command has already "
                 "attached to its rings; only one process may read and write the "
                 "records (a pipeline or a second program in the command?)\n");
    errno = EBUSY;
    return nullptr;
  }
  if (rc < 0) {
    std::fprintf(stderr,
                 "hadoop_shm: %s: standard input does not start with the ShmStreaming "
                 "handshake; run this program as a streaming task with -io shm "
                 "(stream.map.input/output=shm, stream.reduce.input/output=shm)\n",
                 std::strerror(-rc));
    errno = -rc;
    return nullptr;
  }
  return hshm_stream_open_paths(in_path.c_str(), out_path.c_str(), 0);
}

ssize_t hshm_stream_read(hshm_stream* s, void* buf, size_t n) {
  if (s->istart == s->iend) {
    if (n >= s->ibuf.size()) return s->ieof ? 0 : source_read(s, buf, n);
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
  ssize_t r = drain(s);
  if (r < 0) return static_cast<int>(r);
  return s->out != nullptr ? hshm_ring_flush(s->out) : 0;
}

ssize_t hshm_stream_write(hshm_stream* s, const void* buf, size_t n) {
  if (s->oclosed) return -EPIPE;
  if (s->oused + n > s->obuf.size()) {
    ssize_t r = drain(s);
    if (r < 0) return r;
    if (n >= s->obuf.size()) return sink_write(s, buf, n);
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

int hshm_stream_close_output(hshm_stream* s) {
  ssize_t r = s->oclosed ? 0 : drain(s);
  s->oclosed = true;
  if (s->out != nullptr) hshm_ring_close(s->out);  // end of stream for the task
  s->out = nullptr;
  return r < 0 ? static_cast<int>(r) : 0;
}

int hshm_stream_close(hshm_stream* s) {
  int r = hshm_stream_close_output(s);
  if (s->in != nullptr) hshm_ring_close(s->in);
  delete s;
  return r;
}

int hshm_stream_transport(const hshm_stream* s) { return s->transport; }

}  // extern "C"
