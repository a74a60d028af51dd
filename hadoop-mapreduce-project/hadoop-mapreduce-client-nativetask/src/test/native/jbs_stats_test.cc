#include "jbs_stats.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "control_channel.h"

using namespace hadoop_accel::jbs;

namespace {

std::map<std::string, uint64_t> Decoded(const std::string& line) {
  StatsFields f;
  std::string error;
  EXPECT_TRUE(DecodeStats(line, &f, &error)) << error << " in " << line;
  return {f.begin(), f.end()};
}

bool Refused(const std::string& line) {
  StatsFields f;
  std::string error;
  bool ok = DecodeStats(line, &f, &error);
  EXPECT_TRUE(ok || !error.empty());
  return !ok;
}

}  // namespace

TEST(JbsStats, EncodeDecodeRoundTrip) {
  StatsFields in = {{"bytes_served", 123456789012ull}, {"active_connections", 0}, {"a_1", 7}};
  std::string line = EncodeStats(in);
  EXPECT_EQ(line, "STATS 1 bytes_served=123456789012 active_connections=0 a_1=7");
  StatsFields out;
  std::string error;
  ASSERT_TRUE(DecodeStats(line, &out, &error)) << error;
  EXPECT_EQ(out, in);
  EXPECT_EQ(EncodeStats({}), "STATS 1");
  EXPECT_TRUE(Decoded("STATS 1").empty());
}

TEST(JbsStats, EncoderClampsValuesAndDropsWhatAReaderWouldRefuse) {
  std::string line = EncodeStats({{"big", ~0ull}, {"Bad-Name", 1}, {"", 2}, {"ok", 3}});
  EXPECT_EQ(line, "STATS 1 big=9223372036854775807 ok=3");
  StatsFields many;
  for (int i = 0; i < 300; ++i) many.emplace_back("field_" + std::to_string(i), ~0ull >> 1);
  line = EncodeStats(many);
  EXPECT_LE(line.size(), kMaxStatsLine);
  auto d = Decoded(line);
  EXPECT_GT(d.size(), 10u);
  EXPECT_LE(d.size(), kMaxStatsFields);
}

TEST(JbsStats, DecoderRefusesMalformedLines) {
  EXPECT_TRUE(Refused(""));
  EXPECT_TRUE(Refused("OK"));
  EXPECT_TRUE(Refused("ERR no"));
  EXPECT_TRUE(Refused("STATS"));
  EXPECT_TRUE(Refused("STATS 2 a=1"));                     // another version
  EXPECT_TRUE(Refused("STATS 1 a"));                       // no '='
  EXPECT_TRUE(Refused("STATS 1 a="));                      // no value
  EXPECT_TRUE(Refused("STATS 1 =1"));                      // no name
  EXPECT_TRUE(Refused("STATS 1 A=1"));                     // name outside [a-z0-9_]
  EXPECT_TRUE(Refused("STATS 1 a=-1"));                    // not unsigned
  EXPECT_TRUE(Refused("STATS 1 a=1x"));                    // not decimal
  EXPECT_TRUE(Refused("STATS 1 a=1 a=2"));                 // a name twice
  EXPECT_TRUE(Refused("STATS 1 a=9223372036854775808"));   // 2^63
  EXPECT_TRUE(Refused("STATS 1 a=99999999999999999999"));  // 20 digits
  EXPECT_TRUE(Refused("STATS 1 " + std::string(65, 'a') + "=1"));
  EXPECT_TRUE(Refused("STATS 1 a=1" + std::string(kMaxStatsLine, ' ')));
  std::string many = "STATS 1";
  for (size_t i = 0; i <= kMaxStatsFields; ++i) many += " f" + std::to_string(i) + "=1";
  EXPECT_TRUE(Refused(many));
  EXPECT_EQ(Decoded("STATS 1 a=9223372036854775807")["a"], 9223372036854775807ull);
}

TEST(JbsStats, HistogramPutsEachSampleInItsBucket) {
  using std::chrono::microseconds;
  using std::chrono::milliseconds;
  LatencyHistogram h;
  h.Record(microseconds(0));
  h.Record(milliseconds(1));  // bounds are inclusive
  h.Record(microseconds(1001));
  h.Record(milliseconds(300));
  h.Record(std::chrono::seconds(20));
  h.Record(microseconds(-5));  // a clock that went back counts as 0
  StatsFields f;
  h.AppendTo("lat", &f);
  std::map<std::string, uint64_t> m(f.begin(), f.end());
  EXPECT_EQ(m.size(), LatencyHistogram::kUpperBoundsMs.size() + 3);
  EXPECT_EQ(m["lat_le_1ms"], 3u);
  EXPECT_EQ(m["lat_le_4ms"], 1u);
  EXPECT_EQ(m["lat_le_1000ms"], 1u);
  EXPECT_EQ(m["lat_gt_16000ms"], 1u);
  EXPECT_EQ(m["lat_count"], 6u);
  EXPECT_EQ(m["lat_sum_us"], 1000u + 1001u + 300000u + 20000000u);
  // The daemon's answer keeps every field within the line bound.
  EXPECT_EQ(Decoded(EncodeStats(f)).size(), m.size());
}

TEST(JbsStats, ControlChannelAnswersStatsFromItsHook) {
  JobRegistry jobs;
  EXPECT_EQ(HandleControlLine("STATS", &jobs).rfind("ERR", 0), 0u);  // no hook
  ControlHooks hooks;
  hooks.stats = [] { return EncodeStats({{"requests", 4}}); };
  EXPECT_EQ(HandleControlLine("STATS", &jobs, hooks), "STATS 1 requests=4");
  EXPECT_EQ(HandleControlLine("STATS now", &jobs, hooks).rfind("ERR", 0), 0u);
}
