// The DataCache's memory: a fixed number of equal transport buffers allocated once, up front,
// in one page-aligned block (seed 004 §3.3: no allocation on the data path; page alignment
// keeps O_DIRECT reads and RDMA memory registration possible later). Buffers are handed out
// by index; a buffer goes back to the pool once its chunk has been sent.
#ifndef HADOOP_ACCEL_JBS_BUFFER_POOL_H
#define HADOOP_ACCEL_JBS_BUFFER_POOL_H

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace hadoop_accel::jbs {

constexpr size_t kDefaultTransportBufferSize = 128 * 1024;  // seed 001's measured best

class BufferPool {
 public:
  // buffer_size must be a positive multiple of 4096 and count positive; throws
  // std::invalid_argument otherwise, std::bad_alloc if the block cannot be allocated.
  BufferPool(size_t buffer_size, size_t count);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A free buffer's index, lowest first (a recently released buffer is likely still cached);
  // nullopt when all are in use.
  std::optional<uint32_t> TryAcquire();
  // Returns a buffer; false (and no change) if it was not in use or the index is out of range.
  bool Release(uint32_t index);

  uint8_t* data(uint32_t index) const { return base_ + size_t{index} * buffer_size_; }
  size_t buffer_size() const { return buffer_size_; }
  size_t count() const { return in_use_.size(); }
  size_t free_count() const;
  // The whole block, for registering it with a transport once.
  uint8_t* base() const { return base_; }

 private:
  const size_t buffer_size_;
  uint8_t* base_ = nullptr;
  mutable std::mutex mu_;
  std::vector<bool> in_use_;
  size_t free_ = 0;
};

}  // namespace hadoop_accel::jbs

#endif
