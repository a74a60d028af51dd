#include <gtest/gtest.h>

#include <string>

#include "hadoop_accel/accel.h"

TEST(Version, ReportsBuildVersion) {
  std::string v = hacc_version();
  EXPECT_FALSE(v.empty());
  EXPECT_NE(std::string::npos, v.find("accel")) << v;
}
