package io.hadoopaccel.streaming.shm;

import static io.hadoopaccel.streaming.shm.ShmJobs.args;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.minicluster.MiniHadoopClusterExtension;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapreduce.Cluster;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.TypeConverter;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Streaming jobs over pipes and over shared-memory rings (-io shm) on a real MiniDFSCluster +
 * MiniMRYarnCluster: input in HDFS in several splits, map and reduce tasks in their own
 * container JVMs, which find libhadoop_shm.so through the job configuration and the programs'
 * environment (-cmdenv). Outputs must be byte-identical, every task attempt's log must say its
 * records went through the rings (not a silent fallback to pipes), and no ring file may be left.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TestShmStreamingOnYarn {
  /** What ShmChannel logs when a task's records go through the rings. */
  private static final String RINGS =
      "ShmStreaming: records to and from the program go through two rings";
  private static final Pattern STATS =
      Pattern.compile("ShmStreaming: (to|from) the program (\\d+) bytes in");

  /** Before the cluster: no -Pnative build, no cluster started (or a failure if required). */
  @RegisterExtension
  @Order(1)
  static final BeforeAllCallback NATIVE_BUILD = context -> ShmJobs.nativeLibrary();

  @RegisterExtension
  @Order(2)
  static final MiniHadoopClusterExtension CLUSTER = MiniHadoopClusterExtension.builder()
      // Keep every container's logs until the cluster stops (the fixture's 1 s retention
      // would race with reading them); -1: the NodeManager's DeletionService deletes nothing.
      .configure(conf -> conf.setInt(YarnConfiguration.DEBUG_NM_DELETE_DELAY_SEC, -1))
      .build();

  private static ShmJobs jobs;
  private static Path input;

  @BeforeAll
  static void setUp() throws Exception {
    jobs = new ShmJobs("shm-on-yarn", CLUSTER.getConfiguration());
    java.nio.file.Path local = jobs.awkwardInput(13, 4000).resolve("part-0");
    input = new Path("/shm/in");
    CLUSTER.getFileSystem().copyFromLocalFile(new Path(local.toUri()), new Path(input, "part-0"));
  }

  @AfterEach
  void noRingFileLeft() throws Exception {
    assertEquals(List.of(), jobs.ringFiles());
  }

  @Test
  void wordCountOverRingsIsByteIdenticalToPipesAndEveryTaskUsedTheRings() throws Exception {
    // mapreduce.job.maps: streaming's (old API) input format splits the file into 3.
    Path pipesOut = new Path("/shm/wc-pipes");
    assertEquals(0, jobs.run(jobs.conf, input.toString(), pipesOut.toString(),
        args("-D", "mapreduce.job.maps=3",
            "-mapper", jobs.python("pipes", "wc-map"),
            "-reducer", jobs.python("pipes", "sum-reduce"), "-numReduceTasks", 2)));
    JobID pipesJob = jobs.lastJobId;

    Path shmOut = new Path("/shm/wc-shm");
    assertEquals(0, jobs.run(jobs.conf, input.toString(), shmOut.toString(),
        args("-D", "mapreduce.job.maps=3", "-io", "shm", jobs.shmEnv(),
            "-mapper", jobs.c("shm_wordcount_mapper"),
            "-reducer", jobs.c("shm_wordcount_reducer"), "-numReduceTasks", 2)));
    JobID shmJob = jobs.lastJobId;

    byte[] pipes = output(pipesOut, 2);
    assertTrue(pipes.length > 1000 && new String(pipes, StandardCharsets.ISO_8859_1)
        .lines().count() > 300, ShmJobs.show(pipes));
    assertArrayEquals(pipes, output(shmOut, 2), "C over rings vs Python over pipes");

    // Every task attempt of the shm job moved its records through the rings, both ways.
    Counters shmCounters = counters(shmJob);
    assertTrue(shmCounters.findCounter(JobCounter.TOTAL_LAUNCHED_MAPS).getValue() >= 2,
        "input in one split only");
    Map<String, String> shmLogs = taskSyslogs(shmJob);
    assertEquals(launchedTasks(shmCounters), shmLogs.size(),
        () -> "task logs: " + shmLogs.keySet());
    shmLogs.forEach((container, log) -> {
      assertTrue(log.contains(RINGS), () -> container + " did not use the rings:\n" + tail(log));
      assertFalse(log.contains("records go through pipes"), () -> container + ":\n" + tail(log));
      assertEquals(Map.of("to", true, "from", true), bytesMoved(log),
          () -> container + " moved no bytes over a ring:\n" + tail(log));
    });
    // The same reading of the pipes job's task logs finds its tasks and no ring in them.
    Map<String, String> pipesLogs = taskSyslogs(pipesJob);
    assertEquals(launchedTasks(counters(pipesJob)), pipesLogs.size(),
        () -> "task logs: " + pipesLogs.keySet());
    pipesLogs.forEach((container, log) -> {
      assertTrue(log.contains("PipeMapRed exec"), () -> container + ":\n" + tail(log));
      assertFalse(log.contains(ShmChannel.class.getName()), () -> container + ":\n" + tail(log));
    });
  }

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES) // three jobs; the machine is shared
  void unmodifiedProgramsRunOverTheRingsWithCounters() throws Exception {
    Path pipesOut = new Path("/shm/cat-pipes");
    assertEquals(0, jobs.run(jobs.conf, input.toString(), pipesOut.toString(),
        args("-D", "mapreduce.job.maps=3", "-mapper", "cat", "-reducer", "cat",
            "-numReduceTasks", 2)));
    byte[] pipes = output(pipesOut, 2);
    assertTrue(pipes.length > 100_000, ShmJobs.show(pipes));

    // cat and cat, unmodified: the task preloads the shim into them.
    Path shmOut = new Path("/shm/cat-shm");
    assertEquals(0, jobs.run(jobs.conf, input.toString(), shmOut.toString(),
        args("-D", "mapreduce.job.maps=3", "-io", "shm", "-mapper", "cat", "-reducer", "cat",
            "-numReduceTasks", 2)));
    assertArrayEquals(pipes, output(shmOut, 2), "cat over rings vs cat over pipes");
    Counters c = counters(jobs.lastJobId);
    assertEquals(launchedTasks(c), ring(c, ShmStreamingCounter.TASKS_ON_RINGS), c::toString);
    assertTrue(ring(c, ShmStreamingCounter.BYTES_TO_PROGRAM) >= pipes.length, c::toString);
    assertTrue(ring(c, ShmStreamingCounter.BYTES_FROM_PROGRAM) >= pipes.length, c::toString);
    long lines = new String(pipes, StandardCharsets.ISO_8859_1).lines().count();
    assertEquals(2 * lines, ring(c, ShmStreamingCounter.RECORDS_FROM_PROGRAM), c::toString);
    assertEquals(0, ring(c, ShmStreamingCounter.FALLBACK_PROGRAM_WITHOUT_SHIM), c::toString);

    // A Python mapper started through a bash wrapper that execs the interpreter (python3 on
    // PATH may itself be a pyenv shim: a bash script that execs the real one).
    File wrapper = new File(jobs.work.toFile(), "wrapper.sh");
    Files.writeString(wrapper.toPath(), "#!/bin/bash\nexec python3 \"$@\"\n");
    assertTrue(wrapper.setExecutable(true));
    String echo = jobs.python("pipes", "echo");
    Path wrapped = new Path("/shm/cat-wrapped");
    assertEquals(0, jobs.run(jobs.conf, input.toString(), wrapped.toString(),
        args("-D", "mapreduce.job.maps=3", "-io", "shm",
            "-mapper", wrapper + echo.substring(echo.indexOf(' ')), "-reducer", "cat",
            "-numReduceTasks", 2)));
    assertArrayEquals(pipes, output(wrapped, 2), "wrapper exec python3 over rings vs pipes");
    Counters w = counters(jobs.lastJobId);
    assertEquals(launchedTasks(w), ring(w, ShmStreamingCounter.TASKS_ON_RINGS), w::toString);
  }

  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES) // two jobs; the machine is shared
  void programWithoutTheShimFallsBackToPipesAtOnceWithTheReason() throws Exception {
    // A statically linked cat never loads the shim: each task sees that before the handshake
    // and runs it over pipes, with the same output and a counter saying why.
    File src = new File(jobs.work.toFile(), "static_cat.c");
    Files.writeString(src.toPath(), "#include <unistd.h>\nint main(void) { char b[65536]; "
        + "ssize_t n; while ((n = read(0, b, sizeof b)) > 0) if (write(1, b, n) != n) "
        + "return 1; return n < 0; }\n");
    File exe = new File(jobs.work.toFile(), "static_cat");
    Process cc = new ProcessBuilder("cc", "-static", "-O1", "-o", exe.toString(), src.toString())
        .inheritIO().start();
    assertEquals(0, cc.waitFor(), "cc -static");
    Path pipesOut = new Path("/shm/static-pipes");
    assertEquals(0, jobs.run(jobs.conf, input.toString(), pipesOut.toString(),
        args("-D", "mapreduce.job.maps=3", "-mapper", exe, "-reducer", "NONE")));
    Path shmOut = new Path("/shm/static-shm");
    long started = System.nanoTime();
    assertEquals(0, jobs.run(jobs.conf, input.toString(), shmOut.toString(),
        args("-D", "mapreduce.job.maps=3", "-io", "shm", "-mapper", exe, "-reducer", "NONE")));
    long seconds = (System.nanoTime() - started) / 1_000_000_000L;
    assertArrayEquals(output(pipesOut, 3), output(shmOut, 3));
    Counters c = counters(jobs.lastJobId);
    long maps = c.findCounter(JobCounter.TOTAL_LAUNCHED_MAPS).getValue();
    assertEquals(maps, ring(c, ShmStreamingCounter.FALLBACK_PROGRAM_WITHOUT_SHIM), c::toString);
    assertEquals(0, ring(c, ShmStreamingCounter.TASKS_ON_RINGS), c::toString);
    assertTrue(seconds < 90, "hang guard: " + seconds + " s"); // attach timeout is 30 s per map
  }

  private static long ring(Counters c, ShmStreamingCounter counter) {
    return c.findCounter(counter).getValue();
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void programThatExitsWithoutClosingItsOutputFailsTheJobPromptly() throws Exception {
    // One map, one attempt: the job fails with its first task failure, nothing retried.
    int rc = jobs.run(jobs.conf, input.toString(), "/shm/exit-early",
        args("-D", "mapreduce.job.maps=1", "-D", "mapreduce.map.maxattempts=1",
            "-io", "shm", jobs.shmEnv(),
            "-mapper", jobs.python("shm", "exit-early", "500"), "-reducer", "NONE"));
    assertNotEquals(0, rc, "the job should have failed");
    Map<String, String> logs = taskSyslogs(jobs.lastJobId);
    assertEquals(1, logs.size(), () -> "task logs: " + logs.keySet());
    String log = logs.values().iterator().next();
    assertTrue(log.contains(RINGS), () -> tail(log));
    assertTrue(log.contains("The streaming program exited or died without closing its output"),
        () -> tail(log));
  }

  /** The part files of {@code dir} in HDFS, concatenated in name order; none of them empty. */
  private static byte[] output(Path dir, int parts) throws IOException {
    FileSystem fs = CLUSTER.getFileSystem();
    FileStatus[] files = fs.listStatus(dir, p -> p.getName().startsWith("part-"));
    Arrays.sort(files);
    assertEquals(parts, files.length, () -> Arrays.toString(files));
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (FileStatus f : files) {
      assertTrue(f.getLen() > 0, () -> f.getPath() + " is empty");
      try (InputStream in = fs.open(f.getPath())) {
        in.transferTo(b);
      }
    }
    return b.toByteArray();
  }

  private static Counters counters(JobID id) throws Exception {
    assertNotNull(id, "no job was submitted");
    Cluster cluster = new Cluster(jobs.conf);
    try {
      Job job = cluster.getJob(id);
      assertNotNull(job, () -> id + " unknown to the cluster");
      return job.getCounters();
    } finally {
      cluster.close();
    }
  }

  /** Map and reduce attempts the job launched. */
  private static long launchedTasks(Counters c) {
    return c.findCounter(JobCounter.TOTAL_LAUNCHED_MAPS).getValue()
        + c.findCounter(JobCounter.TOTAL_LAUNCHED_REDUCES).getValue();
  }

  /**
   * The syslog of every task container of the job (container id → text), read from the
   * NodeManager's local log dirs: all containers of the application but its first, the
   * ApplicationMaster (the fixture allows one AM attempt). A container's directory exists in
   * every log dir; its files are in one of them.
   */
  private static Map<String, String> taskSyslogs(JobID id) throws IOException {
    assertNotNull(id, "no job was submitted");
    String app = TypeConverter.toYarn(id).getAppId().toString();
    String dirs = CLUSTER.getMrCluster().getNodeManager(0).getConfig()
        .get(YarnConfiguration.NM_LOG_DIRS);
    Map<String, String> logs = new TreeMap<>();
    Set<String> containers = new TreeSet<>();
    for (String dir : dirs.split(",")) {
      File[] found = new File(new Path(dir.trim()).toUri().getPath(), app)
          .listFiles(File::isDirectory);
      for (File c : found == null ? new File[0] : found) {
        if (c.getName().endsWith("_000001")) {
          continue;
        }
        containers.add(c.getName());
        File syslog = new File(c, "syslog");
        if (syslog.isFile()) {
          String before = logs.put(c.getName(),
              Files.readString(syslog.toPath(), StandardCharsets.ISO_8859_1));
          assertEquals(null, before, () -> "two syslogs of " + c.getName());
        }
      }
    }
    assertEquals(containers, logs.keySet(), () -> "task containers of " + app + " in " + dirs
        + " without a syslog");
    return logs;
  }

  /** For each direction logged at the end of a task: whether it moved any byte. */
  private static Map<String, Boolean> bytesMoved(String log) {
    Map<String, Boolean> moved = new TreeMap<>();
    Matcher m = STATS.matcher(log);
    while (m.find()) {
      moved.merge(m.group(1), Long.parseLong(m.group(2)) > 0, Boolean::logicalOr);
    }
    return moved;
  }

  private static String tail(String log) {
    return log.substring(Math.max(0, log.length() - 6000));
  }
}
