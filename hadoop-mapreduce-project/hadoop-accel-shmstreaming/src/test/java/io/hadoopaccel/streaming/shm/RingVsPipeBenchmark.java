package io.hadoopaccel.streaming.shm;

import io.hadoopaccel.common.conf.AccelConfigKeys;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Records per second the task JVM pushes to a streaming program: through ShmStreaming's input
 * ring vs through the program's stdin pipe as upstream streaming does. JMH, not a test (surefire
 * runs {@code Test*}); run by {@code src/test/bench/shm_jmh.sh}, described in
 * {@code benchmarks/shmstreaming/README.md} at the top of the repository.
 *
 * <p>One op is one record of {@code size} bytes: key TAB value NEWLINE (key 1-8 bytes, the value
 * the rest), written with the four calls upstream's {@code TextInputWriter} makes per record on
 * the task's {@code DataOutputStream} (key bytes, separator, value bytes, {@code '\n'}):
 *
 * <ul>
 *   <li>{@code pipe}: that stream over {@code BufferedOutputStream(128 KiB)} over the program's
 *       {@code Process.getOutputStream()}, which is how {@code PipeMapRed} builds {@code clientOut_}.
 *   <li>{@code ring}: that stream over {@link RingOutputStream} over the input ring, which is how
 *       {@link ShmChannel} replaces it under {@code -io shm}: 64 KiB per JNI call, so the ring's
 *       {@code batch} counts 64 KiB hand-offs.
 *   <li>{@code ringUnbuffered}: the whole record in one JNI {@link ShmRing#write} per op, no Java
 *       buffer (not what a task does): the ring's {@code batch} then counts records, as in
 *       {@code shm_bench}'s one-record-per-call rows.
 * </ul>
 *
 * <p>The program on both sides is {@code shm_sink} ({@code src/test/native/bench}, built by
 * {@code -Pnative}): it reads 256 KiB at a time through {@code hshm_stream} (the ring after the
 * handshake, or its stdin) and discards the bytes. The stream runs without flushes for the whole
 * trial (one fork, one parameter point), so an op's time is the writer's steady-state cost
 * including the program's back-pressure; what is in flight when an iteration starts or ends (at
 * most the ring or pipe plus the Java buffer, about 1 MiB) is the same in steady state. At the
 * end of the trial the stream is closed and the program must report exactly the bytes written.
 *
 * <p>System properties: {@code accel.native.build.dir} (the build's {@code target/native}: {@code
 * lib/libhadoop_shm.so} and {@code shmstreaming/bench/shm_sink}), {@code accel.shm.bench.dir}
 * (ring directory, default {@code /dev/shm}, as {@code hadoop.accel.shm.streaming.dir}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 4, time = 1)
public class RingVsPipeBenchmark {
  /** PipeMapRed.BUFFER_SIZE: the task's buffer in front of the program's stdin. */
  static final int PIPE_BUFFER = 128 * 1024;

  private static final AtomicLong SEQUENCE = new AtomicLong();

  @Benchmark
  public void pipe(PipeState s) throws IOException {
    s.writeRecord();
  }

  @Benchmark
  public void ring(RingState s) throws IOException {
    s.writeRecord();
  }

  @Benchmark
  public void ringUnbuffered(RingState s) throws IOException {
    s.ring.write(s.record, 0, s.record.length);
    s.written += s.record.length;
  }

  /** The records, the task's stream to the program, and the program. */
  abstract static class Channel {
    final byte[] separator = {'\t'};
    byte[] key;
    byte[] value;
    /** key, separator, value, newline in one array (ringUnbuffered). */
    byte[] record;
    DataOutputStream out;
    Process program;
    long written;

    final void makeRecords(int size) {
      if (size < 4) {
        throw new IllegalArgumentException("size must be at least 4 bytes, was " + size);
      }
      int k = Math.min(8, (size - 2) / 2);
      key = new byte[k];
      value = new byte[size - 2 - k];
      Arrays.fill(key, (byte) 'k');
      for (int i = 0; i < value.length; i++) {
        value[i] = (byte) ('a' + i % 26);
      }
      record = new byte[size];
      System.arraycopy(key, 0, record, 0, k);
      record[k] = '\t';
      System.arraycopy(value, 0, record, k + 1, value.length);
      record[size - 1] = '\n';
    }

    /** TextInputWriter.writeKey + writeValue for a Text key and value. */
    final void writeRecord() throws IOException {
      out.write(key, 0, key.length);
      out.write(separator);
      out.write(value, 0, value.length);
      out.write('\n');
      written += record.length;
    }

