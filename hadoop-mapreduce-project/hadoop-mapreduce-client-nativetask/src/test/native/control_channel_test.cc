#include "control_channel.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace hadoop_accel::jbs;

TEST(ControlChannel, AddAndRemoveJobs) {
  JobRegistry jobs;
  EXPECT_EQ(HandleControlLine("ADD_JOB job_1_0001 alice 00ff41", &jobs), "OK");
  auto info = jobs.Find("job_1_0001");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->user, "alice");
  EXPECT_EQ(info->secret, std::string("\x00\xff\x41", 3));
  EXPECT_EQ(HandleControlLine("PING", &jobs), "OK");
  EXPECT_EQ(HandleControlLine("REMOVE_JOB job_1_0001", &jobs), "OK");
  EXPECT_FALSE(jobs.Find("job_1_0001"));
}

TEST(ControlChannel, RefusesBadCommandsAndCarriesOn) {
  JobRegistry jobs;
  EXPECT_EQ(HandleControlLine("ADD_JOB job_1_0001 ../etc 00", &jobs).rfind("ERR", 0), 0u);
  EXPECT_EQ(HandleControlLine("ADD_JOB ../../x alice 00", &jobs).rfind("ERR", 0), 0u);
  EXPECT_EQ(HandleControlLine("ADD_JOB job_1_0001 alice 0g", &jobs).rfind("ERR", 0), 0u);
  EXPECT_EQ(HandleControlLine("ADD_JOB job_1_0001 alice", &jobs).rfind("ERR", 0), 0u);
  EXPECT_EQ(HandleControlLine("", &jobs).rfind("ERR", 0), 0u);
  EXPECT_EQ(HandleControlLine("SHUTDOWN", &jobs).rfind("ERR", 0), 0u);
  EXPECT_FALSE(jobs.Find("job_1_0001"));
}

TEST(ControlChannel, RunAnswersEachLineUntilEof) {
  FILE* in = tmpfile();
  FILE* out = tmpfile();
  ASSERT_TRUE(in && out);
  fputs("ADD_JOB job_1_0002 bob 0a\nBOGUS\nREMOVE_JOB job_1_0002\n", in);
  rewind(in);
  JobRegistry jobs;
  RunControlChannel(in, out, &jobs);
  rewind(out);
  char buf[256] = {0};
  size_t n = fread(buf, 1, sizeof buf - 1, out);
  std::string answers(buf, n);
  EXPECT_EQ(answers.substr(0, 3), "OK\n");
  EXPECT_NE(answers.find("\nERR "), std::string::npos);
  EXPECT_EQ(answers.substr(answers.size() - 3), "OK\n");
  fclose(in);
  fclose(out);
}
