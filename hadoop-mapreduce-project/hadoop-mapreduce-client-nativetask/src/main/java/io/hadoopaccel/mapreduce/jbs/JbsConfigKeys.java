package io.hadoopaccel.mapreduce.jbs;

import io.hadoopaccel.common.conf.AccelConfigKeys;

/**
 * Names of JBS's keys. Defaults, ranges and descriptions live in {@code accel-default.xml}; the
 * daemons' option parsers take theirs from a header generated from that file, so a value
 * {@link JbsConfig} accepts is one the daemons accept.
 */
public final class JbsConfigKeys {
  /** Directory of jbs_mof_supplier and jbs_net_merger (empty: $HADOOP_HOME/bin). */
  public static final String NATIVE_DIR = AccelConfigKeys.JBS_NATIVE_DIR;

  /** The MOFSupplier's TCP port, the same on every node. */
  public static final String SUPPLIER_PORT = "hadoop.accel.jbs.supplier.port";

  /** The NetMerger's Unix socket path on every node. */
  public static final String MERGER_SOCKET = "hadoop.accel.jbs.merger.socket";

  /** Transport buffer bytes of both daemons. */
  public static final String BUFFER_BYTES = "hadoop.accel.jbs.buffer.bytes";

  /** Number of transport buffers of the MOFSupplier. */
  public static final String SUPPLIER_BUFFERS = "hadoop.accel.jbs.supplier.buffers";

  /** IndexCache budget of the MOFSupplier. */
  public static final String SUPPLIER_INDEX_CACHE_BYTES =
      "hadoop.accel.jbs.supplier.index.cache.bytes";

  /** Memory budget of the NetMerger. */
  public static final String MERGER_MEMORY_BYTES = "hadoop.accel.jbs.merger.memory.bytes";

  /** The address the MOFSupplier listens on (0.0.0.0: every interface). */
  public static final String SUPPLIER_BIND_ADDRESS = "hadoop.accel.jbs.supplier.bind.address";

  /** Most open connections of the NetMerger. */
  public static final String MERGER_MAX_CONNECTIONS = "hadoop.accel.jbs.merger.max.connections";

  /** Connect timeout (NetMerger to MOFSupplier, reduce to NetMerger). */
  public static final String CONNECT_TIMEOUT_MS = "hadoop.accel.jbs.connect.timeout.ms";

  /** NetMerger: longest a send or receive to a MOFSupplier may make no progress. */
  public static final String READ_TIMEOUT_MS = "hadoop.accel.jbs.read.timeout.ms";

  /** Reduce task: longest its NetMerger may send nothing while the reduce waits for it. */
  public static final String REDUCER_READ_TIMEOUT_MS =
      "hadoop.accel.jbs.reducer.read.timeout.ms";

  /** NetMerger fetch attempts before FETCH_FAILED. */
  public static final String FETCH_RETRIES = "hadoop.accel.jbs.fetch.retries";

  /** NetMerger pause before the first fetch retry. */
  public static final String FETCH_RETRY_BACKOFF_MS = "hadoop.accel.jbs.fetch.retry.backoff.ms";

  /** Aux service pause before restarting a dead daemon. */
  public static final String RESTART_BACKOFF_MS = "hadoop.accel.jbs.restart.backoff.ms";

  /** How long a starting daemon may take to print READY. */
  public static final String READY_TIMEOUT_MS = "hadoop.accel.jbs.ready.timeout.ms";

  /**
   * Reduce task: the shuffle consumer plugin a reduce runs when JBS cannot take it (default
   * stock Shuffle; e.g. KISM's KismShuffle). Upstream reads
   * mapreduce.job.reduce.shuffle.consumer.plugin.class as one class, so this is how the chain
   * JBS, then KISM is spelled.
   */
  public static final String FALLBACK_PLUGIN = "hadoop.accel.jbs.fallback.plugin.class";

  private JbsConfigKeys() {}
}
