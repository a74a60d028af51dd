package io.hadoopaccel.streaming.shm;

import io.hadoopaccel.common.conf.AccelConfigKeys;
import io.hadoopaccel.common.conf.AccelConfiguration;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.streaming.PipeMapRed;
import org.apache.hadoop.streaming.ShmPipeMapRedAccess;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets up one streaming task's shared-memory channel to its program (DESIGN.md): creates the
 * two rings, tells the program their paths in one handshake line on its stdin, waits until it
 * has attached to both (failing fast if it exits, clearly if it never comes), unlinks the files
 * and makes streaming read and write records through the rings instead of the pipes.
 *
 * <p>When the task cannot create rings (no {@code libhadoop_shm.so} on this node, the ring
 * directory unusable) it logs one line and tells the program "-": both then use the pipes.
 */
final class ShmChannel {
  private static final Logger LOG = LoggerFactory.getLogger(ShmChannel.class);
  static final String HANDSHAKE = "hadoop-shm 1";
  static final String PIPES = "-";
  /** Written after the attach: the rings are taken (a second process looking for them fails). */
  static final String TAKEN = "+";
  private static final int ATTACH_POLL_MS = 100;

  /** How each task's channel was set up, for the output reader's consistency check. */
  enum Mode { RINGS, PIPES, NO_INPUT }

