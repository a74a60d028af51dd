package io.hadoopaccel.mapreduce.coomr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.common.mapred.CountingReporter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.DefaultCodec;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.IFile;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MROutputFiles;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.util.ReflectionUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where spills go, and what they hold of the pool, against the native coordinator. */
class TestPoolSpillFiles {
  private static final int BLOCK = 64 << 10;
  private static final int POOL_BLOCKS = 40;

  @TempDir
  Path tmp;
  private TestDaemon daemon;
  private CoordinatorClient client;
  private Path socket;
  private JobConf conf;
  private final CountingReporter reporter = new CountingReporter();
  private final Counters counters = reporter.counters;

  @BeforeEach
  void start() throws Exception {
    daemon = new TestDaemon(tmp, POOL_BLOCKS * BLOCK, BLOCK);
    socket = daemon.socket;
    client = CoordinatorClient.attach(socket, "job_1_0001", "attempt_1_0001_m_000000_0", 10_000);
    conf = new JobConf(false);
    conf.set(MRConfig.LOCAL_DIR, tmp.resolve("local").toString());
  }

  @AfterEach
  void stop() throws Exception {
    if (client != null) {
      client.close();
    }
    if (daemon != null) {
      daemon.close();
    }
  }

  private PoolSpillFiles spills(long sortBufferBytes, int partitions, boolean compressed,
      long records) {
    MROutputFiles files = new MROutputFiles();
    files.setConf(conf);
    return new PoolSpillFiles(files, client, sortBufferBytes, partitions, compressed,
        () -> records, reporter);
  }

  @Test
  void spillsGoIntoThePoolAndWhatTheyDoNotUseGoesBack() throws IOException {
    PoolSpillFiles s = spills(1 << 20, 2, false, 1000);
    org.apache.hadoop.fs.Path p0 = s.getSpillFileForWrite(0, 200_000);
    assertTrue(local(p0).startsWith(client.dir()), p0.toString());
    long granted0 = blocks(s.bound(200_000));
    assertEquals(granted0, s.heldBlocks());
    write(p0, 150_000); // smaller than the bound: 3 blocks of 64 KiB
    write(s.getSpillFileForWrite(1, 100_000), 10); // the next spill settles the first
    assertEquals(3 + blocks(s.bound(100_000)), s.heldBlocks());
    assertEquals(local(p0), local(s.getSpillFile(0))); // two spills: merged from the pool
    assertEquals(3 + 1, s.heldBlocks());
    assertEquals(2, counters.getCounter(CoomrCounter.POOL_SPILLS));
    assertEquals(150_010, counters.getCounter(CoomrCounter.POOL_SPILL_BYTES));
  }

  @Test
  void aMapsOnlySpillIsCopiedToDiskForStocksRename() throws IOException {
    PoolSpillFiles s = spills(1 << 20, 1, false, 1000);
    org.apache.hadoop.fs.Path pooled = s.getSpillFileForWrite(0, 100_000);
    byte[] data = write(pooled, 90_000);
    org.apache.hadoop.fs.Path merged = s.getSpillFile(0);
    assertTrue(local(merged).startsWith(tmp.resolve("local")), merged.toString());
    assertArrayEquals(data, Files.readAllBytes(local(merged)));
    assertFalse(Files.exists(local(pooled)));
    assertEquals(0, s.heldBlocks());
    assertEquals(1, counters.getCounter(CoomrCounter.SPILLS_MOVED_TO_DISK));
  }

  @Test
  void whileTheShuffleServesThePoolAMapsOnlySpillBecomesItsOutputThere() throws IOException {
    try (CoordinatorClient.Lookups shuffle = CoordinatorClient.lookups(socket, 10_000);
        CoordinatorClient mapper = CoordinatorClient.attach(socket, "job_1_0001",
            "attempt_1_0001_m_000001_0", 10_000)) {
      assertTrue(mapper.servesOutputs());
      MROutputFiles files = new MROutputFiles();
      files.setConf(conf);
      PoolSpillFiles s = new PoolSpillFiles(files, mapper, 1 << 20, 1, false, () -> 1000,
          reporter);
      s.finalSpillNext();
      org.apache.hadoop.fs.Path spill = s.getSpillFileForWrite(0, 100_000); // into the pool
      assertTrue(local(spill).startsWith(mapper.dir()), spill.toString());
      write(spill, 90_000);
      assertEquals(local(spill), local(s.getSpillFile(0))); // the merge renames it, in the pool
      org.apache.hadoop.fs.Path out = s.getOutputFileForWriteInVolume(spill);
      org.apache.hadoop.fs.Path index = s.getOutputIndexFileForWriteInVolume(spill);
      assertEquals(mapper.dir().resolve(PoolSpillFiles.DATA), local(out));
      assertEquals(mapper.dir().resolve(PoolSpillFiles.INDEX), local(index));
      Files.move(local(spill), local(out));
      write(index, 32);
      assertEquals(local(out), local(s.getOutputFile()));
      assertTrue(s.handover());
      assertEquals(1, counters.getCounter(CoomrCounter.POOL_OUTPUTS));
      assertEquals(90_000, counters.getCounter(CoomrCounter.POOL_OUTPUT_BYTES));
      // The coordinator has it: the shuffle finds it in the pool, then at its disk path.
      String[] where = shuffle.lookup("job_1_0001", "attempt_1_0001_m_000001_0");
      assertTrue(where != null && where[0].endsWith(PoolSpillFiles.DATA), Arrays.toString(where));
      mapper.detach();
    }
  }

