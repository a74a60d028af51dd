package io.hadoopaccel.mapreduce.kism;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.util.zip.CRC32;
import org.apache.hadoop.io.WritableComparator;
import org.apache.hadoop.io.WritableUtils;

/**
 * Records of an uncompressed on-disk map output, read through a memory mapping of its range of
 * the segment log. Bytes are copied once, mapping to a heap chunk, and the reducer is handed
 * keys and values in place in that chunk; the IFile checksum (CRC32 of everything before the
 * last four bytes) is computed over each chunk as it is loaded and compared at the end. The
 * streaming {@link FileCursor} costs three copies and a stream stack per byte; this is the
 * read path that makes KISM's single pass as cheap per byte as stock's final merge.
 */
final class MappedCursor implements RecordCursor {
  /** Mapping window: large segments are mapped piecewise, never more than this at once. */
  static final long WINDOW = 256L << 20;
  private static final int CHECKSUM_BYTES = 4;

  private final FileSegment segment;
  private final SegmentFiles files;
  private final long dataEnd; // segment-relative end of the records, before the checksum
  private final CRC32 crc = new CRC32();
  private byte[] chunk;
  private int chunkPos; // next unparsed byte in chunk
  private int chunkEnd; // end of loaded bytes in chunk
  private long loaded; // segment-relative bytes loaded into chunks so far
  private MappedByteBuffer window;
  private long windowStart; // segment-relative
  private int keyOff;
  private int keyLen;
  private int valueOff;
  private int valueLen;
  private boolean done;

  MappedCursor(FileSegment segment, SegmentFiles files, int chunkBytes) throws IOException {
    if (segment.length() < CHECKSUM_BYTES + 2) {
      throw new IOException("Map output " + segment + " is too short for an IFile");
    }
    this.segment = segment;
    this.files = files;
    this.dataEnd = segment.length() - CHECKSUM_BYTES;
    this.chunk = new byte[(int) Math.max(16, Math.min(chunkBytes, dataEnd))];
  }

  @Override
  public boolean next() throws IOException {
    if (done) {
      return false;
    }
    ensure(2); // the smallest header: two one-byte vints
    int klen = readVInt();
    int vlen = readVInt();
    if (klen == IFileRecords.EOF_MARKER && vlen == IFileRecords.EOF_MARKER) {
      if (chunkPos != chunkEnd || loaded != dataEnd) {
        throw new IOException("Corrupt map output " + segment + ": "
            + (dataEnd - loaded + chunkEnd - chunkPos) + " bytes after the end marker");
      }
      verifyChecksum();
      done = true;
      release();
      return false;
    }
    if (klen < 0 || vlen < 0) {
      throw new IOException("Corrupt map output " + segment + ": key length " + klen
          + ", value length " + vlen);
    }
    ensure((long) klen + vlen);
    keyOff = chunkPos;
    keyLen = klen;
    valueOff = chunkPos + klen;
    valueLen = vlen;
    chunkPos += klen + vlen;
    return true;
  }

  private int readVInt() throws IOException {
    ensure(1);
    int size = WritableUtils.decodeVIntSize(chunk[chunkPos]);
    ensure(size);
    int v = (int) WritableComparator.readVLong(chunk, chunkPos);
    chunkPos += size;
    return v;
  }

  /** Makes {@code n} unparsed bytes available in the chunk, loading (and growing) as needed. */
  private void ensure(long n) throws IOException {
    if (chunkEnd - chunkPos >= n) {
      return;
    }
    long available = chunkEnd - chunkPos + (dataEnd - loaded);
    if (n > available) {
      throw new IOException("Corrupt map output " + segment + ": record needs " + n
          + " bytes, " + available + " left");
    }
    int keep = chunkEnd - chunkPos;
    if (n > chunk.length) { // a record larger than the chunk: grow to fit it
      byte[] bigger = new byte[(int) Math.min(Math.max(n, 2L * chunk.length), Integer.MAX_VALUE - 8)];
      System.arraycopy(chunk, chunkPos, bigger, 0, keep);
      chunk = bigger;
    } else {
      System.arraycopy(chunk, chunkPos, chunk, 0, keep);
    }
    chunkPos = 0;
    chunkEnd = keep;
    int want = (int) Math.min(chunk.length - keep, dataEnd - loaded);
    load(chunk, keep, want);
    crc.update(chunk, keep, want);
    chunkEnd += want;
  }

  /** Copies segment bytes [loaded, loaded + len) into dst, moving the mapping window along. */
  private void load(byte[] dst, int off, int len) throws IOException {
    while (len > 0) {
      if (window == null || loaded >= windowStart + window.capacity()) {
        release();
        windowStart = loaded;
        window = files.map(segment.path(), segment.offset() + windowStart,
            Math.min(WINDOW, segment.length() - windowStart));
      }
      int at = (int) (loaded - windowStart);
      int n = Math.min(len, window.capacity() - at);
      window.get(at, dst, off, n);
      loaded += n;
      off += n;
      len -= n;
    }
  }

  private void verifyChecksum() throws IOException {
    byte[] stored = new byte[CHECKSUM_BYTES];
    long saved = loaded;
    load(stored, 0, CHECKSUM_BYTES);
    loaded = saved;
    int expected = ((stored[0] & 0xff) << 24) | ((stored[1] & 0xff) << 16)
        | ((stored[2] & 0xff) << 8) | (stored[3] & 0xff);
    if ((int) crc.getValue() != expected) {
      throw new IOException("Checksum error in map output " + segment + " (stored "
          + Integer.toHexString(expected) + ", computed " + Long.toHexString(crc.getValue()) + ")");
    }
  }

  private void release() {
    if (window != null) {
      files.unmap(window);
      window = null;
    }
  }

  @Override
  public byte[] keyBytes() {
    return chunk;
  }

  @Override
  public int keyOffset() {
    return keyOff;
  }

  @Override
  public int keyLength() {
    return keyLen;
  }

  @Override
  public byte[] valueBytes() {
    return chunk;
  }

  @Override
  public int valueOffset() {
    return valueOff;
  }

  @Override
  public int valueLength() {
    return valueLen;
  }

  @Override
  public long size() {
    return segment.length();
  }

  @Override
  public long position() {
    return done ? segment.length() : loaded - (chunkEnd - chunkPos);
  }

  @Override
  public int order() {
    return segment.order();
  }

  @Override
  public void close() {
    release();
    chunk = null;
  }
}
