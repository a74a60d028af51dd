package io.hadoopaccel.hdfs.hetero;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Command-line parsing and the choice of directories, without a cluster. */
class TestHeteroBalancerOptions {
  private static final HeteroProfiles PROFILES = HeteroProfiles.EMPTY
      .withProfile("grep", Map.of("a", 1.0, "b", 2.0))
      .withProfile("wc", Map.of("a", 1.0, "b", 5.0))
      .withBinding("/data/grep", "grep")
      .withBinding("/data/grep/wc", "wc")
      .withBinding("/logs", "grep")
      .withBinding("/data/wc", "wc");

  private static Map<String, String> groups(String... args) {
    return HeteroBalancer.groups(PROFILES, HeteroBalancer.Options.parse(args));
  }

  private static Map<String, String> map(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  void parsesOptions() {
    HeteroBalancer.Options o = HeteroBalancer.Options.parse(new String[] {"-threshold", "2.5",
        "-bandwidth", "1048576", "-concurrency", "3", "-max-iterations", "4", "-dry-run",
        "-dir", "/data/grep/", "-profile", "wc"});
    assertEquals(2.5, o.threshold);
    assertEquals(1 << 20, o.bandwidth);
    assertEquals(3, o.concurrency);
    assertEquals(4, o.maxIterations);
    assertTrue(o.dryRun);
    assertTrue(o.dirs.contains("/data/grep"));
    for (String[] bad : new String[][] {{"-threshold"}, {"-threshold", "101"},
        {"-concurrency", "0"}, {"-dir", "relative"}, {"-bogus"}, {"-bandwidth", "x"}}) {
      assertThrows(IllegalArgumentException.class, () -> HeteroBalancer.Options.parse(bad),
          String.join(" ", bad));
    }
  }

  @Test
  void choosesEachDirectoryOnce() {
    assertEquals(map("/data/grep", "grep", "/data/grep/wc", "wc", "/data/wc", "wc",
        "/logs", "grep"), groups());
    assertEquals(map("/data/grep", "grep", "/logs", "grep"), groups("-profile", "grep"));
    // Above bound directories: each of them; inside one: just that part.
    assertEquals(map("/data/grep", "grep", "/data/grep/wc", "wc", "/data/wc", "wc"),
        groups("-dir", "/data"));
    assertEquals(map("/data/grep/part1", "grep"), groups("-dir", "/data/grep/part1"));
    // A part of a directory already chosen is covered by it.
    assertEquals(map("/data/grep", "grep", "/logs", "grep"),
        groups("-profile", "grep", "-dir", "/data/grep/part1"));
    assertTrue(groups("-dir", "/elsewhere").isEmpty());
    assertThrows(IllegalArgumentException.class, () -> groups("-profile", "sort"));
  }
}
