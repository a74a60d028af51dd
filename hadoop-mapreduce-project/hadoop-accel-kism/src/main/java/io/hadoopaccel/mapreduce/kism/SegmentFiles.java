package io.hadoopaccel.mapreduce.kism;

import java.io.Closeable;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IOUtils;

/**
 * The local files a single merge pass reads, at most {@code maxOpen} of them open at once (least
 * recently read is closed first), so thousands of map outputs merge in one pass without running
 * out of file descriptors. Reads are positional, so a reopened file needs no seek state.
 */
final class SegmentFiles implements Closeable {
  private final FileSystem fs;
  private final int maxOpen;
  private final Map<Path, FSDataInputStream> open = new LinkedHashMap<>(16, 0.75f, true);
  private long reopens;

  SegmentFiles(FileSystem fs, int maxOpen) {
    this.fs = fs;
    this.maxOpen = maxOpen;
  }

  /** Reads exactly {@code len} bytes at {@code position} of {@code path}. */
  synchronized void readFully(Path path, long position, byte[] b, int off, int len)
      throws IOException {
    FSDataInputStream in = open.get(path);
    if (in == null) {
      if (open.size() >= maxOpen) {
        Iterator<FSDataInputStream> eldest = open.values().iterator();
        IOUtils.closeStream(eldest.next());
        eldest.remove();
        reopens++;
      }
      in = fs.open(path);
      open.put(path, in);
    }
    in.readFully(position, b, off, len);
  }

  /** Closes {@code path} if it is open (its segment is fully read). */
  synchronized void release(Path path) {
    IOUtils.closeStream(open.remove(path));
  }

  /** Files that had to be reopened because more than maxOpen were in use. */
  synchronized long reopens() {
    return reopens;
  }

  @Override
  public synchronized void close() {
    open.values().forEach(IOUtils::closeStream);
    open.clear();
  }
}
