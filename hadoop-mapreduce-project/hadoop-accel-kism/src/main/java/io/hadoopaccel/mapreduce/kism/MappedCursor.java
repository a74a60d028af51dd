package io.hadoopaccel.mapreduce.kism;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.util.zip.CRC32;
import org.apache.hadoop.io.WritableUtils;

/**
 * Records of an uncompressed on-disk map output, read through a memory mapping of its range of
 * the segment log. Each record's key and value are copied once, mapping to a heap array sized
 * for the largest record seen, and handed to the reducer in place there; the IFile checksum
 * (CRC32 of everything before the last four bytes) is computed on the mapping itself as records
 * are consumed and compared at the end. The streaming {@link FileCursor} costs three copies and
 * a stream stack per byte; this path makes KISM's single pass as cheap per byte as stock's.
 */
final class MappedCursor implements RecordCursor {
  /** Mapping window: large segments are mapped piecewise, never more than this at once. */
  static final long WINDOW = 256L << 20;
  private static final int CHECKSUM_BYTES = 4;
  private static final int MAX_HEADER = 10; // two vints

  private final FileSegment segment;
  private final SegmentFiles files;
  private final long windowBytes;
  private final long dataEnd; // segment-relative end of the records, before the checksum
  private final CRC32 crc = new CRC32();
  private byte[] record = new byte[256];
  private long pos; // segment-relative start of the next record
  private MappedByteBuffer window;
  private ByteBuffer crcView; // the window, for CRC32 over ranges of it
  private long windowStart; // segment-relative
  private long windowEnd;
  private int keyLen;
  private int valueLen;
  private boolean done;

  MappedCursor(FileSegment segment, SegmentFiles files) throws IOException {
    this(segment, files, WINDOW);
  }

  MappedCursor(FileSegment segment, SegmentFiles files, long windowBytes) throws IOException {
    if (segment.length() < CHECKSUM_BYTES + 2) {
      throw new IOException("Map output " + segment + " is too short for an IFile");
    }
    this.segment = segment;
    this.files = files;
    this.windowBytes = windowBytes;
    this.dataEnd = segment.length() - CHECKSUM_BYTES;
  }

  @Override
  public boolean next() throws IOException {
    if (done) {
      return false;
    }
    cover(pos, Math.min(MAX_HEADER, dataEnd - pos));
    int at = (int) (pos - windowStart);
    int klenSize = vintSize(at);
    int klen = readVInt(at, klenSize);
    int vlenSize = vintSize(at + klenSize);
    int vlen = readVInt(at + klenSize, vlenSize);
    int header = klenSize + vlenSize;
    if (klen == IFileRecords.EOF_MARKER && vlen == IFileRecords.EOF_MARKER) {
      if (pos + header != dataEnd) {
        throw new IOException("Corrupt map output " + segment + ": "
            + (dataEnd - pos - header) + " bytes after the end marker");
      }
      checksum(pos, header);
      pos += header;
      verifyChecksum();
      done = true;
      release();
      return false;
    }
    if (klen < 0 || vlen < 0 || pos + header + klen + vlen > dataEnd) {
      throw new IOException("Corrupt map output " + segment + ": key length " + klen
          + ", value length " + vlen + " at byte " + pos + " of " + dataEnd);
    }
    int length = header + klen + vlen;
    cover(pos, length);
    checksum(pos, length);
    if (record.length < klen + vlen) {
      record = new byte[Math.max(klen + vlen, Math.min(2 * record.length, Integer.MAX_VALUE - 8))];
    }
    window.get((int) (pos - windowStart) + header, record, 0, klen + vlen);
    keyLen = klen;
    valueLen = vlen;
    pos += length;
    return true;
  }

  private int vintSize(int at) throws IOException {
    if (at >= window.limit()) {
      throw new IOException("Corrupt map output " + segment + ": truncated record header");
    }
    return WritableUtils.decodeVIntSize(window.get(at));
  }

  /** Decodes a vint as WritableUtils does, from the mapping. */
  private int readVInt(int at, int size) throws IOException {
    if (at + size > window.limit()) {
      throw new IOException("Corrupt map output " + segment + ": truncated record header");
    }
    byte first = window.get(at);
    if (size == 1) {
      return first;
    }
    long v = 0;
    for (int i = 1; i < size; i++) {
      v = (v << 8) | (window.get(at + i) & 0xff);
    }
    return (int) (WritableUtils.isNegativeVInt(first) ? ~v : v);
  }

  /** Maps a window holding segment bytes [from, from + n). */
  private void cover(long from, long n) throws IOException {
    if (window != null && from >= windowStart && from + n <= windowEnd) {
      return;
    }
    release();
    long mappedBefore = windowEnd; // windows only move forward
    windowStart = from;
    windowEnd = from + Math.max(n, Math.min(windowBytes, segment.length() - from));
    window = files.map(segment.path(), segment.offset() + windowStart, windowEnd - windowStart,
        windowEnd - Math.max(windowStart, mappedBefore));
    crcView = window.duplicate();
  }

  private void checksum(long from, int n) {
    int at = (int) (from - windowStart);
    crcView.limit(at + n).position(at);
    crc.update(crcView);
  }

  private void verifyChecksum() throws IOException {
    cover(dataEnd, CHECKSUM_BYTES);
    int expected = window.getInt((int) (dataEnd - windowStart)); // big-endian, as IFile writes
    if ((int) crc.getValue() != expected) {
      throw new IOException("Checksum error in map output " + segment + " (stored "
          + Integer.toHexString(expected) + ", computed " + Long.toHexString(crc.getValue()) + ")");
    }
  }

  private void release() {
    if (window != null) {
      files.unmap(window);
      window = null;
      crcView = null;
    }
  }

  @Override
  public byte[] keyBytes() {
    return record;
  }

  @Override
  public int keyOffset() {
    return 0;
  }

  @Override
  public int keyLength() {
    return keyLen;
  }

  @Override
  public byte[] valueBytes() {
    return record;
  }

  @Override
  public int valueOffset() {
    return keyLen;
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
    return done ? segment.length() : pos;
  }

  @Override
  public boolean onLocalDisk() {
    return !segment.shared();
  }

  @Override
  public int order() {
    return segment.order();
  }

  @Override
  public void close() {
    release();
    record = null;
  }
}
