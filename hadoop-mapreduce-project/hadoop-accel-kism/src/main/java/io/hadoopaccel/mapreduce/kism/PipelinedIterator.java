package io.hadoopaccel.mapreduce.kism;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.util.Progress;

/**
 * Runs the merge one step ahead of the reducer: a merge thread reads, verifies, decompresses and
 * merges records into batches while the reduce function consumes the previous batch, so the
 * reduce phase costs max(merge, reduce) instead of their sum. Stock's final merge runs in the
 * reducer's own thread.
 */
final class PipelinedIterator implements RawKeyValueIterator {
  private static final int BATCHES = 3;

  /** Records copied back to back; {@code index} holds keyOff, keyLen, valueOff, valueLen. */
  private static final class Batch {
    byte[] data;
    final int[] index = new int[4 * 1024];
    int used;
    int count;
    boolean last;
    Throwable error;

    Batch(int bytes) {
      data = new byte[bytes];
    }

    boolean fits(int bytes) {
      return count == 0 || (used + bytes <= data.length && 4 * (count + 1) <= index.length);
    }

    void add(byte[] k, int ko, int kl, byte[] v, int vo, int vl) {
      if (used + kl + vl > data.length) { // only for the first record of a batch
        data = new byte[kl + vl];
      }
      int i = 4 * count; // fits() keeps this within index
      System.arraycopy(k, ko, data, used, kl);
      index[i] = used;
      index[i + 1] = kl;
      used += kl;
      System.arraycopy(v, vo, data, used, vl);
      index[i + 2] = used;
      index[i + 3] = vl;
      used += vl;
      count++;
    }

    void clear() {
      used = 0;
      count = 0;
    }
  }

  private final RawKeyValueIterator source;
  private final BlockingQueue<Batch> free = new ArrayBlockingQueue<>(BATCHES);
  private final BlockingQueue<Batch> full = new ArrayBlockingQueue<>(BATCHES);
  private final Thread merger;
  private final DataInputBuffer key = new DataInputBuffer();
  private final DataInputBuffer value = new DataInputBuffer();
  private Batch current;
  private int next;
  private boolean done;

  PipelinedIterator(RawKeyValueIterator source, int batchBytes, String name) {
    this.source = source;
    for (int i = 0; i < BATCHES; i++) {
      free.add(new Batch(batchBytes));
    }
    merger = new Thread(this::produce, name);
    merger.setDaemon(true);
    merger.start();
  }

  private void produce() {
    boolean pending = false; // the source's current record did not fit the last batch
    try {
      while (true) {
        Batch b = free.take();
        b.clear();
        while (true) {
          if (!pending && !source.next()) {
            b.last = true;
            break;
          }
          DataInputBuffer k = source.getKey();
          DataInputBuffer v = source.getValue();
          int kl = k.getLength() - k.getPosition();
          int vl = v.getLength() - v.getPosition();
          if (!b.fits(kl + vl)) {
            pending = true;
            break;
          }
          b.add(k.getData(), k.getPosition(), kl, v.getData(), v.getPosition(), vl);
          pending = false;
        }
        full.put(b);
        if (b.last) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable t) {
      Batch failed = new Batch(0);
      failed.error = t;
      failed.last = true;
      try {
        full.put(failed); // blocks until the reducer takes a batch; close() interrupts
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public boolean next() throws IOException {
    while (current == null || next == current.count) {
      if (done) {
        return false;
      }
      if (current != null) {
        if (current.last) {
          done = true;
          return false;
        }
        free.add(current);
      }
      try {
        current = full.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted waiting for the KISM merge thread");
      }
      next = 0;
      if (current.error != null) {
        done = true;
        throw current.error instanceof IOException io ? io
            : new IOException("KISM merge thread failed", current.error);
      }
    }
    int i = 4 * next++;
    key.reset(current.data, current.index[i], current.index[i + 1]);
    value.reset(current.data, current.index[i + 2], current.index[i + 3]);
    return true;
  }

  @Override
  public DataInputBuffer getKey() {
    return key;
  }

  @Override
  public DataInputBuffer getValue() {
    return value;
  }

  @Override
  public Progress getProgress() {
    return source.getProgress();
  }

  @Override
  public void close() throws IOException {
    merger.interrupt();
    try {
      merger.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    source.close();
  }
}
