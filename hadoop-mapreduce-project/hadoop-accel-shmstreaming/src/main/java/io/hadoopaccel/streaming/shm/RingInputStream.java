package io.hadoopaccel.streaming.shm;

import java.io.IOException;
import java.io.InputStream;

/** The program's records to the task: reads from the output ring, -1 once the program closed it. */
final class RingInputStream extends InputStream {
  private final ShmRing ring;
  private final Runnable onClose;
  private final byte[] one = new byte[1];
  private boolean closed;

  RingInputStream(ShmRing ring, Runnable onClose) {
    this.ring = ring;
    this.onClose = onClose;
  }

  @Override
  public int read() throws IOException {
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    return ring.read(b, off, len);
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      ring.close();
      onClose.run();
    }
  }
}
