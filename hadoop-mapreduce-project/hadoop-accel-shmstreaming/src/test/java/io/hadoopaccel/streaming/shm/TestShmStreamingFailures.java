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
    assertLogged(log, "exited or died");
  }

  @Test
  void programThatExitsWithoutClosingItsOutputFailsRatherThanLoseOutput() throws Exception {
    String log = failingMap(jobs.conf, jobs.python("shm", "exit-early", "500"));
    assertLogged(log, "without closing its output ring");
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
