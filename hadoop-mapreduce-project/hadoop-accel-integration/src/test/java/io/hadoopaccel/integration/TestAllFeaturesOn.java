package io.hadoopaccel.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.hadoopaccel.hdfs.hetero.HeteroConfigKeys;
import io.hadoopaccel.mapreduce.jbs.JbsConfigKeys;
import io.hadoopaccel.mapreduce.jbs.JbsCounter;
import io.hadoopaccel.mapreduce.jbs.JbsTestCluster;
import io.hadoopaccel.mapreduce.kism.KismCounter;
import io.hadoopaccel.mapreduce.kism.KismShuffle;
import io.hadoopaccel.minicluster.MiniHadoopClusterExtension;
import io.hadoopaccel.minicluster.PairedJobs;
import io.hadoopaccel.streaming.shm.ShmIdentifierResolver;
import io.hadoopaccel.streaming.shm.ShmStreamingConfigKeys;
import io.hadoopaccel.streaming.shm.ShmStreamingCounter;
import io.hadoopaccel.workloads.gen.ZipfText;
import io.hadoopaccel.workloads.jobs.WordCount;
import io.hadoopaccel.workloads.util.ByteBuf;
import io.hadoopaccel.workloads.util.SplitMix64;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.server.blockmanagement.HeteroBlockPlacementPolicy;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.streaming.StreamJob;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every feature switched on at once, on one mini cluster: the NameNode places blocks with
 * {@link HeteroBlockPlacementPolicy} (the input directory is bound to a profile), the
 * NodeManager runs JBS's aux services, and the "on" jobs use JBS with KISM as its fallback
 * ({@code hadoop.accel.jbs.fallback.plugin.class}); the streaming job also runs its programs
 * over ShmStreaming's rings ({@code -io shm}). Each "on" job's output must be byte-identical to
 * the same job with stock shuffle (and pipes), and the counters must show that each feature
 * took part. Without the JBS daemons (no -Pnative) JBS falls back, so KISM merges; without
 * libhadoop_shm the streaming test is skipped (failed under accel.native.required).
 */
class TestAllFeaturesOn {
  private static final int BLOCK = 128 << 10;
  private static final Path IN = new Path("/features/in");

  @RegisterExtension
  static final MiniHadoopClusterExtension CLUSTER = MiniHadoopClusterExtension.builder()
      .numDataNodes(2).configure(TestAllFeaturesOn::configure).build();

  private static void configure(Configuration conf) {
    JbsTestCluster.configure(conf);
    conf.set(DFSConfigKeys.DFS_BLOCK_REPLICATOR_CLASSNAME_KEY,
        HeteroBlockPlacementPolicy.class.getName());
    try {
      File dir = new File(System.getProperty("test.build.data", "target/test/data"),
          "hetero").getAbsoluteFile();
      dir.mkdirs();
      File profiles = new File(dir, "hetero-profiles.conf");
      // Both DataNodes at the same speed (one named, the other defaults to ratio 1).
      Files.writeString(profiles.toPath(), "profile even\nnode localhost 1\nbind /features even\n",
          StandardCharsets.UTF_8);
      conf.set(HeteroConfigKeys.PROFILES_FILE, profiles.getPath());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, BLOCK);
    conf.setLong(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 0);
  }

  private static long blocks;
  private static final File RINGS = new File(System.getProperty("test.build.data",
      "target/test/data"), "rings").getAbsoluteFile();

  /** One word per line (Zipf-distributed), in files of several blocks, under the bound dir. */
  @BeforeAll
  static void writeInput() throws IOException {
    RINGS.mkdirs();
    ZipfText text = ZipfText.standard();
    int[] sizes = {3 * BLOCK + 5000, BLOCK + 17};
    for (int f = 0; f < sizes.length; f++) {
      ByteBuf buf = new ByteBuf(sizes[f] + text.maxLineBytes());
      text.appendLines(new SplitMix64(2026L * 1000 + f), sizes[f], buf);
      byte[] b = new String(buf.array(), 0, buf.length(), StandardCharsets.ISO_8859_1)
          .replace(' ', '\n').getBytes(StandardCharsets.ISO_8859_1);
      try (OutputStream out = CLUSTER.getFileSystem().create(new Path(IN, "words-" + f))) {
        out.write(b);
      }
      blocks += (b.length + BLOCK - 1) / BLOCK;
    }
  }

  private enum Run {
    STOCK, ON
  }

  /** Stock shuffle, or JBS then KISM. */
  private static Configuration conf(Run r) {
    Configuration conf = CLUSTER.getConfiguration();
    if (r == Run.ON) {
      JbsTestCluster.jbsJob(conf);
      conf.set(JbsConfigKeys.FALLBACK_PLUGIN, KismShuffle.class.getName());
    } else {
      conf.set(MRConfig.SHUFFLE_CONSUMER_PLUGIN,
          "org.apache.hadoop.mapreduce.task.reduce.Shuffle");
    }
    return conf;
  }

