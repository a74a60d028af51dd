package io.hadoopaccel.mapreduce.kism;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.IFileInputStream;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.MapOutput;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleClientMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A map output streamed to a local file as fetched (still compressed, checksum kept and verified
 * on the way). This is the one and only time its bytes are written on the reduce side.
 */
final class OnDiskOutput<K, V> extends MapOutput<K, V> {
  private static final Logger LOG = LoggerFactory.getLogger(OnDiskOutput.class);
  private static final int COPY_BUFFER = 64 * 1024;

  private final KismMergeManager<K, V> manager;
  private final Configuration conf;
  private final FileSystem fs;
  private final Path path;
  private final Path tmpPath;
  private long length;

  OnDiskOutput(KismMergeManager<K, V> manager, Configuration conf, FileSystem fs,
      TaskAttemptID mapId, long size, Path path, int fetcher) {
    super(mapId, size, true);
    this.manager = manager;
    this.conf = conf;
    this.fs = fs;
    this.path = path;
    this.tmpPath = path.suffix("." + fetcher + ".tmp");
  }

  Path path() {
    return path;
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
    try (OutputStream out = fs.create(tmpPath)) {
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
    }
    length = compressedLength;
  }

  @Override
  public void commit() throws IOException {
    if (!fs.rename(tmpPath, path)) {
      throw new IOException("Could not rename " + tmpPath + " to " + path);
    }
    manager.commit(this);
  }

  @Override
  public void abort() {
    try {
      fs.delete(tmpPath, false);
    } catch (IOException e) {
      // The attempt's local dirs go away with the container anyway.
      LOG.warn("Could not delete {}: {}", tmpPath, e.toString());
    }
  }

  @Override
  public String getDescription() {
    return "KISM-DISK";
  }
}
