package io.hadoopaccel.minicluster;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.test.GenericTestUtils;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts one MiniDFSCluster and (unless DFS-only) one MiniMRYarnCluster per test class and
 * stops them after the class.
 *
 * <pre>
 * &#64;RegisterExtension
 * static final MiniHadoopClusterExtension CLUSTER = MiniHadoopClusterExtension.builder()
 *     .numDataNodes(2).configure(conf -&gt; conf.setBoolean("my.feature", true)).build();
 * ...
 * Job job = Job.getInstance(CLUSTER.getConfiguration());
 * </pre>
 *
 * Must be registered on a static field: the cluster lives from BeforeAll to AfterAll.
 */
public final class MiniHadoopClusterExtension implements BeforeAllCallback, AfterAllCallback {

  /** Container size for maps, reduces and the AM: small, the machine has 2 cores. */
  public static final int CONTAINER_MB = 512;
  /** Heap inside a container; leaves headroom for metaspace and direct buffers. */
  public static final String CONTAINER_JAVA_OPTS =
      "-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

  private final int numDataNodes;
  private final int numNodeManagers;
  private final boolean dfsOnly;
  private final Consumer<Configuration> configurer;

  private File baseDir;
  private MiniDFSCluster dfsCluster;
  private MiniMRYarnCluster mrCluster;
  private Configuration clientConf;

  private MiniHadoopClusterExtension(Builder b) {
    this.numDataNodes = b.numDataNodes;
    this.numNodeManagers = b.numNodeManagers;
    this.dfsOnly = b.dfsOnly;
    this.configurer = b.configurer;
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    // '$' of nested classes is stripped by MiniYARNCluster; keep names filesystem-friendly.
    start(context.getRequiredTestClass().getName().replace('$', '_'));
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    stop();
  }

  /** Starts the clusters; on any failure stops what already started and rethrows. */
  void start(String name) throws Exception {
    if (dfsCluster != null || mrCluster != null) {
      throw new IllegalStateException("cluster already started; register the extension once");
    }
    try {
      baseDir = GenericTestUtils.getTestDir("minicluster-" + name);
      // Unique per class, but a rerun of the same class must not find old blocks.
      FileUtil.fullyDelete(baseDir);

      Configuration conf = createBaseConfiguration(numDataNodes);
      configurer.accept(conf);
      // MiniYARNCluster gives every NM this key's memory (default 4 GiB) and ignores the NM's
      // own key: carry over what the base settings and the builder's configurer chose.
      conf.setInt("yarn.minicluster.yarn.nodemanager.resource.memory-mb",
          conf.getInt("yarn.nodemanager.resource.memory-mb", 8 * CONTAINER_MB));

      dfsCluster = new MiniDFSCluster.Builder(conf, new File(baseDir, "dfs"))
          .numDataNodes(numDataNodes)
          .build();
      dfsCluster.waitActive();
      FileSystem.setDefaultUri(conf, dfsCluster.getURI());

      if (dfsOnly) {
        clientConf = conf;
        return;
      }
      // MiniYARNCluster puts its work dir under GenericTestUtils.getTestDir(name) too.
      mrCluster = new MiniMRYarnCluster("minicluster-" + name, numNodeManagers);
      mrCluster.init(conf);
      mrCluster.start();
      if (!mrCluster.waitForNodeManagersToConnect(30_000)) {
        throw new IOException("NodeManagers did not register with the ResourceManager");
      }
      // getConfig() now carries the RM, history server and shuffle addresses.
      clientConf = mrCluster.getConfig();
    } catch (Throwable t) {
      try {
        stop();
      } catch (Throwable s) {
        t.addSuppressed(s);
      }
      throw t;
    }
  }

  /** Stops YARN first (its tasks write to HDFS), then HDFS; idempotent. */
  void stop() throws Exception {
    Throwable failure = null;
    if (mrCluster != null) {
      try {
        mrCluster.stop();
      } catch (Throwable t) {
        failure = t;
      }
      mrCluster = null;
    }
    if (dfsCluster != null) {
      try {
        dfsCluster.shutdown(true);
      } catch (Throwable t) {
        if (failure == null) {
          failure = t;
        } else {
          failure.addSuppressed(t);
        }
      }
      dfsCluster = null;
    }
    clientConf = null;
    if (failure instanceof Exception) {
      throw (Exception) failure;
    } else if (failure != null) {
      throw (Error) failure;
    }
  }

