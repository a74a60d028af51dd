package io.hadoopaccel.mapreduce.kism;

import java.io.Closeable;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IOUtils;

/**
 * The segment logs one merge pass reads from, each opened once and shared by all the segments
 * in it. Reads are positional, so segments interleave freely without seek state.
 */
final class SegmentFiles implements Closeable {
  private final FileSystem fs;
  private final Map<Path, FSDataInputStream> open = new HashMap<>();

  SegmentFiles(FileSystem fs) {
    this.fs = fs;
  }

  /** Reads exactly {@code len} bytes at {@code position} of {@code path}. */
  synchronized void readFully(Path path, long position, byte[] b, int off, int len)
      throws IOException {
    FSDataInputStream in = open.get(path);
    if (in == null) {
      in = fs.open(path);
      open.put(path, in);
    }
    in.readFully(position, b, off, len);
  }

  @Override
  public synchronized void close() {
    open.values().forEach(IOUtils::closeStream);
    open.clear();
  }
}
