package io.hadoopaccel.mapreduce.kism;

import java.io.IOException;
import java.io.InputStream;
import org.apache.hadoop.fs.Path;

/**
 * Bytes {@code [offset, offset + length)} of a local file, read ahead {@code buffer.length} bytes
 * at a time through {@link SegmentFiles}: each segment is consumed in its own order, so every
 * read-ahead is one sequential read.
 */
final class FileRangeInputStream extends InputStream {
  private final SegmentFiles files;
  private final Path path;
  private final long end;
  private final byte[] buffer;
  private long pos;
  private int bufPos;
  private int bufLen;

  FileRangeInputStream(SegmentFiles files, Path path, long offset, long length, int bufferBytes) {
    this.files = files;
    this.path = path;
    this.pos = offset;
    this.end = offset + length;
    this.buffer = new byte[(int) Math.max(1, Math.min(bufferBytes, length))];
  }

  @Override
  public int read() throws IOException {
    if (bufPos == bufLen && !fill()) {
      return -1;
    }
    return buffer[bufPos++] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (bufPos == bufLen) {
      if (len >= buffer.length && pos < end) { // large read: skip the copy
        int n = (int) Math.min(len, end - pos);
        files.readFully(path, pos, b, off, n);
        pos += n;
        return n;
      }
      if (!fill()) {
        return -1;
      }
    }
    int n = Math.min(len, bufLen - bufPos);
    System.arraycopy(buffer, bufPos, b, off, n);
    bufPos += n;
    return n;
  }

  @Override
  public int available() {
    return bufLen - bufPos;
  }

  private boolean fill() throws IOException {
    if (pos >= end) {
      return false;
    }
    int n = (int) Math.min(buffer.length, end - pos);
    files.readFully(path, pos, buffer, 0, n);
    pos += n;
    bufPos = 0;
    bufLen = n;
    return true;
  }

  /** Bytes of the range not yet handed out. */
  long remaining() {
    return end - pos + (bufLen - bufPos);
  }
}
