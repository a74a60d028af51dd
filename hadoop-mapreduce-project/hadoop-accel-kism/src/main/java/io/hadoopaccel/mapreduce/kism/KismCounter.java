package io.hadoopaccel.mapreduce.kism;

/** Job counters of KISM (group shown as "KISM"), next to stock's FILE_BYTES_* and SPILLED_RECORDS. */
public enum KismCounter {
  /** Reduces that ran KISM. */
  REDUCES,
  /** Reduces that fell back to stock Shuffle (the task log says why). */
  FALLBACKS,
  /** Map outputs kept in their fetched buffer. */
  SEGMENTS_IN_MEMORY,
  /** Map outputs fetched straight to a local file (memory was full or the output too big). */
  SEGMENTS_ON_DISK,
  /** In-memory map outputs written once to the value log so the reducer gets its memory. */
  SEGMENTS_MOVED_TO_DISK,
  /** Records that went through the merge (one key/pointer comparison entry each). */
  MERGED_ENTRIES,
  /** Map-output bytes KISM wrote to local disk (each byte at most once). */
  LOCAL_BYTES_WRITTEN,
  /** Map-output bytes KISM read back from local disk (each byte at most once). */
  LOCAL_BYTES_READ
}
