#include "locs_log.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

using namespace hadoop_accel::coomr;

namespace {

class LocsLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/locs_log_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/log-0";
  }
  void TearDown() override {
    unlink(path_.c_str());
    unlink((dir_ + "/link").c_str());
    rmdir(dir_.c_str());
  }
  static std::vector<uint8_t> Bytes(size_t n, uint8_t seed) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; i++) v[i] = static_cast<uint8_t>(seed + i * 7);
    return v;
  }
  static std::vector<uint8_t> ReadBack(const LocsLog& log, const BucketRef& b) {
    std::vector<uint8_t> out(b.length);
    log.Read(b, out.data());
    return out;
  }
  // A log of two repositories, one bucket each (maps 1 and 2, reduce 0); the first's size.
  uint64_t TwoRepositories(const std::vector<uint8_t>& bucket) {
    LocsLog log = LocsLog::Create(path_);
    log.Append({{1, 0, 0, bucket.size(), bucket.data(), bucket.size()}});
    uint64_t first = log.size();
    log.Append({{2, 0, 0, bucket.size(), bucket.data(), bucket.size()}});
    return first;
  }
  uint64_t FileSize() const {
    struct stat st;
    EXPECT_EQ(stat(path_.c_str(), &st), 0);
    return static_cast<uint64_t>(st.st_size);
  }
  std::string dir_;
  std::string path_;
};

TEST_F(LocsLogTest, AppendsRepositoriesAndIndexesTheirBucketsByReduceAndByOffset) {
  std::vector<uint8_t> a0 = Bytes(1000, 1), a1 = Bytes(10, 2), b0 = Bytes(5000, 3);
  std::vector<uint8_t> c1 = Bytes(77, 4);
  LocsLog log = LocsLog::Create(path_);
  uint64_t first = log.Append({{1, 0, 0, 2000, a0.data(), a0.size()},
                               {1, 0, 1, 20, a1.data(), a1.size()},
                               {2, 0, 0, 9000, b0.data(), b0.size()}});
  uint64_t second = log.Append({{3, 1, 1, 77, c1.data(), c1.size()}});
  EXPECT_EQ(first, 0u);
  EXPECT_EQ(second, 40u + 3 * 40 + 1000 + 10 + 5000);
  EXPECT_EQ(log.size(), FileSize());
  ASSERT_EQ(log.repositories().size(), 2u);
  EXPECT_EQ(log.repositories()[1].offset, second);
  ASSERT_EQ(log.BucketsOf(0).size(), 2u);
  EXPECT_EQ(log.BucketsOf(0)[0].map, 1u);
  EXPECT_EQ(log.BucketsOf(0)[1].map, 2u);
  EXPECT_EQ(log.BucketsOf(0)[1].raw_length, 9000u);
  ASSERT_EQ(log.BucketsOf(1).size(), 2u);
  EXPECT_EQ(log.BucketsOf(1)[1].attempt, 1u);
  EXPECT_TRUE(log.BucketsOf(7).empty());
  EXPECT_EQ(ReadBack(log, log.BucketsOf(0)[1]), b0);
  EXPECT_EQ(ReadBack(log, log.BucketsOf(1)[1]), c1);
  // Buckets lie in file order inside their repository, right after the header and entries.
  const RepositoryRef& r0 = log.repositories()[0];
  EXPECT_EQ(r0.buckets[0].offset, 40u + 3 * 40);
  EXPECT_EQ(r0.buckets[1].offset, r0.buckets[0].offset + 1000);
  EXPECT_EQ(r0.length, second);
}

TEST_F(LocsLogTest, ReopeningRebuildsBothTables) {
  std::vector<uint8_t> a = Bytes(300, 5), b = Bytes(0, 0), c = Bytes(4096, 6);
  {
    LocsLog log = LocsLog::Create(path_);
    log.Append({{4, 0, 2, 600, a.data(), a.size()}, {4, 0, 3, 0, b.data(), b.size()}});
    log.Append({{5, 2, 2, 4096, c.data(), c.size()}});
  }
  LocsLog log = LocsLog::Open(path_);
  EXPECT_EQ(log.truncated_bytes(), 0u);
  EXPECT_EQ(log.repositories().size(), 2u);
  ASSERT_EQ(log.BucketsOf(2).size(), 2u);
  EXPECT_EQ(ReadBack(log, log.BucketsOf(2)[0]), a);
  EXPECT_EQ(ReadBack(log, log.BucketsOf(2)[1]), c);
  EXPECT_EQ(log.BucketsOf(3)[0].length, 0u);
  // Appending goes on after the last repository, with the next sequence number.
  log.Append({{6, 0, 2, 300, a.data(), a.size()}});
  LocsLog again = LocsLog::Open(path_);
  EXPECT_EQ(again.repositories().size(), 3u);
  EXPECT_EQ(ReadBack(again, again.BucketsOf(2)[2]), a);
}

