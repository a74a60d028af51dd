package io.hadoopaccel.mapreduce.kism.bench;

import io.hadoopaccel.common.mapred.CountingReporter;
import io.hadoopaccel.mapreduce.kism.KismCounter;
import io.hadoopaccel.mapreduce.kism.KismMergeManager;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalDirAllocator;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.io.RawComparator;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.IFile;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MROutputFiles;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.MapOutput;
import org.apache.hadoop.mapreduce.task.reduce.MergeManager;
import org.apache.hadoop.mapreduce.task.reduce.MergeManagerImpl;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleClientMetrics;
import org.apache.hadoop.util.Progress;

/**
 * The reduce side of a shuffle-heavy job in one JVM, without a cluster: map outputs (real IFile
 * files, as map tasks write them) are fed to upstream's {@code MergeManagerImpl} or to
 * {@link KismMergeManager} exactly as fetchers do, then the merged stream is consumed by a
 * reduce that checksums every value. This is where hundreds of map outputs per reducer can be
 * measured on a 2-core machine (a cluster job would spend its time starting 500 map JVMs).
 *
 * <pre>
 *   MergeBench generate DIR MAPS BYTES_PER_MAP MIN_VALUE MAX_VALUE KEYS CODEC|none SEED
 *   MergeBench run stock|kism DIR LOCAL_DIR [key=value ...]   (prints one JSON object)
 * </pre>
 */
public final class MergeBench {
  private static final TaskAttemptID REDUCE = new TaskAttemptID("bench", 1, TaskType.REDUCE, 0, 0);

  private MergeBench() {}

  public static void main(String[] args) throws Throwable {
    if (args.length > 0 && args[0].equals("generate") && args.length == 9) {
      generate(Paths.get(args[1]), Integer.parseInt(args[2]), Long.parseLong(args[3]),
          Integer.parseInt(args[4]), Integer.parseInt(args[5]), Integer.parseInt(args[6]),
          args[7], Long.parseLong(args[8]));
    } else if (args.length >= 4 && args[0].equals("run")) {
      Map<String, String> conf = new LinkedHashMap<>();
      for (int i = 4; i < args.length; i++) {
        String[] kv = args[i].split("=", 2);
        conf.put(kv[0], kv[1]);
      }
      System.out.println("RESULT " + run(args[1], Paths.get(args[2]), Paths.get(args[3]), conf));
    } else {
      System.err.println("usage: MergeBench generate DIR MAPS BYTES_PER_MAP MIN_VALUE MAX_VALUE"
          + " KEYS CODEC|none SEED\n       MergeBench run stock|kism DIR LOCAL_DIR [key=value ...]");
      System.exit(2);
    }
  }

  /** Map outputs like AdjacencyList's: node-id keys, sorted, values of MIN..MAX bytes. */
  static void generate(Path dir, int maps, long bytesPerMap, int minValue, int maxValue,
      int keys, String codecName, long seed) throws IOException {
    Files.createDirectories(dir);
    JobConf conf = new JobConf();
    CompressionCodec codec = codec(conf, codecName);
    StringBuilder index = new StringBuilder();
    for (int m = 0; m < maps; m++) {
      Random r = new Random(seed * 1_000_003L + m);
      TreeMap<String, List<byte[]>> recs = new TreeMap<>();
      for (long bytes = 0; bytes < bytesPerMap; ) {
        byte[] value = new byte[minValue + r.nextInt(maxValue - minValue + 1)];
        r.nextBytes(value);
        recs.computeIfAbsent(String.format("node%09d", r.nextInt(keys)), k -> new ArrayList<>())
            .add(value);
        bytes += value.length;
      }
      ByteArrayOutputStream raw = new ByteArrayOutputStream();
      IFile.Writer<Text, BytesWritable> w = new IFile.Writer<>(conf,
          new FSDataOutputStream(raw, null), Text.class, BytesWritable.class, codec, null);
      for (Map.Entry<String, List<byte[]>> e : recs.entrySet()) {
        for (byte[] v : e.getValue()) {
          w.append(new Text(e.getKey()), new BytesWritable(v));
        }
      }
      w.close();
      Files.write(dir.resolve("map_" + m + ".out"), raw.toByteArray());
      index.append("map_").append(m).append(".out\t").append(w.getCompressedLength()).append('\t')
          .append(w.getRawLength()).append('\n');
    }
    Files.writeString(dir.resolve("index.tsv"), index.toString());
    Files.writeString(dir.resolve("codec"), codecName);
  }

  private static CompressionCodec codec(JobConf conf, String name) {
    if (name.equals("none")) {
      return null;
    }
    CompressionCodec c = new CompressionCodecFactory(conf).getCodecByName(name);
    if (c == null) {
      throw new IllegalArgumentException("unknown codec " + name);
    }
    return c;
  }

