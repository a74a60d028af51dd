package io.hadoopaccel.mapreduce.kism;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.util.CleanerUtil;

/**
 * The segment logs one merge pass reads from, each opened once and shared by all the segments
 * in it. Reads are positional, straight into the caller's direct buffer (no intermediate heap
 * copy), so segments interleave freely without seek state. Bytes read are added to the local
 * file system's statistics, so the task's FILE_BYTES_READ counts them as stock's reads are.
 */
final class SegmentFiles implements Closeable {
  private final FileSystem.Statistics statistics;
  private final Map<Path, FileChannel> open = new HashMap<>();

  SegmentFiles(FileSystem fs) {
    this.statistics = FileSystem.getStatistics(fs.getUri().getScheme(), fs.getClass());
  }

  private synchronized FileChannel channel(Path path) throws IOException {
    FileChannel ch = open.get(path);
    if (ch == null) {
      ch = FileChannel.open(Paths.get(path.toUri().getPath()), StandardOpenOption.READ);
      open.put(path, ch);
    }
    return ch;
  }

  /** Fills {@code dst} (position to limit) from {@code position} of {@code path}. */
  void readFully(Path path, long position, ByteBuffer dst) throws IOException {
    FileChannel ch = channel(path);
    int n = dst.remaining();
    while (dst.hasRemaining()) {
      int r = ch.read(dst, position);
      if (r < 0) {
        throw new EOFException("End of " + path + " at " + position + ", " + dst.remaining()
            + " bytes short");
      }
      position += r;
    }
    statistics.incrementBytesRead(n);
    statistics.incrementReadOps(1);
  }

  /**
   * Maps {@code length} bytes of {@code path} from {@code position}, read only; counts
   * {@code newBytes} of them as read (windows may overlap: their shared bytes count once).
   * Release it with {@link #unmap}.
   */
  MappedByteBuffer map(Path path, long position, long length, long newBytes) throws IOException {
    MappedByteBuffer b = channel(path).map(FileChannel.MapMode.READ_ONLY, position, length);
    statistics.incrementBytesRead(newBytes);
    statistics.incrementReadOps(1);
    return b;
  }

  /**
   * Unmaps now where the JVM allows it, so a deleted log's pages are not held until a GC; else
   * the mapping goes with the buffer.
   */
  void unmap(MappedByteBuffer b) {
    if (CleanerUtil.UNMAP_SUPPORTED) {
      try {
        CleanerUtil.getCleaner().freeBuffer(b);
      } catch (IOException e) {
        // left to the garbage collector
      }
    }
  }

  @Override
  public synchronized void close() {
    open.values().forEach(IOUtils::closeStream);
    open.clear();
  }
}
