package io.hadoopaccel.workloads.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.workloads.LocalMr;
import io.hadoopaccel.workloads.WorkloadDriver;
import io.hadoopaccel.workloads.gen.GenAdjacency;
import io.hadoopaccel.workloads.gen.GenSelfJoin;
import io.hadoopaccel.workloads.gen.GenSmallFiles;
import io.hadoopaccel.workloads.gen.GenText;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every job under the local job runner, on small generated data, against an answer computed
 * here in plain Java from the same input files.
 */
class TestJobs {
  private static final Pattern WHITESPACE = Pattern.compile("[ \\t\\n\\x0B\\f\\r]+");

  private static Path work;
  private static Configuration conf;
  private static Path text;
  private static Path smallFiles;
  private static Path adjacency;
  private static Path edges;
  private static Path selfJoin;

  @BeforeAll
  static void generateInputs() throws Exception {
    work = LocalMr.workDir("jobs");
    conf = LocalMr.conf(work);
    text = work.resolve("in-text");
    smallFiles = work.resolve("in-small");
    adjacency = work.resolve("in-adj");
    edges = work.resolve("in-edges");
    selfJoin = work.resolve("in-selfjoin");
    LocalMr.run(conf, new GenText(), "-bytes", "1100k", "-maps", "2", text.toString());
    LocalMr.run(conf, new GenSmallFiles(), "-numFiles", "6", "-fileSize", "40k", "-maps", "2",
        smallFiles.toString());
    // Values of 4-16 KB (not 64): with few, short vertex ids they are thousands of edges each.
    LocalMr.run(conf, new GenAdjacency(), "-vertices", "12", "-maxValue", "16k", "-maps", "2",
        adjacency.toString());
    LocalMr.run(conf, new GenAdjacency(), "-vertices", "12", "-maxValue", "16k", "-maps", "2",
        "-format", "edges", edges.toString());
    LocalMr.run(conf, new GenSelfJoin(), "-records", "600", "-k", "3", "-group", "6",
        "-items", "500", "-maps", "2", selfJoin.toString());
  }

  private static Path out(String name) {
    return work.resolve("out-" + name);
  }

  private static Map<String, String> keyed(List<String> lines) {
    Map<String, String> m = new HashMap<>();
    for (String line : lines) {
      int tab = line.indexOf('\t');
      assertTrue(tab >= 0, "no TAB in output line " + line);
      assertEquals(null, m.put(line.substring(0, tab), line.substring(tab + 1)),
          "key output twice: " + line);
    }
    return m;
  }

  private static Map<String, String> wordCounts(List<String> lines) {
    Map<String, Long> counts = new HashMap<>();
    for (String line : lines) {
      for (String w : WHITESPACE.split(line)) {
        if (!w.isEmpty()) {
          counts.merge(w, 1L, Long::sum);
        }
      }
    }
    Map<String, String> m = new HashMap<>();
    counts.forEach((k, v) -> m.put(k, Long.toString(v)));
    return m;
  }

  @Test
  void wordCountWithAndWithoutCombiner() throws Exception {
    Map<String, String> expected = wordCounts(LocalMr.inputLines(text));
    assertTrue(expected.size() > 3000, "a Zipf sample of the vocabulary: " + expected.size());
    LocalMr.run(conf, new WordCount(), "-r", "2", text.toString(), out("wc").toString());
    LocalMr.run(conf, new WordCount(), "-nocombiner", text.toString(),
        out("wc-nocombiner").toString());
    assertEquals(2, LocalMr.parts(out("wc")).size());
    assertEquals(expected, keyed(LocalMr.partLines(out("wc"))));
    assertEquals(expected, keyed(LocalMr.partLines(out("wc-nocombiner"))));
  }

  private static Map<String, Long> grepCounts(List<String> lines, String regex, int group) {
    Map<String, Long> counts = new HashMap<>();
    Pattern p = Pattern.compile(regex);
    for (String line : lines) {
      Matcher m = p.matcher(line);
      while (m.find()) {
        counts.merge(m.group(group), 1L, Long::sum);
      }
    }
    return counts;
  }

