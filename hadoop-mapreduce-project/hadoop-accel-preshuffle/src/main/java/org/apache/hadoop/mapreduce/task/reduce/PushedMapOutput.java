package org.apache.hadoop.mapreduce.task.reduce;

import java.io.InputStream;
import java.util.List;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.TaskAttemptID;

/** A map's whole output as it was pushed: one merge input per spill segment. */
final class PushedMapOutput<K, V> extends MapOutput<K, V> {
  private final List<MapOutput<K, V>> segments;

  PushedMapOutput(TaskAttemptID map, long size, List<MapOutput<K, V>> segments) {
    super(map, size, true);
    this.segments = segments;
  }

  @Override
  public void shuffle(MapHost host, InputStream input, long compressedLength,
      long decompressedLength, ShuffleClientMetrics metrics, Reporter reporter) {
    throw new UnsupportedOperationException("already received by push");
  }

  @Override
  public void commit() throws java.io.IOException {
    for (MapOutput<K, V> s : segments) {
      s.commit();
    }
  }

  @Override
  public void abort() {
    segments.forEach(MapOutput::abort);
  }

  @Override
  public String getDescription() {
    return "PUSHED";
  }
}
