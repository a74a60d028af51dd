package io.hadoopaccel.hdfs.hetero;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every offline subcommand of {@code hdfs hetero} against a temporary profiles file. */
class TestHeteroAdmin {

  @TempDir
  Path tmp;
  private Path file;
  private Configuration conf;
  private String out;
  private String err;

  @BeforeEach
  void setUp() {
    file = tmp.resolve("conf").resolve("hetero-profiles.conf");
    conf = new Configuration(false);
    conf.set(HeteroConfigKeys.PROFILES_FILE, file.toString());
  }

  private int run(String... args) {
    AdminRun r = AdminRun.of(conf, args);
    out = r.out;
    err = r.err;
    return r.rc;
  }

  private HeteroProfiles onDisk() {
    return ProfileFile.readOnce(file);
  }

  private void assertErr(String fragment) {
    assertTrue(err.contains(fragment), "stderr lacks '" + fragment + "':\n" + err);
  }

  private void assertOut(String fragment) {
    assertTrue(out.contains(fragment), "stdout lacks '" + fragment + "':\n" + out);
  }

  @Test
  void listOfAMissingFileIsEmpty() {
    assertEquals(0, run("list"));
    assertOut("0 profile(s), 0 bound directories");
    assertFalse(Files.exists(file), "list must not create the file");
  }

  @Test
  void setCreatesReplacesAndShowsShares() {
    assertEquals(0, run("set", "grep", "node1=1", "node2=2", "node3=3"));
    assertOut("Created profile grep");
    assertEquals(Map.of("node1", 1.0, "node2", 2.0, "node3", 3.0),
        onDisk().profile("grep").ratios());
    // The seed's Table 3.2: 6 : 3 : 2 of 11.
    assertEquals(0, run("show", "grep"));
    assertOut("54.5%");
    assertOut("27.3%");
    assertOut("18.2%");
    assertOut("not bound");

    assertEquals(0, run("set", "grep", "node1=1", "node2=1.5"));
    assertOut("Replaced profile grep");
    assertEquals(Map.of("node1", 1.0, "node2", 1.5), onDisk().profile("grep").ratios());
  }

  @Test
  void setWithTimesNormalisesResponseTimesToTheFastest() {
    assertEquals(0, run("set", "wc", "-times", "a=20", "b=10", "c:9866=50"));
    assertOut("normalised to the fastest");
    assertEquals(Map.of("a", 2.0, "b", 1.0, "c:9866", 5.0), onDisk().profile("wc").ratios());
    // Without -times the values are ratios, kept as given, with a note when none is 1.
    assertEquals(0, run("set", "wc", "a=2", "b=4"));
    assertOut("NOTE: no node has ratio 1");
    assertEquals(Map.of("a", 2.0, "b", 4.0), onDisk().profile("wc").ratios());
  }

  @Test
  void setRejectsMalformedArgumentsNamingThem() {
    assertEquals(2, run("set", "grep", "node1=1", "node2"));
    assertErr("'node2' is not HOST=VALUE");
    assertEquals(2, run("set", "grep", "node1=fast"));
    assertErr("'node1=fast': 'fast' is not a number");
    assertEquals(2, run("set", "grep", "node1=-1"));
    assertErr("'node1=-1'");
    assertEquals(2, run("set", "grep", "a=1", "a=2"));
    assertErr("given twice");
    assertEquals(2, run("set", "grep", "bad/host=1"));
    assertErr("'bad/host' is not a host name");
    assertEquals(2, run("set", "gr ep", "a=1"));
    assertErr("profile name 'gr ep'");
    assertEquals(2, run("set", "grep"));
    assertFalse(Files.exists(file), "nothing may be written on a usage error");
  }

