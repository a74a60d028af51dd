package io.hadoopaccel.mapreduce.coomr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.hadoopaccel.minicluster.AuxServicesManifest;
import io.hadoopaccel.minicluster.MiniHadoopClusterExtension;
import io.hadoopaccel.minicluster.PairedJobs;
import io.hadoopaccel.workloads.gen.ZipfText;
import io.hadoopaccel.workloads.jobs.Sort;
import io.hadoopaccel.workloads.jobs.WordCount;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.CoomrMapOutputCollector;
import org.apache.hadoop.mapred.CoomrShuffleHandler;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.util.Tool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Real jobs on one shared mini cluster whose NodeManager runs CooMR as deployed: the
 * coordinator under {@link CoomrAuxService} and {@link CoomrShuffleHandler} as
 * {@code mapreduce_shuffle}. Each job runs with stock's collector and with CooMR's at once; the
 * part files must be byte-identical. A 1 MB sort buffer gives every map several spills.
 */
class TestCoomrJobs {
  private static final String STOCK_COLLECTOR = "org.apache.hadoop.mapred.MapTask$MapOutputBuffer";
  private static final java.nio.file.Path BINARY =
      Paths.get(System.getProperty("coomr.coordinator.binary", "none"));
  private static final java.nio.file.Path TMP;

