package io.hadoopaccel.hdfs.psp;

import java.io.Closeable;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The prefetcher's memory bound: bytes preloaded for maps that have not started yet. A block
 * counts from its admission until the AM releases it or {@code holdMs} pass (a dead AM never
 * releases), whichever comes first; then its memory lock, if it has one, is closed.
 * Thread-safe.
 */
final class HeldBytes {
  private final long maxBytes;
  private final long holdMs;
  /** Block key to its entry, oldest first. */
  private final LinkedHashMap<String, Entry> held = new LinkedHashMap<>();
  private long total;

  private static final class Entry {
    final long bytes;
    final long expiresMs;
    Closeable lock;

    Entry(long bytes, long expiresMs) {
      this.bytes = bytes;
      this.expiresMs = expiresMs;
    }

    long drop() {
      if (lock != null) {
        try {
          lock.close();
        } catch (IOException e) {
          // an unlock that failed leaves the pages cached, nothing else
        }
      }
      return bytes;
    }
  }

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
    held.put(key, new Entry(bytes, nowMs + holdMs));
    total += bytes;
    return Admission.ADMITTED;
  }

  /**
   * Gives held {@code key} its memory lock, closed when the block stops counting; false (and
   * the lock is the caller's to close) if it no longer counts.
   */
  synchronized boolean attach(String key, Closeable lock) {
    Entry e = held.get(key);
    if (e == null || e.lock != null) {
      return false;
    }
    e.lock = lock;
    return true;
  }

  /** Forgets {@code key} (released, or its load failed); returns the bytes it held. */
  synchronized long release(String key) {
    Entry e = held.remove(key);
    if (e == null) {
      return 0;
    }
    total -= e.bytes;
    return e.drop();
  }

  /** Forgets every block (the prefetcher stops). */
  synchronized void clear() {
    for (Entry e : held.values()) {
      e.drop();
    }
    held.clear();
    total = 0;
  }

  synchronized long total() {
    return total;
  }

  private void expire(long nowMs) {
    // Insertion order is expiry order (one holdMs for all).
    Iterator<Map.Entry<String, Entry>> it = held.entrySet().iterator();
    while (it.hasNext()) {
      Entry e = it.next().getValue();
      if (e.expiresMs > nowMs) {
        break;
      }
      total -= e.drop();
      it.remove();
    }
  }
}
