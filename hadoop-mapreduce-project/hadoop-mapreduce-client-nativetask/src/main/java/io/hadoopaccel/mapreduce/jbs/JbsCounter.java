package io.hadoopaccel.mapreduce.jbs;

/**
 * Job counters of the JBS shuffle (group shown as "JBS"). A reduce that does not take the native
 * path adds 1 to FALLBACKS and 1 to exactly one FALLBACK_* counter naming why (the task log has
 * the same reason in one line).
 */
public enum JbsCounter {
  /** Reduces whose input came merged from the NetMerger. */
  NATIVE_REDUCES,
  /**
   * Reduces that ran the fallback plugin instead (stock Shuffle, or the plugin named by
   * hadoop.accel.jbs.fallback.plugin.class), for any reason: the sum of the FALLBACK_* counters.
   */
  FALLBACKS,
  /** Of FALLBACKS: the map outputs are local files (local runner, uber task). */
  FALLBACK_LOCAL_MAP_FILES,
  /** Of FALLBACKS: a retried or speculative reduce attempt (those take the other path). */
  FALLBACK_RETRY_ATTEMPT,
  /**
   * Of FALLBACKS: the job sets its own key comparator, or the key class's registered comparator
   * is not the class's own.
   */
  FALLBACK_COMPARATOR,
  /** Of FALLBACKS: a map output key class not Text, BytesWritable, IntWritable, LongWritable. */
  FALLBACK_KEY_CLASS,
  /** Of FALLBACKS: a map output codec other than none and DefaultCodec. */
  FALLBACK_CODEC,
  /** Of FALLBACKS: encrypted shuffle or intermediate data was asked for (no TLS in JBS). */
  FALLBACK_ENCRYPTION,
  /** Of FALLBACKS: the job's JBS settings leave the reduce unable to ask (supplier port 0). */
  FALLBACK_CONFIG,
  /**
   * Of FALLBACKS: the NetMerger was missing, refused, stayed silent or its session failed before
   * the first merged record. With healthy daemons this stays 0.
   */
  FALLBACK_NETMERGER,
  /** Of FALLBACKS: a map's node has no MOFSupplier that the NetMerger could connect to. */
  FALLBACK_SUPPLIER_UNREACHABLE,
  /** On-disk map-output bytes the NetMerger fetched for native reduces (END's fetched_bytes). */
  BYTES_FETCHED_NATIVELY,
  /** Merge passes the NetMerger reported (1 per reduce when purely levitated). */
  MERGE_PASSES,
  /** Bytes the NetMerger merged into runs on disk (hierarchical merge; END's spilled_bytes). */
  HIERARCHICAL_SPILL_BYTES
}
