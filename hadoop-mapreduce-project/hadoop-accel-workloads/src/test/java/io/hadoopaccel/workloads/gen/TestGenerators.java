package io.hadoopaccel.workloads.gen;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.workloads.LocalMr;
import io.hadoopaccel.workloads.util.Vocabulary;
import io.hadoopaccel.workloads.util.ZipfSampler;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.InputSplit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The generator jobs under the local job runner: shapes, sizes and determinism. */
class TestGenerators {
  private static Path work;
  private static Configuration conf;

  @BeforeAll
  static void setUp() throws Exception {
    work = LocalMr.workDir("generators");
    conf = LocalMr.conf(work);
  }

  private static Path out(String name) {
    return work.resolve(name);
  }

  @Test
  void rangeSplitsCoverAllUnitsOnce() {
    for (long units : new long[] {1, 5, 7, 100}) {
      for (int maps : new int[] {1, 3, 8}) {
        List<InputSplit> splits = RangeInputFormat.split(units, maps);
        assertEquals(Math.min(units, maps), splits.size());
        long next = 0;
        long previousLength = Long.MAX_VALUE;
        for (InputSplit s : splits) {
          RangeInputFormat.RangeSplit r = (RangeInputFormat.RangeSplit) s;
          assertEquals(next, r.getFirst());
          assertTrue(r.getCount() >= units / maps && r.getCount() <= units / maps + 1);
          // JobSubmitter orders tasks by decreasing length: keep unit order = task order.
          assertTrue(r.getLength() <= previousLength, "split lengths must not increase");
          previousLength = r.getLength();
          next += r.getCount();
        }
        assertEquals(units, next);
      }
    }
  }

  @Test
  void genTextIsDeterministicWhateverTheMapCountAndHasTheRequestedShape() throws Exception {
    long bytes = 2 * GenText.BLOCK_BYTES + 300_000; // 3 blocks, the last one partial
    LocalMr.run(conf, new GenText(), "-bytes", Long.toString(bytes), "-seed", "7", "-maps", "1",
        out("text-a").toString());
    LocalMr.run(conf, new GenText(), "-bytes", Long.toString(bytes), "-seed", "7", "-maps", "3",
        out("text-b").toString());
    LocalMr.run(conf, new GenText(), "-bytes", Long.toString(bytes), "-seed", "8", "-maps", "2",
        out("text-c").toString());
    assertEquals(1, LocalMr.parts(out("text-a")).size());
    assertEquals(3, LocalMr.parts(out("text-b")).size());
    byte[] a = LocalMr.partBytes(out("text-a"));
    assertArrayEquals(a, LocalMr.partBytes(out("text-b")), "same seed, other map count");
    assertFalse(Arrays.equals(a, LocalMr.partBytes(out("text-c"))), "other seed, same bytes");

    ZipfText text = ZipfText.standard();
    assertTrue(a.length >= bytes && a.length < bytes + 3L * text.maxLineBytes(),
        a.length + " bytes generated for " + bytes);

    Map<String, Integer> rank = new HashMap<>();
    for (int i = 0; i < text.vocabulary().size(); i++) {
      rank.put(text.vocabulary().word(i), i);
    }
    long words = 0;
    long[] perRank = new long[text.vocabulary().size()];
    String all = new String(a, StandardCharsets.US_ASCII);
    assertTrue(all.endsWith("\n"));
    for (String line : all.substring(0, all.length() - 1).split("\n", -1)) {
      String[] w = line.split(" ", -1);
      assertTrue(w.length >= 10 && w.length <= 20, "line of " + w.length + " words: " + line);
      for (String word : w) {
        Integer r = rank.get(word);
        assertTrue(r != null, "'" + word + "' is not a vocabulary word");
        perRank[r]++;
      }
      words += w.length;
    }
    // Zipf: the most frequent word is ~10.2% of all words, the 10th ~1.02%.
    ZipfSampler z = text.sampler();
    for (int r : new int[] {0, 9}) {
      double expected = z.probability(r) * words;
      assertEquals(expected, perRank[r], 5 * Math.sqrt(expected), "count of rank " + (r + 1));
    }
  }

