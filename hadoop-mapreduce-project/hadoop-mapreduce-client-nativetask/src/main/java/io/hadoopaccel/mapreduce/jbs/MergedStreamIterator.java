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
 *
 * <p>Records are read in place from the payloads' arrays; only a record that straddles two
 * payloads is assembled in a carry buffer, so each byte is copied once per frame boundary it
 * crosses instead of once.
 */
public class MergedStreamIterator implements RawKeyValueIterator {

  /** Where the payloads come from. */
  public interface PayloadSource {
    /**
     * The next DATA payload (CRC checked), or null after END; ERROR/EOF throw. The payload is a
     * heap buffer valid until the following call, when the source may reuse its array.
     */
    ByteBuffer next() throws IOException;

    /** Releases the source (idempotent). */
    void close() throws IOException;
  }

  /** Largest record the carry buffer can hold (a Java array's bound, less headroom). */
  static final int MAX_RECORD_BYTES = Integer.MAX_VALUE - 64;

  private final PayloadSource source;
  private final DataInputBuffer key = new DataInputBuffer();
  private final DataInputBuffer value = new DataInputBuffer();
  private final Progress progress = new Progress();
  private final long expectedBytes;

  /** The window records are read from: {@code data[pos..limit)}, a payload's or the carry. */
  private byte[] data;
  private int pos;
  private int limit;
  /** The current payload; its bytes from position() on are not in the window yet. */
  private ByteBuffer payload;
  private byte[] carry = new byte[64 * 1024];
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
    this.data = carry;
    this.payload = first;
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

  /** Moves the live window bytes to the start of the carry, with room for n bytes in all. */
  private void toCarry(int n) {
    int live = limit - pos;
    byte[] dst = carry.length >= n ? carry
        : new byte[(int) Math.min(MAX_RECORD_BYTES, Math.max(2L * carry.length, n))];
    System.arraycopy(data, pos, dst, 0, live);
    carry = dst;
    data = dst;
    pos = 0;
    limit = live;
  }

  /**
   * Makes data[pos..pos+n) hold the next n stream bytes; false if the stream ended with none
   * left. Fetching a payload releases the previous one, whose bytes are no longer referenced:
   * the previous record is done and any live bytes were moved to the carry.
   */
  private boolean ensure(int n) throws IOException {
    while (limit - pos < n) {
      int live = limit - pos;
      boolean inPayload = payload != null && payload.hasRemaining();
      if (live == 0 && inPayload) {
        // Nothing pending: read the payload in place.
        data = payload.array();
        pos = payload.arrayOffset() + payload.position();
        limit = payload.arrayOffset() + payload.limit();
        payload.position(payload.limit());
      } else if (live > 0 && data != carry) {
        // A record runs past the end of its payload: assemble it in the carry.
        toCarry(live);
      } else if (live > 0 && inPayload) {
        // The carry grows with the bytes that arrive, not with the length a record claims.
        int k = Math.min(n - live, payload.remaining());
        if (carry.length - limit < k) {
          toCarry(live + k);
        }
        payload.get(carry, limit, k);
        limit += k;
      } else if (ended) {
        if (live == 0) {
          return false;
        }
        throw new IOException("merged stream ends inside a record (" + live + " bytes left, "
            + n + " needed)");
      } else {
        payload = source.next();
        ended = payload == null;
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
    byte first = data[at];
    long v;
    if (size == 1) {
      v = first;
    } else {
      v = 0;
      for (int i = 1; i < size; i++) {
        v = (v << 8) | (data[at + i] & 0xFF);
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
    // pos stays at the record's start until it is complete: ensure() may move the window,
    // keeping only the bytes from pos on.
    if (!ensure(1)) {
      progress.complete();
      return false;
    }
    int s1 = vintSize(data[pos]);
    require(s1 + 1);
    int s2 = vintSize(data[pos + s1]);
    require(s1 + s2);
    int keyLen = vint(pos, s1);
    int valueLen = vint(pos + s1, s2);
    // In long: two lengths near 2^31 would wrap an int sum to a small or negative size.
    long total64 = (long) s1 + s2 + keyLen + valueLen;
    if (total64 > MAX_RECORD_BYTES) {
      throw new IOException("record of " + total64 + " bytes in the merged stream (key "
          + keyLen + ", value " + valueLen + "; at most " + MAX_RECORD_BYTES + ")");
    }
    int total = (int) total64;
    require(total);
    int k = pos + s1 + s2;
    key.reset(data, k, keyLen);
    value.reset(data, k + keyLen, valueLen);
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
