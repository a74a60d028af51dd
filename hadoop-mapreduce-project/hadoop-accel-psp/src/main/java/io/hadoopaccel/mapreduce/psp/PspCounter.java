package io.hadoopaccel.mapreduce.psp;

/** PSP's job counters (group {@code io.hadoopaccel.mapreduce.psp.PspCounter}). */
public enum PspCounter {
  /** Maps predicted to run next on a node (one prediction per map). */
  PREDICTIONS,
  /** Prefetch requests answered LOADED, and their bytes. */
  PREFETCHES,
  PREFETCHED_BYTES,
  /** Of PREFETCHES, those loaded on a replica's node because the predicted one had none. */
  REMOTE_PREFETCHES,
  /** The map got a container on the predicted node after its input was loaded there. */
  HITS,
  /** The map got a container on the predicted node before its input was loaded. */
  LATE_PREFETCHES,
  /** The map got a container on another node. */
  MISSES,
  /** Of MISSES, maps that still read loaded bytes where they were loaded (their replica's node). */
  MISSES_READING_PREFETCHED,
  /** Bytes loaded for maps that then ran on another node and did not read them there. */
  WASTED_PREFETCH_BYTES,
  /** Requests refused (block token, full, replica gone) or whose input could not be listed. */
  PREFETCH_REFUSED,
  /** Prefetch batches that failed: no prefetcher on the node, timeout, I/O error. */
  PREFETCHER_UNREACHABLE,
  /** Sum of |actual - predicted| launch time over the predictions that had a time, in ms. */
  LAUNCH_ERROR_MS,
  /** How many predictions {@link #LAUNCH_ERROR_MS} sums over. */
  LAUNCH_ERROR_SAMPLES,
  /**
   * Maps whose input was requested only when they got their container (first wave, misses,
   * predictions not sent yet): loaded while the container starts. Not predictions.
   */
  LAUNCH_PREFETCHES
}