  @Test
  void genTextOptionsChangeLineShape() throws Exception {
    LocalMr.run(conf, new GenText(), "-bytes", "50k", "-minWords", "3", "-maxWords", "4",
        "-vocabulary", "50", "-zipf", "0", out("text-options").toString());
    Set<String> vocabulary = new HashSet<>();
    Vocabulary v = Vocabulary.create(50);
    for (int i = 0; i < v.size(); i++) {
      vocabulary.add(v.word(i));
    }
    Set<String> seen = new HashSet<>();
    for (String line : LocalMr.partLines(out("text-options"))) {
      String[] w = line.split(" ");
      assertTrue(w.length == 3 || w.length == 4, line);
      seen.addAll(Arrays.asList(w));
    }
    assertEquals(vocabulary, seen, "50 equally likely words, all of them used");
  }

  @Test
  void genSmallFilesWritesOneFileOfAboutTheRequestedSizeEach() throws Exception {
    int fileSize = 100_000;
    LocalMr.run(conf, new GenSmallFiles(), "-numFiles", "5", "-fileSize", Integer.toString(fileSize),
        "-seed", "3", "-maps", "2", out("small-a").toString());
    LocalMr.run(conf, new GenSmallFiles(), "-numFiles", "5", "-fileSize", Integer.toString(fileSize),
        "-seed", "3", "-maps", "5", out("small-b").toString());
    List<Path> files = LocalMr.inputFiles(out("small-a"));
    assertEquals(List.of("file-000000.txt", "file-000001.txt", "file-000002.txt",
            "file-000003.txt", "file-000004.txt"),
        files.stream().map(p -> p.getFileName().toString()).collect(Collectors.toList()),
        "exactly the small files, no part files");
    int maxLine = ZipfText.standard().maxLineBytes();
    Set<String> contents = new HashSet<>();
    for (Path f : files) {
      byte[] data = Files.readAllBytes(f);
      assertTrue(data.length >= fileSize && data.length < fileSize + maxLine,
          f + " has " + data.length + " bytes");
      assertEquals('\n', data[data.length - 1]);
      assertArrayEquals(data, Files.readAllBytes(out("small-b").resolve(f.getFileName())),
          "same seed, other map count: " + f.getFileName());
      contents.add(new String(data, StandardCharsets.US_ASCII));
      for (String line : new String(data, StandardCharsets.US_ASCII).split("\n")) {
        int n = line.split(" ").length;
        assertTrue(n >= 10 && n <= 20, "line of " + n + " words");
      }
    }
    assertEquals(5, contents.size(), "every file has its own content");
  }

  /** Parses "v TAB n1,n2,..." lines into vertex -> list. */
  private static Map<Long, String> adjacency(List<String> lines) {
    Map<Long, String> adj = new HashMap<>();
    for (String line : lines) {
      int tab = line.indexOf('\t');
      assertTrue(tab > 0, line);
      assertEquals(null, adj.put(Long.parseLong(line.substring(0, tab)), line.substring(tab + 1)),
          "vertex listed twice");
    }
    return adj;
  }

