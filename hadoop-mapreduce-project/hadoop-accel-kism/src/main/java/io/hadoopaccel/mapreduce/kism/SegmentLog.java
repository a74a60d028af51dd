package io.hadoopaccel.mapreduce.kism;

import java.io.Closeable;
import java.io.IOException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * An append-only local file that map outputs are written into back to back (log-structured, as
 * CooMR's LOCS does): one file per concurrent writer instead of one per map output, so hundreds
 * of outputs cost a handful of files, and each output is one sequential write.
 */
final class SegmentLog implements Closeable {
  private final Path path;
  private final boolean shared;
  private final FSDataOutputStream out;

  /** A new log at {@code path}: in node-shared memory if {@code shared}, else on local disk. */
  SegmentLog(FileSystem fs, Path path, boolean shared) throws IOException {
    this.path = path;
    this.shared = shared;
    this.out = fs.create(path);
  }

  Path path() {
    return path;
  }

  boolean shared() {
    return shared;
  }

  /** Where the next append starts. */
  long position() throws IOException {
    return out.getPos();
  }

  FSDataOutputStream stream() {
    return out;
  }

  /** Makes everything appended so far visible to readers of the file. */
  void flush() throws IOException {
    out.flush();
  }

  @Override
  public void close() throws IOException {
    out.close();
  }
}
