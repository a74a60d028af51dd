package io.hadoopaccel.streaming.shm;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import io.hadoopaccel.common.nativeio.NativeLoader;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/**
 * JNA binding of {@code hadoop_accel/shm_ring.h} in {@code libhadoop_shm.so}. Calls move up to
 * 64 KiB each, so the per-call cost of interface mapping is amortised; {@code size_t} and
 * {@code ssize_t} are 64-bit (Linux x86-64 / aarch64).
 */
public interface ShmRingLibrary extends Library {
  String NAME = "hadoop_shm";
  int READER = 0;
  int WRITER = 1;

  int hshm_ring_create(String path, long capacity, int role, PointerByReference out);

  int hshm_ring_wait_peer(Pointer ring, int timeoutMs);

  void hshm_ring_set_batch(Pointer ring, int batch);

  long hshm_ring_write(Pointer ring, Pointer buf, long n);

  long hshm_ring_read(Pointer ring, Pointer buf, long n);

  int hshm_ring_flush(Pointer ring);

  int hshm_ring_close(Pointer ring);

  /** Fills bytes, ops, sleeps, wakeups (struct hshm_ring_stats: four uint64_t). */
  void hshm_ring_get_stats(Pointer ring, long[] out);

  /** The library, or empty (logged once by {@link NativeLoader}) when it cannot load. */
  static Optional<ShmRingLibrary> load(Configuration conf) {
    return NativeLoader.load(conf, NAME, ShmRingLibrary.class, "pipes");
  }
}