  static {
    try {
      TMP = Files.createTempDirectory("coomr-jobs");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static final java.nio.file.Path SOCKET = TMP.resolve("sock/coordinator.sock");
  private static final java.nio.file.Path POOL = TMP.resolve("pool");

  @RegisterExtension
  static final MiniHadoopClusterExtension CLUSTER = MiniHadoopClusterExtension.builder()
      .configure(c -> {
        c.setInt("yarn.nodemanager.resource.memory-mb",
            20 * MiniHadoopClusterExtension.CONTAINER_MB);
        Map<String, Class<?>> services = new LinkedHashMap<>();
        services.put("mapreduce_shuffle", CoomrShuffleHandler.class);
        services.put(CoomrAuxService.SERVICE_NAME, CoomrAuxService.class);
        AuxServicesManifest.configure(c, "coomr", services);
        c.set(CoomrConfigKeys.NATIVE_DIR, BINARY.getParent().toString());
        c.set(CoomrConfigKeys.COORDINATOR_SOCKET, SOCKET.toString());
        c.set(CoomrConfigKeys.POOL_DIR, POOL.toString());
        c.set(CoomrConfigKeys.POOL_BYTES, "64m");
      })
      .build();

  private enum Pair { STOCK, COOMR }

  /** The shuffle has connected to the coordinator: maps may leave their outputs in the pool. */
  @BeforeAll
  static void coordinatorServesOutputs() throws Exception {
    if (!Boolean.getBoolean("accel.native.required")) {
      assumeTrue(Files.isExecutable(BINARY), "no coomr_coordinator (build with -Pnative)");
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (int i = 0;; i++) {
      try (CoordinatorClient c = CoordinatorClient.attach(SOCKET, "job_0_0000", "probe_" + i,
          10_000)) {
        c.detach();
        if (c.servesOutputs()) {
          return;
        }
      } catch (IOException e) {
        // the aux service is still starting it
      }
      assertTrue(System.nanoTime() < deadline, "the shuffle did not connect to the coordinator");
      Thread.sleep(50); // polling a condition with a deadline, not synchronising on time
    }
  }

  private static Configuration conf(Pair p, String coordinatorSocket) {
    Configuration conf = CLUSTER.getConfiguration();
    if (p == Pair.COOMR) {
      conf.set(MRJobConfig.MAP_OUTPUT_COLLECTOR_CLASS_ATTR,
          CoomrMapOutputCollector.class.getName() + "," + STOCK_COLLECTOR);
      conf.set(CoomrConfigKeys.COORDINATOR_SOCKET, coordinatorSocket);
    }
    conf.setInt(MRJobConfig.IO_SORT_MB, 1);
    return conf;
  }

  @Test
  void sortIsIdenticalWithSpillsInThePool() throws Exception {
    Path in = new Path("/sort/in");
    ZipfText.writeFiles(CLUSTER.getFileSystem(), in, new int[] {3 << 20, 2 << 20, 2 << 20}, 5);
    Counters c = runPair(Sort::new, out -> new String[] {"-r", "2", in.toString(),
        out.toString()}, "/sort", SOCKET.toString()).get(Pair.COOMR);
    String all = summary(c);
    assertEquals(0, get(c, CoomrCounter.FALLBACKS), all);
    // Every map spilled several times (more output than its 1 MB buffer), and the pool is
    // large enough for all of them at once: every spill went into it, and every map output
    // too, which the reduces fetched through CoomrShuffleHandler.
    assertEquals(0, get(c, CoomrCounter.DISK_SPILLS), all);
    assertTrue(get(c, CoomrCounter.POOL_SPILLS) >= 6, all);
    assertTrue(get(c, CoomrCounter.POOL_SPILL_BYTES) > 3 << 20, all);
    assertEquals(0, get(c, CoomrCounter.SPILLS_MOVED_TO_DISK), all);
    assertEquals(3, get(c, CoomrCounter.POOL_OUTPUTS), all);
    assertTrue(get(c, CoomrCounter.POOL_OUTPUT_BYTES) > 6 << 20, all);
    assertEquals(0, get(c, CoomrCounter.OUTPUTS_WRITTEN_BY_MAP), all);
  }

  @Test
  void aMapsOnlySpillIsItsOutputInThePool() throws Exception {
    Path in = new Path("/one/in");
    ZipfText.writeFiles(CLUSTER.getFileSystem(), in, new int[] {1 << 20, 1 << 20}, 7);
    Counters c = runPair(Sort::new, out -> new String[] {"-r", "2", in.toString(),
        out.toString()}, "/one", SOCKET.toString(), 8).get(Pair.COOMR);
    String all = summary(c);
    // An 8 MB buffer holds a 1 MB map's whole output: one spill, renamed to the output in the
    // pool and handed over, as stock renames it on disk.
    assertEquals(2, get(c, CoomrCounter.POOL_SPILLS), all);
    assertEquals(0, get(c, CoomrCounter.DISK_SPILLS), all);
    assertEquals(0, get(c, CoomrCounter.SPILLS_MOVED_TO_DISK), all);
    assertEquals(2, get(c, CoomrCounter.POOL_OUTPUTS), all);
  }

  @Test
  void wordCountWithCombinerIsIdentical() throws Exception {
    Path in = new Path("/wc/in");
    ZipfText.writeFiles(CLUSTER.getFileSystem(), in, new int[] {3 << 20, 2 << 20}, 11);
    Counters c = runPair(WordCount::new, out -> new String[] {"-r", "2", in.toString(),
        out.toString()}, "/wc", SOCKET.toString()).get(Pair.COOMR);
    String all = summary(c);
    assertEquals(0, get(c, CoomrCounter.FALLBACKS), all);
    assertTrue(get(c, CoomrCounter.POOL_SPILLS) >= 2, all);
    assertEquals(2, get(c, CoomrCounter.POOL_OUTPUTS), all);
  }

  @Test
  void withoutACoordinatorMapsSpillToDiskAsStock() throws Exception {
    Path in = new Path("/nocoord/in");
    ZipfText.writeFiles(CLUSTER.getFileSystem(), in, new int[] {1 << 20, 1 << 20}, 3);
    Counters c = runPair(WordCount::new, out -> new String[] {"-r", "2", in.toString(),
        out.toString()}, "/nocoord", TMP.resolve("nobody.sock").toString()).get(Pair.COOMR);
    String all = summary(c);
    assertEquals(2, get(c, CoomrCounter.FALLBACKS), all);
    assertEquals(0, get(c, CoomrCounter.POOL_SPILLS), all);
  }

  @Test
  void aMapThatDiesWithSpillsInThePoolIsRetried() throws Exception {
    Path in = new Path("/dies/in");
    ZipfText.writeFiles(CLUSTER.getFileSystem(), in, new int[] {3 << 20, 1 << 20}, 17);
    Map<Pair, Counters> c = runPair(DyingWordCount::new,
        out -> new String[] {in.toString(), out.toString()}, "/dies", SOCKET.toString());
    Counters coomr = c.get(Pair.COOMR);
    String all = summary(coomr);
    // Map 0's first attempt halted its JVM with spills in the pool (no detach): the
    // coordinator deleted them when its connection died, and the retry's output is the one
    // that counts.
    assertEquals(1, coomr.findCounter(JobCounter.NUM_FAILED_MAPS).getValue(), all);
    assertTrue(get(coomr, CoomrCounter.POOL_SPILLS) >= 2, all);
    try (Stream<java.nio.file.Path> left = Files.walk(POOL)) {
      List<java.nio.file.Path> dead = left.filter(p -> p.getFileName().toString()
          .matches("attempt_.*_m_000000_0")).collect(Collectors.toList());
      assertEquals(List.of(), dead, "the dead attempt's dir is still in the pool");
    }
  }

  /**
   * WordCount without a combiner, 2 reduces, whose first attempt of map 0 halts its JVM after
   * collecting all its records: its spills (but not the final one) are in the pool by then.
   */
  public static final class DyingWordCount extends Configured implements Tool {
    public static final class Tokens extends WordCount.TokenizerMapper {
      @Override
      protected void cleanup(Context ctx) {
        TaskAttemptID id = ctx.getTaskAttemptID();
        if (id.getTaskID().getId() == 0 && id.getId() == 0) {
          Runtime.getRuntime().halt(3);
        }
      }
    }

    @Override
    public int run(String[] args) throws Exception {
      Job job = Job.getInstance(getConf(), "dying-wordcount");
      job.setJarByClass(TestCoomrJobs.class);
      job.setMapperClass(Tokens.class);
      job.setReducerClass(WordCount.LongSumReducer.class);
      job.setMapOutputKeyClass(Text.class);
      job.setMapOutputValueClass(IntWritable.class);
      job.setOutputKeyClass(Text.class);
      job.setOutputValueClass(LongWritable.class);
      job.setNumReduceTasks(2);
      FileInputFormat.addInputPath(job, new Path(args[0]));
      FileOutputFormat.setOutputPath(job, new Path(args[1]));
      return job.waitForCompletion(false) ? 0 : 1;
    }
  }

  // ---------------------------------------------------------------------------------------

  private static Map<Pair, Counters> runPair(Supplier<Tool> tool, Function<Path, String[]> argsOf,
      String base, String coordinatorSocket) throws Exception {
    return runPair(tool, argsOf, base, coordinatorSocket, 1);
  }

  private static Map<Pair, Counters> runPair(Supplier<Tool> tool, Function<Path, String[]> argsOf,
      String base, String coordinatorSocket, int sortMb) throws Exception {
    Map<Pair, Counters> counters = PairedJobs.runAtOnce(CLUSTER.getConfiguration(), Pair.class,
        "coomr" + base.replace('/', '-'), p -> {
          Configuration conf = conf(p, coordinatorSocket);
          conf.setInt(MRJobConfig.IO_SORT_MB, sortMb);
          return conf;
        }, tool,
        p -> argsOf.apply(PairedJobs.outDir(base, p)));
    PairedJobs.assertSameOutput(CLUSTER.getFileSystem(), PairedJobs.outDir(base, Pair.STOCK),
        PairedJobs.outDir(base, Pair.COOMR));
    Counters stock = counters.get(Pair.STOCK);
    for (CoomrCounter k : CoomrCounter.values()) {
      assertEquals(0, get(stock, k), k.name());
    }
    return counters;
  }

  private static String summary(Counters c) {
    return PairedJobs.summary(c, CoomrCounter.class);
  }

  private static long get(Counters c, CoomrCounter k) {
    return c.findCounter(k).getValue();
  }
}
