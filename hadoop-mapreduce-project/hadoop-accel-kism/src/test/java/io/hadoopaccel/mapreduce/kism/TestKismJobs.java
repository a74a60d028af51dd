package io.hadoopaccel.mapreduce.kism;

import static io.hadoopaccel.minicluster.PairedJobs.runTool;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.minicluster.MiniHadoopClusterExtension;
import io.hadoopaccel.minicluster.PairedJobs;
import io.hadoopaccel.workloads.gen.GenAdjacency;
import io.hadoopaccel.workloads.gen.ZipfText;
import io.hadoopaccel.workloads.jobs.AdjacencyList;
import io.hadoopaccel.workloads.jobs.Sort;
import io.hadoopaccel.workloads.jobs.WordCount;
import io.hadoopaccel.workloads.util.ByteBuf;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.terasort.TeraGen;
import org.apache.hadoop.examples.terasort.TeraSort;
import org.apache.hadoop.examples.terasort.TeraValidate;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.RawComparator;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.WritableComparator;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.io.compress.BZip2Codec;
import org.apache.hadoop.io.compress.DefaultCodec;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Partitioner;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;
import org.apache.hadoop.util.Tool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real jobs on one shared mini cluster (HDFS + YARN). Every job runs twice, with stock
 * {@link Shuffle} and with {@link KismShuffle}, chosen per job through
 * {@code mapreduce.job.reduce.shuffle.consumer.plugin.class}. The part files of the two runs must
 * be byte-identical, and the KISM run's counters must show that KISM merged every reduce: one
 * merge entry per record the stock reducers read, no fallback, each local byte read back once.
 */
class TestKismJobs {

  @RegisterExtension
  static final MiniHadoopClusterExtension CLUSTER = MiniHadoopClusterExtension.builder().build();

  private enum Merge {
    STOCK(Shuffle.class), KISM(KismShuffle.class);

    final Class<?> plugin;

    Merge(Class<?> plugin) {
      this.plugin = plugin;
    }
  }

  /** Client configuration of one run: the cluster's, with the shuffle plugin of {@code m}. */
  private static Configuration conf(Merge m) {
    Configuration conf = CLUSTER.getConfiguration();
    conf.set(MRConfig.SHUFFLE_CONSUMER_PLUGIN, m.plugin.getName());
    return conf;
  }

  // ---------------------------------------------------------------------------------------
  // (a) TeraGen + TeraSort (2 reduces) + TeraValidate

  @Test
  void teraSortWithTwoReducesIsIdenticalAndValidates() throws Exception {
    Path in = new Path("/terasort/in");
    Configuration genConf = conf(Merge.STOCK);
    genConf.setInt(MRJobConfig.NUM_MAPS, 2);
    long rows = 20_000;
    Counters gen = runTool(genConf, new TeraGen(), Long.toString(rows), in.toString());
    long checksum = gen.findCounter(TeraGen.Counters.CHECKSUM).getValue();

    Map<Merge, Counters> counters = runBoth(m -> {
      Configuration conf = conf(m);
      conf.setInt(MRJobConfig.NUM_REDUCES, 2);
      return conf;
    }, TeraSort::new, m -> new String[] {in.toString(), out("/terasort", m).toString()});
    long bytes = assertSameOutput(out("/terasort", Merge.STOCK), out("/terasort", Merge.KISM));
    assertEquals(rows * 100, bytes, "TeraSort output is 100 bytes a row");
    assertKismMerged(counters, 2, 2);
    assertEquals(rows, counters.get(Merge.KISM).findCounter(TaskCounter.REDUCE_OUTPUT_RECORDS)
        .getValue());

    // TeraValidate (itself a job with one reduce, run with KISM) on KISM's output: no
    // misordered records within or across the part files, and the checksum of all rows
    // equals TeraGen's.
    Path validate = new Path("/terasort/validate");
    Counters v = runTool(conf(Merge.KISM), new TeraValidate(),
        out("/terasort", Merge.KISM).toString(), validate.toString());
    assertEquals(1, v.findCounter(KismCounter.REDUCES).getValue());
    List<String> report = CLUSTER.readOutputLines(validate);
    assertTrue(report.stream().noneMatch(l -> l.startsWith("error")),
        () -> "TeraValidate found errors: " + report);
    assertTrue(report.contains("checksum\t" + Long.toHexString(checksum)),
        () -> "TeraValidate checksum differs from TeraGen's " + Long.toHexString(checksum)
            + ": " + report);
  }

