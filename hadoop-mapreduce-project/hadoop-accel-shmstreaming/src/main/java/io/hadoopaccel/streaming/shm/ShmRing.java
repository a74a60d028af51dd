package io.hadoopaccel.streaming.shm;

import java.io.IOException;

/**
 * One direction of a task's shared-memory channel: the task's end of a ring created in a file.
 * Not thread-safe (one writer or one reader thread, as streaming uses it); {@link #close()} is
 * idempotent. Needs {@link ShmRingLibrary#load} to have succeeded.
 */
final class ShmRing implements AutoCloseable {
  private final String path;
  private long ring;
  private long[] finalStats;

  private ShmRing(String path, long ring) {
    this.path = path;
    this.ring = ring;
  }

  /** Creates the ring file (mode 0600, must not exist) and takes {@code role}. */
  static ShmRing create(String path, long capacity, int role, int batch) throws IOException {
    long handle = ShmRingLibrary.create(path, capacity, role, batch);
    check(handle, "create " + path);
    return new ShmRing(path, handle);
  }

  String path() {
    return path;
  }

  /** Whether the program attached within {@code timeoutMs}. */
  boolean waitPeer(int timeoutMs) throws IOException {
    int rc = ShmRingLibrary.waitPeer(open(), timeoutMs);
    if (rc == -Errno.ETIMEDOUT) {
      return false;
    }
    check(rc, "wait for the program on " + path);
    return true;
  }

  /** Writes all of b[off, off+len), sleeping while the ring is full. */
  void write(byte[] b, int off, int len) throws IOException {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    long rc = ShmRingLibrary.write(open(), b, off, len);
    if (rc < 0) {
      throw new IOException(rc == -Errno.EPIPE
          ? "Broken pipe: the streaming program stopped reading its input ring " + path
              + " (it closed it, exited or died)"
          : Errno.describe((int) rc, "write to " + path));
    }
  }

  /** Reads 1..len bytes into b, sleeping while the ring is empty; -1 at end of stream. */
  int read(byte[] b, int off, int len) throws IOException {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    long rc = ShmRingLibrary.read(open(), b, off, len);
    if (rc == 0) {
      return -1;
    }
    if (rc < 0) {
      throw new IOException(rc == -Errno.EPIPE
          ? "The streaming program exited or died without closing its output ring " + path
              + " (output after its last flush is lost; the task fails rather than lose it)"
          : Errno.describe((int) rc, "read from " + path));
    }
    return (int) rc;
  }

  /** Wakes a sleeping reader now. */
  void flush() throws IOException {
    check(ShmRingLibrary.flush(open()), "flush " + path);
  }

  /** bytes, ops, sleeps, wakeups of this side so far (or at close). */
  long[] stats() {
    if (ring == 0) {
      return finalStats == null ? new long[4] : finalStats.clone();
    }
    long[] s = new long[4];
    ShmRingLibrary.stats(ring, s);
    return s;
  }

  /** Writer: end of stream; the ring stays mapped until {@link #close}. */
  void end() throws IOException {
    check(ShmRingLibrary.end(open()), "end " + path);
  }

  /** Writer: bytes the program left unread when it stopped reading, or -1 if it has not. */
  long unread() {
    return ring == 0 ? -1 : ShmRingLibrary.unread(ring);
  }

  /** Writer: end of stream. Reader: stop (the program's further writes fail). */
  @Override
  public void close() {
    if (ring != 0) {
      finalStats = stats();
      ShmRingLibrary.close(ring);
      ring = 0;
    }
  }

  private long open() throws IOException {
    if (ring == 0) {
      throw new IOException("ring " + path + " is closed");
    }
    return ring;
  }

  private static void check(long rc, String what) throws IOException {
    if (rc < 0) {
      throw new IOException(Errno.describe((int) rc, what));
    }
  }
}
