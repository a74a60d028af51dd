package io.hadoopaccel.mapreduce.psp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The predictor's arithmetic. */
class TestLaunchEstimate {
  @Test
  void finishFollowsTheProgressRate() {
    // Started at 1000, 25 % done at 3000: 2 s per quarter, done at 9000.
    assertEquals(9_000, LaunchEstimate.finish(1_000, 3_000, 0.25f, 0));
    // The rate wins over the mean once there is progress.
    assertEquals(9_000, LaunchEstimate.finish(1_000, 3_000, 0.25f, 60_000));
  }

  @Test
  void rateStartLeavesOutTheTimeBeforeTheFirstRecord() {
    // Launched at 0; 10 % at 20 s, 50 % at 40 s: 5 s per 10 %, so 0 % at 15 s (15 s of JVM
    // start), done at 65 s. From the launch, 50 % at 40 s would say 80 s.
    long start = LaunchEstimate.rateStart(0, 20_000, 0.1f, 40_000, 0.5f);
    assertEquals(15_000, start, 1);
    assertEquals(65_000, LaunchEstimate.finish(start, 40_000, 0.5f, 0), 1);
    assertEquals(80_000, LaunchEstimate.finish(0, 40_000, 0.5f, 0));
    // No movement since first seen: the launch; never before the launch.
    assertEquals(0, LaunchEstimate.rateStart(0, 20_000, 0.1f, 30_000, 0.1f));
    assertEquals(5_000, LaunchEstimate.rateStart(5_000, 6_000, 0.5f, 7_000, 0.6f));
  }

  @Test
  void withoutProgressTheMeanOfFinishedMapsThenUnknown() {
    assertEquals(6_000, LaunchEstimate.finish(1_000, 2_000, 0f, 5_000));
    assertEquals(6_000, LaunchEstimate.finish(1_000, 2_000, 0.01f, 5_000));
    assertEquals(LaunchEstimate.UNKNOWN, LaunchEstimate.finish(1_000, 2_000, 0f, 0));
  }

  @Test
  void finishIsNeverInThePast() {
    // Overdue against the mean, or done: "now".
    assertEquals(50_000, LaunchEstimate.finish(1_000, 50_000, 0f, 5_000));
    assertEquals(7_000, LaunchEstimate.finish(1_000, 7_000, 1f, 0));
  }

  @Test
  void prefetchStartsReadTimePlusLeadBeforeLaunch() {
    // 128 MiB at 64 MiB/s = 2 s, plus 1 s lead: 3 s before a launch at 20 s.
    assertEquals(17_000,
        LaunchEstimate.prefetchStart(20_000, 128L << 20, 64L << 20, 1_000, 5_000));
    // Unknown launch: now.
    assertEquals(5_000,
        LaunchEstimate.prefetchStart(LaunchEstimate.UNKNOWN, 128L << 20, 64L << 20, 1_000, 5_000));
  }

  @Test
  void meanDurationIgnoresNonPositive() {
    LaunchEstimate.MeanDuration m = new LaunchEstimate.MeanDuration();
    assertEquals(0, m.get());
    m.add(1_000);
    m.add(0);
    m.add(3_000);
    assertEquals(2_000, m.get());
  }
}
