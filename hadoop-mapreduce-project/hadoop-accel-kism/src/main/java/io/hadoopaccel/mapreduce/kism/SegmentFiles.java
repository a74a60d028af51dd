package io.hadoopaccel.mapreduce.kism;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IOUtils;

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

  /** Fills {@code dst} (position to limit) from {@code position} of {@code path}. */
  void readFully(Path path, long position, ByteBuffer dst) throws IOException {
    FileChannel ch;
    synchronized (this) {
      ch = open.get(path);
      if (ch == null) {
        ch = FileChannel.open(Paths.get(path.toUri().getPath()), StandardOpenOption.READ);
        open.put(path, ch);
      }
    }
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

  @Override
  public synchronized void close() {
    open.values().forEach(IOUtils::closeStream);
    open.clear();
  }
}