  @Test
  void grepSortsMatchesByDecreasingCount() throws Exception {
    String regex = "[fm]e[a-z]*";
    Map<String, Long> expected = grepCounts(LocalMr.inputLines(text), regex, 0);
    assertTrue(expected.size() > 20, "pattern too selective: " + expected.size());
    LocalMr.run(conf, new Grep(), "-r", "2", text.toString(), out("grep").toString(), regex);
    List<String> lines = LocalMr.partLines(out("grep"));
    assertEquals(1, LocalMr.parts(out("grep")).size());
    Map<String, Long> actual = new HashMap<>();
    long previous = Long.MAX_VALUE;
    for (String line : lines) {
      String[] f = line.split("\t", -1);
      long count = Long.parseLong(f[0]);
      assertTrue(count <= previous, "not in decreasing count order at " + line);
      previous = count;
      assertEquals(null, actual.put(f[1], count), "match listed twice: " + line);
    }
    assertEquals(expected, actual);
    try (var s = Files.list(work)) {
      assertFalse(s.anyMatch(p -> p.getFileName().toString().contains("grep-temp")),
          "temporary search output left behind");
    }
  }

  @Test
  void grepNoSortWithGroup() throws Exception {
    String regex = "(z[aeiou])[a-z]*";
    Map<String, Long> expected = grepCounts(LocalMr.inputLines(text), regex, 1);
    assertTrue(expected.size() >= 3, "pattern too selective: " + expected);
    LocalMr.run(conf, new Grep(), "-nosort", text.toString(), out("grep-group").toString(),
        regex, "1");
    Map<String, Long> actual = new HashMap<>();
    keyed(LocalMr.partLines(out("grep-group")))
        .forEach((k, v) -> actual.put(k, Long.parseLong(v)));
    assertEquals(expected, actual);
  }

  @Test
  void invertedIndexListsTheFilesOfEveryWord() throws Exception {
    Map<String, TreeSet<String>> index = new HashMap<>();
    for (Path f : LocalMr.inputFiles(smallFiles)) {
      for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
        for (String w : WHITESPACE.split(line)) {
          if (!w.isEmpty()) {
            index.computeIfAbsent(w, k -> new TreeSet<>()).add(f.getFileName().toString());
          }
        }
      }
    }
    Map<String, String> expected = new HashMap<>();
    index.forEach((w, files) -> expected.put(w, String.join(",", files)));
    assertTrue(expected.values().stream().anyMatch(v -> v.split(",").length == 6));
    assertTrue(expected.values().stream().anyMatch(v -> v.split(",").length == 1));

