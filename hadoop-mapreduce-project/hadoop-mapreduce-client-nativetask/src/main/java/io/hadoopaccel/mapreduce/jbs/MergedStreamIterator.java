package io.hadoopaccel.mapreduce.jbs;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.util.Progress;

/**
 * The reducer's input: Hadoop's raw record layout ({@code vint key length, vint value length,
 * key, value}) as the NetMerger streams it in DATA frames, records straddling frames freely.
 * The key and value of the current record stay valid until the next {@link #next()}.
 */
public class MergedStreamIterator implements RawKeyValueIterator {

  /** Where the payloads come from. */
  public interface PayloadSource {
    /** The next DATA payload (CRC checked), or null after END; ERROR/EOF throw. */
    ByteBuffer next() throws IOException;

    /** Releases the source (idempotent). */
    void close() throws IOException;
  }

  private final PayloadSource source;
  private final DataInputBuffer key = new DataInputBuffer();
  private final DataInputBuffer value = new DataInputBuffer();
  private final Progress progress = new Progress();
  private final long expectedBytes;

  private byte[] buf = new byte[64 * 1024];
  private int pos;
  private int limit;
  private boolean ended;
  private long consumed;
  private long records;

  /**
   * @param expectedBytes a guess of the stream's length for progress (0: unknown)
   * @param first an already received first payload, or null
   */
  public MergedStreamIterator(PayloadSource source, long expectedBytes, ByteBuffer first) {
    this.source = source;
    this.expectedBytes = expectedBytes;
    if (first != null) {
      append(first);
    }
  }

  /** For an empty stream (END came first). */
  public static MergedStreamIterator ended(PayloadSource source) {
    MergedStreamIterator it = new MergedStreamIterator(source, 0, null);
    it.ended = true;
    return it;
  }

  public long records() {
    return records;
  }

  private void append(ByteBuffer p) {
    int n = p.remaining();
    if (limit + n > buf.length) {
      int live = limit - pos;
      if (live + n <= buf.length) {
        System.arraycopy(buf, pos, buf, 0, live);
      } else {
        byte[] bigger = new byte[Math.max(buf.length * 2, live + n)];
        System.arraycopy(buf, pos, bigger, 0, live);
        buf = bigger;
      }
      pos = 0;
      limit = live;
    }
    p.get(buf, limit, n);
    limit += n;
  }

  /** Makes n bytes available from pos; false if the stream ended with none left. */
  private boolean ensure(int n) throws IOException {
    while (limit - pos < n) {
      if (ended) {
        if (limit == pos) {
          return false;
        }
        throw new IOException("merged stream ends inside a record (" + (limit - pos)
            + " bytes left, " + n + " needed)");
      }
      ByteBuffer p = source.next();
      if (p == null) {
        ended = true;
      } else {
        append(p);
      }
    }
    return true;
  }

  private void require(int n) throws IOException {
    if (!ensure(n)) {
      throw new IOException("merged stream ends inside a record");
    }
  }

  private static int vintSize(byte first) {
    return first >= -112 ? 1 : (first < -120 ? -119 - first : -111 - first);
  }

  /** WritableUtils' vint at buf[at..at+size) as a record length. */
  private int vint(int at, int size) throws IOException {
    byte first = buf[at];
    long v;
    if (size == 1) {
      v = first;
    } else {
      v = 0;
      for (int i = 1; i < size; i++) {
        v = (v << 8) | (buf[at + i] & 0xFF);
      }
      if (first < -120) {
        v = ~v;
      }
    }
    if (v < 0 || v > Integer.MAX_VALUE - 64) {
      throw new IOException("bad record length " + v + " in the merged stream");
    }
    return (int) v;
  }

  @Override
  public boolean next() throws IOException {
    // pos stays at the record's start until it is complete: ensure() may compact the buffer,
    // which keeps only the bytes from pos on.
    if (!ensure(1)) {
      progress.complete();
      return false;
    }
    int s1 = vintSize(buf[pos]);
    require(s1 + 1);
    int s2 = vintSize(buf[pos + s1]);
    require(s1 + s2);
    int keyLen = vint(pos, s1);
    int valueLen = vint(pos + s1, s2);
    int total = s1 + s2 + keyLen + valueLen;
    require(total);
    int k = pos + s1 + s2;
    key.reset(buf, k, keyLen);
    value.reset(buf, k + keyLen, valueLen);
    pos += total;
    consumed += total;
    records++;
    if (expectedBytes > 0) {
      progress.set(Math.min(1f, (float) consumed / expectedBytes));
    }
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
  public void close() throws IOException {
    source.close();
  }

  @Override
  public Progress getProgress() {
    return progress;
  }
}
