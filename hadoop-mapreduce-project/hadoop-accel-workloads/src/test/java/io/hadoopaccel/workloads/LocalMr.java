package io.hadoopaccel.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/** Runs tools with the local job runner on the local file system under target/. */
public final class LocalMr {
  private LocalMr() {
  }

  /** A fresh, empty work directory for a test class: target/test-work/NAME. */
  public static Path workDir(String name) throws IOException {
    File base = new File(System.getProperty("test.build.dir", "target/test-work"));
    File dir = new File(base, name).getAbsoluteFile();
    FileUtil.fullyDelete(dir);
    Files.createDirectories(dir.toPath());
    return dir.toPath();
  }

  public static Configuration conf(Path work) {
    Configuration conf = new Configuration();
    conf.set("mapreduce.framework.name", "local");
    conf.set("fs.defaultFS", "file:///");
    conf.set("hadoop.tmp.dir", work.resolve("hadoop-tmp").toString());
    conf.set("mapreduce.cluster.local.dir", work.resolve("mr-local").toString());
    // Small sort buffers: the test JVM runs every task.
    conf.setInt("mapreduce.task.io.sort.mb", 16);
    conf.setInt("mapreduce.local.map.tasks.maximum", 1);
    conf.setInt("mapreduce.local.reduce.tasks.maximum", 1);
    // waitForCompletion polls once a second by default: most of a small local job's time.
    conf.setInt("mapreduce.client.progressmonitor.pollinterval", 50);
    conf.setInt("mapreduce.client.completion.pollinterval", 50);
    return conf;
  }

  /** Runs a tool and asserts it succeeded. */
  public static void run(Configuration conf, Tool tool, String... args) throws Exception {
    int rc = ToolRunner.run(new Configuration(conf), tool, args);
    assertEquals(0, rc, () -> tool.getClass().getSimpleName() + " " + Arrays.toString(args));
  }

  /** The part-* files of a job's output directory, in name order. */
  public static List<Path> parts(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().startsWith("part-"))
          .sorted().collect(Collectors.toList());
    }
  }

  /** The concatenated bytes of a job's part files (name order). */
  public static byte[] partBytes(Path dir) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Path p : parts(dir)) {
      out.write(Files.readAllBytes(p));
    }
    return out.toByteArray();
  }

  /** The lines of a job's part files (name order). */
  public static List<String> partLines(Path dir) throws IOException {
    List<String> lines = new ArrayList<>();
    for (Path p : parts(dir)) {
      lines.addAll(Files.readAllLines(p, StandardCharsets.UTF_8));
    }
    return lines;
  }

  /** The lines of every non-hidden file under dir (the input a job sees). */
  public static List<String> inputLines(Path dir) throws IOException {
    List<String> lines = new ArrayList<>();
    for (Path p : inputFiles(dir)) {
      lines.addAll(Files.readAllLines(p, StandardCharsets.UTF_8));
    }
    return lines;
  }

  public static List<Path> inputFiles(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> {
        String n = p.getFileName().toString();
        return Files.isRegularFile(p) && !n.startsWith("_") && !n.startsWith(".");
      }).sorted().collect(Collectors.toList());
    }
  }
}
