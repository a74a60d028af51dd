package io.hadoopaccel.mapreduce.kism;

import org.apache.hadoop.fs.Path;

/**
 * A map output in a local file: {@code length} bytes at {@code offset} in IFile form with its
 * trailing checksum, compressed if {@code compressed}; in node-shared memory rather than on
 * disk if {@code shared}. Fetched outputs fill a file of their own; outputs moved out of memory
 * share the reduce's value log.
 */
record FileSegment(Path path, long offset, long length, boolean compressed, int order,
    boolean shared) {
  FileSegment(Path path, long offset, long length, boolean compressed, int order) {
    this(path, offset, length, compressed, order, false);
  }
}
