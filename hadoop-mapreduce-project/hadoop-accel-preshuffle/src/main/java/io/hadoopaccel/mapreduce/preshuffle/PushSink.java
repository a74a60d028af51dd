package io.hadoopaccel.mapreduce.preshuffle;

import java.io.IOException;
import java.io.InputStream;
import org.apache.hadoop.mapreduce.TaskAttemptID;

/** What a reducer does with authenticated pushes ({@link PushReceiver} calls it). */
public interface PushSink {
  /** Why pushes of {@code map} are no longer wanted, or null if they are. */
  String refusal(TaskAttemptID map);

  /**
   * Stores one spill segment read from {@code in} (exactly partLength bytes); {@code progress}
   * is the map's input consumed by then, in thousandths ({@link PushProtocol#WHOLE}).
   */
  void receive(TaskAttemptID map, int spill, int progress, long rawLength, long partLength,
      InputStream in) throws IOException;

  /** The map has {@code spills} spills in all; true if every one of them is held. */
  boolean done(TaskAttemptID map, int spills);

  /**
   * The map has {@code spills} spills in all and left those from {@code firstLeft} on to be
   * pulled; true if the segments held are spills 0 to at least {@code firstLeft - 1}, so that
   * pulling the rest completes the map's output.
   */
  boolean left(TaskAttemptID map, int spills, int firstLeft);

  /** An authentication failure or malformed header, for the counters. */
  void refused(String peer, String why);
}
