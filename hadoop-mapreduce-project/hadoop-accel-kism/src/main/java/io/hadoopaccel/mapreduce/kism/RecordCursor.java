package io.hadoopaccel.mapreduce.kism;

import java.io.Closeable;
import java.io.IOException;

/**
 * One map output's records in their own (sorted) order, one record at a time. The merge holds one
 * cursor per segment and only ever compares their current keys; a cursor's key and value stay
 * valid until its next {@link #next()}.
 */
interface RecordCursor extends Closeable {
  /** Moves to the next record; false at the segment's end. */
  boolean next() throws IOException;

  byte[] keyBytes();

  int keyOffset();

  int keyLength();

  byte[] valueBytes();

  int valueOffset();

  int valueLength();

  /** Bytes of this segment in memory or on disk. */
  long size();

  /** Bytes of this segment consumed so far (for progress). */
  long position();

  /** Segment's place in commit order: equal keys come out in this order. */
  int order();

  /** Whether its bytes are read from local disk (counted as LOCAL_BYTES_READ). */
  default boolean onLocalDisk() {
    return true;
  }
}
