package io.hadoopaccel.mapreduce.kism;

import java.io.IOException;
import org.apache.hadoop.io.WritableComparator;
import org.apache.hadoop.io.WritableUtils;

/**
 * Records of a segment that stayed in its fetched buffer: keys and values are read in place, the
 * cursor only moves an offset (framing was validated when the segment was fetched).
 */
final class MemoryCursor implements RecordCursor {
  private final byte[] data;
  private final int order;
  private int pos;
  private int keyOff;
  private int keyLen;
  private int valueOff;
  private int valueLen;

  MemoryCursor(byte[] data, int order) {
    this.data = data;
    this.order = order;
  }

  @Override
  public boolean next() throws IOException {
    int k = WritableComparator.readVInt(data, pos);
    pos += WritableUtils.decodeVIntSize(data[pos]);
    int v = WritableComparator.readVInt(data, pos);
    pos += WritableUtils.decodeVIntSize(data[pos]);
    if (k == IFileRecords.EOF_MARKER && v == IFileRecords.EOF_MARKER) {
      return false;
    }
    keyOff = pos;
    keyLen = k;
    valueOff = pos + k;
    valueLen = v;
    pos = valueOff + v;
    return true;
  }

  @Override
  public byte[] keyBytes() {
    return data;
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
    return data;
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
    return data.length;
  }

  @Override
  public long position() {
    return pos;
  }

  @Override
  public boolean onLocalDisk() {
    return false;
  }

  @Override
  public int order() {
    return order;
  }

  @Override
  public void close() {}
}
