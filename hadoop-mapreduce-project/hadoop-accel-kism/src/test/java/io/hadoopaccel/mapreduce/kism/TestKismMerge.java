package io.hadoopaccel.mapreduce.kism;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.common.mapred.CountingReporter;
import io.hadoopaccel.common.mapred.SharedSegmentMemory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.RawComparator;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.WritableComparator;
import org.apache.hadoop.io.compress.BZip2Codec;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.DefaultCodec;
import org.apache.hadoop.io.compress.GzipCodec;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.IFile;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MROutputFiles;
import org.apache.hadoop.mapred.Merger;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.MapOutput;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleClientMetrics;
import org.apache.hadoop.util.Progress;
import org.apache.hadoop.util.ReflectionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * KISM's merge against stock {@link Merger} on random map outputs: the same keys in the same
 * order, the same values for each key, and at most one local write and read of each byte.
 */
class TestKismMerge {
  private static final TaskAttemptID REDUCE =
      new TaskAttemptID("kism", 1, TaskType.REDUCE, 0, 0);
  private static final MapHost HOST = new MapHost("localhost", "http://localhost:0/");

  @TempDir
  Path dir;
  private JobConf conf;
  private CountingReporter reporter;

  /** One record as raw serialized bytes (Text key, BytesWritable value). */
  record Rec(byte[] key, byte[] value) {}

  /** A map output as the shuffle delivers it: IFile bytes with checksum, maybe compressed. */
  record Segment(byte[] raw, long decompressedLength) {}

  @BeforeEach
  void setUp() {
    conf = new JobConf();
    conf.set(MRConfig.LOCAL_DIR, dir.resolve("local").toString());
    conf.setMapOutputKeyClass(Text.class);
    conf.setMapOutputValueClass(BytesWritable.class);
    conf.setLong(MRJobConfig.REDUCE_MEMORY_TOTAL_BYTES, 64L << 20);
    reporter = new CountingReporter();
  }

  @Test
  void manySmallOutputsInMemoryMergeLikeStock() throws Exception {
    conf.setFloat(MRJobConfig.REDUCE_INPUT_BUFFER_PERCENT, 1.0f); // keep everything in memory
    checkAgainstStock(randomOutputs(new Random(1), 40, 200, 2_000, 8), null);
    assertEquals(40, count(KismCounter.SEGMENTS_IN_MEMORY));
    assertEquals(0, count(KismCounter.SEGMENTS_ON_DISK));
    assertEquals(0, count(KismCounter.LOCAL_BYTES_WRITTEN));
    assertEquals(0, count(KismCounter.LOCAL_BYTES_READ));
  }

  @Test
  void tightMemoryWritesAndReadsEachByteOnce() throws Exception {
    conf.setLong(MRJobConfig.REDUCE_MEMORY_TOTAL_BYTES, 4L << 20); // 2.8 MB shuffle budget
    List<List<Rec>> outputs = randomOutputs(new Random(2), 60, 60, 64 * 1024, 6);
    long shuffled = checkAgainstStock(outputs, null);
    long written = count(KismCounter.LOCAL_BYTES_WRITTEN);
    // input.buffer.percent is 0: the reducer may keep nothing, so everything goes to disk.
    assertEquals(outputs.size(), count(KismCounter.SEGMENTS_ON_DISK));
    assertTrue(written <= shuffled, written + " written > " + shuffled + " shuffled");
    assertEquals(written, count(KismCounter.LOCAL_BYTES_READ));
    assertEquals(records(outputs), count(KismCounter.MERGED_ENTRIES));
  }

  @Test
  void mergeThreadGivesTheSameResult() throws Exception {
    conf.setBoolean(KismConfigKeys.MERGE_THREAD, true);
    conf.setLong(MRJobConfig.REDUCE_MEMORY_TOTAL_BYTES, 4L << 20);
    checkAgainstStock(randomOutputs(new Random(9), 30, 60, 64 * 1024, 6), null);
  }

