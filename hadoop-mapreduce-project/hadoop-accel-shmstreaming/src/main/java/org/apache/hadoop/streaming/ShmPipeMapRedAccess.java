package org.apache.hadoop.streaming;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.hadoop.mapred.OutputCollector;
import org.apache.hadoop.mapred.Reporter;

/**
 * Thin adapter in streaming's package: ShmStreaming moves the task's two record streams from
 * the program's stdin/stdout pipes to shared-memory rings by replacing the streams
 * {@link PipeMapRed} reads and writes (package-private fields; streaming has no hook for the
 * transport, only for the record format). Everything else stays upstream's: the program is
 * started, its stderr ({@code reporter:} lines) read, its exit code checked and the streams
 * flushed and closed at the end exactly as with pipes.
 */
public final class ShmPipeMapRedAccess {
  private ShmPipeMapRedAccess() {}

  /** The running program. */
  public static Process process(PipeMapRed task) {
    return task.sim;
  }

  /** Whether this is the map side (else a reducer or a combiner). */
  public static boolean isMapper(PipeMapRed task) {
    return task instanceof PipeMapper;
  }

  /** Whether this is a combiner (runs a program per spill in the map task). */
  public static boolean isCombiner(PipeMapRed task) {
    return task instanceof PipeCombiner;
  }

  /** The stream to the program's stdin, as streaming created it. */
  public static DataOutputStream programInput(PipeMapRed task) {
    return task.clientOut_;
  }

  /** The stream from the program's stdout, as streaming created it. */
  public static DataInputStream programOutput(PipeMapRed task) {
    return task.clientIn_;
  }

  /**
   * Makes streaming write records to {@code toProgram} and read them from {@code fromProgram};
   * it flushes and closes both at the end of the task as it would the pipes.
   */
  public static void replaceStreams(
      PipeMapRed task, DataOutputStream toProgram, DataInputStream fromProgram) {
    task.clientOut_ = toProgram;
    task.clientIn_ = fromProgram;
  }

  /**
   * Starts the threads that read the program's output and stderr, as {@link PipeMapRunner}
   * does before the first record (this also creates the input writer, and with it the rings).
   */
  public static void startOutputThreads(
      PipeMapper task, OutputCollector<?, ?> output, Reporter reporter) throws IOException {
    task.startOutputThreads(output, reporter);
  }

  /** Counts records handed to the program in bulk (streaming's "R/W" status and log lines). */
  public static void addRecordsRead(PipeMapRed task, long records) {
    task.numRecRead_ += records;
  }

  /** Records the task wrote to the program so far. */
  public static long recordsToProgram(PipeMapRed task) {
    return task.numRecRead_;
  }

  /** Records the task read from the program so far. */
  public static long recordsFromProgram(PipeMapRed task) {
    return task.numRecWritten_;
  }

  /** Why the output or stderr thread stopped, or null while they run or ended well. */
  public static Throwable outputFailure(PipeMapRed task) {
    return task.outerrThreadsThrowable;
  }
}