    LocalMr.run(conf, new InvertedIndex(), "-r", "2", smallFiles.toString(),
        out("ii").toString());
    LocalMr.run(conf, new InvertedIndex(), "-combiner", smallFiles.toString(),
        out("ii-combiner").toString());
    assertEquals(expected, keyed(LocalMr.partLines(out("ii"))));
    assertEquals(expected, keyed(LocalMr.partLines(out("ii-combiner"))));
  }

  /** v -> "sorted out-list TAB sorted in-list" from (src, dst) pairs. */
  private static Map<String, String> adjacencyAnswer(List<String[]> edgeList) {
    Map<String, List<String>> out = new TreeMap<>();
    Map<String, List<String>> in = new TreeMap<>();
    for (String[] e : edgeList) {
      out.computeIfAbsent(e[0], k -> new ArrayList<>()).add(e[1]);
      in.computeIfAbsent(e[1], k -> new ArrayList<>()).add(e[0]);
      out.computeIfAbsent(e[1], k -> new ArrayList<>());
      in.computeIfAbsent(e[0], k -> new ArrayList<>());
    }
    Map<String, String> m = new HashMap<>();
    for (String v : out.keySet()) {
      Collections.sort(out.get(v));
      Collections.sort(in.get(v));
      m.put(v, String.join(",", out.get(v)) + "\t" + String.join(",", in.get(v)));
    }
    return m;
  }

  @Test
  void adjacencyListFromAdjacencyListsAndFromEdges() throws Exception {
    List<String[]> edgeList = new ArrayList<>();
    for (String line : LocalMr.inputLines(adjacency)) {
      String[] f = line.split("\t");
      for (String dst : f[1].split(",")) {
        edgeList.add(new String[] {f[0], dst});
      }
    }
    Map<String, String> expected = adjacencyAnswer(edgeList);
    assertEquals(12, expected.size());

    LocalMr.run(conf, new AdjacencyList(), "-r", "2", adjacency.toString(),
        out("adjlist").toString());
    LocalMr.run(conf, new AdjacencyList(), edges.toString(), out("adjlist-edges").toString());
    assertEquals(expected, keyed(LocalMr.partLines(out("adjlist"))));
    assertEquals(expected, keyed(LocalMr.partLines(out("adjlist-edges"))));
  }

  @Test
  void adjacencyListAcceptsSpaceSeparatedEdgesAndSkipsMalformedLines() throws Exception {
    Path in = work.resolve("in-edges-handmade");
    Files.createDirectories(in);
    Files.write(in.resolve("edges.txt"), List.of(
        "a b", "a c", "b a", "c\tc", "lonely", "", "d a,b", "a b"));
    LocalMr.run(conf, new AdjacencyList(), in.toString(), out("adjlist-handmade").toString());
    Map<String, String> expected = new HashMap<>();
    expected.put("a", "b,b,c\tb,d");
    expected.put("b", "a\ta,a,d");
    expected.put("c", "c\ta,c");
    expected.put("d", "a,b\t");
    assertEquals(expected, keyed(LocalMr.partLines(out("adjlist-handmade"))));
  }

  private static Set<String> selfJoinAnswer(List<String> records, int k) {
    Map<String, TreeSet<String>> groups = new HashMap<>();
    for (String r : records) {
      String[] f = r.split("[,\\s]+");
      if (f.length < 2 || (k > 0 && f.length != k)) {
        continue;
      }
      String prefix = String.join(",", java.util.Arrays.copyOf(f, f.length - 1));
      groups.computeIfAbsent(prefix, x -> new TreeSet<>()).add(f[f.length - 1]);
    }
    Set<String> joined = new TreeSet<>();
    groups.forEach((prefix, values) -> {
      List<String> v = new ArrayList<>(values);
      for (int i = 0; i < v.size(); i++) {
        for (int j = i + 1; j < v.size(); j++) {
          joined.add(prefix + "," + v.get(i) + "," + v.get(j));
        }
      }
    });
    return joined;
  }

  @Test
  void selfJoinPairsRecordsSharingAPrefix() throws Exception {
    Set<String> expected = selfJoinAnswer(LocalMr.inputLines(selfJoin), 0);
    assertTrue(expected.size() > 600, "join output " + expected.size());
    LocalMr.run(conf, new SelfJoin(), "-r", "2", selfJoin.toString(), out("sj").toString());
    List<String> lines = LocalMr.partLines(out("sj"));
    assertEquals(expected.size(), lines.size(), "duplicate output records");
    assertEquals(expected, new TreeSet<>(lines));
  }

  @Test
  void selfJoinWithKSkipsRecordsOfOtherWidths() throws Exception {
    Path in = work.resolve("in-selfjoin-handmade");
    Files.createDirectories(in);
    List<String> records = List.of("1,2,3", "1,2,5", "1 2 4", "1,2,3", "1,2,9,9", "7", "",
        "4,5,6", "1,3,3");
    Files.write(in.resolve("records.txt"), records);
    LocalMr.run(conf, new SelfJoin(), "-k", "3", in.toString(), out("sj-k3").toString());
    Set<String> expected = Set.of("1,2,3,4", "1,2,3,5", "1,2,4,5");
    assertEquals(expected, selfJoinAnswer(records, 3), "the test's own answer");
    List<String> lines = LocalMr.partLines(out("sj-k3"));
    assertEquals(expected.size(), lines.size());
    assertEquals(expected, new TreeSet<>(lines));
  }

  @Test
  void sortTextWithTotalOrderOverThreeReduces() throws Exception {
    List<String> expected = new ArrayList<>(LocalMr.inputLines(text));
    Collections.sort(expected); // ASCII: String order is byte order
    LocalMr.run(conf, new Sort(), "-r", "3", "-totalOrder", "-samples", "500", text.toString(),
        out("sort-text").toString());
    assertEquals(3, LocalMr.parts(out("sort-text")).size());
    for (Path part : LocalMr.parts(out("sort-text"))) {
      assertTrue(Files.size(part) > 0, part + " is empty: the partitions were not sampled");
    }
    assertEquals(expected, LocalMr.partLines(out("sort-text")));
    try (var s = Files.list(work)) {
      assertFalse(s.anyMatch(p -> p.getFileName().toString().contains("sort-partitions")),
          "partition file left behind");
    }
  }

  @Test
  void sortSequenceFileByKey() throws Exception {
    Path in = work.resolve("in-seq");
    Files.createDirectories(in);
    java.util.Random random = new java.util.Random(11);
    List<String> expected = new ArrayList<>();
    try (SequenceFile.Writer w = SequenceFile.createWriter(conf,
        SequenceFile.Writer.file(new org.apache.hadoop.fs.Path(in.resolve("data.seq").toUri())),
        SequenceFile.Writer.keyClass(IntWritable.class),
        SequenceFile.Writer.valueClass(Text.class))) {
      for (int i = 0; i < 5000; i++) {
        int key = random.nextInt(2000) - 1000;
        w.append(new IntWritable(key), new Text("v" + i));
        expected.add(key + "/v" + i);
      }
    }
    LocalMr.run(conf, new Sort(), "-inFormat", "seq", "-r", "2", "-totalOrder",
        in.toString(), out("sort-seq").toString());
    List<String> actual = new ArrayList<>();
    int previous = Integer.MIN_VALUE;
    List<Path> parts = LocalMr.parts(out("sort-seq"));
    assertEquals(2, parts.size());
    for (Path part : parts) {
      try (SequenceFile.Reader r = new SequenceFile.Reader(conf, SequenceFile.Reader.file(
          new org.apache.hadoop.fs.Path(part.toUri())))) {
        assertEquals(IntWritable.class, r.getKeyClass());
        assertEquals(Text.class, r.getValueClass());
        IntWritable k = new IntWritable();
        Text v = new Text();
        while (r.next(k, v)) {
          assertTrue(k.get() >= previous, "keys out of order: " + previous + " then " + k);
          previous = k.get();
          actual.add(k.get() + "/" + v);
        }
      }
    }
    Collections.sort(expected);
    Collections.sort(actual);
    assertEquals(expected, actual);
  }

  @Test
  void usageErrorsReturnTwo() throws Exception {
    assertEquals(2, ToolRunner.run(new Configuration(conf), new WordCount(),
        new String[] {"only-one-path"}));
    assertEquals(2, ToolRunner.run(new Configuration(conf), new Grep(),
        new String[] {"in", "out", "(unclosed"}));
    assertEquals(2, ToolRunner.run(new Configuration(conf), new Sort(),
        new String[] {"-inFormat", "avro", "in", "out"}));
  }

  @Test
  void driverListsEveryProgram() throws Throwable {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream old = System.out;
    int rc;
    try {
      System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
      rc = WorkloadDriver.programs().run(new String[0]);
    } finally {
      System.setOut(old);
    }
    assertEquals(-1, rc, "no program named: usage");
    String listing = buf.toString(StandardCharsets.UTF_8);
    for (String name : List.of("gen-text", "gen-smallfiles", "gen-adjacency", "gen-selfjoin",
        "wordcount", "grep", "invertedindex", "adjacencylist", "selfjoin", "sort")) {
      assertTrue(Pattern.compile("(?m)^\\s+" + Pattern.quote(name) + ":").matcher(listing)
          .find(), name + " missing from:\n" + listing);
    }
  }
}
