package io.hadoopaccel.streaming.shm;

import java.io.IOException;
import org.apache.hadoop.streaming.PipeMapRed;
import org.apache.hadoop.streaming.io.TextOutputReader;

/**
 * Upstream's text output parsing (key fields, separators) over the task's output ring. The
 * rings come as a pair, set up by {@link ShmTextInputWriter}: a task whose input is not
 * {@code shm} cannot have {@code shm} output.
 */
public class ShmTextOutputReader extends TextOutputReader {
  @Override
  public void initialize(PipeMapRed pipeMapRed) throws IOException {
    ShmChannel.requireStarted(pipeMapRed, ShmIdentifierResolver.SHM_ID);
    super.initialize(pipeMapRed); // picks up the ring stream as the client input
  }
}