  static String run(String impl, Path dir, Path local, Map<String, String> settings)
      throws Throwable {
    JobConf conf = new JobConf();
    conf.set(MRConfig.LOCAL_DIR, local.toString());
    conf.setMapOutputKeyClass(Text.class);
    conf.setMapOutputValueClass(BytesWritable.class);
    settings.forEach(conf::set);
    CompressionCodec codec = codec(conf, Files.readString(dir.resolve("codec")).trim());
    CountingReporter reporter = new CountingReporter();
    Counters c = reporter.counters;
    // The first failure of a fetcher thread or of stock's merge threads.
    AtomicReference<Throwable> failure = new AtomicReference<>();
    FileSystem fs = FileSystem.getLocal(conf);
    MergeManager<Text, BytesWritable> merger = impl.equals("kism")
        ? new KismMergeManager<>(REDUCE, conf, fs, codec, new MROutputFiles(), reporter,
            c.findCounter(TaskCounter.MERGED_MAP_OUTPUTS))
        : new MergeManagerImpl<>(REDUCE, conf, fs, new LocalDirAllocator(MRConfig.LOCAL_DIR),
            reporter, codec, null, null, c.findCounter(TaskCounter.SPILLED_RECORDS),
            c.findCounter(TaskCounter.COMBINE_INPUT_RECORDS),
            c.findCounter(TaskCounter.MERGED_MAP_OUTPUTS), t -> failure.compareAndSet(null, t),
            new Progress(), new MROutputFiles());
    ShuffleClientMetrics metrics = ShuffleClientMetrics.create(REDUCE, conf);
    MapHost host = new MapHost("localhost", "http://localhost:0/");
    List<String[]> index = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve("index.tsv"))) {
      index.add(line.split("\t"));
    }
    FileSystem.clearStatistics();
    long cpu0 = cpuNanos();
    long t0 = System.nanoTime();
    // As many feeding threads as the reduce has fetchers, each taking the next map output.
    int fetchers = conf.getInt(MRJobConfig.SHUFFLE_PARALLEL_COPIES, 5); // stock Shuffle's default
    AtomicInteger nextMap = new AtomicInteger();
    AtomicLong shuffledBytes = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int f = 0; f < fetchers; f++) {
      int fetcher = f;
      Thread t = new Thread(() -> {
        try {
          for (int m; (m = nextMap.getAndIncrement()) < index.size() && failure.get() == null; ) {
            shuffledBytes.addAndGet(feed(merger, dir, index.get(m), m, fetcher, host, metrics,
                reporter));
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "fetcher#" + f);
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join();
    }
    if (failure.get() != null) {
      throw failure.get();
    }
    long shuffled = shuffledBytes.get();
    long t1 = System.nanoTime();
    long cpu1 = cpuNanos();
    RawKeyValueIterator it = merger.close();
    long t2 = System.nanoTime();
    long cpu2 = cpuNanos();
    // The reduce: checksum every record, check the order.
    @SuppressWarnings("unchecked")
    RawComparator<Text> cmp = (RawComparator<Text>) conf.getOutputKeyComparator();
    CRC32 crc = new CRC32();
    long records = 0;
    long sum = 0;
    byte[] prev = null;
    while (it.next()) {
      DataInputBuffer k = it.getKey();
      DataInputBuffer v = it.getValue();
      int kl = k.getLength() - k.getPosition();
      if (prev != null && cmp.compare(prev, 0, prev.length, k.getData(), k.getPosition(), kl) > 0) {
        throw new IllegalStateException("keys out of order at record " + records);
      }
      prev = java.util.Arrays.copyOfRange(k.getData(), k.getPosition(), k.getLength());
      crc.reset();
      crc.update(k.getData(), k.getPosition(), kl);
      crc.update(v.getData(), v.getPosition(), v.getLength() - v.getPosition());
      sum += crc.getValue(); // order-independent digest of the multiset of records
      records++;
    }
    it.close();
    long t3 = System.nanoTime();
    long cpu3 = cpuNanos();
    if (failure.get() != null) {
      throw failure.get();
    }
    long read = 0;
    long written = 0;
    for (FileSystem.Statistics s : FileSystem.getAllStatistics()) {
      if (s.getScheme().equals("file")) {
        read += s.getBytesRead();
        written += s.getBytesWritten();
      }
    }
    StringBuilder json = new StringBuilder("{");
    json.append(q("impl")).append(':').append(q(impl));
    num(json, "shuffle_s", (t1 - t0) / 1e9);
    num(json, "merge_s", (t2 - t1) / 1e9);
    num(json, "reduce_s", (t3 - t2) / 1e9);
    num(json, "total_s", (t3 - t0) / 1e9);
    num(json, "cpu_shuffle_s", (cpu1 - cpu0) / 1e9);
    num(json, "cpu_merge_reduce_s", (cpu3 - cpu1) / 1e9);
    num(json, "shuffled_bytes", shuffled);
    num(json, "local_bytes_written", written);
    num(json, "local_bytes_read", read);
    num(json, "records", records);
    num(json, "spilled_records", c.findCounter(TaskCounter.SPILLED_RECORDS).getValue());
    for (KismCounter k : KismCounter.values()) {
      long v = c.findCounter(k).getValue();
      if (v != 0) {
        num(json, "KISM_" + k.name(), v);
      }
    }
    json.append(',').append(q("digest")).append(':').append(q(Long.toHexString(sum)));
    return json.append('}').toString();
  }

  /** One fetch: reserve, shuffle the map output's bytes in, commit; returns its length. */
  private static long feed(MergeManager<Text, BytesWritable> merger, Path dir, String[] e, int m,
      int fetcher, MapHost host, ShuffleClientMetrics metrics, CountingReporter reporter)
      throws IOException, InterruptedException {
    long compressed = Long.parseLong(e[1]);
    long decompressed = Long.parseLong(e[2]);
    TaskAttemptID mapId = new TaskAttemptID("bench", 1, TaskType.MAP, m, 0);
    MapOutput<Text, BytesWritable> out;
    while ((out = merger.reserve(mapId, decompressed, fetcher)) == null) {
      merger.waitForResource(); // stock stalls a fetcher until its in-memory merge frees room
    }
    try (InputStream in = new BufferedInputStream(Files.newInputStream(dir.resolve(e[0])),
        64 * 1024)) {
      out.shuffle(host, in, compressed, decompressed, metrics, reporter);
    }
    out.commit();
    return compressed;
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
        ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static String q(String s) {
    return '"' + s + '"';
  }

  private static void num(StringBuilder b, String k, double v) {
    b.append(',').append(q(k)).append(':').append(v);
  }
}
