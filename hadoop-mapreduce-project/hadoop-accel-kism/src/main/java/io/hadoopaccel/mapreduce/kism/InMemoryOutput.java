package io.hadoopaccel.mapreduce.kism;

import java.io.IOException;
import java.io.InputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.io.compress.CodecPool;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.Decompressor;
import org.apache.hadoop.mapred.IFileInputStream;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.MapOutput;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleClientMetrics;

/**
 * A map output fetched into memory (decompressed, checksum verified, record framing checked).
 * Its records stay in this buffer until the reducer consumes them or the value log takes them.
 */
final class InMemoryOutput<K, V> extends MapOutput<K, V> {
  private final KismMergeManager<K, V> manager;
  private final Configuration conf;
  private final CompressionCodec codec;
  private final byte[] data;
  private int order;

  InMemoryOutput(KismMergeManager<K, V> manager, Configuration conf, CompressionCodec codec,
      TaskAttemptID mapId, int size) {
    super(mapId, size, true);
    this.manager = manager;
    this.conf = conf;
    this.codec = codec;
    this.data = new byte[size];
  }

  byte[] data() {
    return data;
  }

  /** Place in commit order; equal keys of different outputs come out in this order. */
  int order() {
    return order;
  }

  void setOrder(int order) {
    this.order = order;
  }

  @Override
  public void shuffle(MapHost host, InputStream input, long compressedLength,
      long decompressedLength, ShuffleClientMetrics metrics, Reporter reporter)
      throws IOException {
    InputStream in = new IFileInputStream(input, compressedLength, conf);
    Decompressor decompressor = null;
    try {
      if (codec != null) {
        decompressor = CodecPool.getDecompressor(codec);
        decompressor.reset();
        in = codec.createInputStream(in, decompressor);
      }
      IOUtils.readFully(in, data, 0, data.length);
      metrics.inputBytes(data.length);
      reporter.progress();
      if (in.read() >= 0) { // also makes the decompressor consume its trailer
        throw new IOException("Unexpected extra bytes in map output of " + getMapId());
      }
    } finally {
      if (decompressor != null) {
        CodecPool.returnDecompressor(decompressor);
      }
    }
    IFileRecords.validate(data, data.length, "map output of " + getMapId());
  }

  @Override
  public void commit() {
    manager.commit(this);
  }

  @Override
  public void abort() {
    manager.unreserve(data.length);
  }

  @Override
  public String getDescription() {
    return "KISM-MEMORY";
  }
}
