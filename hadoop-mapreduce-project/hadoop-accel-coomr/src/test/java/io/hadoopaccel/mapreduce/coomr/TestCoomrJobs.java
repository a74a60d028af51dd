package io.hadoopaccel.mapreduce.coomr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.common.daemon.SupervisedDaemon;
import io.hadoopaccel.minicluster.MiniHadoopClusterExtension;
import io.hadoopaccel.minicluster.PairedJobs;
import io.hadoopaccel.workloads.gen.ZipfText;
import io.hadoopaccel.workloads.jobs.Sort;
import io.hadoopaccel.workloads.jobs.WordCount;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.apache.hadoop.util.Tool;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Real jobs on one shared mini cluster whose NodeManager runs CooMR as deployed: the
 * coordinator under {@link CoomrAuxService} and {@code CoomrShuffleHandler} as
 * {@code mapreduce_shuffle}. Each job runs with stock's collector and with CooMR's at once; the
 * part files must be byte-identical. A 1 MB sort buffer gives every map several spills.
 */
class TestCoomrJobs {
  private static final CoomrTestCluster COOMR = new CoomrTestCluster();
  private static final java.nio.file.Path TMP = COOMR.dir();
  private static final java.nio.file.Path SOCKET = COOMR.socket();
  private static final java.nio.file.Path POOL = COOMR.pool();

  @RegisterExtension
  static final MiniHadoopClusterExtension CLUSTER = MiniHadoopClusterExtension.builder()
      .configure(c -> {
        c.setInt("yarn.nodemanager.resource.memory-mb",
            20 * MiniHadoopClusterExtension.CONTAINER_MB);
        COOMR.configure(c);
      })
      .build();

  private enum Pair { STOCK, COOMR }

  @BeforeAll
  static void coordinatorServesOutputs() throws Exception {
    COOMR.awaitShuffleConnected();
  }

