package io.hadoopaccel.streaming.shm;

import static io.hadoopaccel.streaming.shm.ShmJobs.args;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The same streaming jobs over pipes and over shared-memory rings (-io shm): outputs must be
 * byte-identical, with C and Python programs, map-only and map+reduce, with a combiner, on
 * input with empty lines, tabs, non-UTF-8 bytes, keys without a tab and a line longer than
 * the ring; and no ring file may be left behind.
 */
class TestShmStreamingJobs {
  private static ShmJobs jobs;
  private static Path input;

  @BeforeAll
  static void setUp() throws Exception {
    jobs = new ShmJobs("shm-jobs");
    input = jobs.awkwardInput(7, 4000);
  }

  @AfterEach
  void noRingFileLeft() throws Exception {
    assertEquals(List.of(), jobs.ringFiles());
  }

  private byte[] run(List<String> args) throws Exception {
    assertEquals(0, jobs.run(jobs.conf, input, args), () -> "job failed: " + args);
    return jobs.lastOutput();
  }

  private byte[] overPipes(String mapper, String reducer, int reduces) throws Exception {
    return run(args("-mapper", jobs.python("pipes", mapper),
        "-reducer", reducer == null ? "NONE" : jobs.python("pipes", reducer),
        "-numReduceTasks", reduces));
  }

  /** {@code first}: generic options (-D), which streaming wants before its own. */
  private byte[] overShm(String mapper, String reducer, int reduces, Object... first)
      throws Exception {
    return run(args(List.of(first), "-io", "shm", jobs.shmEnv(), "-mapper", mapper,
        "-reducer", reducer == null ? "NONE" : reducer, "-numReduceTasks", reduces));
  }

  @Test
  void mapOnlyIdentityIsByteIdentical() throws Exception {
    byte[] pipes = overPipes("echo", null, 0);
    assertTrue(pipes.length > 500_000, ShmJobs.show(pipes));
    assertArrayEquals(pipes, overShm(jobs.python("shm", "echo"), null, 0), "Python");
    assertArrayEquals(pipes, overShm(jobs.c("shm_identity"), null, 0), "C");
  }

  @Test
  void wordCountIsByteIdentical() throws Exception {
    byte[] pipes = overPipes("wc-map", "sum-reduce", 2);
    assertTrue(pipes.length > 1000, ShmJobs.show(pipes));
    assertArrayEquals(pipes,
        overShm(jobs.python("shm", "wc-map"), jobs.python("shm", "sum-reduce"), 2), "Python");
    String reducer = jobs.c("shm_wordcount_reducer");
    assertArrayEquals(pipes, overShm(jobs.c("shm_wordcount_mapper"), reducer, 2), "C");
    assertArrayEquals(pipes, overShm(jobs.c("shm_sm_wordcount_mapper"), reducer, 2),
        "C++ (SMStream)");
    // The combiner runs a program per spill inside the map task, each with rings of its own.
    assertArrayEquals(pipes, overShm(jobs.c("shm_wordcount_mapper"), reducer, 2,
        "-D", "mapreduce.task.io.sort.mb=1", "-combiner", reducer), "C with a combiner");
  }

  @Test
  void grepWithReducersThatGetNoInputIsByteIdentical() throws Exception {
    // One key and three reducers: two of them get no input (no rings, see DESIGN.md).
    String grep = "grep-map";
    byte[] pipes = run(args("-mapper", jobs.python("pipes", grep, "w299"),
        "-reducer", jobs.python("pipes", "sum-reduce"), "-numReduceTasks", 3));
    assertTrue(pipes.length > 5, ShmJobs.show(pipes));
    byte[] shm = overShm(jobs.python("shm", grep, "w299"), jobs.python("shm", "sum-reduce"), 3);
    assertArrayEquals(pipes, shm);
    long empty = jobs.parts(jobs.out(jobCount())).stream()
        .filter(p -> p.toFile().length() == 0).count();
    assertTrue(empty >= 1, "expected a reducer without input");
  }

  @Test
  void invertedIndexIsByteIdentical() throws Exception {
    byte[] pipes = overPipes("index-map", "join-reduce", 2);
    assertArrayEquals(pipes,
        overShm(jobs.python("shm", "index-map"), jobs.python("shm", "join-reduce"), 2));
  }

  /** Unmodified stdin/stdout programs over the rings through the preload shim. */
  @Test
  void unmodifiedProgramsUnderThePreloadShimAreByteIdentical() throws Exception {
    byte[] pipes = overPipes("wc-map", "sum-reduce", 2);
    assertArrayEquals(pipes, overShm(jobs.preloaded(jobs.python("pipes", "wc-map")),
        jobs.preloaded(jobs.python("pipes", "sum-reduce")), 2,
        "-cmdenv", "PYTHONUNBUFFERED=1"), "Python, unbuffered");
  }

  /** The shipped InvertedIndex examples: C over pipes, C over rings, Python over rings agree. */
  @Test
  void invertedIndexExamplesAgree() throws Exception {
    String cMap = jobs.c("shm_inverted_index_mapper");
    String cReduce = jobs.c("shm_inverted_index_reducer");
    byte[] pipes = run(args("-mapper", cMap, "-reducer", cReduce, "-numReduceTasks", 2));
    // Every word of the single input file points at it (streaming exports its name).
    String text = new String(pipes, java.nio.charset.StandardCharsets.ISO_8859_1);
    assertTrue(text.length() > 1000 && text.lines().allMatch(l -> l.endsWith("\tpart-0")),
        ShmJobs.show(pipes));
    assertArrayEquals(pipes, overShm(cMap, cReduce, 2), "C");
    assertArrayEquals(pipes, overShm(jobs.pythonExample("inverted_index_mapper.py"),
        jobs.pythonExample("inverted_index_reducer.py"), 2), "Python");
  }

