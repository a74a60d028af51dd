package io.hadoopaccel.hdfs.hetero;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The balancer's and the profiler's progress lines: ISO timestamps, bytes and tasks left. */
class TestProgressLine {
  private static final Instant AT = Instant.parse("2026-11-25T13:50:01.987Z");

  @Test
  void timestampIsIsoUtcToTheSecond() {
    assertEquals("2026-11-25T13:50:01Z", ProgressLine.timestamp(AT));
    assertEquals("2026-01-02T03:04:05Z",
        ProgressLine.timestamp(Instant.parse("2026-01-02T03:04:05Z")));
  }

  @Test
  void balancerPlanLineCarriesBytesLeft() {
    assertEquals("2026-11-25T13:50:01Z Round 2, /data/grep (profile grep): 7 file(s), "
            + "448 MB of blocks, 896 MB of replicas, 192 MB left to move",
        ProgressLine.balancerPlan(AT, 2, "/data/grep", "grep", 7, 448L << 20, 896L << 20,
            192L << 20, 0));
    assertEquals("2026-11-25T13:50:01Z Round 1, /d (profile p): 1 file(s), 0 B of blocks, "
            + "0 B of replicas, 0 B left to move (3 open or erasure-coded file(s) skipped)",
        ProgressLine.balancerPlan(AT, 1, "/d", "p", 1, 0, 0, 0, 3));
  }

  @Test
  void balancerRoundLineSubtractsWhatMoved() {
    assertEquals("2026-11-25T13:50:01Z Round 3: moved 3 of 4 replica(s), 192 MB; 1 failed; "
            + "about 64 MB left to move",
        ProgressLine.balancerRound(AT, 3, 3, 4, 192L << 20, 256L << 20));
    // Moves may carry more than the plan's excess (whole blocks): never below zero.
    assertEquals("2026-11-25T13:50:01Z Round 1: moved 1 of 1 replica(s), 64 MB; 0 failed; "
            + "about 0 B left to move",
        ProgressLine.balancerRound(AT, 1, 1, 1, 64L << 20, 10L << 20));
  }

  @Test
  void profilerLineCountsTasksDoneAndLeft() {
    assertEquals("2026-11-25T13:50:01Z Probe job job_1_0001: 4 of 10 task(s) done, "
            + "3 running, 6 left",
        ProgressLine.profiler(AT, "job_1_0001", 4, 3, 10));
  }
}
