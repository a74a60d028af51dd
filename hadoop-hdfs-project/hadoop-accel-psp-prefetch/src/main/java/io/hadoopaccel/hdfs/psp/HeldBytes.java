package io.hadoopaccel.hdfs.psp;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The prefetcher's memory bound: bytes preloaded for maps that have not started yet. A block
 * counts from its admission until the AM releases it or {@code holdMs} pass (a dead AM never
 * releases), whichever comes first. Thread-safe.
 */
final class HeldBytes {
  private final long maxBytes;
  private final long holdMs;
  /** Block key to {bytes, expiry ms}, oldest first. */
  private final LinkedHashMap<String, long[]> held = new LinkedHashMap<>();
  private long total;

  HeldBytes(long maxBytes, long holdMs) {
    this.maxBytes = maxBytes;
    this.holdMs = holdMs;
  }

  /** Outcome of {@link #admit}. */
  enum Admission { ADMITTED, ALREADY_HELD, FULL }

  synchronized Admission admit(String key, long bytes, long nowMs) {
    expire(nowMs);
    if (held.containsKey(key)) {
      return Admission.ALREADY_HELD;
    }
    if (total + bytes > maxBytes) {
      return Admission.FULL;
    }
    held.put(key, new long[] {bytes, nowMs + holdMs});
    total += bytes;
    return Admission.ADMITTED;
  }

  /** Forgets {@code key} (released, or its load failed); returns the bytes it held. */
  synchronized long release(String key) {
    long[] e = held.remove(key);
    if (e == null) {
      return 0;
    }
    total -= e[0];
    return e[0];
  }

  synchronized long total() {
    return total;
  }

  private void expire(long nowMs) {
    // Insertion order is expiry order (one holdMs for all).
    Iterator<Map.Entry<String, long[]>> it = held.entrySet().iterator();
    while (it.hasNext()) {
      long[] e = it.next().getValue();
      if (e[1] > nowMs) {
        break;
      }
      total -= e[0];
      it.remove();
    }
  }
}
