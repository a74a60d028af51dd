package io.hadoopaccel.mapreduce.jbs;

import static io.hadoopaccel.minicluster.PairedJobs.runTool;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.hadoopaccel.common.daemon.SupervisedDaemon;
import io.hadoopaccel.minicluster.MiniHadoopClusterExtension;
import io.hadoopaccel.minicluster.PairedJobs;
import io.hadoopaccel.workloads.gen.ZipfText;
import io.hadoopaccel.workloads.jobs.WordCount;
import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.Set;
import java.util.function.Supplier;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.terasort.TeraGen;
import org.apache.hadoop.examples.terasort.TeraInputFormat;
import org.apache.hadoop.examples.terasort.TeraSort;
import org.apache.hadoop.examples.terasort.TeraValidate;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.compress.DefaultCodec;
import org.apache.hadoop.io.compress.Lz4Codec;
import org.apache.hadoop.io.compress.SnappyCodec;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.task.reduce.JbsShuffle;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.yarn.server.nodemanager.NodeManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Real jobs on one shared mini cluster whose NodeManager runs JBS ({@link JbsTestCluster}),
 * with the daemons from {@code <root>/target/native/bin}. Every job runs with stock {@link Shuffle} and
 * with {@link JbsShuffle}; the part files must be byte-identical. With the daemons built
 * (-Pnative) the JBS runs must show the native path ran (NATIVE_REDUCES, no FALLBACKS, bytes
 * fetched natively); without them (no -Pnative) every JBS reduce must have fallen back
 * (FALLBACKS = reduces) and still be correct. Tests that kill a daemon need the daemons.
 */
class TestJbsJobs {
  private static final boolean NATIVE_REQUIRED = JbsTestCluster.NATIVE_REQUIRED;
  private static final File NATIVE_DIR = JbsTestCluster.NATIVE_DIR;
  private static final boolean NATIVES = JbsTestCluster.NATIVES;

  @RegisterExtension
  static final MiniHadoopClusterExtension CLUSTER = MiniHadoopClusterExtension.builder()
      .configure(JbsTestCluster::configure).build();

  private enum Run {
    STOCK(Shuffle.class), JBS(JbsShuffle.class);

    final Class<?> plugin;

    Run(Class<?> plugin) {
      this.plugin = plugin;
    }
  }

  private static Configuration conf(Run r) {
    Configuration conf = CLUSTER.getConfiguration();
    conf.set(MRConfig.SHUFFLE_CONSUMER_PLUGIN, r.plugin.getName());
    return r == Run.JBS ? JbsTestCluster.jbsJob(conf) : conf;
  }

  private static Path out(String base, Run r) {
    return new Path(base + "/out-" + r.name().toLowerCase());
  }

  // ---------------------------------------------------------------------------------------

  @Test
  void theDaemonsExistWhenTheBuildIsNative() {
    if (NATIVE_REQUIRED) {
      assertTrue(NATIVES, "-Pnative build without " + NATIVE_DIR + "/jbs_mof_supplier and"
          + " jbs_net_merger");
    }
    assertEquals(1, JbsAuxService.STARTED.size(), "jbs_shuffle aux service not running");
    JbsAuxService s = JbsAuxService.STARTED.iterator().next();
    assertEquals(NATIVES, s.supplierDaemon() != null && s.supplierDaemon().isRunning());
    assertEquals(NATIVES, s.mergerDaemon() != null && s.mergerDaemon().isRunning());
  }