  @Test
  void bindUnbindAndList() {
    assertEquals(0, run("set", "grep", "n1=1", "n2=3.3"));
    assertEquals(0, run("bind", "/data/grep/", "grep"));
    assertOut("Bound /data/grep to profile grep");
    assertEquals("grep", onDisk().bindings().get("/data/grep"));
    assertEquals(0, run("list"));
    assertOut("1 profile(s), 1 bound directory");
    assertOut("profile grep (2 node(s), bound to /data/grep)");
    assertOut("/data/grep -> grep");
    assertOut("3.3");

    assertEquals(1, run("remove", "grep"));
    assertErr("still bound to /data/grep");
    assertEquals(0, run("unbind", "/data/grep"));
    assertTrue(onDisk().bindings().isEmpty());
    assertEquals(0, run("remove", "grep"));
    assertNull(onDisk().profile("grep"));
  }

  @Test
  void unknownProfilesAndDirectoriesAreErrors() {
    assertEquals(0, run("set", "grep", "n1=1"));
    assertEquals(1, run("show", "wc"));
    assertErr("no profile named wc (profiles: grep)");
    assertEquals(1, run("bind", "/data", "wc"));
    assertErr("no profile named wc");
    assertEquals(1, run("remove", "wc"));
    assertErr("no profile named wc");
    assertEquals(1, run("unbind", "/not/bound"));
    assertErr("/not/bound is not bound to a profile");
    assertEquals(2, run("bind", "relative/dir", "grep"));
    assertErr("'relative/dir' is not an absolute, normalised HDFS path");
  }

  @Test
  void malformedFileIsRejectedNamingTheLine() throws Exception {
    Files.createDirectories(file.getParent());
    Files.writeString(file, "profile grep\nnode n1 1\nnode n2 slow\n");
    for (String[] cmd : new String[][] {{"list"}, {"show", "grep"}, {"set", "wc", "a=1"},
        {"bind", "/d", "grep"}, {"unbind", "/d"}, {"remove", "grep"}}) {
      assertEquals(1, run(cmd), String.join(" ", cmd));
      assertErr(file + ":3: ratio 'slow' of node n2 is not a number");
    }
    // Nothing was overwritten.
    assertEquals("profile grep\nnode n1 1\nnode n2 slow\n", Files.readString(file));
  }

  @Test
  void usageErrorsExitTwo() {
    assertEquals(2, run());
    assertErr("no command");
    assertErr("Usage: hdfs hetero");
    assertEquals(2, run("frobnicate"));
    assertErr("unknown command 'frobnicate'");
    assertEquals(2, run("list", "extra"));
    assertEquals(2, run("show"));
    assertEquals(2, run("show", "-dir"));
    assertEquals(2, run("show", "-x", "grep"));
    assertEquals(2, run("bind", "/d"));
    assertEquals(2, run("profile", "p", "-mapper", "x.Y"));
    assertErr("missing -sample");
    assertEquals(2, run("profile", "p", "-sample", "/s", "-mapper", "no.such.Mapper"));
    assertErr("-mapper no.such.Mapper: class not found");
    assertEquals(2, run("profile", "p", "-sample", "/s", "-mapper", "java.lang.String"));
    assertErr("is not a org.apache.hadoop.mapreduce.Mapper");
    assertEquals(2, run("profile", "p", "-sample", "/s", "-mapper", "x.Y",
        "-splits-per-node", "0"));
    assertErr("-splits-per-node 0: expected an integer >= 1");
    assertEquals(2, run("profile", "p", "-sample", "/s", "-mapper", "x.Y", "-bogus", "1"));
    assertErr("unknown option '-bogus'");
    assertEquals(2, run("profile", "p", "-sample", "/s", "-mapper", "x.Y", "-save"));
    assertErr("option '-save' does not apply");
    assertEquals(2, run("derive", "p"));
    assertErr("at least one -job");
    assertEquals(2, run("derive", "p", "-job", "not_a_job"));
    assertErr("'not_a_job' is not a job id");
    assertEquals(0, run("help"));
    assertOut("Exit codes: 0 ok, 1 error, 2 usage.");
  }

  @Test
  void relativeFileNameResolvesAgainstConfDirOrCwd() {
    Configuration c = new Configuration(false);
    c.set(HeteroConfigKeys.PROFILES_FILE, "hetero-profiles.conf");
    Path p = ProfileFile.resolve(c);
    assertTrue(p.isAbsolute());
    assertEquals("hetero-profiles.conf", p.getFileName().toString());
  }
}
