package io.hadoopaccel.mapreduce.jbs;

/** Job counters of the JBS shuffle (group shown as "JBS"). */
public enum JbsCounter {
  /** Reduces whose input came merged from the NetMerger. */
  NATIVE_REDUCES,
  /** Reduces that ran stock Shuffle instead (the task log says why, in one line). */
  FALLBACKS,
  /**
   * Of FALLBACKS: reduces whose native session failed before the first merged record (NetMerger
   * missing, refusing, dead or silent). With healthy daemons this stays 0.
   */
  SESSION_FALLBACKS,
  /** Of FALLBACKS: jobs that ask for encrypted shuffle or intermediate data (no TLS in JBS). */
  ENCRYPTION_FALLBACKS,
  /** On-disk map-output bytes the NetMerger fetched for native reduces (END's fetched_bytes). */
  BYTES_FETCHED_NATIVELY,
  /** Merge passes the NetMerger reported (1 per reduce when purely levitated). */
  MERGE_PASSES,
  /** Bytes the NetMerger merged into runs on disk (hierarchical merge; END's spilled_bytes). */
  HIERARCHICAL_SPILL_BYTES
}
