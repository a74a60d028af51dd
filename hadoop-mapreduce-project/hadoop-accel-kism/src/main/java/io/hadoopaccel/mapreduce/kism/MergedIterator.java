package io.hadoopaccel.mapreduce.kism;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.io.RawComparator;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.util.PriorityQueue;
import org.apache.hadoop.util.Progress;

/**
 * The single merge pass: a heap of one cursor per map output ordered by the job's sort
 * comparator on raw key bytes (ties broken by commit order). Only the heap's top moves; values
 * are handed to the reducer straight from the cursor that holds them.
 */
final class MergedIterator implements RawKeyValueIterator {
  private static final int COUNTER_BATCH = 8192;

  private final Heap heap;
  private final Reporter reporter;
  private final SegmentFiles files;
  private final Runnable onClose;
  private final DataInputBuffer key = new DataInputBuffer();
  private final DataInputBuffer value = new DataInputBuffer();
  private final Progress progress = new Progress();
  private final List<RecordCursor> cursors;
  private final long totalBytes;
  private long pendingEntries;
  private RecordCursor top;
  private boolean closed;

  MergedIterator(List<RecordCursor> cursors, RawComparator<?> comparator, Reporter reporter,
      SegmentFiles files, Runnable onClose) throws IOException {
    this.reporter = reporter;
    this.files = files;
    this.onClose = onClose;
    this.heap = new Heap(cursors.size(), comparator);
    this.cursors = cursors;
    long total = 0;
    for (RecordCursor c : cursors) {
      total += c.size();
    }
    this.totalBytes = Math.max(total, 1);
    for (RecordCursor c : cursors) {
      if (c.next()) {
        heap.put(c);
      } else {
        finish(c);
      }
    }
  }

  @Override
  public boolean next() throws IOException {
    if (top != null) {
      if (top.next()) {
        heap.adjustTop();
      } else {
        heap.pop();
        finish(top);
      }
    }
    if (heap.size() == 0) {
      top = null;
      flushEntries();
      progress.complete();
      return false;
    }
    top = heap.top();
    key.reset(top.keyBytes(), top.keyOffset(), top.keyLength());
    value.reset(top.valueBytes(), top.valueOffset(), top.valueLength());
    if (++pendingEntries == COUNTER_BATCH) {
      flushEntries();
    }
    return true;
  }

  private void finish(RecordCursor c) throws IOException {
    if (c.onLocalDisk()) {
      reporter.incrCounter(KismCounter.LOCAL_BYTES_READ, c.position());
    }
    c.close();
  }

  private void flushEntries() {
    reporter.incrCounter(KismCounter.MERGED_ENTRIES, pendingEntries);
    pendingEntries = 0;
    long consumed = 0;
    for (RecordCursor c : cursors) {
      consumed += c.position();
    }
    progress.set((float) Math.min(1.0, consumed / (double) totalBytes));
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
    return progress;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    flushEntries();
    while (heap.size() > 0) {
      heap.pop().close();
    }
    files.close();
    onClose.run();
  }

  /** Min-heap of cursors by current key, then commit order. */
  private static final class Heap extends PriorityQueue<RecordCursor> {
    private final RawComparator<?> comparator;

    Heap(int size, RawComparator<?> comparator) {
      this.comparator = comparator;
      initialize(Math.max(size, 1));
    }

    @Override
    protected boolean lessThan(Object a, Object b) {
      RecordCursor x = (RecordCursor) a;
      RecordCursor y = (RecordCursor) b;
      int c = comparator.compare(x.keyBytes(), x.keyOffset(), x.keyLength(),
          y.keyBytes(), y.keyOffset(), y.keyLength());
      return c < 0 || (c == 0 && x.order() < y.order());
    }
  }
}
