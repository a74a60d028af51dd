package io.hadoopaccel.mapreduce.kism;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.IFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The mapped read path on its own: records of a real IFile segment stored at an offset inside
 * a larger log file come back exactly, whatever the mapping window (down to windows smaller
 * than one record, so every record straddles a window edge), and damage fails the read.
 */
class TestMappedCursor {
  private static final Configuration CONF = new Configuration();
  private static final int PREFIX = 777; // bytes of another segment before ours in the log

  @TempDir
  Path dir;

  private final Random random = new Random(42);
  private final List<byte[][]> records = new ArrayList<>();

  private byte[] segment(int count, int maxValue) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    IFile.Writer<Text, BytesWritable> w = new IFile.Writer<>(CONF,
        new FSDataOutputStream(bytes, null), Text.class, BytesWritable.class, null, null);
    DataInputBuffer k = new DataInputBuffer();
    DataInputBuffer v = new DataInputBuffer();
    for (int i = 0; i < count; i++) {
      byte[] key = String.format("key%08d", i).getBytes();
      byte[] value = new byte[random.nextInt(maxValue + 1)]; // 0 B included
      random.nextBytes(value);
      records.add(new byte[][] {key, value});
      k.reset(key, key.length);
      v.reset(value, value.length);
      w.append(k, v);
    }
    w.close();
    return bytes.toByteArray();
  }

  private FileSegment store(byte[] segment) throws IOException {
    byte[] log = new byte[PREFIX + segment.length + 100];
    random.nextBytes(log);
    System.arraycopy(segment, 0, log, PREFIX, segment.length);
    Path file = dir.resolve("log");
    Files.write(file, log);
    return new FileSegment(new org.apache.hadoop.fs.Path(file.toUri()), PREFIX, segment.length,
        false, 0);
  }

  private SegmentFiles files() throws IOException {
    return new SegmentFiles(FileSystem.getLocal(CONF));
  }

  @ParameterizedTest(name = "window {0} bytes")
  @ValueSource(longs = {10, 4096, 100_000, MappedCursor.WINDOW})
  void recordsComeBackExactlyWhateverTheWindow(long window) throws IOException {
    FileSegment seg = store(segment(300, 20_000));
    FileSystem.Statistics stats = FileSystem.getStatistics("file", FileSystem.getLocal(CONF).getClass());
    long readBefore = stats.getBytesRead();
    try (SegmentFiles files = files()) {
      MappedCursor c = new MappedCursor(seg, files, window);
      for (byte[][] rec : records) {
        assertTrue(c.next());
        assertArrayEquals(rec[0], Arrays.copyOfRange(c.keyBytes(), c.keyOffset(),
            c.keyOffset() + c.keyLength()));
        assertArrayEquals(rec[1], Arrays.copyOfRange(c.valueBytes(), c.valueOffset(),
            c.valueOffset() + c.valueLength()));
      }
      assertFalse(c.next());
      assertEquals(seg.length(), c.position());
      c.close();
    }
    // FILE_BYTES_READ counts each byte once, however the windows overlapped.
    assertEquals(seg.length(), stats.getBytesRead() - readBefore);
  }

  @Test
  void anEmptySegmentHasNoRecords() throws IOException {
    FileSegment seg = store(segment(0, 0));
    try (SegmentFiles files = files()) {
      assertFalse(new MappedCursor(seg, files, 10).next());
    }
  }

  @Test
  void aFlippedValueByteFailsTheChecksum() throws IOException {
    byte[] bytes = segment(50, 5000);
    bytes[bytes.length / 2] ^= 0x10;
    FileSegment seg = store(bytes);
    try (SegmentFiles files = files()) {
      MappedCursor c = new MappedCursor(seg, files, 4096);
      IOException e = assertThrows(IOException.class, () -> {
        while (c.next()) {
          // read to the end, where the checksum is compared
        }
      });
      assertTrue(e.getMessage().contains("Checksum error"), e.getMessage());
    }
  }

  @Test
  void aTruncatedSegmentIsCorruptNotAnOverrun() throws IOException {
    byte[] bytes = segment(50, 5000);
    FileSegment seg = store(Arrays.copyOf(bytes, bytes.length / 3));
    try (SegmentFiles files = files()) {
      MappedCursor c = new MappedCursor(seg, files, 4096);
      IOException e = assertThrows(IOException.class, () -> {
        while (c.next()) {
          // the record that crosses the cut must be refused
        }
      });
      assertTrue(e.getMessage().contains("Corrupt map output")
          || e.getMessage().contains("Checksum error"), e.getMessage());
    }
  }
}
