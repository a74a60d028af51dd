#include "buffer_pool.h"

#include <cstdlib>
#include <new>
#include <stdexcept>

namespace hadoop_accel::jbs {

BufferPool::BufferPool(size_t buffer_size, size_t count)
    : buffer_size_(buffer_size), in_use_(count, false), free_(count) {
  if (buffer_size == 0 || buffer_size % 4096 != 0 || count == 0 || buffer_size > SIZE_MAX / count)
    throw std::invalid_argument(
        "transport buffers: size must be a positive multiple of 4096 "
        "and count positive");
  base_ = static_cast<uint8_t*>(std::aligned_alloc(4096, buffer_size * count));
  if (base_ == nullptr) throw std::bad_alloc();
}

BufferPool::~BufferPool() { std::free(base_); }

std::optional<uint32_t> BufferPool::TryAcquire() {
  std::lock_guard<std::mutex> g(mu_);
  if (free_ == 0) return std::nullopt;
  for (size_t i = 0; i < in_use_.size(); ++i) {
    if (!in_use_[i]) {
      in_use_[i] = true;
      --free_;
      return static_cast<uint32_t>(i);
    }
  }
  return std::nullopt;
}

bool BufferPool::Release(uint32_t index) {
  std::lock_guard<std::mutex> g(mu_);
  if (index >= in_use_.size() || !in_use_[index]) return false;
  in_use_[index] = false;
  ++free_;
  return true;
}

size_t BufferPool::free_count() const {
  std::lock_guard<std::mutex> g(mu_);
  return free_;
}

}  // namespace hadoop_accel::jbs
