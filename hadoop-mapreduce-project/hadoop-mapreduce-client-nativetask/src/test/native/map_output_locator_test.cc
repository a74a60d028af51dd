#include "map_output_locator.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
  std::string why;
  ASSERT_EQ(Located::kFound,
            loc.Locate("bob", ::getuid(), "job_17_0002", "attempt_17_0002_m_000004_1", &p, &why));
  EXPECT_EQ(p.index, d2.path() + "/" + rel + "/file.out.index");
  EXPECT_EQ(p.data, d2.path() + "/" + rel + "/file.out");
  EXPECT_EQ(Located::kMissing,
            loc.Locate("bob", ::getuid(), "job_17_0002", "attempt_17_0002_m_000005_1", &p, &why));
  EXPECT_EQ(Located::kMissing,
            loc.Locate("eve", ::getuid(), "job_17_0002", "attempt_17_0002_m_000004_1", &p, &why));
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
  std::string why;
  EXPECT_EQ(Located::kMissing, loc.Locate("bob", ::getuid(), "job_17_0002",
                                          "attempt_17_0002_m_000001_0", &p, &why));  // no data
  ScratchDir::WriteAt(d1.path() + "/" + rel + "/file.out", {2});
  ASSERT_EQ(Located::kFound,
            loc.Locate("bob", ::getuid(), "job_17_0002", "attempt_17_0002_m_000001_0", &p, &why));
  EXPECT_EQ(p.index, d3.path() + "/" + rel + "/file.out.index");
  EXPECT_EQ(p.data, d1.path() + "/" + rel + "/file.out");
}

// A task owns its output dir: a file.out (or a dir on the way) that is a symlink is refused,
// as is a file owned by another uid (stock opens with SecureIOUtils and checks the owner).
TEST(MapOutputLocator, RefusesSymlinksAndOtherOwners) {
  ScratchDir d, elsewhere;
  const std::string job = "job_17_0002", attempt = "attempt_17_0002_m_000001_0";
  std::string rel = AttemptOutputDir("bob", job, attempt);
  std::filesystem::create_directories(d.path() + "/" + rel);
  ScratchDir::WriteAt(d.path() + "/" + rel + "/file.out.index", {1});
  std::string secret = elsewhere.Write("secret", {42});
  std::filesystem::create_symlink(secret, d.path() + "/" + rel + "/file.out");
  MapOutputLocator loc({d.path()});
  MapOutputPaths p;
  std::string why;
  EXPECT_EQ(loc.Locate("bob", ::getuid(), job, attempt, &p, &why), Located::kUnsafe);
  EXPECT_NE(why.find("symlink"), std::string::npos) << why;
  // A directory on the way that is a symlink: the same.
  std::filesystem::remove(d.path() + "/" + rel + "/file.out");
  ScratchDir::WriteAt(d.path() + "/" + rel + "/file.out", {2});
  std::string out_dir = d.path() + "/usercache/bob/appcache/application_17_0002/output";
  std::filesystem::rename(out_dir, elsewhere.path() + "/output");
  std::filesystem::create_symlink(elsewhere.path() + "/output", out_dir);
  EXPECT_EQ(loc.Locate("bob", ::getuid(), job, attempt, &p, &why), Located::kUnsafe);
  std::filesystem::remove(out_dir);
  std::filesystem::rename(elsewhere.path() + "/output", out_dir);
  ASSERT_EQ(loc.Locate("bob", ::getuid(), job, attempt, &p, &why), Located::kFound) << why;
  // Owned by another uid than the job's user.
  EXPECT_EQ(loc.Locate("bob", ::getuid() + 1, job, attempt, &p, &why), Located::kUnsafe);
  EXPECT_NE(why.find("owned by uid"), std::string::npos) << why;
  // OpenServed applies the same checks at read time.
  auto me = [](const std::string& user) {
    return user == "bob" ? std::optional<uid_t>(::getuid()) : std::nullopt;
  };
  int fd = loc.OpenServed(p.data, me, &why);
  ASSERT_GE(fd, 0) << why;
  ::close(fd);
  std::filesystem::remove(p.data);
  std::filesystem::create_symlink(secret, p.data);
  EXPECT_EQ(loc.OpenServed(p.data, me, &why), -1);
  EXPECT_EQ(loc.OpenServed(elsewhere.path() + "/secret", me, &why), -1);  // under no local dir
}

TEST(MapOutputLocator, OpenBelowRefusesFifosWithoutBlocking) {
  ScratchDir d;
  ASSERT_EQ(::mkfifo((d.path() + "/f").c_str(), 0600), 0);
  int err = 0;
  int fd = OpenBelow(d.path(), "f", &err);
  ASSERT_GE(fd, 0);  // opened non-blocking, then refused by the type check
  std::string why;
  EXPECT_FALSE(IsServableFile(fd, ::getuid(), &why));
  ::close(fd);
  EXPECT_EQ(OpenBelow(d.path(), "../f", &err), -1);
}