  // ---------------------------------------------------------------------------------------
  // (b) WordCount from the workloads module, several maps, no combiner (every word shuffled)

  @Test
  void workloadsWordCountIsIdentical() throws Exception {
    Path text = new Path("/wordcount/in");
    writeZipfText(text, new int[] {1 << 20, 1 << 20, 1 << 20}, 7);

    Map<Merge, Counters> counters = runBoth(TestKismJobs::conf, WordCount::new,
        m -> new String[] {"-nocombiner", "-r", "2", text.toString(),
            out("/wordcount", m).toString()});
    assertSameOutput(out("/wordcount", Merge.STOCK), out("/wordcount", Merge.KISM));
    assertKismMerged(counters, 3, 2);
    // Without a combiner every word is one record through the merge.
    Counters kism = counters.get(Merge.KISM);
    assertEquals(kism.findCounter(TaskCounter.MAP_OUTPUT_RECORDS).getValue(),
        kism.findCounter(KismCounter.MERGED_ENTRIES).getValue());
    // Default reduce.input.buffer.percent (0): the reducer keeps nothing in memory, so every
    // output goes to a segment log as fetched, and is read back once.
    assertEquals(6, kism.findCounter(KismCounter.SEGMENTS_ON_DISK).getValue());
    assertEquals(kism.findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).getValue(),
        kism.findCounter(KismCounter.LOCAL_BYTES_WRITTEN).getValue());
  }

  // ---------------------------------------------------------------------------------------
  // (c) secondary sort: composite key, partition and group by its first part

  @Test
  void secondarySortWithGroupingComparatorKeepsTheSortOrder() throws Exception {
    Path in = new Path("/secondary/in");
    List<String> expected = writeSecondarySortInput(in);
    Map<Merge, Counters> counters = runSecondarySort(TestKismJobs::conf, in, "/secondary");
    for (Merge m : Merge.values()) {
      assertEquals(expected, CLUSTER.readOutputLines(out("/secondary", m)), m + " output");
    }
    assertSameOutput(out("/secondary", Merge.STOCK), out("/secondary", Merge.KISM));
    assertKismMerged(counters, SECONDARY_FILES, SECONDARY_REDUCES);
  }

  // ---------------------------------------------------------------------------------------
  // (d) compressed map output, both codecs that work without libhadoop

  @ParameterizedTest
  @ValueSource(classes = {DefaultCodec.class, BZip2Codec.class})
  void compressedMapOutputIsIdentical(Class<?> codec) throws Exception {
    String base = "/compressed-" + codec.getSimpleName();
    Path in = new Path(base + "/in");
    // Three map outputs of different sizes: with the budget below the reduce keeps the
    // smallest (~24 KiB) in its fetched buffer and appends the other two to a segment log as
    // fetched, still compressed.
    writeZipfText(in, new int[] {24 << 10, 200 << 10, 700 << 10}, 99);

    Map<Merge, Counters> counters = runBoth(m -> {
      Configuration conf = conf(m);
      conf.setBoolean(MRJobConfig.MAP_OUTPUT_COMPRESS, true);
      conf.set(MRJobConfig.MAP_OUTPUT_COMPRESS_CODEC, codec.getName());
      // 1 MiB shuffle budget, 256 KiB largest in-memory output, 100 KiB kept for the reduce
      // (the same budget for stock, which then merges in memory and on disk).
      conf.setLong(MRJobConfig.REDUCE_MEMORY_TOTAL_BYTES, 2L << 20);
      conf.setFloat(MRJobConfig.SHUFFLE_INPUT_BUFFER_PERCENT, 0.5f);
      conf.setFloat(MRJobConfig.SHUFFLE_MEMORY_LIMIT_PERCENT, 0.25f);
      conf.setFloat(MRJobConfig.REDUCE_INPUT_BUFFER_PERCENT, 0.1f);
      return conf;
    }, Sort::new, m -> new String[] {"-r", "1", in.toString(), out(base, m).toString()});
    assertSameOutput(out(base, Merge.STOCK), out(base, Merge.KISM));
    assertKismMerged(counters, 3, 1);
    Counters kism = counters.get(Merge.KISM);
    // The map output really was compressed.
    assertTrue(kism.findCounter(TaskCounter.MAP_OUTPUT_MATERIALIZED_BYTES).getValue()
        < kism.findCounter(TaskCounter.MAP_OUTPUT_BYTES).getValue() / 2);
    long inMemory = kism.findCounter(KismCounter.SEGMENTS_IN_MEMORY).getValue();
    long onDisk = kism.findCounter(KismCounter.SEGMENTS_ON_DISK).getValue();
    assertEquals(1, inMemory, "outputs kept in memory");
    assertEquals(2, onDisk, "compressed outputs appended to a segment log");
    // Written as fetched: compressed bytes, fewer than the decompressed segments.
    long written = kism.findCounter(KismCounter.LOCAL_BYTES_WRITTEN).getValue();
    assertTrue(written > 0
        && written < kism.findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).getValue(),
        () -> "KISM wrote " + written + " local bytes");
  }

  // ---------------------------------------------------------------------------------------
  // (e) large values and a small reduce: outputs go to local disk, each byte written once

  @Test
  void largeValuesWithSmallReduceMemoryGoToDiskOnce() throws Exception {
    Path in = new Path("/adjacency/in");
    // Maps over 10, 50 and 60 vertices: per reduce ~0.6, ~3 and ~3.6 MB of map output, lists
    // of 4-64 KB as single values.
    writeAdjacencyLists(in, new int[] {10, 50, 60}, 11);

    Map<Merge, Counters> counters = runBoth(m -> {
      Configuration conf = conf(m);
      // A 160 MB reduce heap with 5 % for the shuffle: ~7.7 MB of shuffle memory, no output
      // over ~1.9 MB in memory, although the reducer may keep everything that fits.
      conf.set(MRJobConfig.REDUCE_JAVA_OPTS, "-Xmx160m");
      conf.setFloat(MRJobConfig.SHUFFLE_INPUT_BUFFER_PERCENT, 0.05f);
      conf.setFloat(MRJobConfig.REDUCE_INPUT_BUFFER_PERCENT, 1.0f);
      return conf;
    }, AdjacencyList::new,
        m -> new String[] {"-r", "2", in.toString(), out("/adjacency", m).toString()});
    assertSameOutput(out("/adjacency", Merge.STOCK), out("/adjacency", Merge.KISM));
    assertKismMerged(counters, 3, 2);

    Counters kism = counters.get(Merge.KISM);
    long inMemory = kism.findCounter(KismCounter.SEGMENTS_IN_MEMORY).getValue();
    long onDisk = kism.findCounter(KismCounter.SEGMENTS_ON_DISK).getValue();
    long written = kism.findCounter(KismCounter.LOCAL_BYTES_WRITTEN).getValue();
    long shuffled = kism.findCounter(TaskCounter.REDUCE_SHUFFLE_BYTES).getValue();
    assertTrue(onDisk >= 4, () -> "only " + onDisk + " outputs went to local disk");
    assertTrue(inMemory > 0, "the small outputs did not stay in memory");
    // Uncompressed map output, each byte written to local disk at most once.
    assertTrue(written > 0 && written <= shuffled,
        () -> "KISM wrote " + written + " local bytes for " + shuffled + " shuffled");
  }

  // ---------------------------------------------------------------------------------------
  // (f) encrypted intermediate data: KISM steps aside, stock merge runs

  @Test
  void encryptedIntermediateDataFallsBackToStock() throws Exception {
    Path in = new Path("/encrypted/in");
    List<String> expected = writeSecondarySortInput(in);
    Map<Merge, Counters> counters = runSecondarySort(m -> {
      Configuration conf = conf(m);
      conf.setBoolean(MRJobConfig.MR_ENCRYPTED_INTERMEDIATE_DATA, true);
      return conf;
    }, in, "/encrypted");
    for (Merge m : Merge.values()) {
      assertEquals(expected, CLUSTER.readOutputLines(out("/encrypted", m)), m + " output");
    }
    assertSameOutput(out("/encrypted", Merge.STOCK), out("/encrypted", Merge.KISM));
    assertStockRan(counters.get(Merge.STOCK));
    Counters kism = counters.get(Merge.KISM);
    assertEquals(SECONDARY_REDUCES, kism.findCounter(KismCounter.FALLBACKS).getValue());
    assertEquals(0, kism.findCounter(KismCounter.REDUCES).getValue());
    assertEquals(0, kism.findCounter(KismCounter.MERGED_ENTRIES).getValue());
    assertEquals(counters.get(Merge.STOCK).findCounter(TaskCounter.REDUCE_INPUT_RECORDS)
        .getValue(), kism.findCounter(TaskCounter.REDUCE_INPUT_RECORDS).getValue());
  }

  private static Path out(String base, Merge m) {
    return new Path(base + "/out-" + m.name().toLowerCase());
  }

  // ---------------------------------------------------------------------------------------
  // Assertions

  /** The stock run did not touch KISM (the per-job key overrode the site file). */
  private static void assertStockRan(Counters stock) {
    assertEquals(0, stock.findCounter(KismCounter.REDUCES).getValue(), "stock run used KISM");
    assertEquals(0, stock.findCounter(KismCounter.FALLBACKS).getValue(), "stock run used KISM");
  }

  /**
   * KISM merged all {@code reduces} reduces and fed them what stock's reduces read; each reduce
   * fetched the output of each of the {@code maps} maps.
   */
  private static void assertKismMerged(Map<Merge, Counters> counters, int maps, int reduces) {
    Counters stock = counters.get(Merge.STOCK);
    Counters kism = counters.get(Merge.KISM);
    assertStockRan(stock);
    assertEquals(maps * reduces, stock.findCounter(TaskCounter.SHUFFLED_MAPS).getValue(),
        "stock shuffled map outputs");
    assertEquals(maps * reduces, kism.findCounter(TaskCounter.SHUFFLED_MAPS).getValue(),
        "KISM shuffled map outputs");
    long records = stock.findCounter(TaskCounter.REDUCE_INPUT_RECORDS).getValue();
    assertTrue(records > 0, "stock reduces read nothing");
    assertEquals(reduces, kism.findCounter(KismCounter.REDUCES).getValue(), "KISM reduces");
    assertEquals(0, kism.findCounter(KismCounter.FALLBACKS).getValue(), "KISM fallbacks");
    assertEquals(records, kism.findCounter(KismCounter.MERGED_ENTRIES).getValue(),
        "KISM merge entries vs stock reduce input records");
    assertEquals(records, kism.findCounter(TaskCounter.REDUCE_INPUT_RECORDS).getValue());
    assertEquals(stock.findCounter(TaskCounter.REDUCE_INPUT_GROUPS).getValue(),
        kism.findCounter(TaskCounter.REDUCE_INPUT_GROUPS).getValue());
    // Every fetched map output was committed once, to memory or to disk.
    assertEquals(kism.findCounter(TaskCounter.SHUFFLED_MAPS).getValue(),
        kism.findCounter(KismCounter.SEGMENTS_IN_MEMORY).getValue()
            + kism.findCounter(KismCounter.SEGMENTS_ON_DISK).getValue());
    // Whatever went to local disk was read back exactly once.
    assertEquals(kism.findCounter(KismCounter.LOCAL_BYTES_WRITTEN).getValue(),
        kism.findCounter(KismCounter.LOCAL_BYTES_READ).getValue(),
        "KISM local bytes read vs written");
  }

  // ---------------------------------------------------------------------------------------
  // Running jobs

  private static Map<Merge, Counters> runBoth(Function<Merge, Configuration> confOf,
      Supplier<Tool> tool, Function<Merge, String[]> argsOf) throws Exception {
    return PairedJobs.runAtOnce(CLUSTER.getConfiguration(), Merge.class, "kism", confOf, tool,
        argsOf);
  }

  private static long assertSameOutput(Path expectedDir, Path actualDir) throws IOException {
    return PairedJobs.assertSameOutput(CLUSTER.getFileSystem(), expectedDir, actualDir);
  }

  // ---------------------------------------------------------------------------------------
  // (c), (f): the secondary-sort job

  private static final int SECONDARY_REDUCES = 2;
  private static final int SECONDARY_GROUPS = 40;
  private static final int SECONDARY_FILES = 3;
  private static final int SECONDARY_RECORDS = 12_000;

  /**
   * Writes lines {@code group TAB n TAB value} with unique n, each file holding every third n
   * in shuffled order, and returns the expected output: per group one line
   * {@code group TAB v1,v2,...} with the values in increasing n.
   */
  private static List<String> writeSecondarySortInput(Path dir) throws IOException {
    FileSystem fs = CLUSTER.getFileSystem();
    Random rnd = new Random(4242);
    Map<String, TreeMap<String, String>> byGroup = new TreeMap<>();
    List<List<String>> files = new ArrayList<>();
    for (int f = 0; f < SECONDARY_FILES; f++) {
      files.add(new ArrayList<>());
    }
    for (int n = 0; n < SECONDARY_RECORDS; n++) {
      String group = "g" + rnd.nextInt(SECONDARY_GROUPS);
      String seq = String.format("%06d", n);
      String value = seq + ":" + Long.toString(rnd.nextLong() & Long.MAX_VALUE, 36);
      byGroup.computeIfAbsent(group, g -> new TreeMap<>()).put(seq, value);
      files.get(n % SECONDARY_FILES).add(group + "\t" + seq + "\t" + value);
    }
    for (int f = 0; f < SECONDARY_FILES; f++) {
      List<String> lines = files.get(f);
      Collections.shuffle(lines, rnd);
      try (Writer w = new OutputStreamWriter(fs.create(new Path(dir, "input-" + f)),
          StandardCharsets.UTF_8)) {
        for (String line : lines) {
          w.write(line);
          w.write('\n');
        }
      }
    }
    List<String> expected = new ArrayList<>();
    byGroup.forEach((group, values) ->
        expected.add(group + "\t" + String.join(",", values.values())));
    Collections.sort(expected);
    return expected;
  }

  /** Submits the secondary-sort job with stock shuffle and with KISM at once; their counters. */
  private static Map<Merge, Counters> runSecondarySort(Function<Merge, Configuration> confOf,
      Path in, String base) throws Exception {
    Map<Merge, Job> jobs = new EnumMap<>(Merge.class);
    for (Merge m : Merge.values()) {
      Job job = Job.getInstance(confOf.apply(m), "secondary-sort-" + m);
      job.setJarByClass(TestKismJobs.class);
      job.setMapperClass(CompositeKeyMapper.class);
      job.setPartitionerClass(GroupPartitioner.class);
      job.setGroupingComparatorClass(GroupComparator.class);
      job.setReducerClass(ConcatReducer.class);
      job.setMapOutputKeyClass(Text.class);
      job.setMapOutputValueClass(Text.class);
      job.setOutputKeyClass(Text.class);
      job.setOutputValueClass(Text.class);
      job.setNumReduceTasks(SECONDARY_REDUCES);
      FileInputFormat.addInputPath(job, in);
      FileOutputFormat.setOutputPath(job, out(base, m));
      job.submit();
      jobs.put(m, job);
    }
    Map<Merge, Counters> counters = new EnumMap<>(Merge.class);
    for (Merge m : Merge.values()) {
      Job job = jobs.get(m);
      assertTrue(job.waitForCompletion(false), () -> m + " run " + job.getJobID() + " failed");
      counters.put(m, job.getCounters());
    }
    return counters;
  }

  /** Length of the group part ("g12" of "g12\t000042") of a serialized key's bytes. */
  static int groupLength(byte[] b, int start, int end) {
    int i = start;
    while (i < end && b[i] != '\t') {
      i++;
    }
    return i - start;
  }

  static String group(Text key) {
    return new String(key.getBytes(), 0, groupLength(key.getBytes(), 0, key.getLength()),
        StandardCharsets.UTF_8);
  }

  /** "group TAB n TAB value" to key "group TAB n", value "value". */
  public static class CompositeKeyMapper extends Mapper<LongWritable, Text, Text, Text> {
    private final Text key = new Text();
    private final Text value = new Text();

    @Override
    protected void map(LongWritable offset, Text line, Context context)
        throws IOException, InterruptedException {
      byte[] b = line.getBytes();
      int first = groupLength(b, 0, line.getLength());
      int second = first + 1 + groupLength(b, first + 1, line.getLength());
      key.set(b, 0, second);
      value.set(b, second + 1, line.getLength() - second - 1);
      context.write(key, value);
    }
  }

  /** Partitions by the group part only, so a group meets in one reduce. */
  public static class GroupPartitioner extends Partitioner<Text, Text> {
    @Override
    public int getPartition(Text key, Text value, int partitions) {
      int len = groupLength(key.getBytes(), 0, key.getLength());
      return (WritableComparator.hashBytes(key.getBytes(), len) & Integer.MAX_VALUE)
          % partitions;
    }
  }

  /** Groups serialized Text keys by their group part (sorting stays on the full key). */
  public static class GroupComparator implements RawComparator<Text> {
    @Override
    public int compare(byte[] b1, int s1, int l1, byte[] b2, int s2, int l2) {
      int h1 = WritableUtils.decodeVIntSize(b1[s1]);
      int h2 = WritableUtils.decodeVIntSize(b2[s2]);
      return WritableComparator.compareBytes(
          b1, s1 + h1, groupLength(b1, s1 + h1, s1 + l1),
          b2, s2 + h2, groupLength(b2, s2 + h2, s2 + l2));
    }

    @Override
    public int compare(Text a, Text b) {
      return WritableComparator.compareBytes(
          a.getBytes(), 0, groupLength(a.getBytes(), 0, a.getLength()),
          b.getBytes(), 0, groupLength(b.getBytes(), 0, b.getLength()));
    }
  }

  /** Writes the group and its values joined by commas, in the order the merge delivered. */
  public static class ConcatReducer extends Reducer<Text, Text, Text, Text> {
    private final Text group = new Text();
    private final Text joined = new Text();

    @Override
    protected void reduce(Text key, Iterable<Text> values, Context context)
        throws IOException, InterruptedException {
      group.set(group(key));
      StringBuilder sb = new StringBuilder();
      for (Text v : values) {
        if (sb.length() > 0) {
          sb.append(',');
        }
        sb.append(v);
      }
      joined.set(sb.toString());
      context.write(group, joined);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Inputs from the workloads module's generators, written straight to HDFS (no generator job)

  /**
   * Writes one file per size of the workloads' Zipf text (gen-text's generator: 10-20 words a
   * line from its 10,000-word vocabulary), each from its own random stream.
   */
  private static void writeZipfText(Path dir, int[] sizes, long seed) throws IOException {
    ZipfText.writeFiles(CLUSTER.getFileSystem(), dir, sizes, seed);
  }

  /**
   * Writes gen-adjacency's graph ({@code v TAB n1,n2,...}, each list 4-64 KB), file {@code f}
   * holding the next {@code verticesPerFile[f]} vertices.
   */
  private static void writeAdjacencyLists(Path dir, int[] verticesPerFile, long seed)
      throws IOException {
    FileSystem fs = CLUSTER.getFileSystem();
    long vertices = Arrays.stream(verticesPerFile).sum();
    ByteBuf line = new ByteBuf(GenAdjacency.DEFAULT_MAX_VALUE + 64);
    int v = 0;
    for (int f = 0; f < verticesPerFile.length; f++) {
      try (OutputStream out = fs.create(new Path(dir, "adj-" + f))) {
        for (int i = 0; i < verticesPerFile[f]; i++, v++) {
          line.clear();
          line.appendDecimal(v);
          line.append((byte) '\t');
          GenAdjacency.appendOutList(seed, vertices, GenAdjacency.DEFAULT_MIN_VALUE,
              GenAdjacency.DEFAULT_MAX_VALUE, v, line);
          line.append((byte) '\n');
          out.write(line.array(), 0, line.length());
        }
      }
    }
  }
}
