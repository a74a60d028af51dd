package io.hadoopaccel.hdfs.hetero;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.io.InputStream;
import java.net.URL;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DFSTestUtil;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.server.blockmanagement.HeteroBlockPlacementPolicy;
import org.apache.hadoop.hdfs.tools.DFSAdmin;
import org.apache.hadoop.ipc.RefreshHandler;
import org.apache.hadoop.ipc.RefreshRegistry;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.net.Node;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The placement policy in a real NameNode: five DataNodes named after the seed's Table 3.4 nodes,
 * profiles 1 : 2 : 3 (Table 3.2) and 1 : 2 : 3.3 : 3.3 : 3.3 (Table 3.4, Grep).
 */
class TestHeteroPlacement {
  private static final int BLOCK = 64 * 1024;
  private static final String[] HOSTS = {"node-a", "node-b", "node-c", "node-d", "node-e"};

  @TempDir
  static Path tmp;
  private static Path profilesFile;
  private static MiniDFSCluster cluster;
  private static DistributedFileSystem fs;

  @BeforeAll
  static void start() throws IOException {
    profilesFile = tmp.resolve("hetero-profiles.conf");
    writeProfiles("profile three\nnode node-a 1\nnode node-b 2\nnode node-c 3\n"
        + "profile grep\nnode node-a 1\nnode node-b 2\nnode node-c 3.3\nnode node-d 3.3\n"
        + "node node-e 3.3\n"
        + "profile wc\nnode node-a 1\nnode node-b 2\nnode node-c 5\nnode node-d 5\n"
        + "bind /three three\nbind /grep grep\n");
    Configuration conf = new Configuration();
    conf.set(DFSConfigKeys.DFS_BLOCK_REPLICATOR_CLASSNAME_KEY,
        HeteroBlockPlacementPolicy.class.getName());
    conf.set(HeteroConfigKeys.PROFILES_FILE, profilesFile.toString());
    conf.set(HeteroConfigKeys.PROFILES_RELOAD_MS, "0");
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, BLOCK);
    conf.setLong(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 0);
    conf.setInt(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 1);
    File base = tmp.resolve("dfs").toFile();
    cluster = new MiniDFSCluster.Builder(conf, base).numDataNodes(HOSTS.length).hosts(HOSTS)
        .build();
    cluster.waitActive();
    fs = cluster.getFileSystem();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.shutdown();
    }
  }

  private static void writeProfiles(String text) throws IOException {
    // Through a rename, as 'hdfs hetero' writes it, so the NameNode never reads half a file.
    Path t = Files.createTempFile(tmp, "p", ".tmp");
    Files.write(t, text.getBytes(StandardCharsets.UTF_8));
    Files.move(t, profilesFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    // The reload check compares mtime and size; make an edit of equal size visible too.
    Files.setLastModifiedTime(profilesFile,
        java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + text.length()));
  }

  private static void write(String path, int blocks, short replication) throws Exception {
    byte[] buf = new byte[BLOCK];
    new Random(path.hashCode()).nextBytes(buf);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(path);
    try (FSDataOutputStream out = fs.create(file, replication)) {
      for (int i = 0; i < blocks; i++) {
        out.write(buf);
      }
    }
    // close() returns once one replica of the last block is reported; the NameNode learns of
    // the others from the DataNodes' incremental reports, which may still be on their way.
    DFSTestUtil.waitReplication(fs, file, replication);
  }

  /** Blocks of every file under {@code dir} with a replica on each host. */
  private static Map<String, Integer> replicasPerHost(String dir) throws IOException {
    Map<String, Integer> count = new TreeMap<>();
    for (String h : HOSTS) {
      count.put(h, 0);
    }
    RemoteIterator<LocatedFileStatus> it = fs.listFiles(new org.apache.hadoop.fs.Path(dir), true);
    while (it.hasNext()) {
      for (BlockLocation b : it.next().getBlockLocations()) {
        for (String h : b.getHosts()) {
          count.merge(h, 1, Integer::sum);
        }
      }
    }
    return count;
  }

  /** Asserts every node's count is within one block of n × (1/ratio) / Σ(1/ratio). */
  private static void assertShares(Map<String, Double> ratios, Map<String, ? extends Number> counts,
      int blocks) {
    double speed = 0;
    for (double r : ratios.values()) {
      speed += 1 / r;
    }
    long sum = 0;
    for (String h : HOSTS) {
      double target = ratios.containsKey(h) ? blocks * (1 / ratios.get(h)) / speed : 0;
      long actual = counts.get(h).longValue();
      sum += actual;
      assertTrue(Math.abs(actual - target) <= 1.0,
          h + " holds " + actual + " blocks, target " + target + ": " + counts);
    }
    assertEquals(blocks, sum, "counts " + counts);
  }

  private static HeteroPlacement placement() {
    return ((HeteroBlockPlacementPolicy) cluster.getNamesystem().getBlockManager()
        .getBlockPlacementPolicy()).hetero();
  }

  /** Counts by host name from the policy's own counters (by ip:port). */
  private static Map<String, Long> firstReplicasPerHost(String dir) {
    Map<String, Long> byAddr = placement().placedFirstReplicas(dir);
    Map<String, Long> out = new TreeMap<>();
    for (DatanodeDescriptor dn : cluster.getNamesystem().getBlockManager().getDatanodeManager()
        .getDatanodeListForReport(org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType.LIVE)) {
      out.put(dn.getHostName(), byAddr.getOrDefault(dn.getXferAddr(), 0L));
    }
    return out;
  }

  @Test
  void replicationOneFollowsTable32() throws Exception {
    // Nodes d and e are not in profile "three": they get ratio 1 (with a warning) unless
    // excluded; bind a profile that names all five to check the seed's 6 : 3 : 2 instead.
    writeProfiles(Files.readString(profilesFile)
        + "profile three5\nnode node-a 1\nnode node-b 2\nnode node-c 3\nnode node-d 1000000\n"
        + "node node-e 1000000\nbind /t32 three5\n");
    write("/t32/input", 44, (short) 1);
    assertShares(Map.of("node-a", 1.0, "node-b", 2.0, "node-c", 3.0, "node-d", 1e6,
        "node-e", 1e6), replicasPerHost("/t32"), 44);
  }

  @Test
  void replicationOneFollowsTable34() throws Exception {
    write("/grep/input", 48, (short) 1);
    Map<String, Double> grep = Map.of("node-a", 1.0, "node-b", 2.0, "node-c", 3.3,
        "node-d", 3.3, "node-e", 3.3);
    assertShares(grep, replicasPerHost("/grep"), 48);
    // Many one-block files (seed ch.4's small files): the directory's share, not each file's.
    for (int i = 0; i < 24; i++) {
      write("/grep/small/f" + i, 1, (short) 1);
    }
    assertShares(grep, replicasPerHost("/grep/small"), 24);
  }

  @Test
  void replicationTwoPlacesFirstReplicasByShare() throws Exception {
    writeProfiles(Files.readString(profilesFile) + "bind /r2 wc\n");
    write("/r2/input", 40, (short) 2);
    // node-e is unknown to profile wc: ratio 1, like the fastest.
    Map<String, Double> wc = Map.of("node-a", 1.0, "node-b", 2.0, "node-c", 5.0, "node-d", 5.0,
        "node-e", 1.0);
    Map<String, Long> first = firstReplicasPerHost("/r2");
    assertShares(wc, first, 40);
    Map<String, Integer> replicas = replicasPerHost("/r2");
    int total = 0;
    for (String h : HOSTS) {
      assertTrue(replicas.get(h) >= first.get(h), "first replicas really landed: " + replicas);
      total += replicas.get(h);
    }
    assertEquals(80, total, "replication 2 kept: " + replicas);
  }

  @Test
  void unboundFilesAreLeftToStock() throws Exception {
    write("/elsewhere/input", 8, (short) 1);
    assertTrue(firstReplicasPerHost("/elsewhere").values().stream().allMatch(c -> c == 0));
    assertNull(placement().choose("/elsewhere/input", Collections.emptySet(), null));
    assertNull(placement().choose(null, Collections.emptySet(), null));
  }

  @Test
  void excludedAndAvoidedNodesAreSkipped() {
    DatanodeDescriptor a = null;
    for (DatanodeDescriptor dn : cluster.getNamesystem().getBlockManager().getDatanodeManager()
        .getDatanodeListForReport(org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType.LIVE)) {
      if (dn.getHostName().equals("node-a")) {
        a = dn;
      }
    }
    // node-a is the fastest: a fresh directory starts with it.
    assertEquals("node-a",
        placement().choose("/grep/fresh-dir-check", new HashSet<>(), null).preferred().getHostName());
    Set<Node> excluded = new HashSet<>();
    excluded.add(a);
    assertNotEquals("node-a", placement().choose("/grep/x", excluded, null).preferred().getHostName());
    assertNotEquals("node-a", placement().choose("/grep/x", new HashSet<>(), a).preferred().getHostName());
  }

  @Test
  void profileEditsApplyWithoutRestartAndTyposAreIgnored() throws Exception {
    String good = Files.readString(profilesFile);
    writeProfiles(good + "profile flat\nnode node-a 1\nnode node-b 1\nnode node-c 1\n"
        + "node node-d 1\nnode node-e 1\nbind /flat flat\n");
    write("/flat/input", 25, (short) 1);
    Map<String, Integer> flat = replicasPerHost("/flat");
    for (String h : HOSTS) {
      assertEquals(5, (int) flat.get(h), "even split under the new binding: " + flat);
    }
    // A malformed edit keeps the profiles in force: /flat stays bound and even.
    writeProfiles(good + "profile flat\nnode node-a one\nbind /flat flat\n");
    write("/flat/more", 25, (short) 1);
    Map<String, Integer> more = replicasPerHost("/flat");
    for (String h : HOSTS) {
      assertEquals(10, (int) more.get(h), "still even after a bad edit: " + more);
    }
    writeProfiles(good);
  }

  @Test
  void malformedProfilesStopStartupNamingTheLine() throws IOException {
    Path bad = tmp.resolve("bad.conf");
    Files.write(bad, "profile p\nnode a 1\nnode b x\n".getBytes(StandardCharsets.UTF_8));
    Configuration conf = new Configuration();
    conf.set(HeteroConfigKeys.PROFILES_FILE, bad.toString());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new HeteroPlacement(conf, null, cluster.getNamesystem().getBlockManager()
            .getDatanodeManager().getNetworkTopology()));
    assertEquals(bad + ":3: ratio 'x' of node b is not a number", e.getMessage());
    conf.set(HeteroConfigKeys.PROFILES_RELOAD_MS, "soon");
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> new HeteroPlacement(conf, null, null)).getMessage()
        .contains(HeteroConfigKeys.PROFILES_RELOAD_MS));
  }

  /** Polls {@code condition} every 100 ms for up to {@code seconds}; fails with {@code what}. */
  private static void await(int seconds, java.util.function.Supplier<String> what,
      java.util.function.BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, () -> "timed out waiting for " + what.get());
      Thread.sleep(100);
    }
  }

  /**
   * The NameNode's HeteroPlacement bean as its /jmx servlet prints it (JSON). Test JVMs run
   * several NameNodes one after another, so the bean is the one reading this class's profiles.
   */
  private static String jmx() {
    try {
      URL url = new URL("http://" + NetUtils.getHostPortString(
          cluster.getNameNode().getHttpAddress())
          + "/jmx?qry=Hadoop:service=NameNode,name=" + HeteroPlacementMetrics.NAME + "*");
      String json;
      try (InputStream in = url.openStream()) {
        json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      for (String bean : json.split("\\}, \\{")) {
        if (profilesFile.toString().equals(attribute(bean, "tag.ProfilesLocation"))) {
          return bean;
        }
      }
      return json;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The value of attribute {@code name} in {@link #jmx()}'s JSON, unquoted; null if absent. */
  private static String attribute(String json, String name) {
    Matcher m = Pattern.compile(
        "\"" + Pattern.quote(name) + "\"\\s*:\\s*(\"([^\"]*)\"|[-+0-9.eE]+)").matcher(json);
    return !m.find() ? null : m.group(2) != null ? m.group(2) : m.group(1);
  }

  private static long counter(String name) {
    for (HeteroPlacementMetrics.Metric m : new HeteroPlacementMetrics(placement()).snapshot()) {
      if (m.name().equals(name)) {
        return m.value().longValue();
      }
    }
    throw new AssertionError("no metric " + name);
  }

  @Test
  void metricsOnJmxMatchBlockLocations() throws Exception {
    writeProfiles(Files.readString(profilesFile) + "bind /metrics grep\n");
    long byProfile = counter("BlocksPlacedByProfile");
    long unbound = counter("BlocksUnbound");
    write("/metrics/a", 20, (short) 1);
    write("/metrics/b", 1, (short) 1);
    write("/unbound-for-metrics/c", 3, (short) 1);
    assertEquals(byProfile + 21, counter("BlocksPlacedByProfile"));
    assertEquals(unbound + 3, counter("BlocksUnbound"));

    // What each node really holds (replication 1: every replica is a first replica), and the
    // target share of the grep profile over the five live nodes.
    Map<String, Integer> held = replicasPerHost("/metrics");
    Map<String, Double> ratios = Map.of("node-a", 1.0, "node-b", 2.0, "node-c", 3.3,
        "node-d", 3.3, "node-e", 3.3);
    double speed = 0;
    for (double r : ratios.values()) {
      speed += 1 / r;
    }
    Map<String, Object> expected = new TreeMap<>();
    for (DatanodeInfo dn : fs.getDataNodeStats()) {
      String node = "Dir[/metrics].Node[" + dn.getHostName() + "_" + dn.getXferPort() + "]";
      double target = (1 / ratios.get(dn.getHostName())) / speed;
      int placed = held.get(dn.getHostName());
      expected.put(node + ".Placed", (long) placed);
      expected.put(node + ".TargetRatio", target);
      expected.put(node + ".Deviation", placed - target * 21);
      assertTrue(Math.abs(placed - target * 21) <= 1.0, node + " " + held);
    }
    expected.put("Dir[/metrics].Placed", 21L);
    expected.put("ProfilesVersion", placement().profiles().version());
    expected.put("ProfilesChecksum", placement().profiles().checksum());
    expected.put("BoundDirectories", (long) placement().profiles().get().bindings().size());

    Map<String, String> seen = new TreeMap<>();
    await(30, () -> "/jmx to show " + expected + " (last seen " + seen + ")", () -> {
      String bean = jmx();
      seen.clear();
      boolean all = true;
      for (Map.Entry<String, Object> e : expected.entrySet()) {
        String v = attribute(bean, e.getKey());
        seen.put(e.getKey(), v);
        all &= v != null && (e.getValue() instanceof Double d
            ? Math.abs(Double.parseDouble(v) - d) < 1e-6 : e.getValue().toString().equals(v));
      }
      return all;
    });
    String bean = jmx();
    assertEquals(profilesFile.toString(), attribute(bean, "tag.ProfilesLocation"), bean);
    long since = Long.parseLong(attribute(bean, "CountsSinceTime"));
    assertTrue(since > 0 && since <= System.currentTimeMillis(), "CountsSinceTime " + since);
    assertTrue(Double.parseDouble(attribute(bean, "Dir[/metrics].MaxAbsDeviation")) <= 1.0, bean);

    // No node may take the block: left to stock, counted.
    Set<Node> all = new HashSet<>(cluster.getNamesystem().getBlockManager().getDatanodeManager()
        .getDatanodeListForReport(org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType.LIVE));
    long noCandidate = counter("FallbacksNoCandidate");
    assertNull(placement().choose("/metrics/d", all, null));
    assertEquals(noCandidate + 1, counter("FallbacksNoCandidate"));
  }

  /**
   * HA: the profiles on HDFS, which every NameNode reads. A NameNode reads them in the
   * background (never on the allocation path), and 'hdfs dfsadmin -refresh' makes it re-read
   * them at once.
   */
  @Test
  void profilesOnHdfsAreReadInTheBackgroundAndOnRefresh() throws Exception {
    Configuration c = new Configuration(cluster.getConfiguration(0));
    String uri = fs.getUri() + "/system/hetero-profiles.conf";
    c.set(HeteroConfigKeys.PROFILES_FILE, uri);
    c.set(HeteroConfigKeys.PROFILES_RELOAD_MS, "2147483647"); // only the refresh reloads
    AdminRun set = AdminRun.of(c, "set", "ha", "node-a=1", "node-b=2");
    assertEquals(0, set.rc, set.out + set.err);
    AdminRun bind = AdminRun.of(c, "bind", "/ha", "ha");
    assertEquals(0, bind.rc, bind.out + bind.err);
    assertTrue(fs.exists(new org.apache.hadoop.fs.Path("/system/hetero-profiles.conf")));

    HeteroPlacement nn2 = new HeteroPlacement(c, null, cluster.getNamesystem().getBlockManager()
        .getDatanodeManager().getNetworkTopology());
    ProfileFile pf = nn2.profiles();
    assertEquals(uri, pf.store().toString());
    await(30, () -> "the background read of " + uri, () -> pf.version() == 1);
    assertEquals("ha", pf.get().bindings().get("/ha"));

    AdminRun bind2 = AdminRun.of(c, "bind", "/ha2", "ha");
    assertEquals(0, bind2.rc, bind2.out + bind2.err);
    assertNull(pf.get().bindings().get("/ha2"), "not before its reload interval");

    RefreshHandler h = nn2.registerRefreshHandler();
    try {
      String nnRpc = NetUtils.getHostPortString(cluster.getNameNode().getNameNodeAddress());
      assertEquals(0, new DFSAdmin(c).run(
          new String[] {"-refresh", nnRpc, HeteroPlacement.REFRESH_IDENTIFIER}));
      assertEquals(2, pf.version());
      assertEquals("ha", pf.get().bindings().get("/ha2"));
      // 'hdfs hetero refresh': every NameNode of the configuration, here the one.
      AdminRun bind3 = AdminRun.of(c, "bind", "/ha3", "ha");
      assertEquals(0, bind3.rc, bind3.out + bind3.err);
      AdminRun all = AdminRun.of(c, "refresh");
      assertEquals(0, all.rc, all.out + all.err);
      assertTrue(all.out.contains("refreshed 1 of 1 NameNode(s)"), all.out);
      assertEquals(3, pf.version());
      assertEquals("ha", pf.get().bindings().get("/ha3"));
    } finally {
      RefreshRegistry.defaultRegistry().unregister(HeteroPlacement.REFRESH_IDENTIFIER, h);
    }
  }

  @Test
  void readsBackWhatWasWritten() throws Exception {
    write("/grep/check", 3, (short) 1);
    FileStatus st = fs.getFileStatus(new org.apache.hadoop.fs.Path("/grep/check"));
    assertEquals(3L * BLOCK, st.getLen());
    byte[] expected = new byte[BLOCK];
    new Random("/grep/check".hashCode()).nextBytes(expected);
    byte[] got = new byte[BLOCK];
    try (java.io.DataInputStream in = fs.open(st.getPath())) {
      for (int i = 0; i < 3; i++) {
        in.readFully(got);
        assertTrue(java.util.Arrays.equals(expected, got), "block " + i);
      }
    }
  }
}