  @Test
  void theFlushSpillOfAMapWithNoOtherGoesToDisk() throws IOException {
    PoolSpillFiles s = spills(1 << 20, 1, false, 1000);
    s.finalSpillNext();
    org.apache.hadoop.fs.Path p = s.getSpillFileForWrite(0, 100_000);
    assertTrue(local(p).startsWith(tmp.resolve("local")), p.toString());
    assertEquals(0, s.heldBlocks());
    assertEquals(1, counters.getCounter(CoomrCounter.DISK_SPILLS));
  }

  @Test
  void aSpillThePoolRefusesGoesToDisk() throws IOException {
    PoolSpillFiles s = spills(8 << 20, 1, false, 1000);
    org.apache.hadoop.fs.Path p = s.getSpillFileForWrite(0, (POOL_BLOCKS + 1) * BLOCK);
    assertTrue(local(p).startsWith(tmp.resolve("local")), p.toString());
    assertEquals(0, s.heldBlocks());
    assertEquals(1, counters.getCounter(CoomrCounter.DISK_SPILLS));
  }

  /**
   * The bound holds for real IFile spills at the worst cases of its two length fields: records
   * as small as they come (a one-byte key, no value) filling the whole sort buffer, and values
   * of 128 bytes (a two-byte length), raw and through a codec on incompressible bytes.
   */
  @Test
  void theBoundCoversRealSpills() throws IOException {
    byte[] random = new byte[128];
    new java.util.Random(7).nextBytes(random);
    for (boolean compressed : new boolean[] {false, true}) {
      checkBound(new Text("a"), NullWritable.get(), 20_000, compressed);
      checkBound(new Text("k"), new BytesWritable(random), 2_000, compressed);
    }
  }

  private <K extends org.apache.hadoop.io.Writable, V extends org.apache.hadoop.io.Writable>
      void checkBound(K key, V value, int records, boolean compressed) throws IOException {
    long data = (long) records * (serialized(key) + serialized(value));
    PoolSpillFiles s = spills(data + PoolSpillFiles.METASIZE * records, 1, compressed, records);
    java.nio.file.Path file = tmp.resolve("ifile-" + records + "-" + compressed);
    FileSystem fs = FileSystem.getLocal(conf).getRaw();
    CompressionCodec codec =
        compressed ? ReflectionUtils.newInstance(DefaultCodec.class, conf) : null;
    try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(file.toString()))) {
      @SuppressWarnings("unchecked")
      IFile.Writer<K, V> w = new IFile.Writer<>(conf, out, (Class<K>) key.getClass(),
          (Class<V>) value.getClass(), codec, null);
      for (int i = 0; i < records; i++) {
        w.append(key, value);
      }
      w.close();
    }
    long bound = s.bound(data + PoolSpillFiles.APPROX_HEADER_LENGTH);
    assertTrue(Files.size(file) <= bound, file + ": " + Files.size(file) + " > " + bound);
  }

  private static int serialized(org.apache.hadoop.io.Writable w) throws IOException {
    org.apache.hadoop.io.DataOutputBuffer b = new org.apache.hadoop.io.DataOutputBuffer();
    w.write(b);
    return b.getLength();
  }

  private static long blocks(long bytes) {
    return (bytes + BLOCK - 1) / BLOCK;
  }

  private static Path local(org.apache.hadoop.fs.Path p) {
    return Paths.get(p.toUri().getPath());
  }

  private static byte[] write(org.apache.hadoop.fs.Path p, int bytes) throws IOException {
    byte[] data = new byte[bytes];
    Arrays.fill(data, (byte) 0x5a);
    Files.createDirectories(local(p).getParent());
    Files.write(local(p), data);
    return data;
  }
}
