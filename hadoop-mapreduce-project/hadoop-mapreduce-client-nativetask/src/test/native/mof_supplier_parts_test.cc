// The supplier's small parts: command line, authorizer, refusal log, open-file and
// read-ahead caches.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "job_auth.h"
#include "mof_supplier_auth.h"
#include "mof_supplier_options.h"
#include "open_file_cache.h"
#include "prefetch_cache.h"
#include "test_files.h"

using namespace hadoop_accel::jbs;

namespace {

bool Parse(std::vector<const char*> args, SupplierOptions* o, std::string* err) {
  args.insert(args.begin(), "jbs_mof_supplier");
  return ParseSupplierOptions(static_cast<int>(args.size()), args.data(), o, err);
}

std::string ReadAll(FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  for (int c; (c = std::fgetc(f)) != EOF;) s.push_back(static_cast<char>(c));
  return s;
}

}  // namespace

TEST(SupplierOptions, ParsesDesignCommandLine) {
  SupplierOptions o;
  std::string err;
  ASSERT_TRUE(Parse({"--listen", "0.0.0.0:13562", "--local-dirs", "/a,/b", "--buffer-bytes",
                     "262144", "--buffers", "64", "--index-cache-bytes", "1048576"},
                    &o, &err))
      << err;
  EXPECT_EQ(o.listen.host, "0.0.0.0");
  EXPECT_EQ(o.listen.port, 13562);
  EXPECT_EQ(o.local_dirs, (std::vector<std::string>{"/a", "/b"}));
  EXPECT_EQ(o.buffer_bytes, 262144u);
  EXPECT_EQ(o.buffers, 64u);
  EXPECT_EQ(o.index_cache_bytes, 1048576u);
  ASSERT_TRUE(Parse({"--local-dirs", "/x", "--listen", "[::1]:0"}, &o, &err)) << err;
  EXPECT_EQ(o.listen.host, "::1");
  EXPECT_EQ(o.buffer_bytes, 128u * 1024);  // defaults
  EXPECT_EQ(o.buffers, 256u);
}

TEST(SupplierOptions, ErrorsNameTheOption) {
  SupplierOptions o;
  std::string err;
  struct Case {
    std::vector<const char*> args;
    const char* option;
  } cases[] = {
      {{"--local-dirs", "/a"}, "--listen"},
      {{"--listen", "h:1"}, "--local-dirs"},
      {{"--listen", "h", "--local-dirs", "/a"}, "--listen"},
      {{"--listen", "h:65536", "--local-dirs", "/a"}, "--listen"},
      {{"--listen", "h:-1", "--local-dirs", "/a"}, "--listen"},
      {{"--listen", "h:1", "--local-dirs", "/a,,/b"}, "--local-dirs"},
      {{"--listen", "h:1", "--local-dirs", "/a", "--buffer-bytes", "1000"}, "--buffer-bytes"},
      {{"--listen", "h:1", "--local-dirs", "/a", "--buffer-bytes", "33554432"}, "--buffer-bytes"},
      {{"--listen", "h:1", "--local-dirs", "/a", "--buffers", "0"}, "--buffers"},
      {{"--listen", "h:1", "--local-dirs", "/a", "--buffers", "12x"}, "--buffers"},
      {{"--listen", "h:1", "--local-dirs", "/a", "--index-cache-bytes"}, "--index-cache-bytes"},
      {{"--listen", "h:1", "--local-dirs", "/a", "--verbose", "1"}, "--verbose"},
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(Parse(c.args, &o, &err)) << c.option;
    EXPECT_EQ(err.rfind(c.option, 0), 0u) << err;
  }
}

TEST(SupplierAuth, AcceptsOnlyTheMacOfThisJobAttemptAndPartition) {
  JobInfo job{"alice", "secret", std::nullopt};
  FetchRequest r;
  r.job_id = "job_1_0001";
  r.map_attempt_id = "attempt_1_0001_m_000001_0";
  r.partition = 3;
  r.auth = FetchMac("secret", r.job_id, r.map_attempt_id, 3);
  EXPECT_TRUE(AuthorizeFetchMac(r, job));
  r.auth = FetchMac("secret", r.job_id, r.map_attempt_id, 4);
  EXPECT_FALSE(AuthorizeFetchMac(r, job));
  r.auth = FetchMac("secret", r.job_id, "attempt_1_0001_m_000002_0", 3);
  EXPECT_FALSE(AuthorizeFetchMac(r, job));
  r.auth.clear();
  EXPECT_FALSE(AuthorizeFetchMac(r, job));
  r.auth = FetchMac("secret", r.job_id, r.map_attempt_id, 3).substr(0, 10);
  EXPECT_FALSE(AuthorizeFetchMac(r, job));
}

