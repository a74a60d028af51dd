package io.hadoopaccel.minicluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.mapreduce.Cluster;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.JobStatus;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TypeConverter;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;
import org.apache.hadoop.yarn.client.api.YarnClient;

/**
 * Feature-vs-stock job pairs on a mini cluster: run the same job once per configuration (an
 * enum such as {@code STOCK, FEATURE}) at the same time, find each run's job and counters
 * through a YARN application tag, and compare the outputs byte for byte.
 */
public final class PairedJobs {
  private PairedJobs() {}

  /** A run's output dir under {@code base}, e.g. {@code /wc/out-stock}. */
  public static Path outDir(String base, Enum<?> run) {
    return new Path(base + "/out-" + run.name().toLowerCase(Locale.ROOT));
  }

  /** A feature's counters of one job as {@code NAME=value ...}, for assertion messages. */
  public static <E extends Enum<E>> String summary(Counters c, Class<E> counters) {
    StringBuilder b = new StringBuilder();
    for (E k : counters.getEnumConstants()) {
      b.append(k).append('=').append(c.findCounter(k).getValue()).append(' ');
    }
    return b.toString();
  }

  /** The YARN application tag of one run, e.g. {@code kism-test-run-stock}. */
  public static String tag(String prefix, Enum<?> run) {
    return prefix + "-test-run-" + run.name().toLowerCase(Locale.ROOT);
  }

  /**
   * Runs a Tool once per constant of {@code runs}, all at once, each with its own configuration
   * and a tag; returns the counters of each run's job. Fails unless every run exits 0 and its
   * job succeeded.
   */
  public static <R extends Enum<R>> Map<R, Counters> runAtOnce(Configuration clientConf,
      Class<R> runs, String tagPrefix, Function<R, Configuration> confOf, Supplier<Tool> tool,
      Function<R, String[]> argsOf) throws Exception {
    R[] all = runs.getEnumConstants();
    Cluster cluster = new Cluster(clientConf);
    ExecutorService pool = Executors.newFixedThreadPool(all.length);
    try {
      Set<JobID> before = jobIds(cluster);
      Map<R, Future<Integer>> exits = new EnumMap<>(runs);
      for (R r : all) {
        Configuration conf = confOf.apply(r);
        conf.set(MRJobConfig.JOB_TAGS, tag(tagPrefix, r));
        String[] args = argsOf.apply(r);
        exits.put(r, pool.submit(() -> ToolRunner.run(conf, tool.get(), args)));
      }
      for (R r : all) {
        assertEquals(0, exits.get(r).get(), r + " run failed");
      }
      Set<JobID> fresh = jobIds(cluster);
      fresh.removeAll(before);
      assertEquals(all.length, fresh.size(), () -> "expected one new job per run, found " + fresh);
      return countersByTag(clientConf, cluster, fresh, runs, tagPrefix);
    } finally {
      pool.shutdownNow();
      cluster.close();
    }
  }

  /**
   * Runs a Tool that submits exactly one job (TeraGen, TeraValidate) and returns that job's
   * counters, found as the one job the cluster did not know before.
   */
  public static Counters runTool(Configuration conf, Tool tool, String... args)
      throws Exception {
    Cluster cluster = new Cluster(conf);
    try {
      Set<JobID> before = jobIds(cluster);
      assertEquals(0, ToolRunner.run(conf, tool, args),
          () -> tool.getClass().getSimpleName() + " " + Arrays.toString(args) + " failed");
      Set<JobID> fresh = jobIds(cluster);
      fresh.removeAll(before);
      assertEquals(1, fresh.size(), () -> "expected one new job, found " + fresh);
      Job job = cluster.getJob(fresh.iterator().next());
      assertTrue(job.isSuccessful(), () -> job.getJobID() + " did not succeed");
      return job.getCounters();
    } finally {
      cluster.close();
    }
  }

  /**
   * Asserts that two job output dirs hold the same part files with the same bytes; returns the
   * bytes compared (never 0: an empty output fails).
   */
  public static long assertSameOutput(FileSystem fs, Path expectedDir, Path actualDir)
      throws IOException {
    List<Path> expected = partFiles(fs, expectedDir);
    List<Path> actual = partFiles(fs, actualDir);
    assertFalse(expected.isEmpty(), "no part files in " + expectedDir);
    assertEquals(names(expected), names(actual), "part files");
    long total = 0;
    for (int i = 0; i < expected.size(); i++) {
      byte[] e = readFully(fs, expected.get(i));
      byte[] a = readFully(fs, actual.get(i));
      assertArrayEquals(e, a, actual.get(i) + " differs from " + expected.get(i));
      total += e.length;
    }
    assertTrue(total > 0, "empty output in " + expectedDir);
    return total;
  }

  private static <R extends Enum<R>> Map<R, Counters> countersByTag(Configuration conf,
      Cluster cluster, Set<JobID> ids, Class<R> runs, String tagPrefix) throws Exception {
    Map<R, Counters> counters = new EnumMap<>(runs);
    try (YarnClient yarn = YarnClient.createYarnClient()) {
      yarn.init(conf);
      yarn.start();
      for (JobID id : ids) {
        Set<String> tags = yarn.getApplicationReport(TypeConverter.toYarn(id).getAppId())
            .getApplicationTags();
        R run = Arrays.stream(runs.getEnumConstants())
            .filter(r -> tags.contains(tag(tagPrefix, r))).findFirst()
            .orElseThrow(() -> new AssertionError(id + " has tags " + tags));
        Job job = cluster.getJob(id);
        assertTrue(job.isSuccessful(), () -> id + " did not succeed");
        assertTrue(counters.put(run, job.getCounters()) == null, () -> "two jobs of " + run);
      }
    }
    return counters;
  }

  private static Set<JobID> jobIds(Cluster cluster) throws IOException, InterruptedException {
    Set<JobID> ids = new HashSet<>();
    for (JobStatus s : cluster.getAllJobStatuses()) {
      ids.add(s.getJobID());
    }
    return ids;
  }

  private static List<Path> partFiles(FileSystem fs, Path dir) throws IOException {
    List<Path> parts = new ArrayList<>();
    for (FileStatus st : fs.listStatus(dir, p -> p.getName().startsWith("part-"))) {
      parts.add(st.getPath());
    }
    Collections.sort(parts);
    return parts;
  }

  private static List<String> names(List<Path> paths) {
    List<String> n = new ArrayList<>();
    for (Path p : paths) {
      n.add(p.getName());
    }
    return n;
  }

  private static byte[] readFully(FileSystem fs, Path p) throws IOException {
    long len = fs.getFileStatus(p).getLen();
    assertTrue(len < Integer.MAX_VALUE, p + " too large to compare in memory");
    byte[] b = new byte[(int) len];
    try (FSDataInputStream in = fs.open(p)) {
      IOUtils.readFully(in, b, 0, b.length);
    }
    return b;
  }
}
