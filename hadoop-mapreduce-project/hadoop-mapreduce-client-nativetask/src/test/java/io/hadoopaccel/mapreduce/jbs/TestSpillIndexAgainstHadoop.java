package io.hadoopaccel.mapreduce.jbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.jna.Library;
import com.sun.jna.Structure;
import com.sun.jna.ptr.IntByReference;
import io.hadoopaccel.common.conf.AccelConfiguration;
import io.hadoopaccel.common.nativeio.NativeLoader;
import java.io.File;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.util.Optional;
import java.util.Random;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.SpillRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The native index parser against the index files Hadoop 3.5.0 itself writes: upstream's
 * SpillRecord.writeToFile produces file.out.index, libhadoop_jbs reads it back through its C
 * API (hjbs_index_lookup). Pins the format (record layout, byte order, checksum) to the jar
 * the cluster runs rather than to our reading of it.
 */
class TestSpillIndexAgainstHadoop {
  /** -Pnative sets this: then a missing library fails instead of skipping. */
  private static final boolean NATIVE_REQUIRED = Boolean.getBoolean("accel.native.required");

  /** Test-only JNA view of mof_supplier.h (the production Java binding comes with the aux service). */
  public interface Jbs extends Library {
    int hjbs_index_lookup(String path, int partition, IntByReference partitions, Record rec);

    String hjbs_strerror(int code);
  }

  @Structure.FieldOrder({"startOffset", "rawLength", "partLength"})
  public static class Record extends Structure {
    public long startOffset;
    public long rawLength;
    public long partLength;
  }

  private static final int EPARTITION_RANGE = -25;
  private static final int EINDEX_CHECKSUM = -22;
  private static Jbs jbs;

  @BeforeAll
  static void load() {
    Optional<Jbs> api = NativeLoader.load(AccelConfiguration.create(), "hadoop_jbs", Jbs.class,
        "nothing (test)");
    if (NATIVE_REQUIRED) {
      assertTrue(api.isPresent(), "libhadoop_jbs not loaded: "
          + NativeLoader.status("hadoop_jbs").detail());
    }
    assumeTrue(api.isPresent(), "native build not present");
    jbs = api.get();
  }

  private static File writeWithHadoop(File dir, IndexRecord[] recs) throws Exception {
    SpillRecord spill = new SpillRecord(recs.length);
    for (int p = 0; p < recs.length; p++) {
      spill.putIndex(recs[p], p);
    }
    File f = new File(dir, "file.out.index");
    spill.writeToFile(new Path(f.getAbsolutePath()), new JobConf());
    return f;
  }

  @Test
  void readsWhatHadoopWrites() throws Exception {
    Random rnd = new Random(3);
    File dir = Files.createTempDirectory(new File(System.getProperty("java.io.tmpdir")).toPath(),
        "jbs-index").toFile();
    for (int partitions : new int[] {1, 3, 1000}) {
      IndexRecord[] recs = new IndexRecord[partitions];
      long offset = 0;
      for (int p = 0; p < partitions; p++) {
        long part = 6 + (rnd.nextInt(1 << 20));
        // Large values too, so every byte of each long is exercised.
        long raw = p % 7 == 0 ? (1L << 40) + rnd.nextInt() : part * 2 + rnd.nextInt(100);
        recs[p] = new IndexRecord(offset, raw, part);
        offset += part;
      }
      File f = writeWithHadoop(dir, recs);
      assertEquals(24L * partitions + 8, f.length(), "Hadoop's layout: 24 B per partition + 8");

      IntByReference n = new IntByReference();
      Record r = new Record();
      for (int p = 0; p < partitions; p++) {
        int rc = jbs.hjbs_index_lookup(f.getPath(), p, n, r);
        assertEquals(0, rc, jbs.hjbs_strerror(rc));
        assertEquals(partitions, n.getValue());
        assertEquals(recs[p].startOffset, r.startOffset, "start of " + p);
        assertEquals(recs[p].rawLength, r.rawLength, "raw length of " + p);
        assertEquals(recs[p].partLength, r.partLength, "part length of " + p);
      }
      assertEquals(EPARTITION_RANGE, jbs.hjbs_index_lookup(f.getPath(), partitions, n, r));

      // Hadoop's own reader agrees the file is sound, and so does ours once one bit flips.
      assertEquals(recs[partitions - 1].partLength,
          new SpillRecord(new Path(f.getAbsolutePath()), new JobConf())
              .getIndex(partitions - 1).partLength);
      try (RandomAccessFile raf = new RandomAccessFile(f, "rw")) {
        raf.seek(5);
        int b = raf.read();
        raf.seek(5);
        raf.write(b ^ 1);
      }
      assertEquals(EINDEX_CHECKSUM, jbs.hjbs_index_lookup(f.getPath(), 0, n, r));
      assertTrue(f.delete());
    }
  }
}
