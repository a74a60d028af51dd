package io.hadoopaccel.mapreduce.preshuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.minicluster.MiniHadoopClusterExtension;
import io.hadoopaccel.minicluster.PairedJobs;
import io.hadoopaccel.workloads.gen.ZipfText;
import io.hadoopaccel.workloads.jobs.Sort;
import io.hadoopaccel.workloads.jobs.WordCount;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.DefaultCodec;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.PreshuffleMapOutputCollector;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.task.reduce.HaltingPreshuffleShuffle;
import org.apache.hadoop.mapreduce.task.reduce.PreshuffleShuffle;
import org.apache.hadoop.mapreduce.task.reduce.SecondSpillFailingShuffle;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;
import org.apache.hadoop.util.Tool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Real jobs on one shared mini cluster, each run with stock's shuffle and with Preshuffle at
 * once; the part files must be byte-identical. Reduces start with the maps (slowstart 0, both
 * runs), a 1 MB sort buffer gives every map several spills, and maps start collecting only
 * once every reduce has registered its receiver ({@link WaitForReceivers}), so which map
 * outputs are pushed is decided by the test, not by the race between task start-ups.
 */
class TestPreshuffleJobs {
  private static final String STOCK_COLLECTOR = "org.apache.hadoop.mapred.MapTask$MapOutputBuffer";

  @RegisterExtension
  static final MiniHadoopClusterExtension CLUSTER = MiniHadoopClusterExtension.builder()
      // Two jobs at once, each with its reduces up from the start: room for both, so that the
      // AM never preempts a reduce to place a retried map (the failure test counts failures).
      .configure(c -> c.setInt("yarn.nodemanager.resource.memory-mb",
          20 * MiniHadoopClusterExtension.CONTAINER_MB))
      .build();

  /** The two runs of every job; the halves alone are checked to fall back to pulling. */
  private enum Run {
    STOCK(false, false), PUSH(true, true), MAP_SIDE_ONLY(true, false), REDUCE_SIDE_ONLY(false,
        true);

    final boolean maps;
    final boolean reduces;

    Run(boolean maps, boolean reduces) {
      this.maps = maps;
      this.reduces = reduces;
    }
  }

  private enum Pair { STOCK, PUSH }

  private static Configuration conf(Run r) {
    Configuration conf = CLUSTER.getConfiguration();
    conf.set(MRConfig.SHUFFLE_CONSUMER_PLUGIN,
        (r.reduces ? PreshuffleShuffle.class : Shuffle.class).getName());
    if (r.maps && r.reduces) {
      // No stock collector after it: a map whose wait ran out fails instead of quietly
      // running as stock.
      conf.set(MRJobConfig.MAP_OUTPUT_COLLECTOR_CLASS_ATTR, WaitForReceivers.class.getName());
    } else if (r.maps) {
      // Map side only: nobody registers, so waiting for receivers would never end.
      conf.set(MRJobConfig.MAP_OUTPUT_COLLECTOR_CLASS_ATTR,
          PreshuffleMapOutputCollector.class.getName() + "," + STOCK_COLLECTOR);
    }
    conf.setFloat(MRJobConfig.COMPLETED_MAPS_FOR_REDUCE_SLOWSTART, 0f);
    conf.setInt(MRJobConfig.IO_SORT_MB, 1);
    conf.setInt(MRJobConfig.MR_JOB_REDUCER_PREEMPT_DELAY_SEC, 3600);
    return conf;
  }

  @Test
  void wordCountWithCombinerIsIdentical() throws Exception {
    Path in = new Path("/wc/in");
    writeZipfText(in, new int[] {3 << 20, 2 << 20, 3 << 20}, 11);
    Map<Pair, Counters> c = runPair(Run.PUSH, WordCount::new,
        out -> new String[] {"-r", "2", in.toString(), out.toString()}, "/wc");
    assertAllPushed(c.get(Pair.PUSH), 3, 2);
  }