TEST_F(LocsLogTest, ATornTailIsCutOffOnOpen) {
  uint64_t whole = TwoRepositories(Bytes(500, 7));
  // A crash mid-append: the second repository lost its last 100 bytes.
  ASSERT_EQ(truncate(path_.c_str(), static_cast<off_t>(2 * whole - 100)), 0);
  LocsLog log = LocsLog::Open(path_);
  EXPECT_EQ(log.truncated_bytes(), whole - 100);
  EXPECT_EQ(log.size(), whole);
  EXPECT_EQ(FileSize(), whole);
  ASSERT_EQ(log.BucketsOf(0).size(), 1u);
  EXPECT_EQ(log.BucketsOf(0)[0].map, 1u);
}

TEST_F(LocsLogTest, AHeaderThatFailsItsCheckEndsTheLog) {
  uint64_t whole = TwoRepositories(Bytes(64, 8));
  int fd = open(path_.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  uint8_t flip = 0xff;
  ASSERT_EQ(pwrite(fd, &flip, 1, static_cast<off_t>(whole + 17)), 1);  // the bucket count
  close(fd);
  LocsLog log = LocsLog::Open(path_);
  EXPECT_EQ(log.repositories().size(), 1u);
  EXPECT_EQ(log.truncated_bytes(), whole);
}

TEST_F(LocsLogTest, ACorruptBucketFailsItsReadNotTheOthers) {
  std::vector<uint8_t> a = Bytes(128, 9), b = Bytes(128, 10);
  LocsLog log = LocsLog::Create(path_);
  log.Append({{1, 0, 0, 128, a.data(), a.size()}, {1, 0, 1, 128, b.data(), b.size()}});
  int fd = open(path_.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  uint8_t zero = 0;
  ASSERT_EQ(pwrite(fd, &zero, 1, static_cast<off_t>(log.BucketsOf(0)[0].offset + 3)), 1);
  close(fd);
  std::vector<uint8_t> out(128);
  EXPECT_THROW(log.Read(log.BucketsOf(0)[0], out.data()), std::runtime_error);
  EXPECT_EQ(ReadBack(log, log.BucketsOf(1)[0]), b);
}

TEST_F(LocsLogTest, ARerunMapsBucketsReplaceTheOldAttempts) {
  std::vector<uint8_t> old = Bytes(50, 11), rerun = Bytes(60, 12), other = Bytes(70, 13);
  LocsLog log = LocsLog::Create(path_);
  log.Append({{8, 0, 0, 50, old.data(), old.size()}, {9, 0, 0, 70, other.data(), other.size()}});
  log.Append({{8, 1, 0, 60, rerun.data(), rerun.size()}});
  log.KeepOnlyAttempt(8, 1);
  ASSERT_EQ(log.BucketsOf(0).size(), 2u);
  EXPECT_EQ(log.BucketsOf(0)[0].map, 9u);
  EXPECT_EQ(ReadBack(log, log.BucketsOf(0)[1]), rerun);
  EXPECT_EQ(log.repositories()[0].buckets.size(), 1u);
}

TEST_F(LocsLogTest, NeverFollowsASymlinkNorReplacesAFile) {
  ASSERT_EQ(symlink("/etc/passwd", (dir_ + "/link").c_str()), 0);
  EXPECT_THROW(LocsLog::Open(dir_ + "/link"), std::system_error);
  EXPECT_THROW(LocsLog::Create(dir_ + "/link"), std::system_error);
  LocsLog log = LocsLog::Create(path_);
  EXPECT_THROW(LocsLog::Create(path_), std::system_error);
  struct stat st;
  ASSERT_EQ(stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

}  // namespace
