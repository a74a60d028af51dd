package io.hadoopaccel.streaming.shm;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The task's records to the program: buffered writes into the input ring. {@link #close()} ends
 * the stream (the ring itself is closed by {@link ShmChannel#finish}) (the program reads end of input after the last record) and then closes the
 * program's stdin pipe too, which carried only the handshake.
 */
final class RingOutputStream extends OutputStream {
  private final ShmRing ring;
  private final OutputStream stdin;
  private final Runnable onClose;
  /** Bytes handed to the ring per native call. */
  static final int CHUNK = 64 * 1024;

  private final byte[] buf = new byte[CHUNK];
  private int used;
  private boolean closed;

  RingOutputStream(ShmRing ring, OutputStream stdin, Runnable onClose) {
    this.ring = ring;
    this.stdin = stdin;
    this.onClose = onClose;
  }

  @Override
  public void write(int b) throws IOException {
    if (used == buf.length) {
      drain();
    }
    buf[used++] = (byte) b;
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    if (len > buf.length - used) {
      drain();
      if (len >= buf.length) {
        ring.write(b, off, len);
        return;
      }
    }
    System.arraycopy(b, off, buf, used, len);
    used += len;
  }

  /** Hands buffered bytes to the ring and wakes the program. */
  @Override
  public void flush() throws IOException {
    drain();
    ring.flush();
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      drain();
    } finally {
      ring.end(); // still mapped: ShmChannel.finish asks what the program left unread

      try {
        stdin.close();
      } catch (IOException e) {
        // The program may have exited already: its stdin carried only the handshake.
      }
      onClose.run();
    }
  }

  private void drain() throws IOException {
    if (used > 0) {
      int n = used;
      used = 0;
      ring.write(buf, 0, n);
    }
  }
}
