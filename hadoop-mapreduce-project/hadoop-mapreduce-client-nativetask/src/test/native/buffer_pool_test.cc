#include "buffer_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

using namespace hadoop_accel::jbs;

TEST(BufferPool, HandsOutEveryBufferOnceAndTakesThemBack) {
  BufferPool pool(kDefaultTransportBufferSize, 3);
  EXPECT_EQ(pool.buffer_size(), 128u * 1024);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(pool.base()) % 4096, 0u);
  EXPECT_EQ(*pool.TryAcquire(), 0u);
  EXPECT_EQ(*pool.TryAcquire(), 1u);
  EXPECT_EQ(*pool.TryAcquire(), 2u);
  EXPECT_FALSE(pool.TryAcquire().has_value());
  EXPECT_EQ(pool.free_count(), 0u);
  EXPECT_EQ(pool.data(2) - pool.data(0), static_cast<ptrdiff_t>(2 * pool.buffer_size()));
  EXPECT_TRUE(pool.Release(1));
  EXPECT_FALSE(pool.Release(1));  // double release is refused, not counted twice
  EXPECT_FALSE(pool.Release(3));
  EXPECT_EQ(pool.free_count(), 1u);
  EXPECT_EQ(*pool.TryAcquire(), 1u);  // the released buffer is reused
}

TEST(BufferPool, RefusesUnusableSizes) {
  EXPECT_THROW(BufferPool(0, 1), std::invalid_argument);
  EXPECT_THROW(BufferPool(1000, 1), std::invalid_argument);  // not page-sized
  EXPECT_THROW(BufferPool(4096, 0), std::invalid_argument);
  EXPECT_THROW(BufferPool(SIZE_MAX - 4095, 2), std::invalid_argument);  // overflows
  BufferPool small(4096, 1);  // the configurable size, not only the default
  EXPECT_EQ(small.count(), 1u);
}