  private static Configuration conf(Pair p, String coordinatorSocket) {
    Configuration conf = CLUSTER.getConfiguration();
    if (p == Pair.COOMR) {
      CoomrTestCluster.switchOn(conf, coordinatorSocket);
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

  private enum TwoJobs { STOCK_A, STOCK_B, COOMR_A, COOMR_B }

  /**
   * Two CooMR jobs at once over different inputs, each beside stock's run of the same input:
   * their spills and outputs share the node's pool, but each job's reduces get only their own
   * job's map outputs (the output matches stock's), and the first job's end (END_JOB) takes
   * none of the other's.
   */
  @Test
  void twoJobsAtOnceKeepToTheirOwnData() throws Exception {
    Path inA = new Path("/two/in-a");
    Path inB = new Path("/two/in-b");
    ZipfText.writeFiles(CLUSTER.getFileSystem(), inA, new int[] {2 << 20, 1 << 20}, 23);
    ZipfText.writeFiles(CLUSTER.getFileSystem(), inB, new int[] {1 << 20, 2 << 20, 1 << 20}, 29);
    Map<TwoJobs, Counters> c = PairedJobs.runAtOnce(CLUSTER.getConfiguration(), TwoJobs.class,
        "coomr-two", r -> conf(r.name().startsWith("COOMR") ? Pair.COOMR : Pair.STOCK,
            SOCKET.toString()), Sort::new,
        r -> new String[] {"-r", "2", (r.name().endsWith("A") ? inA : inB).toString(),
            PairedJobs.outDir("/two", r).toString()});
    PairedJobs.assertSameOutput(CLUSTER.getFileSystem(), PairedJobs.outDir("/two",
        TwoJobs.STOCK_A), PairedJobs.outDir("/two", TwoJobs.COOMR_A));
    PairedJobs.assertSameOutput(CLUSTER.getFileSystem(), PairedJobs.outDir("/two",
        TwoJobs.STOCK_B), PairedJobs.outDir("/two", TwoJobs.COOMR_B));
    assertEquals(2, get(c.get(TwoJobs.COOMR_A), CoomrCounter.POOL_OUTPUTS),
        summary(c.get(TwoJobs.COOMR_A)));
    assertEquals(3, get(c.get(TwoJobs.COOMR_B), CoomrCounter.POOL_OUTPUTS),
        summary(c.get(TwoJobs.COOMR_B)));
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
      return runWordCount(getConf(), "dying-wordcount", Tokens.class, args);
    }
  }

  /**
   * The coordinator is killed (SIGKILL) while map 0's first attempt, its spills in the pool,
   * waits before its merge; the aux service restarts it with {@code --recover}, and only then
   * does the map go on. It must merge its pooled spills (the restarted coordinator kept them),
   * send its last spill and its output to disk, and succeed at its first attempt.
   */
  @Test
  void killingTheCoordinatorMidJobLosesNothing() throws Exception {
    Path in = new Path("/killed/in");
    ZipfText.writeFiles(CLUSTER.getFileSystem(), in, new int[] {3 << 20, 1 << 20}, 19);
    java.nio.file.Path flags = Files.createDirectories(TMP.resolve("killed-flags"));
    Future<Map<Pair, Counters>> pair = startStalled(in, "/killed", flags);
    ProcessHandle dead = coordinatorProcess(false).orElseThrow();
    dead.destroyForcibly();
    assertTrue(dead.onExit().get(10, TimeUnit.SECONDS) != null);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (coordinatorProcess(true).isEmpty()) {
      assertTrue(System.nanoTime() < deadline, "the coordinator was not restarted to recover");
      Thread.sleep(50); // polling a condition with a deadline, not synchronising on time
    }
    coordinatorServesOutputs();
    Files.createFile(flags.resolve(StallingWordCount.GO));
    Counters coomr = pair.get(5, TimeUnit.MINUTES).get(Pair.COOMR);
    String all = summary(coomr);
    assertEquals(0, coomr.findCounter(JobCounter.NUM_FAILED_MAPS).getValue(), all);
    assertTrue(get(coomr, CoomrCounter.POOL_SPILLS) >= 2, all);
    assertTrue(get(coomr, CoomrCounter.DISK_SPILLS) >= 1, all); // map 0's last, after the kill
  }

  /**
   * LOCS: reduces that start only after the node coordinator has written map 1's output into
   * the job's log and dropped its pool copy (map 0 holds them back, slowstart 1.0) fetch it
   * from the log, through the index with offsets into it. The output must still be stock's.
   */
  @Test
  void reducesStartedLateAreServedFromTheLocsLog() throws Exception {
    Path in = new Path("/locs/in");
    ZipfText.writeFiles(CLUSTER.getFileSystem(), in, new int[] {2 << 20, 2 << 20}, 31);
    java.nio.file.Path flags = Files.createDirectories(TMP.resolve("locs-flags"));
    Future<Map<Pair, Counters>> pair = startStalled(in, "/locs", flags,
        MRJobConfig.COMPLETED_MAPS_FOR_REDUCE_SLOWSTART + "=1.0");
    // Map 1's output is in a log once the log exists and map 1's dir has left the pool.
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (locsLogs().isEmpty() || inPool("_m_000001_0")) {
      if (pair.isDone()) {
        pair.get();
      }
      assertTrue(System.nanoTime() < deadline, "map 1's output never left the pool for a log");
      Thread.sleep(50); // polling a condition with a deadline, not synchronising on time
    }
    Files.createFile(flags.resolve(StallingWordCount.GO));
    Counters coomr = pair.get(5, TimeUnit.MINUTES).get(Pair.COOMR);
    String all = summary(coomr);
    assertEquals(2, get(coomr, CoomrCounter.POOL_OUTPUTS), all);
    assertEquals(0, coomr.findCounter(JobCounter.NUM_FAILED_MAPS).getValue(), all);
  }

  /**
   * A disk that cannot take the job's LOCS log (here: a dir where the log would go, on every
   * local dir, put there while the maps wait before their outputs): the coordinator says so in
   * the NodeManager's log, the outputs stay in the pool and are served from there.
   */
  @Test
  void aLogThatCannotBeWrittenLeavesTheOutputsInThePool() throws Exception {
    Path in = new Path("/nolog/in");
    ZipfText.writeFiles(CLUSTER.getFileSystem(), in, new int[] {1 << 20, 1 << 20}, 37);
    java.nio.file.Path flags = Files.createDirectories(TMP.resolve("nolog-flags"));
    LogCapturer log = LogCapturer.captureLogs(LoggerFactory.getLogger(SupervisedDaemon.class));
    try {
      Future<Map<Pair, Counters>> pair = startStalled(in, "/nolog", flags,
          StallingWordCount.ALL + "=true");
      String job = Files.readString(flags.resolve(StallingWordCount.WAITING));
      String app = "application_" + job.substring("job_".length());
      for (String dir : localDirs()) {
        Files.createDirectories(Paths.get(dir, "usercache", System.getProperty("user.name"),
            "appcache", app, "output", "coomr-locs.log"));
      }
      Files.createFile(flags.resolve(StallingWordCount.GO));
      Counters coomr = pair.get(5, TimeUnit.MINUTES).get(Pair.COOMR);
      String all = summary(coomr);
      assertEquals(2, get(coomr, CoomrCounter.POOL_OUTPUTS), all);
      assertEquals(0, coomr.findCounter(JobCounter.NUM_FAILED_MAPS).getValue(), all);
      assertTrue(log.getOutput().contains("cannot write out " + job), log.getOutput());
      assertTrue(log.getOutput().contains("creating LOCS log"), log.getOutput());
    } finally {
      log.stopCapturing();
    }
  }

  private static String[] localDirs() {
    return CLUSTER.getMrCluster().getNodeManager(0).getConfig()
        .get("yarn.nodemanager.local-dirs").replace("file:", "").split(",");
  }

  private static List<java.nio.file.Path> locsLogs() throws IOException {
    List<java.nio.file.Path> logs = new java.util.ArrayList<>();
    for (String dir : localDirs()) {
      try (Stream<java.nio.file.Path> files = Files.walk(Paths.get(dir))) {
        files.filter(f -> f.getFileName().toString().equals("coomr-locs.log")).forEach(logs::add);
      } catch (java.io.UncheckedIOException e) {
        // a container's dir went while we walked
      }
    }
    return logs;
  }

  private static boolean inPool(String attemptSuffix) throws IOException {
    try (Stream<java.nio.file.Path> files = Files.walk(POOL)) {
      return files.anyMatch(f -> f.getFileName().toString().endsWith(attemptSuffix));
    } catch (java.io.UncheckedIOException e) {
      return true; // a dir went while we walked: look again
    }
  }

  /**
   * Starts the StallingWordCount pair over {@code in} (with these more -D options) in the
   * background, and returns once map 0 of the CooMR job waits for the test to say go.
   */
  private static Future<Map<Pair, Counters>> startStalled(Path in, String base,
      java.nio.file.Path flags, String... options) throws Exception {
    List<String> args = new java.util.ArrayList<>(List.of("-D",
        StallingWordCount.FLAGS + "=" + flags));
    for (String o : options) {
      args.add("-D");
      args.add(o);
    }
    ExecutorService runner = Executors.newSingleThreadExecutor();
    Future<Map<Pair, Counters>> pair = runner.submit(() -> runPair(StallingWordCount::new,
        out -> Stream.concat(args.stream(), Stream.of(in.toString(), out.toString()))
            .toArray(String[]::new), base, SOCKET.toString()));
    runner.shutdown(); // its one task still runs; the thread ends with it
    awaitFile(flags.resolve(StallingWordCount.WAITING), pair);
    return pair;
  }

  /** The running coordinator of the cluster's NodeManager, restarted with --recover or not. */
  private static Optional<ProcessHandle> coordinatorProcess(boolean recovering) {
    return ProcessHandle.allProcesses().filter(p -> {
      String cmd = p.info().commandLine().orElse("");
      return p.isAlive() && cmd.contains(CoomrAuxService.BINARY) && cmd.contains(SOCKET.toString())
          && cmd.contains("--recover") == recovering;
    }).findFirst();
  }

  private static void awaitFile(java.nio.file.Path file, Future<?> job) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (!Files.exists(file)) {
      if (job.isDone()) {
        job.get(); // its failure, if it failed
      }
      assertTrue(System.nanoTime() < deadline, "no map reached " + file);
      Thread.sleep(50); // polling a condition with a deadline, not synchronising on time
    }
  }

