package io.hadoopaccel.streaming.shm;

import io.hadoopaccel.common.nativeio.NativeLoader;
import org.apache.hadoop.conf.Configuration;

/**
 * JNI binding of {@code hadoop_accel/shm_ring.h}; the glue is built into {@code
 * libhadoop_shm.so} ({@code src/main/native/jni}). JNI rather than JNA: measured, loading JNA
 * and binding an interface cost ~150 ms on every streaming task's critical path (2-3 % of a
 * short job, README "Benchmarks"), and JNI copies between the Java array and the ring directly.
 * Ring handles are native pointers; results are byte counts or negative errno values.
 */
final class ShmRingLibrary {
  static final String NAME = "hadoop_shm";
  static final int READER = 0;
  static final int WRITER = 1;
  private static final int ABI_VERSION = 2;

  private ShmRingLibrary() {}

  /** Whether the library is loaded (once per JVM; one log line when it is not). */
  static boolean load(Configuration conf) {
    return file(conf).isPresent();
  }

  /** The library file loaded (once per JVM), or empty (one log line). */
  static java.util.Optional<String> file(Configuration conf) {
    return NativeLoader.loadJni(conf, NAME, System::load, () -> abiVersion() == ABI_VERSION,
        "pipes");
  }

  static native int abiVersion();

  /** Creates the ring file (mode 0600, must not exist): a handle, or -errno. */
  static native long create(String path, long capacity, int role, int batch);

  static native int waitPeer(long ring, int timeoutMs);

  /** Writes all of b[off, off+len) (sleeping while full): len, or -errno. */
  static native long write(long ring, byte[] b, int off, int len);

  /** Reads 1..len bytes into b[off...] (sleeping while empty): the count, 0 at end, or -errno. */
  static native long read(long ring, byte[] b, int off, int len);

  static native int flush(long ring);

  static native int close(long ring);

  /** Writer: end of stream, keeping the ring mapped (for unread). */
  static native int end(long ring);

  /** Writer: bytes the reader left unread when it stopped, or -1 while it reads. */
  static native long unread(long ring);

  /** bytes, ops, sleeps, wakeups of this side into out[0..3]. */
  static native void stats(long ring, long[] out);
}
