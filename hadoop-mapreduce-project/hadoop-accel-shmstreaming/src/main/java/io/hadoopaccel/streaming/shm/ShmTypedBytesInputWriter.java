package io.hadoopaccel.streaming.shm;

import java.io.IOException;
import org.apache.hadoop.streaming.PipeMapRed;
import org.apache.hadoop.streaming.io.TypedBytesInputWriter;

/**
 * Upstream's typed bytes written into the task's input ring instead of the program's stdin
 * ({@code -io shm-typedbytes}); sets up the task's channel for both directions, as
 * {@link ShmTextInputWriter} does for text.
 */
public class ShmTypedBytesInputWriter extends TypedBytesInputWriter {
  @Override
  public void initialize(PipeMapRed pipeMapRed) throws IOException {
    ShmChannel.start(pipeMapRed, pipeMapRed.getConfiguration());
    super.initialize(pipeMapRed); // picks up the ring stream as the client output
  }
}