  /**
   * WordCount without a combiner, 2 reduces, whose first attempt of map 0 (of every map, with
   * {@link #ALL}) in the CooMR job, after collecting all its records (all but its last spill
   * are in the pool by then, its output not yet), says so in the flags dir (map 0: the file
   * {@link #WAITING}, holding the job id) and waits there until the test says go (at most
   * three minutes).
   */
  public static final class StallingWordCount extends Configured implements Tool {
    static final String FLAGS = "coomr.test.flags.dir";
    static final String ALL = "coomr.test.stall.all";
    static final String WAITING = "waiting";
    static final String GO = "go";

    public static final class Tokens extends WordCount.TokenizerMapper {
      @Override
      protected void cleanup(Context ctx) throws IOException, InterruptedException {
        TaskAttemptID id = ctx.getTaskAttemptID();
        boolean coomr = ctx.getConfiguration()
            .get(MRJobConfig.MAP_OUTPUT_COLLECTOR_CLASS_ATTR, "").contains("Coomr");
        int task = id.getTaskID().getId();
        boolean all = ctx.getConfiguration().getBoolean(ALL, false);
        if (!coomr || (task != 0 && !all) || id.getId() != 0) {
          return;
        }
        java.nio.file.Path flags = Paths.get(ctx.getConfiguration().get(FLAGS));
        // Written aside and renamed: the test reads the job id as soon as the name exists.
        java.nio.file.Path flag = flags.resolve(task == 0 ? WAITING : WAITING + "-" + task);
        java.nio.file.Path aside = flags.resolve("." + flag.getFileName() + "." + id);
        Files.writeString(aside, id.getJobID().toString());
        Files.move(aside, flag, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (!Files.exists(flags.resolve(GO))) {
          if (System.nanoTime() > deadline) {
            throw new IOException("the test did not say go within three minutes");
          }
          Thread.sleep(50); // polling a condition with a deadline
        }
      }
    }

    @Override
    public int run(String[] args) throws Exception {
      return runWordCount(getConf(), "stalling-wordcount", Tokens.class, args);
    }
  }

  /** WordCount without a combiner, with this mapper, 2 reduces, input and output from args. */
  private static int runWordCount(Configuration conf, String name,
      Class<? extends WordCount.TokenizerMapper> mapper, String[] args) throws Exception {
    Job job = WordCount.job(conf, name, mapper, null, WordCount.LongSumReducer.class);
    job.setNumReduceTasks(2);
    FileInputFormat.addInputPath(job, new Path(args[0]));
    FileOutputFormat.setOutputPath(job, new Path(args[1]));
    return job.waitForCompletion(false) ? 0 : 1;
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
