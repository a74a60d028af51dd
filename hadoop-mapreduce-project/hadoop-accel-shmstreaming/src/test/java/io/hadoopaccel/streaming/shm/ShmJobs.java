package io.hadoopaccel.streaming.shm;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.streaming.StreamJob;
import org.apache.hadoop.util.ToolRunner;
import org.apache.log4j.Logger;
import org.apache.log4j.PatternLayout;
import org.apache.log4j.WriterAppender;
import org.junit.jupiter.api.Assumptions;

/**
 * Streaming jobs on the local job runner (or a mini cluster) for the ShmStreaming tests: the
 * native build (-Pnative), the programs of both transports, input with awkward lines, and the
 * job output.
 */
final class ShmJobs {
  static final String PROGRAM = "streaming_program.py";

  final Path work;
  final Path ringDir;
  final Configuration conf;
  final File nativeDir;
  final String python;
  /** The id of the job {@link #run} last submitted, or null if it submitted none. */
  JobID lastJobId;
  private int jobs;

  ShmJobs(String name) throws Exception {
    this(name, null);
  }

  /**
   * Jobs on {@code cluster} (a running cluster's client configuration: its file system and
   * YARN), or on the local job runner and the local file system when it is null.
   */
  ShmJobs(String name, Configuration cluster) throws Exception {
    nativeDir = new File(System.getProperty("accel.shm.native.dir", "target/native"));
    File lib = nativeLibrary();
    File base = new File(System.getProperty("test.build.dir", "target/test-work"));
    work = new File(base, name).getAbsoluteFile().toPath();
    FileUtil.fullyDelete(work.toFile());
    ringDir = Files.createDirectories(work.resolve("rings"));
    if (cluster == null) {
      conf = new Configuration();
      conf.set("mapreduce.framework.name", "local");
      conf.set("fs.defaultFS", "file:///");
      conf.set("hadoop.tmp.dir", work.resolve("hadoop-tmp").toString());
      conf.set("mapreduce.cluster.local.dir", work.resolve("mr-local").toString());
    } else {
      conf = new Configuration(cluster);
    }
    conf.setInt("mapreduce.task.io.sort.mb", 16);
    conf.setInt("mapreduce.client.progressmonitor.pollinterval", 50);
    conf.setInt("mapreduce.client.completion.pollinterval", 50);
    conf.set("stream.io.identifier.resolver.class", ShmIdentifierResolver.class.getName());
    conf.set("hadoop.accel.shm.streaming.dir", ringDir.toString());
    // Smaller than the longest input line, so records wrap around the ring.
    conf.set("hadoop.accel.shm.streaming.buffer.bytes", "64k");
    conf.set("hadoop.accel.native.lib.dir", lib.getParent());
    Process which = new ProcessBuilder("python3", "-c", "import sys; print(sys.executable)").start();
    String exe = new String(which.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    python = which.waitFor() == 0 && !exe.isEmpty() ? exe : "python3";
  }

  /**
   * libhadoop_shm.so of the native build; aborts the calling test (or class) when -Pnative did
   * not build it or the example programs, and fails it when accel.native.required=true.
   */
  static File nativeLibrary() {
    File nativeDir = new File(System.getProperty("accel.shm.native.dir", "target/native"));
    File lib = new File(System.getProperty("jna.library.path", ""), "libhadoop_shm.so");
    if (!lib.isFile() || !new File(nativeDir, "shm_identity").canExecute()) {
      if (Boolean.getBoolean("accel.native.required")) {
        fail(lib + " or the example programs were not built (accel.native.required=true)");
      }
      Assumptions.abort("build with -Pnative to run the ShmStreaming jobs");
    }
    return lib;
  }

  /** Text with empty lines, tabs, a line far longer than the ring, non-UTF-8 bytes. */
  Path awkwardInput(long seed, int lines) throws IOException {
    Path dir = Files.createDirectories(work.resolve("in-" + seed));
    Random r = new Random(seed);
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int i = 0; i < lines; i++) {
      b.write(("doc" + i).getBytes(StandardCharsets.US_ASCII));
      int words = r.nextInt(20);
      for (int w = 0; w < words; w++) {
        b.write(w == 3 ? '\t' : ' ');
        b.write(("w" + (int) Math.abs(r.nextGaussian() * 300)).getBytes(StandardCharsets.US_ASCII));
      }
      b.write('\n');
      if (i % 97 == 0) {
        b.write('\n');
      }
      if (i % 501 == 0) {
        b.write(new byte[] {(byte) 0xff, (byte) 0xfe, ' ', (byte) 0x80, 'x', '\n'});
      }
    }
    StringBuilder longLine = new StringBuilder("long");
    while (longLine.length() < 300_000) {
      longLine.append(" w").append(r.nextInt(300));
    }
    b.write(longLine.append('\n').toString().getBytes(StandardCharsets.US_ASCII));
    b.write("last line without a newline w1 w2".getBytes(StandardCharsets.US_ASCII));
    Files.write(dir.resolve("part-0"), b.toByteArray());
    return dir;
  }

