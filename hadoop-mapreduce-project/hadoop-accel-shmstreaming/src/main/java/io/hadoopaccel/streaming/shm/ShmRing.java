package io.hadoopaccel.streaming.shm;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.io.IOException;

/**
 * One direction of a task's shared-memory channel: the task's end of a ring created in a file.
 * Not thread-safe (one writer or one reader thread, as streaming uses it); {@link #close()} is
 * idempotent.
 */
final class ShmRing implements AutoCloseable {
  /** Bytes moved per native call. */
  static final int CHUNK = 64 * 1024;

  private final ShmRingLibrary lib;
  private final String path;
  private Pointer ring;
  private final Memory chunk = new Memory(CHUNK);
  private long[] finalStats;

  private ShmRing(ShmRingLibrary lib, String path, Pointer ring) {
    this.lib = lib;
    this.path = path;
    this.ring = ring;
  }

  /** Creates the ring file (mode 0600, must not exist) and takes {@code role}. */
  static ShmRing create(ShmRingLibrary lib, String path, long capacity, int role, int batch)
      throws IOException {
    PointerByReference out = new PointerByReference();
    check(lib.hshm_ring_create(path, capacity, role, out), "create " + path);
    ShmRing r = new ShmRing(lib, path, out.getValue());
    lib.hshm_ring_set_batch(r.ring, batch);
    return r;
  }

  String path() {
    return path;
  }

  /** Whether the program attached within {@code timeoutMs}. */
  boolean waitPeer(int timeoutMs) throws IOException {
    int rc = lib.hshm_ring_wait_peer(open(), timeoutMs);
    if (rc == -Errno.ETIMEDOUT) {
      return false;
    }
    check(rc, "wait for the program on " + path);
    return true;
  }

  /** Writes all of b[off, off+len), sleeping while the ring is full. */
  void write(byte[] b, int off, int len) throws IOException {
    Pointer r = open();
    while (len > 0) {
      int n = Math.min(len, CHUNK);
      chunk.write(0, b, off, n);
      long rc = lib.hshm_ring_write(r, chunk, n);
      if (rc < 0) {
        throw new IOException(rc == -Errno.EPIPE
            ? "Broken pipe: the streaming program stopped reading its input ring " + path
                + " (it closed it, exited or died)"
            : Errno.describe((int) rc, "write to " + path));
      }
      off += n;
      len -= n;
    }
  }

  /** Reads 1..len bytes into b, sleeping while the ring is empty; -1 at end of stream. */
  int read(byte[] b, int off, int len) throws IOException {
    long rc = lib.hshm_ring_read(open(), chunk, Math.min(len, CHUNK));
    if (rc == 0) {
      return -1;
    }
    if (rc < 0) {
      throw new IOException(rc == -Errno.EPIPE
          ? "The streaming program exited or died without closing its output ring " + path
              + " (output after its last flush is lost; the task fails rather than lose it)"
          : Errno.describe((int) rc, "read from " + path));
    }
    chunk.read(0, b, off, (int) rc);
    return (int) rc;
  }

  /** Wakes a sleeping reader now. */
  void flush() throws IOException {
    check(lib.hshm_ring_flush(open()), "flush " + path);
  }

  /** bytes, ops, sleeps, wakeups of this side so far (or at close). */
  long[] stats() {
    if (ring == null) {
      return finalStats == null ? new long[4] : finalStats.clone();
    }
    long[] s = new long[4];
    lib.hshm_ring_get_stats(ring, s);
    return s;
  }

  /** Writer: end of stream. Reader: stop (the program's further writes fail). */
  @Override
  public void close() {
    if (ring != null) {
      finalStats = stats();
      lib.hshm_ring_close(ring);
      ring = null;
    }
  }

  private Pointer open() throws IOException {
    if (ring == null) {
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