  /**
   * Sort with compressed map output, whose reducers cannot store the second pushed spill of
   * each map: they pull only the spills the maps left over (WordCount above covers maps whose
   * every spill is pushed).
   */
  @Test
  void sortWithCompressedMapOutputIsIdenticalWithSpillsLeftToPull() throws Exception {
    Path in = new Path("/left/in");
    writeZipfText(in, new int[] {2 << 20, 2 << 20}, 17);
    Map<Pair, Counters> c = runPair(Run.PUSH, Sort::new,
        out -> new String[] {"-r", "2", in.toString(), out.toString()}, "/left", (p, conf) -> {
          conf.setBoolean(MRJobConfig.MAP_OUTPUT_COMPRESS, true);
          conf.set(MRJobConfig.MAP_OUTPUT_COMPRESS_CODEC, DefaultCodec.class.getName());
          if (p == Pair.PUSH) {
            conf.set(MRConfig.SHUFFLE_CONSUMER_PLUGIN,
                SecondSpillFailingShuffle.class.getName());
          }
        });
    Counters push = c.get(Pair.PUSH);
    String all = summary(push);
    // Each reducer failed to store one pushed spill of each map: those maps were completed
    // from their leftover spills, none pulled whole, and nothing received was thrown away.
    long partly = get(push, PreshuffleCounter.MAPS_PARTLY_PULLED);
    assertTrue(partly >= 3, all);
    assertEquals(4, partly + get(push, PreshuffleCounter.MAPS_FROM_PUSH), all);
    assertEquals(partly, get(push, PreshuffleCounter.PUSHES_PARTLY_LEFT), all);
    assertEquals(0, get(push, PreshuffleCounter.MAPS_PULLED), all);
    assertEquals(0, get(push, PreshuffleCounter.DISCARDED_BYTES), all);
    assertTrue(get(push, PreshuffleCounter.LEFTOVER_BYTES) > 0, all);
    assertEquals(4, push.findCounter(TaskCounter.SHUFFLED_MAPS).getValue(), all);
  }

  @Test
  void eitherHalfAloneRunsAsStock() throws Exception {
    Path in = new Path("/halves/in");
    writeZipfText(in, new int[] {1 << 20, 1 << 20}, 3);
    // Maps push only to reducers that registered a receiver: stock reducers register none.
    Counters mapsOnly = runPair(Run.MAP_SIDE_ONLY, WordCount::new,
        out -> new String[] {"-r", "2", in.toString(), out.toString()}, "/halves-maps")
        .get(Pair.PUSH);
    assertEquals(0, get(mapsOnly, PreshuffleCounter.PUSHED_BYTES));
    assertEquals(4, get(mapsOnly, PreshuffleCounter.PUSHES_LEFT_TO_PULL));
    // A receiver that nobody pushes to pulls every map output.
    Counters reducesOnly = runPair(Run.REDUCE_SIDE_ONLY, WordCount::new,
        out -> new String[] {"-r", "2", in.toString(), out.toString()}, "/halves-reduces")
        .get(Pair.PUSH);
    assertEquals(4, get(reducesOnly, PreshuffleCounter.MAPS_PULLED));
    assertEquals(0, get(reducesOnly, PreshuffleCounter.RECEIVED_BYTES));
  }

  @Test
  void aFailedMapAttemptsPushesAreDiscardedAndARetriedReducePulls() throws Exception {
    Path in = new Path("/flaky/in");
    writeZipfText(in, new int[] {2 << 20, 2 << 20, 1 << 20}, 17);
    Map<Pair, Counters> c = runPair(Run.PUSH, FlakyWordCount::new,
        out -> new String[] {in.toString(), out.toString()}, "/flaky");
    Counters push = c.get(Pair.PUSH);
    for (Counters run : c.values()) {
      assertEquals(1, run.findCounter(JobCounter.NUM_FAILED_REDUCES).getValue(), run::toString);
    }
    // Map 0's first attempt pushed its whole output, then failed: reduce 1 threw it away and
    // took map 0's second attempt's push instead. Reduce 0's second attempt started after
    // every map had ended (its first failed in the reduce phase), so it pulled all three;
    // reduce 1 merged all three from pushes.
    assertDiscardedThenTaken(push, 3, 3);
  }

  @Test
  void onlyTheWinningSpeculativeAttemptIsMerged() throws Exception {
    Path in = new Path("/spec/in");
    writeZipfText(in, new int[] {3 << 20, 2 << 20, 2 << 20}, 23);
    Map<Pair, Counters> c = runPair(Run.PUSH, SpeculatedWordCount::new,
        out -> new String[] {in.toString(), out.toString()}, "/spec", (p, conf) -> {
          conf.setBoolean(MRJobConfig.MAP_SPECULATIVE, true);
          conf.set(MRJobConfig.MR_AM_JOB_SPECULATOR, ForcedMapSpeculator.class.getName());
        });
    for (Counters run : c.values()) {
      // Map 0 ran twice at once: its first attempt was killed when the second succeeded.
      assertEquals(4, run.findCounter(JobCounter.TOTAL_LAUNCHED_MAPS).getValue(), run::toString);
      assertEquals(1, run.findCounter(JobCounter.NUM_KILLED_MAPS).getValue(), run::toString);
    }
    // The losing attempt pushed its spills before it blocked; they were thrown away, and every
    // map, map 0 included, was merged from its winning attempt's push.
    assertDiscardedThenTaken(c.get(Pair.PUSH), 6, 0);
  }