  /**
   * Settings every cluster gets before the builder's configurer runs: fast heartbeats and
   * polling (otherwise jobs take multiples of 5 s and stopping takes ~30 s), small containers.
   */
  static Configuration createBaseConfiguration(int numDataNodes) {
    Configuration conf = new Configuration();
    // HDFS
    conf.setInt("dfs.replication", Math.min(3, numDataNodes));
    conf.setLong("dfs.heartbeat.interval", 1);
    conf.setInt("dfs.namenode.heartbeat.recheck-interval", 2_000);

    // YARN: heartbeats and fast container kill on shutdown.
    conf.setInt("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", 200);
    conf.setInt("yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms", 200);
    conf.setInt("yarn.nodemanager.process-kill-wait.ms", 200);
    conf.setInt("yarn.nodemanager.sleep-delay-before-sigkill.ms", 100);
    conf.setInt("yarn.nodemanager.log.retain-seconds", 1);
    conf.setFloat("yarn.scheduler.capacity.maximum-am-resource-percent", 0.5f);
    // A nearly full build disk must not mark the NM's local dirs bad.
    conf.setFloat(
        "yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage", 100f);

    // Memory: 4 GiB per NM = AM + 7 tasks; more concurrent JVMs only thrash 2 cores.
    conf.setInt("yarn.nodemanager.resource.memory-mb", 8 * CONTAINER_MB);
    conf.setInt("yarn.nodemanager.resource.cpu-vcores", 8);
    conf.setInt("yarn.scheduler.minimum-allocation-mb", 128);
    conf.setInt("yarn.scheduler.maximum-allocation-mb", 8 * CONTAINER_MB);
    conf.setInt("mapreduce.map.memory.mb", CONTAINER_MB);
    conf.setInt("mapreduce.reduce.memory.mb", CONTAINER_MB);
    conf.setInt("yarn.app.mapreduce.am.resource.mb", CONTAINER_MB);
    conf.set("mapreduce.map.java.opts", CONTAINER_JAVA_OPTS);
    conf.set("mapreduce.reduce.java.opts", CONTAINER_JAVA_OPTS);
    conf.set("yarn.app.mapreduce.am.command-opts", CONTAINER_JAVA_OPTS);

    // MapReduce client: poll every 200 ms instead of 5 s.
    conf.setInt("mapreduce.client.completion.pollinterval", 200);
    conf.setInt("mapreduce.client.progressmonitor.pollinterval", 200);
    // A failing job fails once instead of retrying its AM; no speculative duplicates.
    conf.setInt("mapreduce.am.max-attempts", 1);
    conf.setBoolean("mapreduce.map.speculative", false);
    conf.setBoolean("mapreduce.reduce.speculative", false);
    return conf;
  }

  /** A fresh copy of the client configuration, e.g. for {@code Job.getInstance(conf)}. */
  public Configuration getConfiguration() {
    return new Configuration(requireStarted(clientConf));
  }

  /** The cluster's HDFS (cached instance; do not close it). */
  public DistributedFileSystem getFileSystem() throws IOException {
    return requireStarted(dfsCluster).getFileSystem();
  }

  public MiniDFSCluster getDfsCluster() {
    return requireStarted(dfsCluster);
  }

  /** The YARN/MR cluster, or {@code null} in DFS-only mode. */
  public MiniMRYarnCluster getMrCluster() {
    requireStarted(clientConf);
    return mrCluster;
  }

  /** Directory under target/ holding this class's cluster data. */
  public File getBaseDir() {
    return requireStarted(baseDir);
  }

  /** All lines of the part-* files in {@code dir} on the cluster's HDFS, sorted. */
  public List<String> readOutputLines(Path dir) throws IOException {
    return readOutputLines(getFileSystem(), dir);
  }

  /** The sorted lines of {@link #readOutputLines(Path)}, each followed by '\n'. */
  public String readOutput(Path dir) throws IOException {
    StringBuilder sb = new StringBuilder();
    for (String line : readOutputLines(dir)) {
      sb.append(line).append('\n');
    }
    return sb.toString();
  }

  /** All lines of the part-* files in {@code dir}, sorted; compressed parts are decoded. */
  public static List<String> readOutputLines(FileSystem fs, Path dir) throws IOException {
    CompressionCodecFactory codecs = new CompressionCodecFactory(fs.getConf());
    List<String> lines = new ArrayList<>();
    for (FileStatus st : fs.listStatus(dir, p -> p.getName().startsWith("part-"))) {
      CompressionCodec codec = codecs.getCodec(st.getPath());
      InputStream raw = fs.open(st.getPath());
      try (BufferedReader r = new BufferedReader(new InputStreamReader(
          codec == null ? raw : codec.createInputStream(raw), StandardCharsets.UTF_8))) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          lines.add(line);
        }
      }
    }
    Collections.sort(lines);
    return lines;
  }

  private static <T> T requireStarted(T value) {
    return Objects.requireNonNull(value,
        "cluster not running: register MiniHadoopClusterExtension on a static field");
  }

  /** Builder; defaults: 1 datanode, 1 nodemanager, DFS + YARN. */
  public static final class Builder {
    private int numDataNodes = 1;
    private int numNodeManagers = 1;
    private boolean dfsOnly;
    private Consumer<Configuration> configurer = conf -> { };

    private Builder() {
    }

    public Builder numDataNodes(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("numDataNodes must be >= 1: " + n);
      }
      this.numDataNodes = n;
      return this;
    }

    public Builder numNodeManagers(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("numNodeManagers must be >= 1: " + n);
      }
      this.numNodeManagers = n;
      return this;
    }

    /** Adds settings (e.g. a feature switch) on top of the defaults; calls accumulate. */
    public Builder configure(Consumer<Configuration> c) {
      this.configurer = this.configurer.andThen(Objects.requireNonNull(c));
      return this;
    }

    /** Start HDFS only (no YARN/MapReduce): faster for HDFS-only features. */
    public Builder dfsOnly() {
      this.dfsOnly = true;
      return this;
    }

    public MiniHadoopClusterExtension build() {
      return new MiniHadoopClusterExtension(this);
    }
  }
}
