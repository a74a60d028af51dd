package io.hadoopaccel.streaming.shm;

import static io.hadoopaccel.streaming.shm.ShmJobs.args;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Programs that fail under -io shm fail their task promptly with a message that says why, never
 * hang, and leave no ring file behind; configurations that cannot work are refused.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TestShmStreamingFailures {
  private static ShmJobs jobs;
  private static Path input;

  @BeforeAll
  static void setUp() throws Exception {
    jobs = new ShmJobs("shm-failures");
    input = jobs.awkwardInput(11, 3000);
  }

  @AfterEach
  void noRingFileLeft() throws Exception {
    assertEquals(List.of(), jobs.ringFiles());
  }

  /** Runs a map-only job that must fail; returns what was logged. */
  private String failingMap(Configuration conf, String mapper) throws Exception {
    int[] rc = new int[1];
    String log = ShmJobs.logged(() -> rc[0] = jobs.run(conf, input,
        args("-io", "shm", jobs.shmEnv(), "-mapper", mapper, "-reducer", "NONE")));
    assertNotEquals(0, rc[0], "the job should have failed");
    return log;
  }

  private static void assertLogged(String log, String... fragments) {
    for (String f : fragments) {
      assertTrue(log.contains(f), () -> "'" + f + "' not in the log:\n"
          + log.substring(0, Math.min(log.length(), 5000)));
    }
  }

  @Test
  void programThatNeverAttachesFailsAfterTheTimeoutNamingTheLibrary() throws Exception {
    Configuration conf = new Configuration(jobs.conf);
    conf.set("hadoop.accel.shm.streaming.attach.timeout.ms", "1500");
    conf.set("hadoop.accel.shm.streaming.preload", "false"); // with the shim, cat attaches
    // A stdin program: it copies the handshake to stdout and waits for more input.
    String log = failingMap(conf, "cat");
    assertLogged(log, "did not attach to its shared-memory rings within 1500 ms",
        "hadoop.accel.shm.streaming.attach.timeout.ms", "hadoop_shm", "libhadoop_shm_preload.so");
  }

  @Test
  void programThatExitsBeforeAttachingFailsAtOnceWithItsExitCode() throws Exception {
    Configuration conf = new Configuration(jobs.conf);
    conf.set("hadoop.accel.shm.streaming.attach.timeout.ms", "600000"); // the test times out first
    String log = failingMap(conf, jobs.python + " -c \"import sys; sys.exit(7)\"");
    assertLogged(log, "exited with code 7 before it attached");
  }

  @Test
  void programKilledMidMapFailsTheTask() throws Exception {
    String log = failingMap(jobs.conf, jobs.python("shm", "crash-after", "500"));
    // The ring's wait or stock's reaper of the process may see the death first; either way
    // the task fails naming it.
    assertTrue(log.contains("exited or died") || log.contains("subprocess failed with code"),
        () -> "neither the ring nor streaming named the program's death:\n"
            + log.substring(0, Math.min(log.length(), 5000)));
  }

  @Test
  void programThatExitsWithoutClosingItsOutputFailsRatherThanLoseOutput() throws Exception {
    String log = failingMap(jobs.conf, jobs.python("shm", "exit-early", "500"));
    assertLogged(log, "without closing its output ring");
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES) // five jobs; a hang guard on a shared machine
  void earlyExitBehavesAsOverPipes() throws Exception {
    // An unmodified mapper that reads one line, prints one and exits 0. Rings of 4 MiB take
    // the whole split ahead of it; pipes take 192 KiB at most.
    String oneLine = jobs.python + " -c \"import sys; sys.stdin.readline(); print('one')\"";
    Path big = lines("early-big", 20_000); // ~900 KB: pipes break under the task's writes
    Path small = lines("early-small", 1_000); // ~45 KB: fits the pipe and streaming's buffer
    Configuration conf = new Configuration(jobs.conf);
    conf.set("hadoop.accel.shm.streaming.buffer.bytes", "4m");
    for (Path in : List.of(big, small)) {
      boolean pipes = jobs.run(conf, in, args("-mapper", oneLine, "-reducer", "NONE")) == 0;
      int[] rc = new int[1];
      String log = ShmJobs.logged(() -> rc[0] = jobs.run(conf, in,
          args("-io", "shm", "-mapper", oneLine, "-reducer", "NONE")));
      assertEquals(pipes, rc[0] == 0, () -> in + ": pipes " + (pipes ? "succeed" : "fail")
          + ", rings differ:\n" + log.substring(Math.max(0, log.length() - 5000)));
      assertEquals(in == small, pipes, in + " over pipes");
      if (!pipes) {
        assertLogged(log, "Broken pipe");
      }
    }
    // Upstream's key for mappers: enough records written, the broken pipe is forgiven.
    conf.set("stream.minRecWrittenToEnableSkip_", "1");
    assertEquals(0, jobs.run(conf, big, args("-io", "shm", "-mapper", oneLine,
        "-reducer", "NONE")));
    assertArrayEquals("one\t\n".getBytes(java.nio.charset.StandardCharsets.UTF_8), // key, no value
        jobs.lastOutput());
  }

  private static Path lines(String name, int n) throws java.io.IOException {
    Path dir = java.nio.file.Files.createDirectories(jobs.work.resolve(name));
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append("line ").append(i).append("\tsome value to make it longer\n");
    }
    java.nio.file.Files.writeString(dir.resolve("part-0"), b);
    return dir;
  }

  @Test
  void shmOutputWithoutShmInputIsRefused() throws Exception {
    int[] rc = new int[1];
    String log = ShmJobs.logged(() -> rc[0] = jobs.run(jobs.conf, input,
        args("-D", "stream.map.output=shm", jobs.shmEnv(), "-mapper", "cat",
            "-reducer", "NONE")));
    assertNotEquals(0, rc[0]);
    assertLogged(log, "stream.map.output=shm needs stream.map.input=shm");
  }

  @Test
  void badTunableIsRefusedAtSubmissionNamingTheKey() throws Exception {
    Configuration conf = new Configuration(jobs.conf);
    conf.set("hadoop.accel.shm.streaming.buffer.bytes", "lots");
    int[] rc = new int[1];
    String log = ShmJobs.logged(() -> rc[0] = jobs.run(conf, input,
        args("-io", "shm", "-mapper", "cat", "-reducer", "NONE")));
    assertEquals(1, rc[0], "StreamJob's exit code for a bad argument");
    assertLogged(log, "Invalid value 'lots' for configuration key "
        + "hadoop.accel.shm.streaming.buffer.bytes");
  }

  @Test
  void unusableRingDirectoryFallsBackToPipesWithTheSameOutput() throws Exception {
    assertEquals(0, jobs.run(jobs.conf, input,
        args("-mapper", jobs.python("pipes", "wc-map"), "-reducer", "NONE")));
    byte[] pipes = jobs.lastOutput();
    Configuration conf = new Configuration(jobs.conf);
    conf.set("hadoop.accel.shm.streaming.dir", jobs.work.resolve("no-such-dir").toString());
    int[] rc = new int[1];
    String log = ShmJobs.logged(() -> rc[0] = jobs.run(conf, input, args("-io", "shm",
        jobs.shmEnv(), "-mapper", jobs.python("shm", "wc-map"), "-reducer", "NONE")));
    assertEquals(0, rc[0]);
    assertArrayEquals(pipes, jobs.lastOutput());
    assertLogged(log, "cannot create a ring in", "this task's records go through pipes");
  }
}
