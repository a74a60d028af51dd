package io.hadoopaccel.mapreduce.jbs;

import io.hadoopaccel.minicluster.AuxServicesManifest;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.task.reduce.JbsShuffle;

/**
 * A mini cluster whose NodeManager runs JBS: {@link JbsShuffleHandler} as
 * {@code mapreduce_shuffle} and {@link JbsAuxService} as {@code jbs_shuffle}, through an aux
 * services manifest (MiniMRYarnCluster overwrites yarn.nodemanager.aux-services), with the
 * daemons of the -Pnative build. Shared by this module's tests and the integration tests (test
 * jar).
 */
public final class JbsTestCluster {
  /** -Pnative sets this: then missing daemons fail instead of testing the fallback only. */
  public static final boolean NATIVE_REQUIRED = Boolean.getBoolean("accel.native.required");
  /** Where -Pnative puts jbs_mof_supplier and jbs_net_merger. */
  public static final File NATIVE_DIR = new File(System.getProperty("jbs.native.bin.dir",
      "../../target/native/bin"));
  /** True if both daemons are built: JBS reduces can take the native path. */
  public static final boolean NATIVES =
      new File(NATIVE_DIR, JbsConfig.SUPPLIER_BINARY).canExecute()
          && new File(NATIVE_DIR, JbsConfig.MERGER_BINARY).canExecute();

  private JbsTestCluster() {}

  /**
   * Cluster settings (a MiniHadoopClusterExtension configurer): the aux services, the daemons'
   * directory, a NetMerger socket of this JVM (in a directory of its own: the NetMerger refuses
   * a socket dir others can write, such as /tmp) and a free supplier port.
   */
  public static void configure(Configuration conf) {
    try {
      Map<String, Class<?>> services = new LinkedHashMap<>();
      services.put("mapreduce_shuffle", JbsShuffleHandler.class);
      services.put(JbsConfig.SERVICE_NAME, JbsAuxService.class);
      AuxServicesManifest.configure(conf, "jbs", services);
      conf.set(JbsConfigKeys.NATIVE_DIR, NATIVE_DIR.getAbsolutePath());
      conf.set(JbsConfigKeys.MERGER_SOCKET, "/tmp/jbs-test-" + ProcessHandle.current().pid()
          + "/merger.sock");
      try (ServerSocket s = new ServerSocket(0)) {
        conf.setInt(JbsConfigKeys.SUPPLIER_PORT, s.getLocalPort());
      }
      conf.set(JbsConfigKeys.RESTART_BACKOFF_MS, "100");
      conf.set(JbsConfigKeys.CONNECT_TIMEOUT_MS, "2000");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Switches a job's reduces to {@link JbsShuffle}. */
  public static Configuration jbsJob(Configuration conf) {
    conf.set(MRConfig.SHUFFLE_CONSUMER_PLUGIN, JbsShuffle.class.getName());
    // As DESIGN.md §1 expected: list jbs_shuffle as a shuffle provider (the AM checks it
    // against its own copy of aux-services). Hadoop 3.5.0's AM then sends it an empty
    // buffer; the token still arrives through JbsShuffleHandler.
    conf.set("yarn.nodemanager.aux-services", "mapreduce_shuffle," + JbsConfig.SERVICE_NAME);
    conf.set(MRJobConfig.MAPREDUCE_JOB_SHUFFLE_PROVIDER_SERVICES, JbsConfig.SERVICE_NAME);
    return conf;
  }
}