  private static Path out(String base, Run r) {
    return new Path(base + "/out-" + r.name().toLowerCase());
  }

  @Test
  void theInputWasPlacedByTheHeteroPolicy() {
    HeteroBlockPlacementPolicy policy = (HeteroBlockPlacementPolicy) CLUSTER.getDfsCluster()
        .getNamesystem().getBlockManager().getBlockPlacementPolicy();
    Map<String, Long> placed = policy.hetero().placedFirstReplicas("/features");
    assertEquals(2, placed.size(), placed::toString);
    assertEquals(blocks, placed.values().stream().mapToLong(Long::longValue).sum(),
        placed::toString);
    // Equal ratios: an even split, within one block.
    for (long n : placed.values()) {
      assertTrue(Math.abs(n - blocks / 2.0) <= 1.0, placed::toString);
    }
  }

  @Test
  void wordCountWithAUserComparatorRunsJbsThenKism() throws Exception {
    // A user comparator (Text's own order): JBS cannot take it and hands the reduce to KISM.
    Map<Run, Counters> c = PairedJobs.runAtOnce(CLUSTER.getConfiguration(), Run.class,
        "features-wc", r -> {
          Configuration conf = conf(r);
          conf.set(MRJobConfig.KEY_COMPARATOR, Text.Comparator.class.getName());
          return conf;
        }, WordCount::new, r -> new String[] {"-nocombiner", "-r", "2", IN.toString(),
            out("/features/wc", r).toString()});
    PairedJobs.assertSameOutput(CLUSTER.getFileSystem(), out("/features/wc", Run.STOCK),
        out("/features/wc", Run.ON));
    Counters on = c.get(Run.ON);
    assertEquals(2, on.findCounter(JbsCounter.FALLBACK_COMPARATOR).getValue(), on::toString);
    assertEquals(2, on.findCounter(KismCounter.REDUCES).getValue(), on::toString);
    assertEquals(0, c.get(Run.STOCK).findCounter(KismCounter.REDUCES).getValue());
  }

  @Test
  void streamingOverRingsWithJbsAndKismIsIdenticalToPipesOnStock() throws Exception {
    File lib = new File(System.getProperty("jna.library.path", ""), "libhadoop_shm.so");
    if (!Boolean.getBoolean("accel.native.required")) {
      assumeTrue(lib.isFile(), "build with -Pnative to run ShmStreaming");
    }
    assertTrue(lib.isFile(), lib + " missing (accel.native.required=true)");
    Map<Run, Counters> c = PairedJobs.runAtOnce(CLUSTER.getConfiguration(), Run.class,
        "features-stream", r -> {
          Configuration conf = conf(r);
          conf.set("stream.io.identifier.resolver.class", ShmIdentifierResolver.class.getName());
          conf.set("hadoop.accel.native.lib.dir", lib.getParent());
          conf.set(ShmStreamingConfigKeys.DIR, RINGS.getPath());
          return conf;
        }, StreamJob::new, r -> {
          // Unmodified programs: under -io shm the task preloads the shim into them.
          String[] common = {"-mapper", "cat", "-reducer", "uniq -c", "-numReduceTasks", "2",
              "-input", IN.toString(), "-output", out("/features/stream", r).toString()};
          if (r == Run.STOCK) {
            return common;
          }
          String[] shm = new String[common.length + 2];
          shm[0] = "-io";
          shm[1] = "shm";
          System.arraycopy(common, 0, shm, 2, common.length);
          return shm;
        });
    String[] left = RINGS.list();
    assertEquals(0, left == null ? 0 : left.length, "ring files left behind");
    PairedJobs.assertSameOutput(CLUSTER.getFileSystem(), out("/features/stream", Run.STOCK),
        out("/features/stream", Run.ON));
    Counters on = c.get(Run.ON);
    long tasks = on.findCounter(JobCounter.TOTAL_LAUNCHED_MAPS).getValue()
        + on.findCounter(JobCounter.TOTAL_LAUNCHED_REDUCES).getValue();
    assertEquals(tasks, on.findCounter(ShmStreamingCounter.TASKS_ON_RINGS).getValue(),
        on::toString);
    assertEquals(0, c.get(Run.STOCK).findCounter(ShmStreamingCounter.TASKS_ON_RINGS)
        .getValue());
    // JBS merged both reduces natively, or (no daemons) fell back to KISM in both.
    long jbs = on.findCounter(JbsCounter.NATIVE_REDUCES).getValue();
    long kism = on.findCounter(KismCounter.REDUCES).getValue();
    assertEquals(2, jbs + kism, on::toString);
    assertEquals(JbsTestCluster.NATIVES ? 2 : 0, jbs, on::toString);
    assertEquals(c.get(Run.STOCK).findCounter(TaskCounter.REDUCE_INPUT_RECORDS).getValue(),
        on.findCounter(TaskCounter.REDUCE_INPUT_RECORDS).getValue());
  }
}
