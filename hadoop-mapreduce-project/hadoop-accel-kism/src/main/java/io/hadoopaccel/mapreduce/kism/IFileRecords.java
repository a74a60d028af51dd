package io.hadoopaccel.mapreduce.kism;

import java.io.IOException;
import org.apache.hadoop.io.WritableComparator;
import org.apache.hadoop.io.WritableUtils;

/**
 * The record framing of upstream's IFile (what map outputs are made of): per record a vint key
 * length, a vint value length, the key and the value; two -1 lengths end the segment.
 */
final class IFileRecords {
  static final int EOF_MARKER = -1;

  private IFileRecords() {}

  /**
   * Walks a decompressed segment held in memory and checks its framing: every length in bounds,
   * the end marker exactly at the end. Returns the number of records.
   */
  static long validate(byte[] data, int length, String what) throws IOException {
    long records = 0;
    int pos = 0;
    while (true) {
      if (pos >= length) {
        throw new IOException(what + ": no end-of-segment marker in " + length + " bytes");
      }
      int keyLen = WritableComparator.readVInt(data, pos);
      pos += WritableUtils.decodeVIntSize(data[pos]);
      if (pos >= length) {
        throw new IOException(what + ": truncated record header at byte " + pos);
      }
      int valueLen = WritableComparator.readVInt(data, pos);
      pos += WritableUtils.decodeVIntSize(data[pos]);
      if (keyLen == EOF_MARKER && valueLen == EOF_MARKER) {
        if (pos != length) {
          throw new IOException(what + ": " + (length - pos) + " bytes after the end marker");
        }
        return records;
      }
      if (keyLen < 0 || valueLen < 0 || (long) pos + keyLen + valueLen > length) {
        throw new IOException(what + ": bad record lengths key=" + keyLen + " value=" + valueLen
            + " at byte " + pos + " of " + length);
      }
      pos += keyLen + valueLen;
      records++;
    }
  }
}
