package io.hadoopaccel.streaming.shm;

/**
 * Job counters of ShmStreaming (display names in ShmStreamingCounter.properties): which tasks
 * moved their records over the rings, how much, and which fell back to pipes and why.
 */
public enum ShmStreamingCounter {
  /** Tasks (map, reduce, combiner runs) whose records went through the rings. */
  TASKS_ON_RINGS,
  /** Records and bytes the task wrote to its program through the input ring. */
  RECORDS_TO_PROGRAM,
  BYTES_TO_PROGRAM,
  /** Records and bytes the task read from its program through the output ring. */
  RECORDS_FROM_PROGRAM,
  BYTES_FROM_PROGRAM,
  /** Fell back to pipes: no loadable libhadoop_shm.so on the node. */
  FALLBACK_NO_LIBRARY,
  /** Fell back to pipes: the ring directory is unusable. */
  FALLBACK_RING_DIR,
  /** Fell back to pipes: the program's image does not load the preload shim (static binary). */
  FALLBACK_PROGRAM_WITHOUT_SHIM,
  /** No rings needed: the program got no input (a reducer without records). */
  TASKS_WITHOUT_INPUT
}