  @Test
  void genAdjacencyValuesAreFourToSixtyFourKilobytes() throws Exception {
    int vertices = 16;
    LocalMr.run(conf, new GenAdjacency(), "-vertices", Integer.toString(vertices), "-seed", "5",
        "-maps", "2", out("adj-a").toString());
    LocalMr.run(conf, new GenAdjacency(), "-vertices", Integer.toString(vertices), "-seed", "5",
        "-maps", "3", out("adj-b").toString());
    LocalMr.run(conf, new GenAdjacency(), "-vertices", Integer.toString(vertices), "-seed", "5",
        "-format", "edges", "-maps", "2", out("adj-edges").toString());
    assertArrayEquals(LocalMr.partBytes(out("adj-a")), LocalMr.partBytes(out("adj-b")));

    Map<Long, String> adj = adjacency(LocalMr.partLines(out("adj-a")));
    assertEquals(vertices, adj.size());
    int min = Integer.MAX_VALUE;
    int max = 0;
    for (long v = 0; v < vertices; v++) {
      String list = adj.get(v);
      assertTrue(list != null, "vertex " + v + " missing");
      int size = list.getBytes(StandardCharsets.US_ASCII).length;
      assertTrue(size >= 4096 && size <= 65536, "value of " + size + " bytes");
      min = Math.min(min, size);
      max = Math.max(max, size);
      for (String n : list.split(",", -1)) {
        long id = Long.parseLong(n);
        assertTrue(id >= 0 && id < vertices, "neighbour " + id);
      }
    }
    assertTrue(max - min > 20_000, "sizes spread over the range: " + min + ".." + max);

    // The edges format is the same graph, one line per edge, in the same order.
    Map<Long, List<String>> fromEdges = new HashMap<>();
    for (String line : LocalMr.partLines(out("adj-edges"))) {
      String[] e = line.split("\t", -1);
      assertEquals(2, e.length, line);
      fromEdges.computeIfAbsent(Long.parseLong(e[0]), k -> new ArrayList<>()).add(e[1]);
    }
    assertEquals(adj.keySet(), fromEdges.keySet());
    for (Map.Entry<Long, List<String>> e : fromEdges.entrySet()) {
      assertEquals(adj.get(e.getKey()), String.join(",", e.getValue()));
    }
  }

  @Test
  void genAdjacencyBytesAndValueBoundsOptions() throws Exception {
    LocalMr.run(conf, new GenAdjacency(), "-bytes", "200k", "-minValue", "1k", "-maxValue", "2k",
        out("adj-bytes").toString());
    List<String> lines = LocalMr.partLines(out("adj-bytes"));
    long total = 0;
    for (String value : adjacency(lines).values()) {
      assertTrue(value.length() >= 1024 && value.length() <= 2048, "value " + value.length());
    }
    for (Path p : LocalMr.parts(out("adj-bytes"))) {
      total += Files.size(p);
    }
    assertTrue(total > 170_000 && total < 230_000, total + " bytes for -bytes 200k");
  }

  @Test
  void genSelfJoinWritesKFieldRecordsInPrefixGroups() throws Exception {
    LocalMr.run(conf, new GenSelfJoin(), "-records", "400", "-k", "4", "-group", "5",
        "-items", "1000", "-seed", "2", "-maps", "2", out("sj-a").toString());
    LocalMr.run(conf, new GenSelfJoin(), "-records", "400", "-k", "4", "-group", "5",
        "-items", "1000", "-seed", "2", "-maps", "1", out("sj-b").toString());
    assertArrayEquals(LocalMr.partBytes(out("sj-a")), LocalMr.partBytes(out("sj-b")));
    Map<String, Set<String>> groups = new HashMap<>();
    List<String> lines = LocalMr.partLines(out("sj-a"));
    for (String line : lines) {
      String[] f = line.split(",", -1);
      assertEquals(4, f.length, line);
      Set<String> distinct = new HashSet<>(Arrays.asList(f));
      assertEquals(4, distinct.size(), "repeated item in " + line);
      for (String item : f) {
        int i = Integer.parseInt(item);
        assertTrue(i >= 0 && i < 1000, line);
      }
      String prefix = line.substring(0, line.lastIndexOf(','));
      assertTrue(groups.computeIfAbsent(prefix, k -> new HashSet<>()).add(f[3]),
          "duplicate record " + line);
    }
    // 80 groups of 1..9 records (mean 5).
    assertTrue(lines.size() > 250 && lines.size() < 550, lines.size() + " records");
    assertTrue(groups.size() >= 75 && groups.size() <= 80, groups.size() + " groups");
  }
}