  @Test
  void teraSortIsIdenticalAndValidates() throws Exception {
    Path in = new Path("/terasort/in");
    Configuration genConf = conf(Run.STOCK);
    genConf.setInt(MRJobConfig.NUM_MAPS, 2);
    long rows = 20_000;
    Counters gen = runTool(genConf, new TeraGen(), Long.toString(rows), in.toString());
    long checksum = gen.findCounter(TeraGen.Counters.CHECKSUM).getValue();
    Map<Run, Counters> c = runBoth(r -> {
      Configuration conf = conf(r);
      conf.setInt(MRJobConfig.NUM_REDUCES, 2);
      return conf;
    }, TeraSort::new, r -> new String[] {in.toString(), out("/terasort", r).toString()});
    assertEquals(rows * 100, assertSameOutput(out("/terasort", Run.STOCK),
        out("/terasort", Run.JBS)));
    assertJbsRan(c, 2, 2);

    Path validate = new Path("/terasort/validate");
    Counters v = runTool(conf(Run.JBS), new TeraValidate(), out("/terasort", Run.JBS).toString(),
        validate.toString());
    assertEquals(1, v.findCounter(NATIVES ? JbsCounter.NATIVE_REDUCES : JbsCounter.FALLBACKS)
        .getValue());
    List<String> report = CLUSTER.readOutputLines(validate);
    assertTrue(report.stream().noneMatch(l -> l.startsWith("error")), () -> "errors: " + report);
    assertTrue(report.contains("checksum\t" + Long.toHexString(checksum)), report::toString);
  }

  /** A codec's stock and JBS runs; all pairs run at once, one batch of jobs. */
  private enum CodecRun {
    STOCK_DEFAULT(Run.STOCK, DefaultCodec.class, 4), JBS_DEFAULT(Run.JBS, DefaultCodec.class, 4),
    STOCK_SNAPPY(Run.STOCK, SnappyCodec.class, 2), JBS_SNAPPY(Run.JBS, SnappyCodec.class, 2),
    STOCK_LZ4(Run.STOCK, Lz4Codec.class, 2), JBS_LZ4(Run.JBS, Lz4Codec.class, 2);

    final Run run;
    final Class<?> codec;
    final int reduces;

    CodecRun(Run run, Class<?> codec, int reduces) {
      this.run = run;
      this.codec = codec;
      this.reduces = reduces;
    }
  }

  /**
   * Compressed map output decoded by the NetMerger: DefaultCodec (zlib) with four reduces, and
   * Hadoop's SnappyCodec (snappy-java) and Lz4Codec (lz4-java), both BlockCompressorStream
   * framing: outputs identical to stock's, every reduce native.
   */
  @Test
  void compressedMapOutputIsIdenticalAndMergedNatively() throws Exception {
    Path text = new Path("/codecs/in");
    writeZipfText(text, new int[] {40 << 10, 200 << 10, 500 << 10}, 98);
    Function<CodecRun, Path> outOf = r -> new Path("/codecs/out-" + r.name().toLowerCase());
    Map<CodecRun, Counters> c = PairedJobs.runAtOnce(CLUSTER.getConfiguration(),
        CodecRun.class, "jbs-codecs", r -> {
          Configuration conf = conf(r.run);
          conf.setBoolean(MRJobConfig.MAP_OUTPUT_COMPRESS, true);
          conf.set(MRJobConfig.MAP_OUTPUT_COMPRESS_CODEC, r.codec.getName());
          return conf;
        }, WordCount::new, r -> new String[] {"-nocombiner", "-r", Integer.toString(r.reduces),
            text.toString(), outOf.apply(r).toString()});
    for (CodecRun[] pair : new CodecRun[][] {{CodecRun.STOCK_DEFAULT, CodecRun.JBS_DEFAULT},
        {CodecRun.STOCK_SNAPPY, CodecRun.JBS_SNAPPY}, {CodecRun.STOCK_LZ4, CodecRun.JBS_LZ4}}) {
      assertSameOutput(outOf.apply(pair[0]), outOf.apply(pair[1]));
      Map<Run, Counters> byRun = new EnumMap<>(Run.class);
      byRun.put(Run.STOCK, c.get(pair[0]));
      byRun.put(Run.JBS, c.get(pair[1]));
      assertJbsRan(byRun, 3, pair[0].reduces);
    }
  }

