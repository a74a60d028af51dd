package io.hadoopaccel.hdfs.psp;

/**
 * Names of PSP's keys, for both halves: the DataNode prefetcher and the MapReduce AM's predictor
 * (defaults, ranges and descriptions: {@code accel-default.xml}).
 */
public final class PspConfigKeys {
  /** Port of the prefetcher on every DataNode; the AM connects to the same port. */
  public static final String PREFETCH_PORT = "hadoop.accel.psp.prefetch.port";

  /** Address the prefetcher binds (all interfaces by default). */
  public static final String PREFETCH_BIND_ADDRESS = "hadoop.accel.psp.prefetch.bind.address";

  /** Most bytes a DataNode holds preloaded for maps that have not released them. */
  public static final String PREFETCH_MAX_BYTES = "hadoop.accel.psp.prefetch.max.bytes";

  /** How long a preloaded block counts against the bound unless released earlier. */
  public static final String PREFETCH_HOLD_MS = "hadoop.accel.psp.prefetch.hold.ms";

  /** Whether a DataNode locks the blocks it holds in memory (mlock) until they are released. */
  public static final String PREFETCH_LOCK = "hadoop.accel.psp.prefetch.lock";

  /** Threads that load blocks on a DataNode. */
  public static final String PREFETCH_THREADS = "hadoop.accel.psp.prefetch.threads";

  /** Most open connections to one prefetcher; more are closed at once. */
  public static final String PREFETCH_MAX_CONNECTIONS =
      "hadoop.accel.psp.prefetch.max.connections";

  /** Bound on every wait between the AM and a prefetcher (connect, request, reply). */
  public static final String PREFETCH_TIMEOUT_MS = "hadoop.accel.psp.prefetch.timeout.ms";

  /** AM: bytes of input to keep preloaded ahead of each running map (at least one map). */
  public static final String AHEAD_BYTES = "hadoop.accel.psp.ahead.bytes";

  /** AM: safety margin before a map's predicted launch by which its input should be loaded. */
  public static final String LEAD_MS = "hadoop.accel.psp.lead.ms";

  /** AM: assumed disk read rate of a node, to estimate how long a preload takes. */
  public static final String READ_BYTES_PER_SEC = "hadoop.accel.psp.read.bytes.per.sec";

  /** AM: load a map's input when it gets its container, if no prediction loaded it there. */
  public static final String PREFETCH_ON_LAUNCH = "hadoop.accel.psp.prefetch.on.launch";

  /** AM: threads sending prefetch requests. */
  public static final String CLIENT_THREADS = "hadoop.accel.psp.client.threads";

  private PspConfigKeys() {}
}
