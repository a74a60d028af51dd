package io.hadoopaccel.hdfs.hetero;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import org.apache.hadoop.util.StringUtils;

/**
 * The progress lines of {@code hdfs hetero-balancer} and the active profiler: each starts with
 * an ISO-8601 UTC timestamp (to the second), so a daemon's {@code .out} file shows the pace.
 */
final class ProgressLine {
  private ProgressLine() {}

  /** {@code 2026-11-25T13:50:01Z}. */
  static String timestamp(Instant now) {
    return now.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /** One directory's plan at the start of a balancer round. */
  static String balancerPlan(Instant now, int round, String dir, String profile, long files,
      long blockBytes, long replicaBytes, long bytesLeft, int skipped) {
    return String.format(Locale.ROOT, "%s Round %d, %s (profile %s): %d file(s), %s of blocks, "
            + "%s of replicas, %s left to move%s", timestamp(now), round, dir, profile, files,
        StringUtils.byteDesc(blockBytes), StringUtils.byteDesc(replicaBytes),
        StringUtils.byteDesc(bytesLeft),
        skipped == 0 ? "" : " (" + skipped + " open or erasure-coded file(s) skipped)");
  }

  /**
   * The end of a balancer round. Bytes left is the round's plan figure less what moved: an
   * estimate the next round's plan, read from the NameNode, replaces.
   */
  static String balancerRound(Instant now, int round, int moved, int planned, long movedBytes,
      long bytesLeftBefore) {
    return String.format(Locale.ROOT, "%s Round %d: moved %d of %d replica(s), %s; %d failed; "
            + "about %s left to move", timestamp(now), round, moved, planned,
        StringUtils.byteDesc(movedBytes), planned - moved,
        StringUtils.byteDesc(Math.max(0, bytesLeftBefore - movedBytes)));
  }

  /** The probe job's tasks: done (succeeded), running, and left (not yet succeeded). */
  static String profiler(Instant now, String jobId, int done, int running, int total) {
    return String.format(Locale.ROOT, "%s Probe job %s: %d of %d task(s) done, %d running, "
        + "%d left", timestamp(now), jobId, done, total, running, total - done);
  }
}
