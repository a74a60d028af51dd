package io.hadoopaccel.mapreduce.kism;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import org.apache.hadoop.fs.Path;

/**
 * Bytes {@code [offset, offset + length)} of a local file, read ahead {@code bufferBytes} at a
 * time through {@link SegmentFiles}: each segment is consumed in its own order, so every
 * read-ahead is one sequential read. The buffer is direct, so a read costs one copy from the
 * page cache and one into the caller's array.
 */
final class FileRangeInputStream extends InputStream {
  private final SegmentFiles files;
  private final Path path;
  private final long end;
  private final ByteBuffer buffer;
  private long pos;

  FileRangeInputStream(SegmentFiles files, Path path, long offset, long length, int bufferBytes) {
    this.files = files;
    this.path = path;
    this.pos = offset;
    this.end = offset + length;
    this.buffer = ByteBuffer.allocateDirect((int) Math.max(1, Math.min(bufferBytes, length)));
    this.buffer.limit(0);
  }

  @Override
  public int read() throws IOException {
    if (!buffer.hasRemaining() && !fill()) {
      return -1;
    }
    return buffer.get() & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (!buffer.hasRemaining() && !fill()) {
      return -1;
    }
    int n = Math.min(len, buffer.remaining());
    buffer.get(b, off, n);
    return n;
  }

  @Override
  public int available() {
    return buffer.remaining();
  }

  private boolean fill() throws IOException {
    if (pos >= end) {
      return false;
    }
    buffer.clear();
    buffer.limit((int) Math.min(buffer.capacity(), end - pos));
    files.readFully(path, pos, buffer);
    pos += buffer.position();
    buffer.flip();
    return true;
  }

  /** Bytes of the range not yet handed out. */
  long remaining() {
    return end - pos + buffer.remaining();
  }
}