  /**
   * Two files whose lines end in LF, CRLF and lone CR at random (so split boundaries fall
   * between a CR and its LF too), with empty lines, a UTF-8 byte order mark at the start of
   * the first file and no line end at the end of the second.
   */
  Path lineEndsInput(long seed, int lines) throws IOException {
    Path dir = Files.createDirectories(work.resolve("line-ends-" + seed));
    Random r = new Random(seed);
    for (int f = 0; f < 2; f++) {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      if (f == 0) {
        b.write(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
      }
      for (int i = 0; i < lines; i++) {
        int words = r.nextInt(12);
        for (int w = 0; w < words; w++) {
          b.write((w == 0 ? "" : w == 2 ? "\t" : " ").getBytes(StandardCharsets.US_ASCII));
          b.write(("w" + r.nextInt(500)).getBytes(StandardCharsets.US_ASCII));
        }
        if (f == 1 && i == lines - 1) {
          break;
        }
        int end = r.nextInt(3);
        b.write(end == 0 ? new byte[] {'\n'}
            : end == 1 ? new byte[] {'\r', '\n'} : new byte[] {'\r'});
      }
      Files.write(dir.resolve("part-" + f), b.toByteArray());
    }
    return dir;
  }

  /** The streaming command line of the test program over {@code mode} (pipes or shm). */
  String python(String mode, String program, String... args) {
    File f = new File(System.getProperty("accel.shm.test.python.dir", "src/test/python"), PROGRAM);
    assertTrue(f.isFile(), f + " missing");
    return python + " " + f.getAbsolutePath() + " " + mode + " " + program
        + (args.length == 0 ? "" : " " + String.join(" ", args));
  }

  /** {@code command} run with the preload shim in its own process (an unmodified program). */
  String preloaded(String command) {
    File shim = new File(conf.get("hadoop.accel.native.lib.dir"), "libhadoop_shm_preload.so");
    assertTrue(shim.isFile(), shim + " missing");
    return "env LD_PRELOAD=" + shim.getAbsolutePath() + " " + command;
  }

  /** A shipped Python example (src/main/python/examples) run by the test's interpreter. */
  String pythonExample(String name) {
    File f = new File(System.getProperty("accel.shm.python.dir", "src/main/python"),
        "examples/" + name);
    assertTrue(f.isFile(), f + " missing");
    return python + " " + f.getAbsolutePath();
  }

  /** An example C program built by -Pnative. */
  String c(String name) {
    return new File(nativeDir, name).getAbsolutePath();
  }

  /** Options every shm job needs: where the Python package and the library are. */
  List<String> shmEnv() {
    File pkg = new File(System.getProperty("accel.shm.python.dir", "src/main/python"));
    return List.of("-cmdenv", "PYTHONPATH=" + pkg.getAbsolutePath(),
        "-cmdenv", "HADOOP_SHM_LIB=" + new File(conf.get("hadoop.accel.native.lib.dir"),
            "libhadoop_shm.so"));
  }

  /** Runs a streaming job; returns its exit code (0 = success) and leaves output in out(). */
  int run(Configuration jobConf, Path input, List<String> args) throws Exception {
    return runTool(jobConf, new StreamJob(), input.toString(), out(++jobs).toString(), args);
  }

  /**
   * Runs a streaming job on paths of {@code jobConf}'s file system (e.g. a mini cluster's
   * HDFS); returns its exit code (0 = success) and leaves its id in {@link #lastJobId}.
   * Streaming resolves short Java class names (-inputformat X) in this package, not its own.
   */
  int run(Configuration jobConf, String input, String output, List<String> args)
      throws Exception {
    IdentifiedStreamJob job = new IdentifiedStreamJob();
    lastJobId = null;
    try {
      return runTool(jobConf, job, input, output, args);
    } finally {
      lastJobId = job.id();
    }
  }

  private static int runTool(Configuration jobConf, StreamJob job, String input, String output,
      List<String> args) throws Exception {
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of("-input", input, "-output", output));
    return ToolRunner.run(new Configuration(jobConf), job, all.toArray(new String[0]));
  }

  /** Streaming's job runner, telling the id of the job it submitted. */
  private static final class IdentifiedStreamJob extends StreamJob {
    JobID id() {
      return jobId_;
    }
  }

  Path out(int job) {
    return work.resolve("out-" + job);
  }

  /** The part files of the last job, concatenated in name order. */
  byte[] lastOutput() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (Path p : parts(out(jobs))) {
      b.write(Files.readAllBytes(p));
    }
    return b.toByteArray();
  }

  List<Path> parts(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().startsWith("part-")).sorted()
          .collect(Collectors.toList());
    }
  }

  /** Names of the files in the ring directory (the tests expect none after any job). */
  List<String> ringFiles() throws IOException {
    try (Stream<Path> s = Files.list(ringDir)) {
      return s.map(p -> p.getFileName().toString()).collect(Collectors.toList());
    }
  }

  static List<String> args(Object... parts) {
    List<String> l = new ArrayList<>();
    for (Object p : parts) {
      if (p instanceof List) {
        for (Object o : (List<?>) p) {
          l.add(o.toString());
        }
      } else {
        l.add(p.toString());
      }
    }
    return l;
  }

  /** Everything logged (with stack traces) while it runs. */
  static String logged(Callable body) throws Exception {
    StringWriter w = new StringWriter();
    WriterAppender a = new WriterAppender(new PatternLayout("%p %c: %m%n"), w);
    Logger.getRootLogger().addAppender(a);
    try {
      body.call();
    } finally {
      Logger.getRootLogger().removeAppender(a);
    }
    return w.toString();
  }

  interface Callable {
    void call() throws Exception;
  }

  static String show(byte[] b) {
    return b.length + " bytes: " + new String(Arrays.copyOf(b, Math.min(b.length, 200)),
        StandardCharsets.ISO_8859_1);
  }
}
