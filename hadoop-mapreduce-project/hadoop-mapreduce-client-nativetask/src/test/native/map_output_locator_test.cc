#include "map_output_locator.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_files.h"

using namespace hadoop_accel::jbs;

TEST(MapOutputLocator, ApplicationIdAsShuffleHandlerDerivesIt) {
  EXPECT_EQ(ApplicationIdOfJob("job_1700000000000_0001"), "application_1700000000000_0001");
  EXPECT_EQ(ApplicationIdOfJob("job_1700000000000_1"), "application_1700000000000_0001");
  EXPECT_EQ(ApplicationIdOfJob("job_17_123456"), "application_17_123456");
  EXPECT_EQ(ApplicationIdOfJob("job_17_2147483648"), "");  // not an int
  EXPECT_EQ(ApplicationIdOfJob("job_17_1/.."), "");
}

TEST(MapOutputLocator, OutputDirFromCheckedPartsOnly) {
  EXPECT_EQ(AttemptOutputDir("alice", "job_17_0002", "attempt_17_0002_m_000001_0"),
            "usercache/alice/appcache/application_17_0002/output/attempt_17_0002_m_000001_0");
  for (const char* user : {"", ".", "..", "a/b", "-x", "a b", "al\nice"})
    EXPECT_EQ(AttemptOutputDir(user, "job_17_0002", "attempt_17_0002_m_000001_0"), "") << user;
  EXPECT_TRUE(IsValidUserName("hdfs@EXAMPLE.COM") && IsValidUserName("svc-etl_2"));
  EXPECT_EQ(AttemptOutputDir("alice", "job_17_0002", "attempt_17_0003_m_000001_0"), "");
}

TEST(MapOutputLocator, SearchesEveryLocalDir) {
  ScratchDir d1, d2;
  std::string rel = AttemptOutputDir("bob", "job_17_0002", "attempt_17_0002_m_000004_1");
  std::filesystem::create_directories(d2.path() + "/" + rel);
  ScratchDir::WriteAt(d2.path() + "/" + rel + "/file.out.index", {1});
  ScratchDir::WriteAt(d2.path() + "/" + rel + "/file.out", {2});
  MapOutputLocator loc({d1.path(), d2.path()});
  MapOutputPaths p;
  ASSERT_TRUE(loc.Locate("bob", "job_17_0002", "attempt_17_0002_m_000004_1", &p));
  EXPECT_EQ(p.index, d2.path() + "/" + rel + "/file.out.index");
  EXPECT_EQ(p.data, d2.path() + "/" + rel + "/file.out");
  EXPECT_FALSE(loc.Locate("bob", "job_17_0002", "attempt_17_0002_m_000005_1", &p));
  EXPECT_FALSE(loc.Locate("eve", "job_17_0002", "attempt_17_0002_m_000004_1", &p));
}

// LocalDirAllocator places file.out and file.out.index independently: each is found on its own.
TEST(MapOutputLocator, FindsDataAndIndexInDifferentLocalDirs) {
  ScratchDir d1, d2, d3;
  std::string rel = AttemptOutputDir("bob", "job_17_0002", "attempt_17_0002_m_000001_0");
  std::filesystem::create_directories(d1.path() + "/" + rel);
  std::filesystem::create_directories(d3.path() + "/" + rel);
  ScratchDir::WriteAt(d3.path() + "/" + rel + "/file.out.index", {1});
  MapOutputLocator loc({d1.path(), d2.path(), d3.path()});
  MapOutputPaths p;
  EXPECT_FALSE(loc.Locate("bob", "job_17_0002", "attempt_17_0002_m_000001_0", &p));  // no data
  ScratchDir::WriteAt(d1.path() + "/" + rel + "/file.out", {2});
  ASSERT_TRUE(loc.Locate("bob", "job_17_0002", "attempt_17_0002_m_000001_0", &p));
  EXPECT_EQ(p.index, d3.path() + "/" + rel + "/file.out.index");
  EXPECT_EQ(p.data, d1.path() + "/" + rel + "/file.out");
}
