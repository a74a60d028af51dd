// SMStream, the C++ interface of the seed's Fig. 3, over the C API in shm_stream.h.
#ifndef HADOOP_ACCEL_SM_STREAM_HPP
#define HADOOP_ACCEL_SM_STREAM_HPP

#include <cerrno>
#include <string_view>
#include <system_error>

#include "hadoop_accel/shm_stream.h"

namespace hadoop_accel {

class SMStream {
 public:
  // Attaches to this task's rings (their size is the task's setting, not the program's).
  SMStream() : s_(hshm_stream_open()) {
    if (s_ == nullptr) throw std::system_error(errno, std::generic_category(), "SMStream");
  }
  ~SMStream() {
    if (s_ != nullptr) hshm_stream_close(s_);
  }
  SMStream(const SMStream&) = delete;
  SMStream& operator=(const SMStream&) = delete;

  // As in the seed: bytes written / read, 0 at end of input, negative errno on error.
  int write(const char* buf, int size) {
    return static_cast<int>(hshm_stream_write(s_, buf, size));
  }
  int read(char* buf, int size) { return static_cast<int>(hshm_stream_read(s_, buf, size)); }

  // Next line without '\n' (valid until the next read); false at end of input.
  bool readLine(std::string_view& line) {
    const char* p;
    size_t n;
    int rc = hshm_stream_read_line(s_, &p, &n);
    if (rc < 0) throw std::system_error(-rc, std::generic_category(), "SMStream::readLine");
    if (rc == 0) return false;
    line = std::string_view(p, n);
    return true;
  }
  // key TAB value NEWLINE.
  void writeRecord(std::string_view key, std::string_view value) {
    int rc = hshm_stream_write_record(s_, key.data(), key.size(), value.data(), value.size());
    if (rc < 0) throw std::system_error(-rc, std::generic_category(), "SMStream::writeRecord");
  }
  void flush() { hshm_stream_flush(s_); }
  // Ends the output now (the destructor does it otherwise).
  int close() {
    int rc = hshm_stream_close(s_);
    s_ = nullptr;
    return rc;
  }

 private:
  hshm_stream* s_;
};

}  // namespace hadoop_accel
#endif  // HADOOP_ACCEL_SM_STREAM_HPP
