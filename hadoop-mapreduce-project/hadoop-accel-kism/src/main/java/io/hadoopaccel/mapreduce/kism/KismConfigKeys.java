package io.hadoopaccel.mapreduce.kism;

/** Names of KISM's keys (defaults, ranges and descriptions: {@code accel-default.xml}). */
public final class KismConfigKeys {
  /** Read-ahead bytes per on-disk map output in the single merge pass. */
  public static final String READ_BUFFER_BYTES = "hadoop.accel.kism.read.buffer.bytes";

  /** Merge in a thread of its own, a batch ahead of the reducer. */
  public static final String MERGE_THREAD = "hadoop.accel.kism.merge.thread";

  /** A SharedSegmentMemory class for fetched outputs that may not stay in the heap; empty: disk. */
  public static final String SHARED_MEMORY_CLASS = "hadoop.accel.kism.shared.memory.class";

  private KismConfigKeys() {}
}