  private static final Map<PipeMapRed, Mode> MODES =
      Collections.synchronizedMap(new WeakHashMap<>());
  private static final Map<PipeMapRed, Reporter> REPORTERS =
      Collections.synchronizedMap(new WeakHashMap<>());
  private static final Map<PipeMapRed, ShmRing> INPUT_RINGS =
      Collections.synchronizedMap(new WeakHashMap<>());
  /**
   * Input a task over pipes can have written ahead of its program: the pipe (64 KiB on Linux)
   * plus streaming's 128 KiB buffer. A program that exits leaving more than this unread would
   * have broken the pipe under the task's next write.
   */
  static final long PIPE_WRITE_AHEAD = (64 + 128) * 1024;
  private static final String MIN_REC_WRITTEN_TO_ENABLE_SKIP = "stream.minRecWrittenToEnableSkip_";
  private static final AtomicLong SEQUENCE = new AtomicLong();
  /** Ring files created and not yet unlinked: removed at JVM exit if the task dies first. */
  private static final Set<String> LIVE_FILES = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      for (String f : LIVE_FILES) {
        new File(f).delete();
      }
    }, "shm-streaming-cleanup"));
  }

  private ShmChannel() {}

  /** The mode {@link #start} chose for this task, or empty if it never ran. */
  static Optional<Mode> mode(PipeMapRed task) {
    return Optional.ofNullable(MODES.get(task));
  }

  /** Fails an output reader whose task has no channel: its input is not over the rings. */
  static void requireStarted(PipeMapRed task, String id) throws IOException {
    if (!mode(task).isPresent()) {
      String side = ShmPipeMapRedAccess.isMapper(task) ? "map" : "reduce";
      throw new IOException("stream." + side + ".output=" + id + " needs stream." + side
          + ".input=" + id + " as well (the program's two rings are set up together; -io "
          + id + " sets all four keys)");
    }
  }

  /** Sets up the channel; called once per task before streaming creates its output reader. */
  static Mode start(PipeMapRed task, Configuration conf) throws IOException {
    Mode m = open(task, conf);
    MODES.put(task, m);
    if (m == Mode.RINGS) {
      count(task, ShmStreamingCounter.TASKS_ON_RINGS, 1);
    } else if (m == Mode.NO_INPUT) {
      count(task, ShmStreamingCounter.TASKS_WITHOUT_INPUT, 1);
    }
    return m;
  }

  /** The reporter of {@code task}'s counters (set before its first record). */
  static void useReporter(PipeMapRed task, Reporter reporter) {
    if (reporter != null) {
      REPORTERS.putIfAbsent(task, reporter);
    }
  }

  private static void count(PipeMapRed task, ShmStreamingCounter c, long n) {
    Reporter r = REPORTERS.get(task);
    if (r != null && n > 0) {
      r.incrCounter(c, n);
    }
  }

  /**
   * At the end of a task over the rings (its program has exited): counts its records both ways
   * and fails it, as a broken pipe would, if the program stopped reading with more input left
   * unread than pipes could have taken ahead of it; a map task whose program wrote at least
   * {@code stream.minRecWrittenToEnableSkip_} records succeeds, as upstream's mapper does.
   */
  static void finish(PipeMapRed task) {
    if (mode(task).orElse(null) != Mode.RINGS) {
      return;
    }
    long written = ShmPipeMapRedAccess.recordsFromProgram(task);
    count(task, ShmStreamingCounter.RECORDS_TO_PROGRAM,
        ShmPipeMapRedAccess.recordsToProgram(task));
    count(task, ShmStreamingCounter.RECORDS_FROM_PROGRAM, written);
    ShmRing in = INPUT_RINGS.remove(task);
    if (in == null) {
      return;
    }
    long unread = in.unread();
    in.close();
    long minWritten = task.getConfiguration().getLong(MIN_REC_WRITTEN_TO_ENABLE_SKIP,
        Long.MAX_VALUE);
    if (unread > PIPE_WRITE_AHEAD
        && !(ShmPipeMapRedAccess.isMapper(task) && written >= minWritten)) {
      throw new java.io.UncheckedIOException(new IOException("Broken pipe: the streaming "
          + "program stopped reading its input with " + unread + " bytes unread (more than "
          + "pipes take ahead of it, " + PIPE_WRITE_AHEAD + "), so this task fails as it would "
          + "over pipes; " + MIN_REC_WRITTEN_TO_ENABLE_SKIP + " lets a mapper that wrote that "
          + "many records succeed"));
    }
  }

  private static Mode open(PipeMapRed task, Configuration conf) throws IOException {
    Settings settings = new Settings(conf); // bad values fail here, naming the key
    DataOutputStream stdin = ShmPipeMapRedAccess.programInput(task);
    if (!ShmRingLibrary.load(conf)) {
      count(task, ShmStreamingCounter.FALLBACK_NO_LIBRARY, 1);
      return sendPipes(stdin, "libhadoop_shm is not loadable on this node ("
          + ShmRingLibrary.NAME + " in " + AccelConfigKeys.NATIVE_LIB_DIR
          + ", java.library.path or jna.library.path; see the log line above)");
    }
    String base = settings.dir + "/hadoop-shm-" + conf.get("mapreduce.task.attempt.id", "task")
        + "-" + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet();
    ShmRing in = null;
    ShmRing out = null;
    try {
      try {
        in = createRing(base + ".in", ShmRingLibrary.WRITER, settings);
        out = createRing(base + ".out", ShmRingLibrary.READER, settings);
      } catch (IOException e) {
        count(task, ShmStreamingCounter.FALLBACK_RING_DIR, 1);
        return sendPipes(stdin, "cannot create a ring in " + settings.dir + " ("
            + ShmStreamingConfigKeys.DIR + "): " + e.getMessage());
      }
      Process program = ShmPipeMapRedAccess.process(task);
      if (ShmPreload.preloaded(task)) {
        Optional<String> without = ProgramImage.awaitShim(program.pid(),
            settings.attachTimeoutMs);
        if (without.isPresent()) {
          // Nothing was written to its stdin yet: the program gets exactly what pipes carry.
          count(task, ShmStreamingCounter.FALLBACK_PROGRAM_WITHOUT_SHIM, 1);
          LOG.warn("ShmStreaming: the program {} does not load {} (statically linked, or "
              + "LD_PRELOAD dropped), so it cannot attach; this task's records go through "
              + "pipes", without.get(), ShmPreload.SHIM);
          return Mode.PIPES;
        }
      }
      try {
        writeLine(stdin, HANDSHAKE + "\t" + in.path() + "\t" + out.path());
      } catch (IOException e) {
        failIfExitedWithError(task);
        // A reducer that got no input: streaming closed the program's stdin before it creates
        // the reader and writer. Output (if any) goes to stdout and is discarded, as upstream.
        LOG.info("ShmStreaming: the program's stdin is already closed ({}); no rings",
            e.getMessage());
        return Mode.NO_INPUT;
      }
      awaitAttach(task, in, out, settings.attachTimeoutMs);
      unlink(in.path());
      unlink(out.path());
      try {
        writeLine(stdin, HANDSHAKE + "\t" + TAKEN + "\t" + TAKEN);
      } catch (IOException e) {
        LOG.debug("the program's stdin is closed: {}", e.getMessage());
      }
      DataInputStream stdout = ShmPipeMapRedAccess.programOutput(task);
      drainStrayOutput(stdout, conf.get("mapreduce.task.attempt.id", "task"));
      ShmRing toProgram = in;
      INPUT_RINGS.put(task, in);
      ShmRing fromProgram = out;
      ShmPipeMapRedAccess.replaceStreams(task,
          new DataOutputStream(new RingOutputStream(in, stdin,
              () -> count(task, ShmStreamingCounter.BYTES_TO_PROGRAM, logStats("to", toProgram)))),
          // Streaming's line reader asks for io.file.buffer.size (4 KiB) at a time: buffer so
          // each native call moves up to a chunk, as the pipe's 128 KiB buffer does for pipes.
          new DataInputStream(new BufferedInputStream(
              new RingInputStream(out, () -> count(task, ShmStreamingCounter.BYTES_FROM_PROGRAM,
                  logStats("from", fromProgram))), RingOutputStream.CHUNK)));
      LOG.info("ShmStreaming: records to and from the program go through two rings of {} bytes "
          + "(batch {}) instead of pipes", settings.bufferBytes,
          settings.batch == 0 ? "auto" : settings.batch);
      in = null;
      out = null;
      return Mode.RINGS;
    } finally {
      for (ShmRing r : new ShmRing[] {in, out}) { // set up, but not handed over: undo
        if (r != null) {
          r.close();
          unlink(r.path());
        }
      }
    }
  }

  private static ShmRing createRing(String path, int role, Settings s)
      throws IOException {
    LIVE_FILES.add(path);
    try {
      return ShmRing.create(path, s.bufferBytes, role, s.batch);
    } catch (IOException e) {
      LIVE_FILES.remove(path);
      throw e;
    }
  }

  private static Mode sendPipes(DataOutputStream stdin, String why) throws IOException {
    LOG.warn("ShmStreaming: {}; this task's records go through pipes", why);
    try {
      writeLine(stdin, HANDSHAKE + "\t" + PIPES + "\t" + PIPES);
    } catch (IOException e) {
      return Mode.NO_INPUT; // no input (see below) or the program is gone: as with pipes
    }
    return Mode.PIPES;
  }

  private static void writeLine(DataOutputStream stdin, String line) throws IOException {
    stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    stdin.flush();
  }

  private static void failIfExitedWithError(PipeMapRed task) throws IOException {
    Process program = ShmPipeMapRedAccess.process(task);
    if (!program.isAlive() && program.exitValue() != 0) {
      throw exitedEarly(program);
    }
  }

  private static IOException exitedEarly(Process program) {
    return new IOException("The streaming program exited with code " + exitCode(program)
        + " before it attached to its shared-memory rings (-io shm); its stderr is in the "
        + "task log");
  }

  private static void awaitAttach(PipeMapRed task, ShmRing in, ShmRing out, long timeoutMs)
      throws IOException {
    Process program = ShmPipeMapRedAccess.process(task);
    long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
    for (ShmRing ring : new ShmRing[] {in, out}) {
      while (!ring.waitPeer(ATTACH_POLL_MS)) {
        if (!program.isAlive()) {
          throw exitedEarly(program);
        }
        Optional<String> without = ShmPreload.preloaded(task)
            ? ProgramImage.withoutShim(program.pid()) : Optional.empty();
        if (without.isPresent()) {
          throw new IOException("The streaming program became " + without.get() + " (exec), "
              + "which does not load " + ShmPreload.SHIM + " (statically linked, or LD_PRELOAD "
              + "dropped), so it cannot attach to its shared-memory rings (-io shm); run it "
              + "without -io shm, or exec a dynamically linked program");
        }
        if (System.nanoTime() > deadline) {
          throw new IOException("The streaming program did not attach to its shared-memory "
              + "rings within " + timeoutMs + " ms (" + ShmStreamingConfigKeys.ATTACH_TIMEOUT_MS
              + "). With -io shm (stream.*.input/output=shm) the program must read and write "
              + "its records through libhadoop_shm: in C/C++ hadoop_accel/shm_stream.h or "
              + "SMStream, in Python the package hadoop_shm (lib/native and share/hadoop/tools/"
              + "shmstreaming in the distribution), or run unmodified with "
              + "LD_PRELOAD=lib/native/libhadoop_shm_preload.so in its own process (not a "
              + "wrapper script); otherwise run it without -io shm");
        }
      }
    }
  }

  private static String exitCode(Process p) {
    try {
      return Integer.toString(p.exitValue());
    } catch (IllegalThreadStateException e) {
      return "unknown";
    }
  }

  private static void unlink(String path) {
    try {
      Files.deleteIfExists(Paths.get(path));
    } catch (IOException e) {
      LOG.warn("ShmStreaming: cannot remove {}: {}", path, e.getMessage());
    }
    LIVE_FILES.remove(path);
  }

  /**
   * The program's stdout no longer carries records, but a program may still print to it (a
   * debugging line): copy it to the task's stderr log so the pipe never fills and blocks it.
   */
  private static void drainStrayOutput(InputStream stdout, String attempt) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[8192];
      long total = 0;
      try {
        int n;
        while ((n = stdout.read(buf)) > 0) {
          if (total == 0) {
            LOG.warn("ShmStreaming: the program writes to stdout, which is not part of the "
                + "job output under -io shm; copying it to the task's stderr log");
          }
          total += n;
          System.err.write(buf, 0, n);
        }
      } catch (IOException e) {
        LOG.debug("stdout of the program ended: {}", e.getMessage());
      }
    }, "shm-streaming-stdout-" + attempt);
    t.setDaemon(true);
    t.start();
  }

  /** Logs one direction's ring statistics; returns its bytes. */
  private static long logStats(String direction, ShmRing ring) {
    long[] s = ring.stats();
    LOG.info("ShmStreaming: {} the program {} bytes in {} calls, {} sleeps, {} wake-ups",
        direction, s[0], s[1], s[2], s[3]);
    return s[0];
  }

  /** The four tunables, validated once per task. */
  static final class Settings {
    final String dir;
    final long bufferBytes;
    final int batch;
    final long attachTimeoutMs;

    Settings(Configuration conf) {
      dir = AccelConfiguration.getString(conf, ShmStreamingConfigKeys.DIR);
      if (dir.isEmpty() || dir.contains("\t") || dir.contains("\n")) {
        throw new IllegalArgumentException(ShmStreamingConfigKeys.DIR + "='" + dir
            + "' is not valid: expected a directory path without tabs or newlines");
      }
      bufferBytes = AccelConfiguration.getBytes(conf, ShmStreamingConfigKeys.BUFFER_BYTES);
      String b = AccelConfiguration.getString(conf, ShmStreamingConfigKeys.BATCH_SIZE);
      batch = "auto".equalsIgnoreCase(b.trim()) ? 0
          : AccelConfiguration.getInt(conf, ShmStreamingConfigKeys.BATCH_SIZE);
      attachTimeoutMs = AccelConfiguration.getInt(conf, ShmStreamingConfigKeys.ATTACH_TIMEOUT_MS);
    }
  }
}
