package io.hadoopaccel.streaming.shm;

import java.io.IOException;
import org.apache.hadoop.streaming.PipeMapRed;
import org.apache.hadoop.streaming.io.TypedBytesOutputReader;

/** Upstream's typed bytes read from the task's output ring ({@code -io shm-typedbytes}). */
public class ShmTypedBytesOutputReader extends TypedBytesOutputReader {
  @Override
  public void initialize(PipeMapRed pipeMapRed) throws IOException {
    ShmChannel.requireStarted(pipeMapRed, ShmIdentifierResolver.SHM_TYPED_BYTES_ID);
    super.initialize(pipeMapRed); // picks up the ring stream as the client input
  }
}