  @Test
  void aReduceAttemptKilledMidMergeIsRetriedAndGetsEverything() throws Exception {
    Path in = new Path("/halt/in");
    writeZipfText(in, new int[] {2 << 20, 2 << 20, 2 << 20}, 29);
    Map<Pair, Counters> c = runPair(Run.PUSH, WordCount::new,
        out -> new String[] {"-r", "2", in.toString(), out.toString()}, "/halt", (p, conf) -> {
          if (p == Pair.PUSH) {
            conf.set(MRConfig.SHUFFLE_CONSUMER_PLUGIN, HaltingPreshuffleShuffle.class.getName());
          }
        });
    Counters push = c.get(Pair.PUSH);
    String all = summary(push);
    // Reduce 0's first attempt died with pushes received and its merge begun; the maps that
    // pushed to its dead receiver, and the retry, lost nothing: every (map, reduce) pair of
    // the two successful reduce attempts was merged from a push or pulled.
    assertEquals(1, push.findCounter(JobCounter.NUM_FAILED_REDUCES).getValue(), all);
    assertEquals(6,
        get(push, PreshuffleCounter.MAPS_FROM_PUSH) + get(push, PreshuffleCounter.MAPS_PULLED),
        all);
    assertEquals(6, push.findCounter(TaskCounter.SHUFFLED_MAPS).getValue(), all);
  }

  /**
   * WordCount with 2 reduces whose first attempt of map 0 fails after all its output is
   * collected (it is still spilled, merged and pushed: the task closes its output on the way
   * out) and whose first attempt of reduce 0 fails after its merge, in the reduce phase.
   */
  public static final class FlakyWordCount extends Configured implements Tool {
    public static final class Tokens extends WordCount.TokenizerMapper {
      @Override
      protected void cleanup(Context ctx) throws IOException {
        failFirstAttemptOfTask0(ctx.getTaskAttemptID(), "map");
      }
    }

    public static final class Sum extends WordCount.LongSumReducer {
      @Override
      protected void reduce(Text w, Iterable<IntWritable> ones, Context ctx)
          throws IOException, InterruptedException {
        failFirstAttemptOfTask0(ctx.getTaskAttemptID(), "reduce");
        super.reduce(w, ones, ctx);
      }
    }

    static void failFirstAttemptOfTask0(TaskAttemptID id, String kind) throws IOException {
      if (id.getTaskID().getId() == 0 && id.getId() == 0) {
        throw new IOException("first attempt of " + kind + " 0 fails on purpose");
      }
    }

    @Override
    public int run(String[] args) throws Exception {
      return runWordCount(getConf(), "flaky-wordcount", Tokens.class, null,
          Sum.class, args);
    }
  }

  /**
   * WordCount with 2 reduces whose first attempt of map 0 blocks after collecting its output
   * (its spills are pushed by then) until the ApplicationMaster kills it, which it does when
   * the speculative attempt {@link ForcedMapSpeculator} added succeeds. The bound only keeps a
   * broken run from hanging.
   */
  public static final class SpeculatedWordCount extends Configured implements Tool {
    public static final class Tokens extends WordCount.TokenizerMapper {
      @Override
      protected void cleanup(Context ctx) throws IOException, InterruptedException {
        TaskAttemptID id = ctx.getTaskAttemptID();
        if (id.getTaskID().getId() != 0 || id.getId() != 0) {
          return;
        }
        // Nothing counts it down: only the AM's kill ends this attempt.
        new CountDownLatch(1).await(5, TimeUnit.MINUTES);
        throw new IOException("the first attempt of map 0 was not killed within five minutes");
      }
    }

    @Override
    public int run(String[] args) throws Exception {
      return runWordCount(getConf(), "speculated-wordcount", Tokens.class,
          WordCount.IntSumCombiner.class, WordCount.LongSumReducer.class, args);
    }
  }

  /** WordCount with these classes, 2 reduces, input and output dirs from args. */
  static int runWordCount(Configuration conf, String name,
      Class<? extends WordCount.TokenizerMapper> mapper,
      Class<? extends WordCount.IntSumCombiner> combiner,
      Class<? extends WordCount.LongSumReducer> reducer, String[] args) throws Exception {
    Job job = WordCount.job(conf, name, mapper, combiner, reducer);
    job.setNumReduceTasks(2);
    FileInputFormat.addInputPath(job, new Path(args[0]));
    FileOutputFormat.setOutputPath(job, new Path(args[1]));
    return job.waitForCompletion(false) ? 0 : 1;
  }

