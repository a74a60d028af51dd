package io.hadoopaccel.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.hadoopaccel.workloads.gen.GenText;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.streaming.StreamJob;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The C and Python streaming programs under hadoop-streaming's StreamJob with the local job
 * runner, against answers computed here in Java. The C programs are built by -Pnative into
 * target/native/bin; without them the C cases are skipped, unless accel.native.required=true
 * (as -Pnative sets), where they fail.
 */
class TestStreaming {
  private static final String REGEX = "[fm]e[a-z]*";

  private static Path work;
  private static Configuration conf;
  private static Path input;
  private static Map<String, String> wordCounts;
  private static Map<String, String> grepCounts;
  private static String pythonExecutable;

  @BeforeAll
  static void setUp() throws Exception {
    work = LocalMr.workDir("streaming");
    conf = LocalMr.conf(work);
    input = work.resolve("in-text");
    LocalMr.run(conf, new GenText(), "-bytes", "600k", "-seed", "99", input.toString());
    Map<String, Long> wc = new HashMap<>();
    Map<String, Long> grep = new HashMap<>();
    Pattern p = Pattern.compile(REGEX);
    for (String line : LocalMr.inputLines(input)) {
      for (String w : line.split("[ \\t\\n\\x0B\\f\\r]+")) {
        if (!w.isEmpty()) {
          wc.merge(w, 1L, Long::sum);
        }
      }
      Matcher m = p.matcher(line);
      while (m.find()) {
        grep.merge(m.group(), 1L, Long::sum);
      }
    }
    wordCounts = new HashMap<>();
    wc.forEach((k, v) -> wordCounts.put(k, v.toString()));
    grepCounts = new HashMap<>();
    grep.forEach((k, v) -> grepCounts.put(k, v.toString()));
    assertTrue(grepCounts.size() > 20, "pattern too selective");
    // The interpreter itself rather than a wrapper on the PATH (a pyenv shim costs ~0.3 s a task).
    Process which = new ProcessBuilder("python3", "-c", "import sys; print(sys.executable)").start();
    String exe = new String(which.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    pythonExecutable = which.waitFor() == 0 && !exe.isEmpty() ? exe : "python3";
  }

  private static String python(String script) {
    File f = new File(System.getProperty("accel.python.dir", "src/main/python"), script);
    assertTrue(f.isFile(), f + " missing");
    return pythonExecutable + " " + f.getAbsolutePath();
  }

  private static String nativeProgram(String name) {
    File f = new File(System.getProperty("accel.native.bin.dir", "../../target/native/bin"),
        name);
    if (!f.canExecute()) {
      if (Boolean.getBoolean("accel.native.required")) {
        fail(f + " was not built (accel.native.required=true)");
      }
      Assumptions.abort(f + " not built: build with -Pnative to test the C programs");
    }
    return f.getAbsolutePath();
  }

  private static Map<String, String> stream(String name, String... args) throws Exception {
    Path out = work.resolve("out-" + name);
    List<String> all = new ArrayList<>(Arrays.asList(args));
    all.addAll(List.of("-input", input.toString(), "-output", out.toString()));
    LocalMr.run(conf, new StreamJob(), all.toArray(new String[0]));
    Map<String, String> m = new HashMap<>();
    for (String line : LocalMr.partLines(out)) {
      int tab = line.indexOf('\t');
      assertTrue(tab > 0, "bad output line " + line);
      assertEquals(null, m.put(line.substring(0, tab), line.substring(tab + 1)), line);
    }
    return m;
  }

  @Test
  void pythonWordCount() throws Exception {
    assertEquals(wordCounts, stream("py-wc", "-mapper", python("wordcount_mapper.py"),
        "-reducer", python("wordcount_reducer.py"), "-numReduceTasks", "2"));
  }

  @Test
  void pythonGrepTakesThePatternFromTheJobConfiguration() throws Exception {
    assertEquals(grepCounts, stream("py-grep", "-D", "mapreduce.mapper.regex=" + REGEX,
        "-mapper", python("grep_mapper.py"), "-reducer", python("grep_reducer.py")));
  }

  @Test
  void cWordCountWithCombiner() throws Exception {
    String reducer = nativeProgram("wordcount-reducer");
    assertEquals(wordCounts, stream("c-wc", "-mapper", nativeProgram("wordcount-mapper"),
        "-combiner", reducer, "-reducer", reducer, "-numReduceTasks", "2"));
  }

  @Test
  void cGrepTakesThePatternFromTheJobConfiguration() throws Exception {
    assertEquals(grepCounts, stream("c-grep", "-D", "mapreduce.mapper.regex=" + REGEX,
        "-mapper", nativeProgram("grep-mapper"), "-reducer", nativeProgram("grep-reducer")));
  }
}