  /**
   * The split handed over in bulk (the default for TextInputFormat) gives the program exactly
   * the lines upstream's reader gives it line by line: LF, CRLF and CR line ends, a byte order
   * mark, no final line end, and ~26 splits whose boundaries fall anywhere, CRLFs included.
   */
  @Test
  void bulkMapInputIsByteIdenticalToLineByLine() throws Exception {
    Path lineEnds = jobs.lineEndsInput(11, 6000);
    // Old-API splits of a local file follow its block size (mapreduce.job.maps is not used on
    // the local runner); an uncached FileSystem picks the small one up.
    List<String> manySplits = List.of("-D", "fs.local.block.size=12288",
        "-D", "fs.file.impl.disable.cache=true");
    assertEquals(0, jobs.run(jobs.conf, lineEnds, args(manySplits,
        "-mapper", jobs.python("pipes", "echo"), "-reducer", "NONE")));
    byte[] pipes = jobs.lastOutput();
    assertTrue(jobs.parts(jobs.out(jobCount())).size() >= 20, "expected many splits");
    assertTrue(pipes.length > 100_000, ShmJobs.show(pipes));
    List<String> shm = args(manySplits, "-io", "shm", jobs.shmEnv(),
        "-mapper", jobs.c("shm_identity"), "-reducer", "NONE");
    String log = ShmJobs.logged(() -> assertEquals(0, jobs.run(jobs.conf, lineEnds, shm)));
    assertArrayEquals(pipes, jobs.lastOutput(), "bulk");
    assertTrue(log.contains("map input went to the program in bulk"), "bulk was not used");
    org.apache.hadoop.conf.Configuration lineByLine =
        new org.apache.hadoop.conf.Configuration(jobs.conf);
    lineByLine.setBoolean("hadoop.accel.shm.streaming.bulk.input", false);
    log = ShmJobs.logged(() -> assertEquals(0, jobs.run(lineByLine, lineEnds, shm)));
    assertArrayEquals(pipes, jobs.lastOutput(), "line by line");
    assertTrue(log.contains("line by line: hadoop.accel.shm.streaming.bulk.input=false"), log);

    // 64 KiB splits of the awkward input: several lie wholly inside its 300 KB line and own no
    // line at all, as upstream's reader decides.
    List<String> blocks64k = List.of("-D", "fs.local.block.size=65536",
        "-D", "fs.file.impl.disable.cache=true");
    assertEquals(0, jobs.run(jobs.conf, input, args(blocks64k,
        "-mapper", jobs.python("pipes", "echo"), "-reducer", "NONE")));
    byte[] longLinePipes = jobs.lastOutput();
    assertTrue(jobs.parts(jobs.out(jobCount())).stream().anyMatch(p -> p.toFile().length() == 0),
        "expected a split that owns no line");
    assertEquals(0, jobs.run(jobs.conf, input, args(blocks64k, "-io", "shm", jobs.shmEnv(),
        "-mapper", jobs.c("shm_identity"), "-reducer", "NONE")));
    assertArrayEquals(longLinePipes, jobs.lastOutput(), "splits inside a long line");
  }

  /** Upstream's typed bytes (keys too: byte offsets) through binary identity programs. */
  @Test
  void typedBytesAreByteIdentical() throws Exception {
    byte[] pipes = run(args("-io", "typedbytes", "-mapper", "cat", "-reducer", "cat",
        "-numReduceTasks", 2));
    assertTrue(pipes.length > 500_000, ShmJobs.show(pipes));
    String identity = jobs.c("shm_identity");
    String log = ShmJobs.logged(() -> assertArrayEquals(pipes, run(args("-io", "shm-typedbytes",
        jobs.shmEnv(), "-mapper", identity, "-reducer", identity, "-numReduceTasks", 2))));
    assertTrue(log.contains("go through two rings"), "the rings were not used");
  }

  @Test
  void strayStdoutOfTheProgramIsNotOutput() throws Exception {
    byte[] pipes = overPipes("echo", null, 0);
    assertArrayEquals(pipes, overShm(jobs.python("shm", "chatty"), null, 0));
  }

  @Test
  void defaultRingDirectoryIsLeftClean() throws Exception {
    Path shm = Path.of("/dev/shm");
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(shm), "no /dev/shm");
    String mine = "-" + ProcessHandle.current().pid() + "-";
    org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(jobs.conf);
    conf.unset("hadoop.accel.shm.streaming.dir");
    byte[] pipes = overPipes("echo", null, 0);
    assertEquals(0, jobs.run(conf, input, args("-io", "shm", jobs.shmEnv(),
        "-mapper", jobs.c("shm_identity"), "-reducer", "NONE")));
    assertArrayEquals(pipes, jobs.lastOutput());
    try (java.util.stream.Stream<Path> s = Files.list(shm)) {
      assertEquals(List.of(), s.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("hadoop-shm-") && n.contains(mine))
          .collect(java.util.stream.Collectors.toList()));
    }
  }

  private static int jobCount() throws Exception {
    int n = 0;
    while (Files.isDirectory(jobs.out(n + 1))) {
      n++;
    }
    return n;
  }
}
