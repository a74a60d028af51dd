#include "ids.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace hadoop_accel::jbs;

TEST(Ids, AcceptsYarnShapes) {
  EXPECT_TRUE(IsValidJobId("job_1700000000000_0001"));
  EXPECT_TRUE(IsValidJobId("job_1_2"));
  EXPECT_TRUE(IsValidMapAttemptId("attempt_1700000000000_0001_m_000003_0"));
  EXPECT_TRUE(
      AttemptBelongsToJob("attempt_1700000000000_0001_m_000003_12", "job_1700000000000_0001"));
}

TEST(Ids, RefusesAnythingThatCouldSteerAPath) {
  for (const std::string& bad :
       std::vector<std::string>{"", "job_", "job_1", "job_1_", "job__1", "job_1_2_", "job_1_2/..",
                                "job_../1_2", "job_1_2\n", "JOB_1_2", "job_a_1", "job_local1_0001",
                                std::string("job_1_2\0", 8), "job_1_" + std::string(20, '1')})
    EXPECT_FALSE(IsValidJobId(bad)) << bad;
  for (const std::string& bad : std::vector<std::string>{
           "attempt_1_2_r_000001_0",  // reduce attempts have no map output
           "attempt_1_2_m_1", "attempt_1_2_m_1_", "attempt_1_2_m_1_0/", "attempt_1_2_m_../1_0",
           "attempt_1_2_m_1_0.index", std::string("attempt_1_2_m_1_0\0", 18), "task_1_2_m_1"})
    EXPECT_FALSE(IsValidMapAttemptId(bad)) << bad;
  EXPECT_FALSE(IsValidMapAttemptId("attempt_1_2_m_1_" + std::string(90, '0')));  // too long
}

TEST(Ids, AttemptMustBelongToTheNamedJob) {
  EXPECT_FALSE(
      AttemptBelongsToJob("attempt_1700000000000_0002_m_000003_0", "job_1700000000000_0001"));
  EXPECT_FALSE(
      AttemptBelongsToJob("attempt_1700000000001_0001_m_000003_0", "job_1700000000000_0001"));
  // A prefix of the job number is not the job.
  EXPECT_FALSE(AttemptBelongsToJob("attempt_17_00011_m_000003_0", "job_17_0001"));
  EXPECT_FALSE(AttemptBelongsToJob("attempt_17_0001_m_000003_0", "job_17_00011"));
}