  /** Stock; JBS falling back to stock Shuffle; JBS falling back to KISM (the chain). */
  private enum ChainRun {
    STOCK, JBS, JBS_THEN_KISM
  }

  private static final String KISM_SHUFFLE = "io.hadoopaccel.mapreduce.kism.KismShuffle";
  private static final String KISM_COUNTERS = "io.hadoopaccel.mapreduce.kism.KismCounter";

  @Test
  void aUserComparatorFallsBackToTheNextPluginWithItsReason() throws Exception {
    Path text = new Path("/comparator/in");
    writeZipfText(text, new int[] {100 << 10, 100 << 10}, 3);
    Map<ChainRun, Counters> c = PairedJobs.runAtOnce(CLUSTER.getConfiguration(), ChainRun.class,
        "jbs-chain", r -> {
          Configuration conf = conf(r == ChainRun.STOCK ? Run.STOCK : Run.JBS);
          if (r == ChainRun.JBS_THEN_KISM) {
            conf.set(JbsConfigKeys.FALLBACK_PLUGIN, KISM_SHUFFLE);
          }
          // Text's own raw order, but set by the user: JBS cannot know that and must fall back.
          conf.set(MRJobConfig.KEY_COMPARATOR, Text.Comparator.class.getName());
          return conf;
        }, WordCount::new, r -> new String[] {"-nocombiner", "-r", "2", text.toString(),
            "/comparator/out-" + r.name().toLowerCase()});
    for (ChainRun r : new ChainRun[] {ChainRun.JBS, ChainRun.JBS_THEN_KISM}) {
      assertSameOutput(new Path("/comparator/out-stock"),
          new Path("/comparator/out-" + r.name().toLowerCase()));
      Counters jbs = c.get(r);
      assertEquals(2, jbs.findCounter(JbsCounter.FALLBACKS).getValue(), r.name());
      assertEquals(2, jbs.findCounter(JbsCounter.FALLBACK_COMPARATOR).getValue(), r.name());
      assertReasonsAddUp(jbs);
      assertEquals(0, jbs.findCounter(JbsCounter.NATIVE_REDUCES).getValue(), r.name());
      assertEquals(c.get(ChainRun.STOCK).findCounter(TaskCounter.REDUCE_INPUT_RECORDS)
          .getValue(), jbs.findCounter(TaskCounter.REDUCE_INPUT_RECORDS).getValue(), r.name());
    }
    // The chain ran KISM's merge in both reduces; the plain JBS run ran stock's.
    Counters chained = c.get(ChainRun.JBS_THEN_KISM);
    assertEquals(2, chained.findCounter(KISM_COUNTERS, "REDUCES").getValue());
    assertEquals(0, chained.findCounter(KISM_COUNTERS, "FALLBACKS").getValue());
    assertTrue(chained.findCounter(KISM_COUNTERS, "MERGED_ENTRIES").getValue() > 0);
    assertEquals(0, c.get(ChainRun.JBS).findCounter(KISM_COUNTERS, "REDUCES").getValue());
  }

