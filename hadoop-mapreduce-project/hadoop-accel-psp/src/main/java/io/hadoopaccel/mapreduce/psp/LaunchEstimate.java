package io.hadoopaccel.mapreduce.psp;

/**
 * The predictor's arithmetic (seed 003 section 4.2.4): when a running map finishes, from its
 * progress rate; and when to start loading the next map's input so it is resident at launch,
 * "as late as possible without delaying the task".
 */
public final class LaunchEstimate {
  /** Unknown time: the caller prefetches at once rather than risk being late. */
  public static final long UNKNOWN = -1;
  /** Below this progress the rate says nothing yet (task setup, first records). */
  public static final float MIN_PROGRESS = 0.02f;

  private LaunchEstimate() {}

  /**
   * Predicted finish of a running map: linear in its progress rate once it has some progress,
   * else its start plus the mean duration of the job's finished maps, else {@link #UNKNOWN}.
   * Never before {@code nowMs}.
   */
  public static long finish(long startMs, long nowMs, float progress, long meanDurationMs) {
    long elapsed = Math.max(0, nowMs - startMs);
    long f;
    if (progress >= MIN_PROGRESS && progress < 1f) {
      f = startMs + (long) (elapsed / (double) progress);
    } else if (progress >= 1f) {
      f = nowMs;
    } else if (meanDurationMs > 0) {
      f = startMs + meanDurationMs;
    } else {
      return UNKNOWN;
    }
    return Math.max(nowMs, f);
  }

  /**
   * When a map's progress was (or would have been) 0 at the pace it has kept since it was first
   * seen at {@code firstProgress} ({@code firstMs}), to pass to {@link #finish} as its start:
   * the map's own rate, without the JVM start and task setup before its first record (seconds
   * under a small CPU share), which a start at launch spreads over all of its progress and so
   * predicts its finish late. Never before {@code launchMs}; {@code launchMs} until the map has
   * moved since it was first seen.
   */
  public static long rateStart(long launchMs, long firstMs, float firstProgress, long nowMs,
      float progress) {
    if (progress <= firstProgress || nowMs <= firstMs) {
      return launchMs;
    }
    double msPerProgress = (nowMs - firstMs) / (double) (progress - firstProgress);
    return Math.max(launchMs, (long) (firstMs - firstProgress * msPerProgress));
  }

  /**
   * When loading {@code bytes} at {@code bytesPerSec} must start so that it is done {@code
   * leadMs} before {@code launchMs}; {@link #UNKNOWN} launch means now.
   */
  public static long prefetchStart(long launchMs, long bytes, long bytesPerSec, long leadMs,
      long nowMs) {
    if (launchMs == UNKNOWN) {
      return nowMs;
    }
    long readMs = bytesPerSec > 0 ? (long) (bytes * 1000.0 / bytesPerSec) : 0;
    return launchMs - readMs - leadMs;
  }

  /** Running mean of finished maps' durations, in ms (0 until one finished). */
  public static final class MeanDuration {
    private long count;
    private long sumMs;

    public void add(long durationMs) {
      if (durationMs > 0) {
        count++;
        sumMs += durationMs;
      }
    }

    public long get() {
      return count == 0 ? 0 : sumMs / count;
    }
  }
}