TEST(RateLimitedLog, WritesOneLinePerIntervalAndCountsTheRest) {
  FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  RateLimitedLog log(f, "p: ", std::chrono::hours(1));
  EXPECT_TRUE(log.Log("first"));
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(log.Log("flood"));
  EXPECT_EQ(log.suppressed_total(), 1000u);
  EXPECT_EQ(ReadAll(f), "p: first\n");
  std::fclose(f);

  f = std::tmpfile();
  RateLimitedLog every(f, "p: ", std::chrono::seconds(0));
  EXPECT_TRUE(every.Log("a"));
  EXPECT_TRUE(every.Log("b"));
  EXPECT_EQ(ReadAll(f), "p: a\np: b\n");
  std::fclose(f);
}

TEST(OpenFileCache, KeepsAtMostCapacityOpenAndReadsExactly) {
  ScratchDir d;
  std::vector<std::string> paths;
  for (int i = 0; i < 4; ++i)
    paths.push_back(d.Write("f" + std::to_string(i), std::vector<uint8_t>(100, uint8_t(i))));
  OpenFileCache files(2);
  uint8_t buf[100];
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(files.ReadFully(paths[0], buf, 10, 90));
    EXPECT_EQ(buf[0], 0);
  }
  EXPECT_EQ(files.opens(), 1u);  // reused
  for (int i = 1; i < 4; ++i) ASSERT_TRUE(files.ReadFully(paths[i], buf, 100, 0));
  EXPECT_EQ(files.open_files(), 2u);
  EXPECT_FALSE(files.ReadFully(paths[3], buf, 11, 90));  // past the end
  EXPECT_FALSE(files.ReadFully(d.path() + "/missing", buf, 1, 0));
}

TEST(OpenFileCache, DropContainingClosesOnlyThoseFiles) {
  ScratchDir d;
  std::vector<std::string> paths = {d.Write("application_1_0001.a", std::vector<uint8_t>(10, 1)),
                                    d.Write("application_1_0001.b", std::vector<uint8_t>(10, 2)),
                                    d.Write("application_1_0002.a", std::vector<uint8_t>(10, 3))};
  OpenFileCache files(8);
  uint8_t buf[10];
  for (const std::string& p : paths) ASSERT_TRUE(files.ReadFully(p, buf, 10, 0));
  EXPECT_EQ(files.open_files(), 3u);
  EXPECT_EQ(files.DropContaining("application_1_0001."), 2u);
  EXPECT_EQ(files.open_files(), 1u);
  EXPECT_EQ(files.DropContaining("application_1_0001."), 0u);
  ASSERT_TRUE(files.ReadFully(paths[2], buf, 10, 0));
  EXPECT_EQ(files.opens(), 3u);  // the other job's descriptor was kept
  ASSERT_TRUE(files.ReadFully(paths[0], buf, 10, 0));
  EXPECT_EQ(buf[0], 1);
  EXPECT_EQ(files.opens(), 4u);  // a dropped file is opened again
}

TEST(PrefetchCache, TakesByFileAndOffsetAndEvictsOldestFirst) {
  PrefetchCache c(2);
  c.Put("a", 0, {7, 100});
  c.Put("a", 100, {8, 50});
  EXPECT_TRUE(c.full());
  EXPECT_TRUE(c.Contains("a", 100));
  EXPECT_FALSE(c.Take("b", 0));
  auto got = c.Take("a", 100);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->buffer, 8u);
  EXPECT_EQ(got->length, 50u);
  c.Put("b", 0, {9, 1});
  EXPECT_EQ(c.EvictOldest(), std::optional<uint32_t>(7));
  EXPECT_EQ(c.EvictOldest(), std::optional<uint32_t>(9));
  EXPECT_EQ(c.EvictOldest(), std::nullopt);
}
