package io.hadoopaccel.mapreduce.kism;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.io.compress.CodecPool;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.Decompressor;
import org.apache.hadoop.mapred.IFileInputStream;

/**
 * Records of an on-disk map output, read once, front to back, in the segment's own order. The
 * IFile checksum is verified as the last byte is read, so corruption on local disk fails the
 * reduce instead of feeding it wrong data.
 */
final class FileCursor implements RecordCursor {
  private static final int PARSE_BUFFER = 8 * 1024;

  private final FileSegment segment;
  private final SegmentFiles files;
  private final CompressionCodec codec;
  private final Configuration conf;
  private final int bufferBytes;
  private FileRangeInputStream range;
  private DataInputStream in;
  private Decompressor decompressor;
  private byte[] key = new byte[64];
  private byte[] value = new byte[256];
  private int keyLen;
  private int valueLen;

  FileCursor(FileSegment segment, SegmentFiles files, CompressionCodec codec, Configuration conf,
      int bufferBytes) {
    this.segment = segment;
    this.files = files;
    this.codec = segment.compressed() ? codec : null;
    this.conf = conf;
    this.bufferBytes = bufferBytes;
  }

  private void open() {
    range = new FileRangeInputStream(files, segment.path(), segment.offset(), segment.length(),
        bufferBytes);
    InputStream s = new IFileInputStream(range, segment.length(), conf);
    if (codec != null) {
      decompressor = CodecPool.getDecompressor(codec);
      decompressor.reset();
      try {
        s = codec.createInputStream(s, decompressor);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    in = new DataInputStream(new BufferedInputStream(s, PARSE_BUFFER));
  }

  @Override
  public boolean next() throws IOException {
    if (in == null) {
      open();
    }
    int k = WritableUtils.readVInt(in);
    int v = WritableUtils.readVInt(in);
    if (k == IFileRecords.EOF_MARKER && v == IFileRecords.EOF_MARKER) {
      // Drain what is left (codec trailer, checksum) so the checksum gets verified.
      byte[] rest = new byte[512];
      while (in.read(rest) >= 0) {
        // nothing else should be there; IFileInputStream checks the checksum at its end
      }
      return false;
    }
    if (k < 0 || v < 0) {
      throw new IOException("Corrupt map output " + segment + ": key length " + k
          + ", value length " + v);
    }
    key = ensure(key, k);
    in.readFully(key, 0, k);
    value = ensure(value, v);
    in.readFully(value, 0, v);
    keyLen = k;
    valueLen = v;
    return true;
  }

  private static byte[] ensure(byte[] b, int n) {
    return b.length >= n ? b : new byte[Math.max(n, Math.min(2 * b.length, Integer.MAX_VALUE - 8))];
  }

  @Override
  public byte[] keyBytes() {
    return key;
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
    return value;
  }

  @Override
  public int valueOffset() {
    return 0;
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
    return range == null ? 0 : segment.length() - range.remaining();
  }

  @Override
  public int order() {
    return segment.order();
  }

  @Override
  public boolean onLocalDisk() {
    return !segment.shared();
  }

  @Override
  public void close() {
    if (decompressor != null) {
      CodecPool.returnDecompressor(decompressor);
      decompressor = null;
    }
    in = null;
    key = value = null;
  }
}
