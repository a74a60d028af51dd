#include "run_file.h"

#include <fcntl.h>
#include <hadoop_accel/accel.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "byte_order.h"

namespace hadoop_accel::jbs {
namespace {

constexpr size_t kRunWriteBuffer = 256 * 1024;

class FileChunkSource : public ChunkSource {
 public:
  FileChunkSource(int fd, uint64_t size, size_t chunk) : fd_(fd), size_(size), chunk_(chunk) {}
  uint64_t disk_length() const override { return size_; }
  uint64_t raw_length() const override { return size_ - kIFileTrailerSize; }
  bool Next(std::vector<uint8_t>* out, std::string* error) override {
    size_t n = static_cast<size_t>(std::min<uint64_t>(chunk_, size_ - pos_));
    out->resize(n);
    size_t got = 0;
    while (got < n) {
      ssize_t r = ::pread(fd_, out->data() + got, n - got, static_cast<off_t>(pos_ + got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        *error =
            std::string("reading a spill run: ") + (r == 0 ? "short file" : std::strerror(errno));
        return false;
      }
      got += static_cast<size_t>(r);
    }
    pos_ += n;
    return true;
  }

 private:
  const int fd_;
  const uint64_t size_;
  const size_t chunk_;
  uint64_t pos_ = 0;
};

}  // namespace

RunFile::Writer::Writer(RunFile* run)
    : StreamSink(kRunWriteBuffer,
                 [run](const uint8_t* p, size_t n, std::string* e) { return run->Write(p, n, e); }),
      run_(run) {}

bool RunFile::Writer::Append(const RawRecord& r, uint32_t order) {
  value_.resize(4 + r.value_length);
  StoreBe32(value_.data(), order);
  if (r.value_length > 0) std::memcpy(value_.data() + 4, r.value, r.value_length);
  RawRecord with_order = r;
  with_order.value = value_.data();
  with_order.value_length = value_.size();
  return StreamSink::Append(with_order, order);
}

bool RunFile::Writer::Finish() {
  static const uint8_t kEofMarker[2] = {0xFF, 0xFF};  // vint -1, vint -1
  if (!Put(kEofMarker, 2) || !FlushBuffer()) return false;
  uint8_t trailer[4];
  StoreBe32(trailer, run_->crc_);
  std::string e;
  uint32_t crc = run_->crc_;
  if (!run_->Write(trailer, 4, &e)) return false;
  run_->crc_ = crc;
  return true;
}

std::unique_ptr<RunFile> RunFile::Create(const std::string& dir, std::string* error) {
  std::string tmpl = dir + "/jbs_run_XXXXXX";
  int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot create a spill run in " + dir + ": " + std::strerror(errno);
    return nullptr;
  }
  return std::unique_ptr<RunFile>(new RunFile(fd, tmpl));
}

RunFile::~RunFile() {
  ::close(fd_);
  ::unlink(path_.c_str());
}

bool RunFile::Write(const uint8_t* p, size_t n, std::string* error) {
  crc_ = hacc_crc32_update(crc_, p, n);
  size_t done = 0;
  while (done < n) {
    ssize_t w = ::pwrite(fd_, p + done, n - done, static_cast<off_t>(size_ + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      *error = "writing spill run " + path_ + ": " + std::strerror(w < 0 ? errno : ENOSPC);
      return false;
    }
    done += static_cast<size_t>(w);
  }
  size_ += n;
  return true;
}

std::unique_ptr<ChunkSource> RunFile::Open(size_t chunk_bytes) const {
  return std::make_unique<FileChunkSource>(fd_, size_, chunk_bytes);
}

}  // namespace hadoop_accel::jbs