    final Process startProgram(boolean rings) throws IOException {
      File sink = new File(nativeDir(), "shmstreaming/bench/shm_sink");
      if (!sink.canExecute()) {
        throw new IllegalStateException(sink + " missing: build with -Pnative (mvn install "
            + "-Pnative -DskipTests) and set -Daccel.native.build.dir to its target/native");
      }
      ProcessBuilder pb = new ProcessBuilder(sink.getPath());
      pb.environment().remove("stream_map_input_writer_class");
      pb.environment().remove("stream_reduce_input_writer_class");
      if (rings) { // what streaming exports from the job configuration under -io shm
        pb.environment().put("stream_map_input_writer_class", ShmTextInputWriter.class.getName());
      }
      pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
      return pb.start();
    }

    /** Ends the stream, waits for the program and checks it read every byte. */
    final void finish(String transport) throws Exception {
      out.close();
      String report = new String(program.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!program.waitFor(60, TimeUnit.SECONDS)) {
        program.destroyForcibly();
        throw new IllegalStateException("shm_sink did not exit after the end of its input");
      }
      String expected = "shm_sink: " + written + " bytes over " + transport;
      if (program.exitValue() != 0 || !report.contains(expected)) {
        throw new IllegalStateException("shm_sink exited with " + program.exitValue()
            + " and reported '" + report.trim() + "', expected '" + expected + "'");
      }
    }
  }

  @State(Scope.Thread)
  public static class PipeState extends Channel {
    /** Bytes per record: key TAB value NEWLINE. */
    @Param({"16", "64", "256", "4096", "65536"})
    public int size;

    @Setup(Level.Trial)
    public void start() throws IOException {
      makeRecords(size);
      program = startProgram(false);
      out = new DataOutputStream(new BufferedOutputStream(program.getOutputStream(), PIPE_BUFFER));
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
      finish("pipes");
    }
  }

  @State(Scope.Thread)
  public static class RingState extends Channel {
    /** Bytes per record: key TAB value NEWLINE. */
    @Param({"16", "64", "256", "4096", "65536"})
    public int size;

    /** The writer wakes a sleeping program after this many ring writes; 0 = auto. */
    @Param({"1", "16", "256", "4096", "0"})
    public int batch;

    /** Ring capacity in bytes (hadoop.accel.shm.streaming.buffer.bytes, default 1 MiB). */
    @Param({"1048576"})
    public int capacity;

    ShmRing ring;
    private ShmRing back;

    @Setup(Level.Trial)
    public void start() throws Exception {
      makeRecords(size);
      Configuration conf = new Configuration(false);
      conf.set(AccelConfigKeys.NATIVE_LIB_DIR, new File(nativeDir(), "lib").getAbsolutePath());
      if (!ShmRingLibrary.load(conf)) {
        throw new IllegalStateException("libhadoop_shm did not load from "
            + conf.get(AccelConfigKeys.NATIVE_LIB_DIR) + " (build with -Pnative)");
      }
      // As ShmChannel: both rings, the handshake on the program's stdin, wait for the attach,
      // unlink the files.
      String base = System.getProperty("accel.shm.bench.dir", "/dev/shm") + "/hadoop-shm-jmh-"
          + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet();
      ring = ShmRing.create(base + ".in", capacity, ShmRingLibrary.WRITER, batch);
      back = ShmRing.create(base + ".out", capacity, ShmRingLibrary.READER, batch);
      try {
        program = startProgram(true);
        OutputStream stdin = program.getOutputStream();
        stdin.write((ShmChannel.HANDSHAKE + "\t" + ring.path() + "\t" + back.path() + "\n")
            .getBytes(StandardCharsets.UTF_8));
        stdin.flush();
        if (!ring.waitPeer(10_000) || !back.waitPeer(10_000)) {
          program.destroyForcibly();
          throw new IllegalStateException("shm_sink did not attach to " + base + ".in/.out");
        }
        out = new DataOutputStream(new RingOutputStream(ring, stdin, () -> { }));
      } finally {
        Files.deleteIfExists(Path.of(ring.path()));
        Files.deleteIfExists(Path.of(back.path()));
      }
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
      try {
        finish("rings");
      } finally {
        back.close();
      }
      long[] st = ring.stats();
      System.out.printf("%nring writer: %d bytes in %d ring writes, %d sleeps, %d wake-ups "
          + "(batch %s, capacity %d)%n", st[0], st[1], st[2], st[3],
          batch == 0 ? "auto" : Integer.toString(batch), capacity);
    }
  }

  static File nativeDir() {
    return new File(System.getProperty("accel.native.build.dir", "target/native"));
  }
}
