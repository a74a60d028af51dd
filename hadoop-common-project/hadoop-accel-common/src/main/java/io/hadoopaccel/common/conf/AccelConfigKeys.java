package io.hadoopaccel.common.conf;

/**
 * Names of the configuration keys of the accelerated distribution.
 *
 * <p>Defaults and descriptions live only in {@code accel-default.xml}; this class holds the names
 * so code never spells a key twice. {@code TestAccelDefaults} checks that every constant here is
 * declared there with a description, and that the file declares nothing else.
 */
public final class AccelConfigKeys {
  /** Prefix of every key we own. */
  public static final String PREFIX = "hadoop.accel.";

  /** Master switch for native libraries; off means every feature takes its Java path. */
  public static final String NATIVE_ENABLED = PREFIX + "native.enabled";

  /** Extra directory searched first for native libraries. */
  public static final String NATIVE_LIB_DIR = PREFIX + "native.lib.dir";

  /** KISM: read-ahead bytes per on-disk map output in the single merge pass. */
  public static final String KISM_READ_BUFFER_BYTES = PREFIX + "kism.read.buffer.bytes";

  /** KISM: merge in a thread of its own, a batch ahead of the reducer. */
  public static final String KISM_MERGE_THREAD = PREFIX + "kism.merge.thread";

  /** Hetero placement: the computing-ratio profiles file (relative: under HADOOP_CONF_DIR). */
  public static final String HETERO_PROFILES_FILE = PREFIX + "hetero.profiles.file";

  /** Hetero placement: how often the NameNode checks the profiles file for changes. */
  public static final String HETERO_PROFILES_RELOAD_MS = PREFIX + "hetero.profiles.reload.ms";

  /** ShmStreaming: directory of the per-task ring files (a tmpfs such as /dev/shm). */
  public static final String SHM_STREAMING_DIR = PREFIX + "shm.streaming.dir";

  /** ShmStreaming: data bytes of each ring (one per direction per task). */
  public static final String SHM_STREAMING_BUFFER_BYTES = PREFIX + "shm.streaming.buffer.bytes";

  /** ShmStreaming: the task's wake-up batch of Algorithm 2, {@code auto} or a record count. */
  public static final String SHM_STREAMING_BATCH_SIZE = PREFIX + "shm.streaming.batch.size";

  /** ShmStreaming: map input handed to the program as the split's bytes, not line by line. */
  public static final String SHM_STREAMING_BULK_INPUT = PREFIX + "shm.streaming.bulk.input";

  /** ShmStreaming: how long the task waits for its program to attach to the rings. */
  public static final String SHM_STREAMING_ATTACH_TIMEOUT_MS =
      PREFIX + "shm.streaming.attach.timeout.ms";

  /** JBS: directory of jbs_mof_supplier and jbs_net_merger (empty: $HADOOP_HOME/bin). */
  public static final String JBS_NATIVE_DIR = PREFIX + "jbs.native.dir";

  /** JBS: the MOFSupplier's TCP port, the same on every node. */
  public static final String JBS_SUPPLIER_PORT = PREFIX + "jbs.supplier.port";

  /** JBS: the address the MOFSupplier listens on (0.0.0.0: every interface). */
  public static final String JBS_SUPPLIER_BIND_ADDRESS = PREFIX + "jbs.supplier.bind.address";

  /** JBS: the NetMerger's Unix socket path on every node. */
  public static final String JBS_MERGER_SOCKET = PREFIX + "jbs.merger.socket";

  /** JBS: transport buffer bytes of both daemons. */
  public static final String JBS_BUFFER_BYTES = PREFIX + "jbs.buffer.bytes";

  /** JBS: number of transport buffers of the MOFSupplier. */
  public static final String JBS_SUPPLIER_BUFFERS = PREFIX + "jbs.supplier.buffers";

  /** JBS: IndexCache budget of the MOFSupplier. */
  public static final String JBS_SUPPLIER_INDEX_CACHE_BYTES =
      PREFIX + "jbs.supplier.index.cache.bytes";

  /** JBS: memory budget of the NetMerger. */
  public static final String JBS_MERGER_MEMORY_BYTES = PREFIX + "jbs.merger.memory.bytes";

  /** JBS: most open connections of the NetMerger. */
  public static final String JBS_MERGER_MAX_CONNECTIONS = PREFIX + "jbs.merger.max.connections";

  /** JBS: connect timeout (NetMerger to MOFSupplier, reduce to NetMerger). */
  public static final String JBS_CONNECT_TIMEOUT_MS = PREFIX + "jbs.connect.timeout.ms";
  public static final String JBS_READ_TIMEOUT_MS = PREFIX + "jbs.read.timeout.ms";

  /** JBS: NetMerger fetch attempts before FETCH_FAILED. */
  public static final String JBS_FETCH_RETRIES = PREFIX + "jbs.fetch.retries";

  /** JBS: NetMerger pause before the first fetch retry. */
  public static final String JBS_FETCH_RETRY_BACKOFF_MS = PREFIX + "jbs.fetch.retry.backoff.ms";

  /** JBS: aux service pause before restarting a dead daemon. */
  public static final String JBS_RESTART_BACKOFF_MS = PREFIX + "jbs.restart.backoff.ms";

  /** JBS: how long a starting daemon may take to print READY. */
  public static final String JBS_READY_TIMEOUT_MS = PREFIX + "jbs.ready.timeout.ms";

  private AccelConfigKeys() {}
}
