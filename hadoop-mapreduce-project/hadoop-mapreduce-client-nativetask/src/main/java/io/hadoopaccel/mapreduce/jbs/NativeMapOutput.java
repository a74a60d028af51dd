package io.hadoopaccel.mapreduce.jbs;

import java.io.InputStream;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.MapOutput;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleClientMetrics;

/**
 * A map output the NetMerger holds: the reduce only records it as copied with upstream's
 * scheduler (progress, SHUFFLED_MAPS, REDUCE_SHUFFLE_BYTES as stock); no bytes pass here.
 */
final class NativeMapOutput<K, V> extends MapOutput<K, V> {
  NativeMapOutput(TaskAttemptID mapId, long size) {
    super(mapId, size, true);
  }

  @Override
  public void shuffle(MapHost host, InputStream input, long compressedLength,
      long decompressedLength, ShuffleClientMetrics metrics, Reporter reporter) {
    throw new UnsupportedOperationException("the NetMerger fetches JBS map outputs");
  }

  @Override
  public void commit() {}

  @Override
  public void abort() {}

  @Override
  public String getDescription() {
    return "JBS";
  }
}
