package io.hadoopaccel.mapreduce.coomr;

/** Names of CooMR's keys (defaults, ranges and descriptions: {@code accel-default.xml}). */
public final class CoomrConfigKeys {
  /** The node coordinator's UNIX socket, as tasks reach it and as the aux service makes it. */
  public static final String COORDINATOR_SOCKET = "hadoop.accel.coomr.coordinator.socket";

  /** Bound on connecting to the coordinator and on each of its replies. */
  public static final String COORDINATOR_TIMEOUT_MS = "hadoop.accel.coomr.coordinator.timeout.ms";

  /** NodeManager: the pool's directory, on tmpfs. */
  public static final String POOL_DIR = "hadoop.accel.coomr.pool.dir";

  /** NodeManager: the pool's size. */
  public static final String POOL_BYTES = "hadoop.accel.coomr.pool.bytes";

  /** NodeManager: the pool's unit of grant. */
  public static final String BLOCK_SIZE = "hadoop.accel.coomr.block.size";

  /** NodeManager: map outputs written out through LOCS logs rather than one file per map. */
  public static final String LOCS = "hadoop.accel.coomr.locs";

  /** NodeManager: where coomr_coordinator is (empty: $HADOOP_HOME/bin). */
  public static final String NATIVE_DIR = "hadoop.accel.coomr.native.dir";

  private CoomrConfigKeys() {}
}
