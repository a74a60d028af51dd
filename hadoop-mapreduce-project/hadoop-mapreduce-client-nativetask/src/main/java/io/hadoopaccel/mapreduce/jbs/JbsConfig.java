package io.hadoopaccel.mapreduce.jbs;

import io.hadoopaccel.common.conf.AccelConfiguration;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * The JBS keys (declared with defaults, ranges and descriptions in {@code accel-default.xml},
 * names in {@link JbsConfigKeys}), read strictly: a bad value is an
 * {@link IllegalArgumentException} naming the key, thrown when the aux service or a reduce
 * starts. The ranges are the daemons' own (their parsers are generated from the same file), so
 * a value accepted here never makes a daemon exit with a usage error.
 */
public final class JbsConfig {
  /** Aux service name (yarn.nodemanager.aux-services). */
  public static final String SERVICE_NAME = "jbs_shuffle";
  public static final String SUPPLIER_BINARY = "jbs_mof_supplier";
  public static final String MERGER_BINARY = "jbs_net_merger";

  public final File nativeDir;
  public final int supplierPort;
  public final String supplierBindAddress;
  public final String mergerSocket;
  /**
   * Tasks run as other users than the NodeManager (LinuxContainerExecutor): the NetMerger's
   * socket must be open to them (0666 in a 0711 directory); else owner-only (0600 in 0700).
   */
  public final boolean mergerSocketShared;
  public final long bufferBytes;
  public final int supplierBuffers;
  public final long indexCacheBytes;
  public final long mergerMemoryBytes;
  public final int maxConnections;
  public final int connectTimeoutMs;
  public final int readTimeoutMs;
  public final int reducerReadTimeoutMs;
  public final int fetchRetries;
  public final int fetchRetryBackoffMs;
  public final int restartBackoffMs;
  public final int readyTimeoutMs;

  private JbsConfig(Configuration conf) {
    String dir = AccelConfiguration.get(conf, JbsConfigKeys.NATIVE_DIR);
    nativeDir = dir == null || dir.isEmpty() ? defaultNativeDir() : new File(dir);
    supplierPort = AccelConfiguration.getInt(conf, JbsConfigKeys.SUPPLIER_PORT);
    supplierBindAddress = AccelConfiguration.getString(conf,
        JbsConfigKeys.SUPPLIER_BIND_ADDRESS).trim();
    if (supplierBindAddress.isEmpty() || !supplierBindAddress.matches("[0-9A-Za-z.:%_-]+")) {
      throw new IllegalArgumentException("Invalid value '" + supplierBindAddress
          + "' for configuration key " + JbsConfigKeys.SUPPLIER_BIND_ADDRESS
          + ": expected an IPv4 or IPv6 address of this node, or 0.0.0.0");
    }
    mergerSocket = AccelConfiguration.getString(conf, JbsConfigKeys.MERGER_SOCKET);
    mergerSocketShared = conf.get("yarn.nodemanager.container-executor.class", "")
        .contains("LinuxContainerExecutor");
    if (!mergerSocket.startsWith("/") || mergerSocket.length() > 107) {
      throw new IllegalArgumentException("Invalid value '" + mergerSocket
          + "' for configuration key " + JbsConfigKeys.MERGER_SOCKET
          + ": expected an absolute path of at most 107 bytes (a Unix socket path)");
    }
    bufferBytes = AccelConfiguration.getBytes(conf, JbsConfigKeys.BUFFER_BYTES);
    supplierBuffers = AccelConfiguration.getInt(conf, JbsConfigKeys.SUPPLIER_BUFFERS);
    indexCacheBytes = AccelConfiguration.getBytes(conf, JbsConfigKeys.SUPPLIER_INDEX_CACHE_BYTES);
    mergerMemoryBytes = AccelConfiguration.getBytes(conf, JbsConfigKeys.MERGER_MEMORY_BYTES);
    maxConnections = AccelConfiguration.getInt(conf, JbsConfigKeys.MERGER_MAX_CONNECTIONS);
    connectTimeoutMs = AccelConfiguration.getInt(conf, JbsConfigKeys.CONNECT_TIMEOUT_MS);
    readTimeoutMs = AccelConfiguration.getInt(conf, JbsConfigKeys.READ_TIMEOUT_MS);
    reducerReadTimeoutMs = AccelConfiguration.getInt(conf, JbsConfigKeys.REDUCER_READ_TIMEOUT_MS);
    fetchRetries = AccelConfiguration.getInt(conf, JbsConfigKeys.FETCH_RETRIES);
    fetchRetryBackoffMs = AccelConfiguration.getInt(conf, JbsConfigKeys.FETCH_RETRY_BACKOFF_MS);
    restartBackoffMs = AccelConfiguration.getInt(conf, JbsConfigKeys.RESTART_BACKOFF_MS);
    readyTimeoutMs = AccelConfiguration.getInt(conf, JbsConfigKeys.READY_TIMEOUT_MS);
  }

  /** Reads and checks every JBS key; throws naming the first bad one. */
  public static JbsConfig from(Configuration conf) {
    return new JbsConfig(conf);
  }

  /** $HADOOP_HOME/bin (environment, else the hadoop.home.dir property), else "bin". */
  static File defaultNativeDir() {
    return io.hadoopaccel.common.daemon.SupervisedDaemon.hadoopBinDir();
  }

  public File supplierBinary() {
    return new File(nativeDir, SUPPLIER_BINARY);
  }

  public File mergerBinary() {
    return new File(nativeDir, MERGER_BINARY);
  }

  /** DESIGN.md §1 command line of the MOFSupplier on {@code port}. */
  public List<String> supplierCommand(File binary, int port, List<String> localDirs) {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary.getPath());
    cmd.add("--listen");
    cmd.add((supplierBindAddress.contains(":") ? "[" + supplierBindAddress + "]"
        : supplierBindAddress) + ":" + port);
    cmd.add("--local-dirs");
    cmd.add(String.join(",", localDirs));
    cmd.add("--buffer-bytes");
    cmd.add(Long.toString(bufferBytes));
    cmd.add("--buffers");
    cmd.add(Integer.toString(supplierBuffers));
    cmd.add("--index-cache-bytes");
    cmd.add(Long.toString(indexCacheBytes));
    return cmd;
  }

  /** DESIGN.md §1 command line of the NetMerger. */
  public List<String> mergerCommand(File binary, List<String> spillDirs) {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary.getPath());
    cmd.add("--socket");
    cmd.add(mergerSocket);
    cmd.add("--socket-access");
    cmd.add(mergerSocketShared ? "any" : "owner");
    cmd.add("--buffer-bytes");
    cmd.add(Long.toString(bufferBytes));
    cmd.add("--memory-bytes");
    cmd.add(Long.toString(mergerMemoryBytes));
    cmd.add("--max-connections");
    cmd.add(Integer.toString(maxConnections));
    if (!spillDirs.isEmpty()) {
      cmd.add("--spill-dirs");
      cmd.add(String.join(",", spillDirs));
    }
    cmd.add("--connect-timeout-ms");
    cmd.add(Integer.toString(connectTimeoutMs));
    cmd.add("--read-timeout-ms");
    cmd.add(Integer.toString(readTimeoutMs));
    cmd.add("--fetch-retries");
    cmd.add(Integer.toString(fetchRetries));
    cmd.add("--retry-backoff-ms");
    cmd.add(Integer.toString(fetchRetryBackoffMs));
    return cmd;
  }
}
