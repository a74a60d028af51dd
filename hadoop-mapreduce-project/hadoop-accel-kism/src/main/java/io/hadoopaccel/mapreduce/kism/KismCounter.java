package io.hadoopaccel.mapreduce.kism;

/** Job counters of KISM (group shown as "KISM"), next to stock's FILE_BYTES_* and SPILLED_RECORDS. */
public enum KismCounter {
  /** Reduces that ran KISM. */
  REDUCES,
  /** Reduces that fell back to stock Shuffle (the task log says why). */
  FALLBACKS,
  /** Map outputs kept in their fetched buffer. */
  SEGMENTS_IN_MEMORY,
  /** Map outputs appended to a segment log on local disk as fetched. */
  SEGMENTS_ON_DISK,
  /** Map outputs appended to a segment log in node-shared memory (CooMR's pool) as fetched. */
  SEGMENTS_IN_SHARED_MEMORY,
  /** Map-output bytes KISM wrote into node-shared memory instead of local disk. */
  SHARED_MEMORY_BYTES,
  /** Records that went through the merge (one key/pointer comparison entry each). */
  MERGED_ENTRIES,
  /** Map-output bytes KISM wrote to local disk (each byte at most once). */
  LOCAL_BYTES_WRITTEN,
  /** Map-output bytes KISM read back from local disk (each byte at most once). */
  LOCAL_BYTES_READ
}
