package io.hadoopaccel.streaming.shm;

/** Names of ShmStreaming's keys (defaults, ranges and descriptions: {@code accel-default.xml}). */
public final class ShmStreamingConfigKeys {
  /** Directory of the per-task ring files (a tmpfs such as /dev/shm). */
  public static final String DIR = "hadoop.accel.shm.streaming.dir";

  /** Data bytes of each ring (one per direction per task). */
  public static final String BUFFER_BYTES = "hadoop.accel.shm.streaming.buffer.bytes";

  /** The task's wake-up batch of Algorithm 2, {@code auto} or a record count. */
  public static final String BATCH_SIZE = "hadoop.accel.shm.streaming.batch.size";

  /** Map input handed to the program as the split's bytes, not line by line. */
  public static final String BULK_INPUT = "hadoop.accel.shm.streaming.bulk.input";

  /** The task preloads libhadoop_shm_preload.so into its program, so unmodified ones attach. */
  public static final String PRELOAD = "hadoop.accel.shm.streaming.preload";

  /** How long the task waits for its program to attach to the rings. */
  public static final String ATTACH_TIMEOUT_MS = "hadoop.accel.shm.streaming.attach.timeout.ms";

  private ShmStreamingConfigKeys() {}
}
