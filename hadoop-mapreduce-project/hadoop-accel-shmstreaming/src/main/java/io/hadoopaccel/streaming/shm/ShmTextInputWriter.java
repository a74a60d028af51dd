package io.hadoopaccel.streaming.shm;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.TextInputFormat;
import org.apache.hadoop.streaming.PipeMapRed;
import org.apache.hadoop.streaming.ShmPipeMapRedAccess;
import org.apache.hadoop.streaming.io.TextInputWriter;

/**
 * Upstream's text records (key, separator, value, newline; same separators and options) written
 * into the task's input ring instead of the program's stdin. Streaming creates the input writer
 * first, so this is where the task's channel is set up, for both directions.
 */
public class ShmTextInputWriter extends TextInputWriter {
  private boolean ignoreKey;

  @Override
  public void initialize(PipeMapRed pipeMapRed) throws IOException {
    ShmChannel.start(pipeMapRed, pipeMapRed.getConfiguration());
    super.initialize(pipeMapRed); // picks up the ring stream as the client output
    ignoreKey = ignoresKey(pipeMapRed);
  }

  /**
   * Upstream's mapper drops TextInputFormat's keys (byte offsets) only when its writer is
   * exactly TextInputWriter; as a text writer this one applies the same rule itself.
   */
  private static boolean ignoresKey(PipeMapRed task) {
    if (!ShmPipeMapRedAccess.isMapper(task)) {
      return false;
    }
    Configuration conf = task.getConfiguration();
    String format = conf.getClass("mapred.input.format.class", TextInputFormat.class)
        .getCanonicalName();
    return conf.getBoolean("stream.map.input.ignoreKey",
        format.equals(TextInputFormat.class.getCanonicalName()));
  }

  @Override
  public void writeKey(Object key) throws IOException {
    if (!ignoreKey) {
      super.writeKey(key);
    }
  }
}
