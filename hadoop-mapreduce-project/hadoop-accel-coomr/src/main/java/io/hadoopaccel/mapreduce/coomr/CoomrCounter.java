package io.hadoopaccel.mapreduce.coomr;

/** What CooMR did in a job (group shown as "CooMR" in the job's counters). */
public enum CoomrCounter {
  /** Map: spills written into the node's shared pool instead of to disk. */
  POOL_SPILLS,
  /** Map: bytes of those spills. */
  POOL_SPILL_BYTES,
  /** Map: spills to disk: the pool refused them (full, or over fair share), or a map's only one. */
  DISK_SPILLS,
  /** Map: pooled spills copied to disk after all (a map whose only spill was pooled). */
  SPILLS_MOVED_TO_DISK,
  /** Map: outputs left in the pool and handed over to the coordinator (written out later). */
  POOL_OUTPUTS,
  /** Map: bytes of those outputs. */
  POOL_OUTPUT_BYTES,
  /** Map: outputs in the pool that the coordinator could not take: the map wrote them out. */
  OUTPUTS_WRITTEN_BY_MAP,
  /** Map: attempts that ran stock's collector alone (no coordinator, or unsupported job). */
  FALLBACKS,
  /** Reduce (with KISM): bytes of fetched map outputs granted room in the pool. */
  REDUCE_POOL_BYTES,
  /** Reduce (with KISM): attempts that could not attach to the pool and wrote to disk. */
  REDUCE_FALLBACKS
}