  /**
   * WordCount under JBS gives stock's output, and (native build) the NodeManager's JbsShuffle
   * metrics source, read over HTTP from its /jmx before and after, shows that the supplier
   * served, and the NetMerger fetched, exactly the job's shuffle bytes (one node: it is both
   * ends of every fetch); the NetMerger merged them into streams no longer than that
   * (uncompressed: the IFile trailers are not part of the stream).
   */
  @Test
  void wordCountIsIdenticalAndJmxShowsServedAndMergedBytes() throws Exception {
    ObjectName bean = NATIVES ? jbsBean() : null;
    Map<String, Long> before = NATIVES ? freshJmx(bean) : null;
    if (NATIVES) {
      assertEquals(1L, before.get("SupplierUp"));
      assertEquals(1L, before.get("MergerUp"));
    }
    Path text = new Path("/wordcount/in");
    writeZipfText(text, new int[] {300 << 10, 300 << 10, 300 << 10}, 7);
    Map<Run, Counters> c = runBoth(TestJbsJobs::conf, WordCount::new,
        r -> new String[] {"-nocombiner", "-r", "2", text.toString(),
            out("/wordcount", r).toString()});
    assertSameOutput(out("/wordcount", Run.STOCK), out("/wordcount", Run.JBS));
    assertJbsRan(c, 3, 2);
    if (!NATIVES) {
      return; // no daemons, no bytes to report
    }
    long shuffled = c.get(Run.JBS).findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).getValue();
    Map<String, Long> after = freshJmx(bean);
    long served = after.get("SupplierBytesServed") - before.get("SupplierBytesServed");
    long fetched = after.get("MergerBytesFetched") - before.get("MergerBytesFetched");
    long merged = after.get("MergerBytesMerged") - before.get("MergerBytesMerged");
    System.out.println("JBS /jmx: served " + served + " fetched " + fetched + " merged " + merged
        + " REDUCE_SHUFFLE_BYTES " + shuffled);
    assertTrue(shuffled > 0);
    assertEquals(shuffled, served, "SupplierBytesServed delta vs REDUCE_SHUFFLE_BYTES");
    assertEquals(shuffled, fetched, "MergerBytesFetched delta vs REDUCE_SHUFFLE_BYTES");
    assertEquals(c.get(Run.JBS).findCounter(JbsCounter.BYTES_FETCHED_NATIVELY).getValue(),
        fetched);
    assertTrue(merged > 0 && merged <= fetched, "merged " + merged);
    assertEquals(2L, after.get("MergerSessions") - before.get("MergerSessions"));
    assertEquals(2L, after.get("MergerMerges") - before.get("MergerMerges"));
    assertEquals(0L, after.get("MergerFetchFailures") - before.get("MergerFetchFailures"));
    assertTrue(after.get("MergerFetchLatencyCount") > before.get("MergerFetchLatencyCount"));
    assertEquals(0L, after.get("MergerActiveSessions"));
    // The same counters reach a metrics2 sink (src/test/resources/hadoop-metrics2.properties:
    // the file sink of the shipped example, in the test JVM's working directory), one record
    // per period.
    String servedLine = "SupplierBytesServed=" + after.get("SupplierBytesServed");
    java.nio.file.Path sinkFile = new File("nodemanager-jbs-metrics.out").toPath();
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!(Files.exists(sinkFile) && Files.readString(sinkFile).contains(servedLine))) {
      assertTrue(System.nanoTime() < deadline, () -> "no '" + servedLine + "' in " + sinkFile);
      Thread.sleep(200); // polling a file the sink appends to every period
    }
    // The example's source filter holds: nothing but JbsShuffle records.
    for (String line : Files.readAllLines(sinkFile)) {
      assertTrue(line.contains(" jbs." + JbsMetrics.SOURCE_NAME + ":"), line);
    }
  }

  /** The one JbsShuffle bean of this JVM's NodeManager. */
  private static ObjectName jbsBean() throws JMException {
    MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
    Set<ObjectName> names = mbs.queryNames(
        new ObjectName("Hadoop:service=*,name=" + JbsMetrics.SOURCE_NAME + "*"), null);
    assertEquals(1, names.size(), names::toString);
    return names.iterator().next();
  }

  /**
   * Every numeric attribute of the bean as the NodeManager's /jmx servlet serves it (what an
   * operator or a scraper reads), fetched after the bean's JMX cache expired: a read more than
   * one metrics period (1 s in this module's test hadoop-metrics2.properties) after the
   * previous read refreshes it from the source.
   */
  private static Map<String, Long> freshJmx(ObjectName bean) throws Exception {
    NodeManager nm = CLUSTER.getMrCluster().getNodeManager(0);
    URL url = new URL("http://" + nm.getNMContext().getNodeId().getHost() + ":"
        + nm.getNMContext().getHttpPort() + "/jmx?qry="
        + URLEncoder.encode(bean.toString(), StandardCharsets.UTF_8));
    new ObjectMapper().readTree(url);
    long readAt = System.nanoTime();
    while (System.nanoTime() - readAt < 1_500_000_000L) {
      Thread.sleep(100); // the cache's expiry is a time, not an event to wait for
    }
    JsonNode beans = new ObjectMapper().readTree(url).path("beans");
    assertEquals(1, beans.size(), () -> url + ": " + beans);
    Map<String, Long> out = new java.util.HashMap<>();
    beans.get(0).fields().forEachRemaining(f -> {
      if (f.getValue().isNumber()) {
        out.put(f.getKey(), f.getValue().longValue());
      }
    });
    return out;
  }

  @Test
  void killingTheNetMergerMidShuffleStillGivesTheRightOutput() throws Exception {
    killMidShuffle("/kill-merger", s -> s.mergerDaemon());
  }

  @Test
  void killingTheMofSupplierMidShuffleStillGivesTheRightOutput() throws Exception {
    killMidShuffle("/kill-supplier", s -> s.supplierDaemon());
  }

  /**
   * Runs stock, then JBS with kill -9 of one daemon at the moment the NetMerger logs the first
   * REGISTER of the JBS job (a reduce is in its session, fetching); the JBS job must succeed
   * with stock's output: a reduce that loses its NetMerger before its first record falls back
   * to stock shuffle, fetches from a killed supplier are retried against the restarted one.
   */
  private void killMidShuffle(String base, Function<JbsAuxService, SupervisedDaemon> which)
      throws Exception {
    assumeTrue(NATIVES || NATIVE_REQUIRED, "JBS daemons not built (no -Pnative)");
    assertTrue(NATIVES, "-Pnative build without the JBS daemons in " + NATIVE_DIR);
    Path text = new Path(base + "/in");
    writeZipfText(text, new int[] {400 << 10, 400 << 10, 400 << 10, 400 << 10}, 11);
    Map<Run, Counters> c = new EnumMap<>(Run.class);
    c.put(Run.STOCK, runTool(conf(Run.STOCK), new WordCount(), "-nocombiner", "-r", "2",
        text.toString(), out(base, Run.STOCK).toString()));

    JbsAuxService aux = JbsAuxService.STARTED.iterator().next();
    SupervisedDaemon victim = which.apply(aux);
    int startsBefore = victim.starts();
    java.util.concurrent.atomic.AtomicReference<String> killedAt =
        new java.util.concurrent.atomic.AtomicReference<>();
    aux.mergerDaemon().setStderrTap(line -> {
      if (line.contains(": REGISTER -> 0") && killedAt.compareAndSet(null, line)) {
        victim.process().destroyForcibly(); // SIGKILL
      }
    });
    try {
      c.put(Run.JBS, runTool(conf(Run.JBS), new WordCount(), "-nocombiner", "-r", "2",
          text.toString(), out(base, Run.JBS).toString()));
    } finally {
      aux.mergerDaemon().setStderrTap(null);
    }
    assertTrue(killedAt.get() != null, "no reduce registered with the NetMerger");
    assertSameOutput(out(base, Run.STOCK), out(base, Run.JBS));
    Counters jbs = c.get(Run.JBS);
    long nativeReduces = jbs.findCounter(JbsCounter.NATIVE_REDUCES).getValue();
    long fallbacks = jbs.findCounter(JbsCounter.FALLBACKS).getValue();
    assertEquals(2, nativeReduces + fallbacks, "each reduce counted once");
    assertReasonsAddUp(jbs);
    if (victim == aux.mergerDaemon()) {
      assertTrue(fallbacks >= 1, "the registered reduce should have fallen back");
    }
    assertEquals(c.get(Run.STOCK).findCounter(TaskCounter.REDUCE_OUTPUT_RECORDS).getValue(),
        jbs.findCounter(TaskCounter.REDUCE_OUTPUT_RECORDS).getValue());
    assertTrue(victim.starts() > startsBefore, "the killed daemon was not restarted");
    assertTrue(victim.isRunning());
    System.out.println("JBS kill test " + base + ": killed after '" + killedAt.get()
        + "'; native reduces " + nativeReduces + ", fallbacks " + fallbacks);
  }

  @Test
  void killingTheNetMergerMidMergeFailsTheAttemptAndTheRetryRunsStock() throws Exception {
    faultMidMerge("/midmerge-kill", p -> p.destroyForcibly(), "NetMerger closed the connection");
  }

  @Test
  void aStoppedNetMergerMidMergeFailsTheAttemptAndTheRetryRunsStock() throws Exception {
    faultMidMerge("/midmerge-stop", p -> signal(p, "STOP"), "reducer.read.timeout.ms");
  }

  private static final long TERA_ROWS = 200_000; // 20 MB: far more than the reduce buffers
  private static final long REDUCE_READ_TIMEOUT_MS = 3_000;
  private static final long TASK_TIMEOUT_MS = 600_000;

  private static synchronized Path teraInput() throws Exception {
    Path in = new Path("/midmerge/in");
    if (!CLUSTER.getFileSystem().exists(in)) {
      Configuration genConf = conf(Run.STOCK);
      genConf.setInt(MRJobConfig.NUM_MAPS, 2);
      runTool(genConf, new TeraGen(), Long.toString(TERA_ROWS), in.toString());
    }
    return in;
  }

  private static Job identityJob(Configuration conf, Path in, Path out) throws IOException {
    Job job = Job.getInstance(conf, "jbs-midmerge");
    job.setJarByClass(TestJbsJobs.class);
    job.setInputFormatClass(TeraInputFormat.class);
    job.setMapperClass(Mapper.class);
    job.setReducerClass(PausingReducer.class);
    job.setNumReduceTasks(1);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(Text.class);
    FileInputFormat.addInputPath(job, in);
    FileOutputFormat.setOutputPath(job, out);
    return job;
  }

  /**
   * End to end: the JBS reduce consumes PausingReducer.PAUSE_AT merged records,
   * then (told through a file, no timing guess) the test kills or stops the NetMerger and lets
   * the reducer go on. The native attempt must fail with the session's own message (not the
   * task timeout), its retry run stock shuffle, and the output equal stock's, all well within
   * mapreduce.task.timeout.
   */
  private void faultMidMerge(String base, java.util.function.Consumer<Process> fault,
      String expectedDiagnostic) throws Exception {
    assumeTrue(NATIVES || NATIVE_REQUIRED, "JBS daemons not built (no -Pnative)");
    assertTrue(NATIVES, "-Pnative build without the JBS daemons in " + NATIVE_DIR);
    Path in = teraInput();
    Job stock = identityJob(conf(Run.STOCK), in, out(base, Run.STOCK));
    assertTrue(stock.waitForCompletion(false), "stock run failed");

    File pauseDir = Files.createTempDirectory(new File(System.getProperty("test.build.data",
        "target/test/data")).getAbsoluteFile().toPath(), "pause").toFile();
    Configuration jbsConf = conf(Run.JBS);
    jbsConf.set(PausingReducer.PAUSE_DIR, pauseDir.getPath());
    jbsConf.setLong("hadoop.accel.jbs.reducer.read.timeout.ms", REDUCE_READ_TIMEOUT_MS);
    jbsConf.setLong(MRJobConfig.TASK_TIMEOUT, TASK_TIMEOUT_MS);
    Job jbs = identityJob(jbsConf, in, out(base, Run.JBS));
    JbsAuxService aux = JbsAuxService.STARTED.iterator().next();
    SupervisedDaemon merger = aux.mergerDaemon();
    int startsBefore = merger.starts();
    Process victim = merger.process();
    long faultAt;
    try {
      jbs.submit();
      File paused = new File(pauseDir, PausingReducer.PAUSED);
      long deadline = System.nanoTime() + 180_000_000_000L;
      while (!paused.exists()) {
        assertTrue(!jbs.isComplete(), "the JBS job ended before its reduce paused");
        assertTrue(System.nanoTime() < deadline, "the JBS reduce never reached its pause");
        Thread.sleep(50);
      }
      fault.accept(victim);
      faultAt = System.nanoTime();
      assertTrue(new File(pauseDir, PausingReducer.GO).createNewFile());
      assertTrue(jbs.waitForCompletion(false), "the JBS run failed");
    } finally {
      signal(victim, "CONT");
    }
    long afterFaultMs = (System.nanoTime() - faultAt) / 1_000_000;
    assertSameOutput(out(base, Run.STOCK), out(base, Run.JBS));
    assertTrue(afterFaultMs < TASK_TIMEOUT_MS / 4, "took " + afterFaultMs + " ms after the fault");

    // The first reduce attempt failed with the session's message; the retry ran stock.
    List<String> failed = new java.util.ArrayList<>();
    for (TaskCompletionEvent e : jbs.getTaskCompletionEvents(0, 1000)) {
      if (!e.isMapTask() && e.getStatus() == TaskCompletionEvent.Status.FAILED) {
        failed.add(String.join(" | ", jbs.getTaskDiagnostics(e.getTaskAttemptId())));
      }
    }
    assertEquals(1, failed.size(), () -> "failed reduce attempts: " + failed);
    assertTrue(failed.get(0).contains(expectedDiagnostic), failed.get(0));
    assertTrue(!failed.get(0).contains("Timed out"), failed.get(0));
    Counters c = jbs.getCounters();
    assertEquals(1, c.findCounter(JbsCounter.FALLBACKS).getValue(), "the retry ran stock");
    assertEquals(1, c.findCounter(JbsCounter.FALLBACK_RETRY_ATTEMPT).getValue());
    assertReasonsAddUp(c);
    assertEquals(0, c.findCounter(JbsCounter.NATIVE_REDUCES).getValue());
    assertEquals(stock.getCounters().findCounter(TaskCounter.REDUCE_OUTPUT_RECORDS).getValue(),
        c.findCounter(TaskCounter.REDUCE_OUTPUT_RECORDS).getValue());
    // A killed NetMerger is restarted; a stopped one is running again after SIGCONT.
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!merger.isRunning() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertTrue(merger.isRunning(), "the NetMerger is not running after the test");
    System.out.println("JBS mid-merge fault " + base + ": attempt failed with '" + failed.get(0)
        + "', job done " + afterFaultMs + " ms after the fault; NetMerger starts "
        + startsBefore + " -> " + merger.starts());
  }

  private static void signal(Process p, String sig) {
    try {
      new ProcessBuilder("kill", "-" + sig, Long.toString(p.pid())).start().waitFor();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Identity reducer. With {@link #PAUSE_DIR} set, attempt 0 stops after {@link #PAUSE_AT}
   * records: it creates {@code paused} there and waits (bounded) for the test to create
   * {@code go}, so the test acts while this reduce is in the middle of its merged stream.
   */
  public static class PausingReducer extends Reducer<Text, Text, Text, Text> {
    static final String PAUSE_DIR = "jbs.test.pause.dir";
    static final String PAUSED = "paused";
    static final String GO = "go";
    static final long PAUSE_AT = 1_000;
    private File dir;
    private long records;

    @Override
    protected void setup(Context context) {
      String d = context.getConfiguration().get(PAUSE_DIR);
      dir = d != null && context.getTaskAttemptID().getId() == 0 ? new File(d) : null;
    }

    @Override
    protected void reduce(Text key, Iterable<Text> values, Context context)
        throws IOException, InterruptedException {
      for (Text v : values) {
        context.write(key, v);
        if (dir != null && ++records == PAUSE_AT) {
          pause(context);
        }
      }
    }

    private void pause(Context context) throws IOException, InterruptedException {
      Files.writeString(new File(dir, PAUSED).toPath(), context.getTaskAttemptID().toString());
      File go = new File(dir, GO);
      long deadline = System.nanoTime() + 180_000_000_000L;
      while (!go.exists() && System.nanoTime() < deadline) {
        context.progress();
        Thread.sleep(50);
      }
    }
  }

  // ---------------------------------------------------------------------------------------
  // Assertions

  /** Every fallback counted exactly one reason: FALLBACKS is the sum of the FALLBACK_*. */
  private static void assertReasonsAddUp(Counters c) {
    long reasons = 0;
    for (JbsCounter k : JbsCounter.values()) {
      if (k.name().startsWith("FALLBACK_")) {
        reasons += c.findCounter(k).getValue();
      }
    }
    assertEquals(c.findCounter(JbsCounter.FALLBACKS).getValue(), reasons, "FALLBACK_* sum");
  }

  /** The JBS run took the native path in every reduce, or (no daemons) fell back in every one. */
  private static void assertJbsRan(Map<Run, Counters> c, int maps, int reduces) {
    Counters stock = c.get(Run.STOCK);
    Counters jbs = c.get(Run.JBS);
    assertReasonsAddUp(jbs);
    assertEquals(0, stock.findCounter(JbsCounter.NATIVE_REDUCES).getValue());
    assertEquals(0, stock.findCounter(JbsCounter.FALLBACKS).getValue());
    assertEquals(stock.findCounter(TaskCounter.REDUCE_INPUT_RECORDS).getValue(),
        jbs.findCounter(TaskCounter.REDUCE_INPUT_RECORDS).getValue());
    // Every reduce took every map's output (TeraSort may split into more maps than files).
    long shuffled = stock.findCounter(TaskCounter.SHUFFLED_MAPS).getValue();
    assertTrue(shuffled >= (long) maps * reduces, "stock shuffled " + shuffled);
    assertEquals(shuffled, jbs.findCounter(TaskCounter.SHUFFLED_MAPS).getValue());
    if (NATIVES) {
      assertEquals(reduces, jbs.findCounter(JbsCounter.NATIVE_REDUCES).getValue());
      assertEquals(0, jbs.findCounter(JbsCounter.FALLBACKS).getValue());
      assertTrue(jbs.findCounter(JbsCounter.BYTES_FETCHED_NATIVELY).getValue() > 0);
      assertEquals(stock.findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).getValue(),
          jbs.findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).getValue());
    } else {
      assertEquals(0, jbs.findCounter(JbsCounter.NATIVE_REDUCES).getValue());
      assertEquals(reduces, jbs.findCounter(JbsCounter.FALLBACKS).getValue());
      // No daemons, so no NetMerger socket.
      assertEquals(reduces, jbs.findCounter(JbsCounter.FALLBACK_NETMERGER).getValue());
    }
  }

  // ---------------------------------------------------------------------------------------
  // Running jobs (the two runs of a pair run at once, told apart by YARN application tags)

  private static Map<Run, Counters> runBoth(Function<Run, Configuration> confOf,
      Supplier<Tool> tool, Function<Run, String[]> argsOf) throws Exception {
    return PairedJobs.runAtOnce(CLUSTER.getConfiguration(), Run.class, "jbs", confOf, tool,
        argsOf);
  }

  private static long assertSameOutput(Path expectedDir, Path actualDir) throws IOException {
    return PairedJobs.assertSameOutput(CLUSTER.getFileSystem(), expectedDir, actualDir);
  }

  private static void writeZipfText(Path dir, int[] sizes, long seed) throws IOException {
    ZipfText.writeFiles(CLUSTER.getFileSystem(), dir, sizes, seed);
  }
}
