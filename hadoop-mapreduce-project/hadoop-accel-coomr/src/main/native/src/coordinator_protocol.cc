#include "coordinator_protocol.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace hadoop_accel::coomr {
namespace {

class Writer {
 public:
  void U8(uint8_t v) { out.push_back(v); }
  void U16(uint16_t v) { Int(v, 2); }
  void U32(uint32_t v) { Int(v, 4); }
  void U64(uint64_t v) { Int(v, 8); }
  void Str(const std::string& s) {
    U16(static_cast<uint16_t>(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
  std::vector<uint8_t> out;

 private:
  void Int(uint64_t v, int n) {
    for (int i = 0; i < n; i++) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
};

class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  bool U8(uint8_t* v) { return Int(v, 1); }
  bool U32(uint32_t* v) { return Int(v, 4); }
  bool U64(uint64_t* v) { return Int(v, 8); }
  bool Str(std::string* s) {
    uint16_t len;
    if (!Int(&len, 2) || len > kMaxName || n_ - at_ < len) return false;
    s->assign(reinterpret_cast<const char*>(p_ + at_), len);
    at_ += len;
    return true;
  }
  bool done() const { return at_ == n_; }

 private:
  template <typename T>
  bool Int(T* v, size_t n) {
    if (n_ - at_ < n) return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) x |= uint64_t{p_[at_ + i]} << (8 * i);
    at_ += n;
    *v = static_cast<T>(x);
    return true;
  }
  const uint8_t* p_;
  size_t n_;
  size_t at_ = 0;
};

bool WriteAll(int fd, const uint8_t* p, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool ReadAll(int fd, uint8_t* p, size_t n) {
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

}  // namespace

std::vector<uint8_t> Encode(const Message& m) {
  Writer w;
  w.U32(0);  // the length, set below
  w.U8(static_cast<uint8_t>(m.type));
  switch (m.type) {
    case MessageType::kAttach:
    case MessageType::kLookup:
      w.Str(m.job);
      w.Str(m.attempt);
      break;
    case MessageType::kAttached:
      w.U32(m.block_size);
      w.U64(m.value);
      w.Str(m.text);
      w.U8(m.serves_outputs ? 1 : 0);
      break;
    case MessageType::kHandover:
    case MessageType::kLocated:
      w.Str(m.text);
      w.Str(m.index);
      break;
    case MessageType::kRequest:
    case MessageType::kGranted:
    case MessageType::kRelease:
      w.U64(m.value);
      break;
    case MessageType::kError:
      w.Str(m.text.substr(0, kMaxName));
      break;
    case MessageType::kDetach:
    case MessageType::kOk:
      break;
  }
  uint32_t body = static_cast<uint32_t>(w.out.size() - 4);
  for (int i = 0; i < 4; i++) w.out[i] = static_cast<uint8_t>(body >> (8 * i));
  return w.out;
}

std::optional<Message> Decode(const uint8_t* body, size_t length) {
  Reader r(body, length);
  Message m;
  uint8_t type;
  if (!r.U8(&type)) return std::nullopt;
  m.type = static_cast<MessageType>(type);
  bool ok = false;
  switch (m.type) {
    case MessageType::kAttach:
    case MessageType::kLookup:
      ok = r.Str(&m.job) && r.Str(&m.attempt);
      break;
    case MessageType::kAttached: {
      uint8_t serves = 0;
      ok =
          r.U32(&m.block_size) && r.U64(&m.value) && r.Str(&m.text) && r.U8(&serves) && serves <= 1;
      m.serves_outputs = serves == 1;
      break;
    }
    case MessageType::kHandover:
    case MessageType::kLocated:
      ok = r.Str(&m.text) && r.Str(&m.index);
      break;
    case MessageType::kRequest:
    case MessageType::kGranted:
    case MessageType::kRelease:
      ok = r.U64(&m.value);
      break;
    case MessageType::kError:
      ok = r.Str(&m.text);
      break;
    case MessageType::kDetach:
    case MessageType::kOk:
      ok = true;
      break;
  }
  if (!ok || !r.done()) return std::nullopt;
  return m;
}

bool WriteMessage(int fd, const Message& m) {
  std::vector<uint8_t> f = Encode(m);
  return WriteAll(fd, f.data(), f.size());
}

bool ReadMessage(int fd, Message* m) {
  uint8_t len[4];
  if (!ReadAll(fd, len, 4)) return false;
  uint32_t n = 0;
  for (int i = 0; i < 4; i++) n |= uint32_t{len[i]} << (8 * i);
  if (n == 0 || n > kMaxFrame) return false;  // checked before anything is read into memory
  std::vector<uint8_t> body(n);
  if (!ReadAll(fd, body.data(), n)) return false;
  std::optional<Message> d = Decode(body.data(), n);
  if (!d) return false;
  *m = *d;
  return true;
}

}  // namespace hadoop_accel::coomr
