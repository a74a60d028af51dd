package io.hadoopaccel.mapreduce.kism;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.IFileInputStream;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.MapOutput;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleClientMetrics;

/**
 * A map output appended to a segment log as fetched (still compressed, checksum kept and
 * verified on the way). This is the one and only time its bytes are written on the reduce side.
 * The log is chosen once the output's length on the wire is known: one in node-shared memory if
 * that grants room for it, else one on local disk.
 */
final class OnDiskOutput<K, V> extends MapOutput<K, V> {
  private static final int COPY_BUFFER = 64 * 1024;

  private final KismMergeManager<K, V> manager;
  private final Configuration conf;
  private SegmentLog log;
  private long offset = -1;
  private long length;

  /** Appends to a log of the manager's, which this output holds until commit or abort. */
  OnDiskOutput(KismMergeManager<K, V> manager, Configuration conf, TaskAttemptID mapId,
      long size) {
    super(mapId, size, true);
    this.manager = manager;
    this.conf = conf;
  }

  /** The log it appends to; null before {@link #shuffle}. */
  SegmentLog log() {
    return log;
  }

  long offset() {
    return offset;
  }

  long length() {
    return length;
  }

  @Override
  public void shuffle(MapHost host, InputStream input, long compressedLength,
      long decompressedLength, ShuffleClientMetrics metrics, Reporter reporter)
      throws IOException {
    IFileInputStream in = new IFileInputStream(input, compressedLength, conf);
    byte[] buf = new byte[COPY_BUFFER];
    long left = compressedLength;
    log = manager.takeLog(compressedLength);
    offset = log.position();
    OutputStream out = log.stream();
    while (left > 0) {
      int n = in.readWithChecksum(buf, 0, (int) Math.min(left, buf.length));
      if (n < 0) {
        throw new IOException("Map output of " + getMapId() + " ended " + left
            + " bytes early");
      }
      out.write(buf, 0, n);
      left -= n;
      metrics.inputBytes(n);
      reporter.progress();
    }
    length = compressedLength;
  }

  @Override
  public void commit() {
    manager.commit(this);
  }

  /** The bytes appended so far stay in the log as dead space; nothing ever points at them. */
  @Override
  public void abort() {
    manager.abort(this);
  }

  @Override
  public String getDescription() {
    return "KISM-DISK";
  }
}