  /**
   * Preshuffle's collector that first waits (up to five minutes: reduces start slowly on a
   * loaded CI machine) until every reduce of the job has registered its receiver. There is no
   * event to wait on, so it polls the registry.
   */
  public static final class WaitForReceivers<K, V> extends PreshuffleMapOutputCollector<K, V> {
    @Override
    public void init(Context context) throws IOException, ClassNotFoundException {
      JobConf job = context.getJobConf();
      ReducerRegistry registry = new ReducerRegistry(job);
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (registry.receivers().size() < job.getNumReduceTasks()) {
        if (System.nanoTime() > deadline) {
          throw new IOException("the reduces did not register within five minutes");
        }
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          throw new IOException(e);
        }
      }
      super.init(context);
    }
  }

  // ---------------------------------------------------------------------------------------

  private static Map<Pair, Counters> runPair(Run feature, Supplier<Tool> tool,
      Function<Path, String[]> argsOf, String base) throws Exception {
    return runPair(feature, tool, argsOf, base, (p, conf) -> { });
  }

  private static Map<Pair, Counters> runPair(Run feature, Supplier<Tool> tool,
      Function<Path, String[]> argsOf, String base, BiConsumer<Pair, Configuration> tweak)
      throws Exception {
    Map<Pair, Counters> counters = PairedJobs.runAtOnce(CLUSTER.getConfiguration(), Pair.class,
        "preshuffle" + base.replace('/', '-'), p -> {
          Configuration conf = conf(p == Pair.STOCK ? Run.STOCK : feature);
          tweak.accept(p, conf);
          return conf;
        }, tool, p -> argsOf.apply(out(base, p)));
    PairedJobs.assertSameOutput(CLUSTER.getFileSystem(), out(base, Pair.STOCK),
        out(base, Pair.PUSH));
    assertEquals(0, get(counters.get(Pair.STOCK), PreshuffleCounter.FALLBACKS));
    assertEquals(0, get(counters.get(Pair.STOCK), PreshuffleCounter.PUSHED_SEGMENTS));
    assertEquals(0, get(counters.get(Pair.PUSH), PreshuffleCounter.FALLBACKS));
    return counters;
  }

  /**
   * Every (map, reduce) pair was merged from the map's complete push, none pulled; each push
   * carried several spills (the 1 MB sort buffer) and arrived whole.
   */
  private static void assertAllPushed(Counters c, int maps, int reduces) {
    String all = summary(c);
    assertEquals(maps * reduces, get(c, PreshuffleCounter.MAPS_FROM_PUSH), all);
    assertEquals(maps * reduces, get(c, PreshuffleCounter.PUSHES_COMPLETED), all);
    assertEquals(0, get(c, PreshuffleCounter.MAPS_PULLED), all);
    assertEquals(maps * reduces, c.findCounter(TaskCounter.SHUFFLED_MAPS).getValue());
    assertTrue(get(c, PreshuffleCounter.PUSHED_SEGMENTS) >= 2L * maps * reduces, all);
    assertEquals(get(c, PreshuffleCounter.PUSHED_BYTES), get(c, PreshuffleCounter.RECEIVED_BYTES));
    assertEquals(0, get(c, PreshuffleCounter.DISCARDED_BYTES), all);
    assertEquals(0, get(c, PreshuffleCounter.REFUSED_CONNECTIONS), all);
  }

  /** Some attempt's pushes were discarded; the reduces then took these from pushes and pulls. */
  private static void assertDiscardedThenTaken(Counters c, int fromPush, int pulled) {
    String all = summary(c);
    assertTrue(get(c, PreshuffleCounter.DISCARDED_BYTES) > 0, all);
    assertEquals(fromPush, get(c, PreshuffleCounter.MAPS_FROM_PUSH), all);
    assertEquals(pulled, get(c, PreshuffleCounter.MAPS_PULLED), all);
  }

  private static String summary(Counters c) {
    return PairedJobs.summary(c, PreshuffleCounter.class);
  }

  private static long get(Counters c, PreshuffleCounter k) {
    return c.findCounter(k).getValue();
  }

  private static Path out(String base, Pair p) {
    return PairedJobs.outDir(base, p);
  }

  private static void writeZipfText(Path dir, int[] sizes, long seed) throws IOException {
    ZipfText.writeFiles(CLUSTER.getFileSystem(), dir, sizes, seed);
  }
}
