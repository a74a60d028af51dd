package io.hadoopaccel.hdfs.hetero;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TestHeteroProfiles {

  private static HeteroProfiles parse(String text) throws IOException {
    return HeteroProfiles.parse("profiles.conf", new StringReader(text));
  }

  private static String error(String text) {
    return assertThrows(HeteroProfiles.MalformedProfileException.class, () -> parse(text))
        .getMessage();
  }

  @Test
  void parsesProfilesAndBindings() throws IOException {
    HeteroProfiles p = parse("# the seed's Table 3.4\n"
        + "profile grep\n"
        + "node nodeA 1   # fastest\n"
        + "node nodeB 2\n"
        + "node 10.0.0.3:9866 3.3\n"
        + "\n"
        + "profile wordcount\n"
        + "node nodeA 1\n"
        + "bind /data/grep/ grep\n"
        + "bind /data wordcount\n");
    assertEquals(2, p.profiles().size());
    assertEquals(3.3, p.profile("grep").ratioOf("10.0.0.3:9866"));
    assertTrue(Double.isNaN(p.profile("grep").ratioOf("nodeZ")));
    assertEquals(2.0, p.profile("grep").ratioOf("nodeZ", "nodeB"));
    // Longest bound ancestor wins; the bound directory itself is governed too.
    assertEquals("/data/grep", p.boundDirectoryOf("/data/grep/part-0"));
    assertEquals("/data/grep", p.boundDirectoryOf("/data/grep"));
    assertEquals("grep", p.profileOf("/data/grep/x/y").name());
    assertEquals("wordcount", p.profileOf("/data/grepx").name());
    assertNull(p.profileOf("/tmp/x"));
    assertNull(p.profileOf("/"));
  }

  @Test
  void formatRoundTrips() throws IOException {
    Map<String, Double> ratios = new LinkedHashMap<>();
    ratios.put("a", 1.0);
    ratios.put("b", 3.333);
    HeteroProfiles p = HeteroProfiles.EMPTY.withProfile("grep", ratios).withBinding("/in", "grep");
    HeteroProfiles q = parse(p.format());
    assertEquals(p.format(), q.format());
    assertEquals(3.333, q.profile("grep").ratioOf("b"));
    assertEquals("grep", q.bindings().get("/in"));
  }

  @Test
  void malformedTextIsRejectedNamingTheLine() {
    assertEquals("profiles.conf:3: ratio 'fast' of node b is not a number",
        error("profile p\nnode a 1\nnode b fast\n"));
    assertTrue(error("profile p\nnode a 0\n").startsWith("profiles.conf:2: ratio 0.0 of node a"));
    assertTrue(error("profile p\nnode a -1\n").contains(":2:"));
    assertTrue(error("node a 1\n").startsWith("profiles.conf:1: node before any profile"));
    assertTrue(error("profile p\nnode a 1\nnode a 2\n").startsWith("profiles.conf:3:"));
    assertTrue(error("profile p\nnode a 1\nprofile p\n").startsWith("profiles.conf:3:"));
    assertTrue(error("profile p\nnode a 1\n\nbind /x q\n")
        .startsWith("profiles.conf:4: /x is bound to unknown profile q"));
    assertTrue(error("profile p\nnode a 1\nbind x p\n").startsWith("profiles.conf:3:"));
    assertTrue(error("profile p\nnode a 1\nbind /a/../b p\n").startsWith("profiles.conf:3:"));
    assertTrue(error("profile p\nnode a 1\nplace /x p\n").contains("unknown statement 'place'"));
    assertTrue(error("profile p\nnode a 1 extra\n").startsWith("profiles.conf:2: expected"));
    assertTrue(error("profile p\n").contains("profile p has no node"));
  }

  @Test
  void editsCheckTheirArguments() throws IOException {
    HeteroProfiles p = parse("profile p\nnode a 1\nbind /x p\n");
    assertThrows(IllegalArgumentException.class, () -> p.withBinding("/y", "nope"));
    assertThrows(IllegalArgumentException.class, () -> p.withoutProfile("p"));
    assertThrows(IllegalArgumentException.class, () -> p.withoutBinding("/y"));
    assertThrows(IllegalArgumentException.class, () -> p.withProfile("p", Map.of("a", 0.0)));
    assertEquals(0, p.withoutBinding("/x/").withoutProfile("p").profiles().size());
  }
}
