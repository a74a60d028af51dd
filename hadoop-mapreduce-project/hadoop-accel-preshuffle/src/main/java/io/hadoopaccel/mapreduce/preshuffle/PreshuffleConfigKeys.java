package io.hadoopaccel.mapreduce.preshuffle;

/** Names of Preshuffle's keys (defaults, ranges and descriptions: {@code accel-default.xml}). */
public final class PreshuffleConfigKeys {
  /** How long a map with final output waits for its pushes to finish. */
  public static final String DRAIN_TIMEOUT_MS = "hadoop.accel.preshuffle.drain.timeout.ms";

  /** Connect and per-read/write bound of one push, on both ends. */
  public static final String SOCKET_TIMEOUT_MS = "hadoop.accel.preshuffle.socket.timeout.ms";

  /** Reducers a map pushes to at once. */
  public static final String SENDER_STREAMS = "hadoop.accel.preshuffle.sender.streams";

  /** Pushes a reducer receives at once. */
  public static final String RECEIVER_THREADS = "hadoop.accel.preshuffle.receiver.threads";

  /** How often a map re-reads the registry for reducers that have not registered yet. */
  public static final String REGISTRY_REFRESH_MS = "hadoop.accel.preshuffle.registry.refresh.ms";

  private PreshuffleConfigKeys() {}
}