  @ParameterizedTest(name = "merge thread {0}")
  @ValueSource(booleans = {true, false})
  void corruptionOnLocalDiskFailsTheMerge(boolean mergeThread) throws Exception {
    conf.setBoolean(KismConfigKeys.MERGE_THREAD, mergeThread);
    conf.setLong(MRJobConfig.REDUCE_MEMORY_TOTAL_BYTES, 64L << 10); // everything goes to disk
    // 4 outputs of ~2 MB: the merge thread runs at most 3 MB ahead, so the damaged end of the
    // last output is still unread when the test damages it.
    List<List<Rec>> outputs = randomOutputs(new Random(10), 4, 1500, 5000, 4);
    outputs.forEach(o -> o.sort((a, b) -> WritableComparator.get(Text.class)
        .compare(a.key, 0, a.key.length, b.key, 0, b.key.length)));
    KismMergeManager<Text, BytesWritable> kism = manager();
    for (int i = 0; i < outputs.size(); i++) {
      Segment s = ifile(outputs.get(i), null);
      MapOutput<Text, BytesWritable> out = kism.reserve(map(i), s.decompressedLength(), 0);
      out.shuffle(HOST, new ByteArrayInputStream(s.raw()), s.raw().length,
          s.decompressedLength(), metrics(), reporter);
      out.commit();
    }
    assertEquals(outputs.size(), count(KismCounter.SEGMENTS_ON_DISK));
    RawKeyValueIterator it = kism.close(); // flushes the segment log
    List<Path> logs;
    try (Stream<Path> files = Files.walk(dir.resolve("local"))) {
      logs = files.filter(Files::isRegularFile).toList();
    }
    assertEquals(1, logs.size(), "one fetcher, one segment log: " + logs);
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(logs.get(0),
        java.nio.file.StandardOpenOption.WRITE, java.nio.file.StandardOpenOption.READ)) {
      java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
      long at = ch.size() - 100; // inside the last output's records
      ch.read(b, at);
      b.put(0, (byte) (b.get(0) ^ 0x10)).rewind();
      ch.write(b, at);
    }
    assertThrows(IOException.class, () -> {
      while (it.next()) {
        // drain until the checksum of the damaged output is checked
      }
    });
    it.close();
    try (Stream<Path> left = Files.walk(dir.resolve("local"))) {
      assertEquals(List.of(), left.filter(Files::isRegularFile).toList(), "files left behind");
    }
  }

  @Test
  void compressedOutputsWithEveryJavaCodec() throws Exception {
    for (Class<? extends CompressionCodec> codec :
        List.of(DefaultCodec.class, GzipCodec.class, BZip2Codec.class)) {
      setUp();
      conf.setLong(MRJobConfig.REDUCE_MEMORY_TOTAL_BYTES, 2L << 20);
      CompressionCodec c = ReflectionUtils.newInstance(codec, conf);
      checkAgainstStock(randomOutputs(new Random(3), 20, 100, 20_000, 4), c);
      assertTrue(count(KismCounter.SEGMENTS_ON_DISK) > 0, codec.getSimpleName());
    }
  }

  @Test
  void valuesUpToOneMegabyteAndEmptyOutputs() throws Exception {
    Random r = new Random(4);
    List<List<Rec>> outputs = randomOutputs(r, 12, 30, 1 << 20, 3);
    outputs.add(new ArrayList<>()); // a map that produced nothing for this reduce
    outputs.add(0, new ArrayList<>());
    conf.setLong(MRJobConfig.REDUCE_MEMORY_TOTAL_BYTES, 8L << 20);
    checkAgainstStock(outputs, null);
  }

  @Test
  void aValueLargerThanTheWholeShuffleBudget() throws Exception {
    conf.setLong(MRJobConfig.REDUCE_MEMORY_TOTAL_BYTES, 1L << 20); // 0.7 MB budget
    byte[] huge = new byte[3 << 20];
    new Random(5).nextBytes(huge);
    List<List<Rec>> outputs = randomOutputs(new Random(5), 5, 20, 1000, 4);
    outputs.add(new ArrayList<>(List.of(rec("m", huge))));
    checkAgainstStock(outputs, null);
  }

  @Test
  void thousandsOfOutputs() throws Exception {
    conf.setLong(MRJobConfig.REDUCE_MEMORY_TOTAL_BYTES, 256L << 10);
    List<List<Rec>> outputs = randomOutputs(new Random(6), 2000, 5, 300, 3);
    checkAgainstStock(outputs, null);
    assertTrue(count(KismCounter.SEGMENTS_ON_DISK) > 1000);
  }

  @Test
  void customComparatorOrdersLikeStock() throws Exception {
    conf.setOutputKeyComparatorClass(ReverseText.class);
    conf.setLong(MRJobConfig.REDUCE_MEMORY_TOTAL_BYTES, 2L << 20);
    checkAgainstStock(randomOutputs(new Random(7), 30, 100, 10_000, 5), null);
  }

  @Test
  void corruptedOutputIsRejectedAtFetch() throws Exception {
    List<List<Rec>> outputs = randomOutputs(new Random(8), 1, 50, 100, 3);
    Segment s = ifile(outputs.get(0), null);
    s.raw()[s.raw().length / 2] ^= 0x55;
    KismMergeManager<Text, BytesWritable> kism = manager();
    MapOutput<Text, BytesWritable> out = kism.reserve(map(0), s.decompressedLength(), 0);
    assertThrows(IOException.class, () -> out.shuffle(HOST, new ByteArrayInputStream(s.raw()),
        s.raw().length, s.decompressedLength(), metrics(), reporter));
    out.abort();
  }

  /**
   * With shared memory that grants room for some outputs: those go into its dir and are never
   * written to local disk, the rest go to disk; the merge is stock's, and cleanup leaves the
   * shared memory with nothing left in its dir.
   */
  @Test
  void outputsGoToSharedMemoryWhileItGrantsRoom() throws Exception {
    conf.setLong(MRJobConfig.REDUCE_MEMORY_TOTAL_BYTES, 4L << 20); // nothing stays in the heap
    conf.set(KismConfigKeys.SHARED_MEMORY_CLASS, DirMemory.class.getName());
    conf.set(DirMemory.DIR, Files.createDirectory(dir.resolve("shm")).toString());
    conf.setLong(DirMemory.BUDGET, 600_000);
    List<List<Rec>> outputs = randomOutputs(new Random(7), 40, 60, 20 * 1024, 6);
    checkAgainstStock(outputs, null);
    long shared = count(KismCounter.SEGMENTS_IN_SHARED_MEMORY);
    assertTrue(shared > 0 && shared < outputs.size(), "in shared memory: " + shared);
    assertEquals(outputs.size(), shared + count(KismCounter.SEGMENTS_ON_DISK));
    assertEquals(DirMemory.last.granted, count(KismCounter.SHARED_MEMORY_BYTES));
    assertTrue(DirMemory.last.granted <= 600_000);
    assertEquals(count(KismCounter.LOCAL_BYTES_WRITTEN), count(KismCounter.LOCAL_BYTES_READ));
    assertTrue(DirMemory.last.closed);
    try (Stream<Path> left = Files.list(dir.resolve("shm"))) {
      assertEquals(List.of(), left.toList(), "files left in shared memory");
    }
  }

  @Test
  void sharedMemoryThatCannotAttachLeavesEverythingOnDisk() throws Exception {
    conf.setLong(MRJobConfig.REDUCE_MEMORY_TOTAL_BYTES, 4L << 20);
    conf.set(KismConfigKeys.SHARED_MEMORY_CLASS, DirMemory.class.getName());
    conf.set(DirMemory.DIR, dir.resolve("no-such-dir").toString());
    List<List<Rec>> outputs = randomOutputs(new Random(8), 10, 60, 1024, 6);
    checkAgainstStock(outputs, null);
    assertEquals(outputs.size(), count(KismCounter.SEGMENTS_ON_DISK));
    assertTrue(DirMemory.last.closed);
  }

  @Test
  void aSharedMemoryClassThatIsNotOneFailsNamingTheKey() {
    conf.set(KismConfigKeys.SHARED_MEMORY_CLASS, String.class.getName());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, this::manager);
    assertTrue(e.getMessage().contains(KismConfigKeys.SHARED_MEMORY_CLASS), e.getMessage());
  }

  /** Shared memory as a plain dir with a byte budget; attach fails where there is no dir. */
  public static final class DirMemory implements SharedSegmentMemory {
    static final String DIR = "test.kism.shared.dir";
    static final String BUDGET = "test.kism.shared.budget";
    static DirMemory last;
    long budget;
    long granted;
    boolean closed;
    private Path dir;

    @Override
    public String attach(Configuration job, String jobId, String attemptId, Reporter reporter) {
      last = this;
      dir = Paths.get(job.get(DIR));
      budget = job.getLong(BUDGET, 0);
      return Files.isDirectory(dir) ? null : "no dir " + dir;
    }

    @Override
    public Path reserve(long bytes) {
      if (granted + bytes > budget) {
        return null;
      }
      granted += bytes;
      return dir;
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  @Test
  void badReadBufferFailsNamingTheKey() {
    conf.set(KismConfigKeys.READ_BUFFER_BYTES, "12 parsecs");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, this::manager);
    assertTrue(e.getMessage().contains(KismConfigKeys.READ_BUFFER_BYTES), e.getMessage());
  }

  // ---------------------------------------------------------------------------------------

  /** Merges {@code outputs} with KISM and with stock; asserts equal; returns shuffled bytes. */
  private long checkAgainstStock(List<List<Rec>> outputs, CompressionCodec codec)
      throws Exception {
    @SuppressWarnings("unchecked")
    RawComparator<Text> cmp = (RawComparator<Text>) conf.getOutputKeyComparator();
    for (List<Rec> o : outputs) {
      o.sort((a, b) -> cmp.compare(a.key, 0, a.key.length, b.key, 0, b.key.length));
    }
    List<Segment> segments = new ArrayList<>();
    long shuffled = 0;
    for (List<Rec> o : outputs) {
      Segment s = ifile(o, codec);
      segments.add(s);
      shuffled += s.raw().length;
    }
    List<Rec> expected = stock(segments, codec, cmp);
    List<Rec> actual = kism(segments, codec);
    assertSameMerge(cmp, expected, actual);
    assertEquals(records(outputs), actual.size());
    try (Stream<Path> left = Files.walk(dir.resolve("local"))) {
      assertEquals(List.of(), left.filter(Files::isRegularFile).toList(), "files left behind");
    }
    return shuffled;
  }

  private List<Rec> kism(List<Segment> segments, CompressionCodec codec) throws Exception {
    KismMergeManager<Text, BytesWritable> kism = manager(codec);
    ShuffleClientMetrics metrics = metrics();
    for (int i = 0; i < segments.size(); i++) {
      Segment s = segments.get(i);
      MapOutput<Text, BytesWritable> out = kism.reserve(map(i), s.decompressedLength(), i % 5);
      out.shuffle(HOST, new ByteArrayInputStream(s.raw()), s.raw().length,
          s.decompressedLength(), metrics, reporter);
      out.commit();
    }
    RawKeyValueIterator it = kism.close();
    List<Rec> out = drain(it);
    assertEquals(1.0f, it.getProgress().getProgress(), 1e-6);
    it.close();
    return out;
  }

  private List<Rec> stock(List<Segment> segments, CompressionCodec codec, RawComparator<Text> cmp)
      throws IOException {
    FileSystem fs = FileSystem.getLocal(conf).getRaw();
    Path stockDir = Files.createDirectories(dir.resolve("stock"));
    org.apache.hadoop.fs.Path[] paths = new org.apache.hadoop.fs.Path[segments.size()];
    for (int i = 0; i < paths.length; i++) {
      Path p = stockDir.resolve("map_" + i + ".out");
      Files.write(p, segments.get(i).raw());
      paths[i] = new org.apache.hadoop.fs.Path(p.toString());
    }
    RawKeyValueIterator it = Merger.merge(conf, fs, Text.class, BytesWritable.class, codec, paths,
        true, 10, new org.apache.hadoop.fs.Path(stockDir.resolve("tmp").toString()), cmp,
        Reporter.NULL, null, null, new Progress());
    List<Rec> out = drain(it);
    it.close();
    return out;
  }

  private static List<Rec> drain(RawKeyValueIterator it) throws IOException {
    List<Rec> out = new ArrayList<>();
    while (it.next()) {
      DataInputBuffer k = it.getKey();
      DataInputBuffer v = it.getValue();
      out.add(new Rec(Arrays.copyOfRange(k.getData(), k.getPosition(), k.getLength()),
          Arrays.copyOfRange(v.getData(), v.getPosition(), v.getLength())));
    }
    return out;
  }

  /** Same keys in the same order; for each run of equal keys the same values (any order). */
  private static void assertSameMerge(RawComparator<Text> cmp, List<Rec> expected,
      List<Rec> actual) {
    assertEquals(expected.size(), actual.size(), "record count");
    Comparator<Rec> byValue = (a, b) -> Arrays.compare(a.value, b.value);
    int i = 0;
    while (i < expected.size()) {
      int j = i;
      byte[] k = expected.get(i).key;
      while (j < expected.size()
          && cmp.compare(k, 0, k.length, expected.get(j).key, 0, expected.get(j).key.length) == 0) {
        j++;
      }
      List<Rec> e = new ArrayList<>(expected.subList(i, j));
      List<Rec> a = new ArrayList<>(actual.subList(i, j));
      e.sort(byValue);
      a.sort(byValue);
      for (int n = 0; n < e.size(); n++) {
        assertArrayEquals(e.get(n).key, a.get(n).key, "key at record " + (i + n));
        assertArrayEquals(e.get(n).value, a.get(n).value, "value at record " + (i + n));
      }
      i = j;
    }
  }

  /**
   * Random outputs: keys from a small alphabet (many duplicates across and within outputs),
   * values of 0 to maxValue bytes.
   */
  private static List<List<Rec>> randomOutputs(Random r, int outputs, int maxRecords,
      int maxValue, int keyChars) {
    List<List<Rec>> all = new ArrayList<>();
    for (int o = 0; o < outputs; o++) {
      List<Rec> recs = new ArrayList<>();
      int n = r.nextInt(maxRecords + 1);
      for (int i = 0; i < n; i++) {
        char[] key = new char[r.nextInt(keyChars + 1)];
        for (int c = 0; c < key.length; c++) {
          key[c] = (char) ('a' + r.nextInt(4));
        }
        byte[] value = new byte[r.nextInt(maxValue + 1)];
        r.nextBytes(value);
        recs.add(rec(new String(key), value));
      }
      all.add(recs);
    }
    return all;
  }

  private static Rec rec(String key, byte[] value) {
    try {
      DataOutputBuffer k = new DataOutputBuffer();
      new Text(key).write(k);
      DataOutputBuffer v = new DataOutputBuffer();
      new BytesWritable(value).write(v);
      return new Rec(Arrays.copyOf(k.getData(), k.getLength()),
          Arrays.copyOf(v.getData(), v.getLength()));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long records(List<List<Rec>> outputs) {
    return outputs.stream().mapToLong(List::size).sum();
  }

  private Segment ifile(List<Rec> recs, CompressionCodec codec) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    IFile.Writer<Text, BytesWritable> w = new IFile.Writer<>(conf,
        new FSDataOutputStream(bytes, null), Text.class, BytesWritable.class, codec, null);
    DataInputBuffer k = new DataInputBuffer();
    DataInputBuffer v = new DataInputBuffer();
    for (Rec rec : recs) {
      k.reset(rec.key, rec.key.length);
      v.reset(rec.value, rec.value.length);
      w.append(k, v);
    }
    w.close();
    assertEquals(w.getCompressedLength(), bytes.size());
    return new Segment(bytes.toByteArray(), w.getRawLength());
  }

  private KismMergeManager<Text, BytesWritable> manager() {
    return manager(null);
  }

  private KismMergeManager<Text, BytesWritable> manager(CompressionCodec codec) {
    Counters counters = reporter.counters;
    try {
      return new KismMergeManager<>(REDUCE, conf, FileSystem.getLocal(conf), codec,
          new MROutputFiles(), reporter, counters.findCounter(TaskCounter.MERGED_MAP_OUTPUTS));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static TaskAttemptID map(int i) {
    return new TaskAttemptID("kism", 1, TaskType.MAP, i, 0);
  }

  private ShuffleClientMetrics metrics() {
    return ShuffleClientMetrics.create(REDUCE, conf);
  }

  private long count(Enum<?> counter) {
    return reporter.counters.findCounter(counter).getValue();
  }

  /** Sorts Text keys in reverse byte order: a comparator that is not the key's own. */
  public static class ReverseText extends WritableComparator {
    public ReverseText() {
      super(Text.class);
    }

    @Override
    public int compare(byte[] b1, int s1, int l1, byte[] b2, int s2, int l2) {
      return -Text.Comparator.class.cast(WritableComparator.get(Text.class))
          .compare(b1, s1, l1, b2, s2, l2);
    }
  }
}
