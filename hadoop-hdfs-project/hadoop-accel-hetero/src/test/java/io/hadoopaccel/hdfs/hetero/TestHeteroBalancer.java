package io.hadoopaccel.hdfs.hetero;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DFSTestUtil;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.server.balancer.ExitStatus;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.tools.DFSck;
import org.apache.hadoop.test.GenericTestUtils;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hdfs hetero-balancer} on a three-DataNode mini cluster with the seed's Table 3.2 ratios
 * (A 1, B 2, C 3: shares 6 : 3 : 2). Each test writes its own directory, all bound to the same
 * profile, so they share one cluster; the test that stops a DataNode runs last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TestHeteroBalancer {
  private static final int BLOCK = 256 * 1024;
  private static final int BLOCKS = 30;
  private static final double[] RATIOS = {1, 2, 3};
  private static final String[] DIRS = {"/allc1", "/allc2", "/even", "/dry", "/stop"};

  @TempDir
  static Path tmp;
  private static MiniDFSCluster cluster;
  private static DistributedFileSystem fs;
  private static Configuration conf;
  /** File path to MD5 of what was written. */
  private static final Map<String, byte[]> WRITTEN = new LinkedHashMap<>();

  @BeforeAll
  static void startCluster() throws Exception {
    conf = new HdfsConfiguration();
    conf.setLong(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 0);
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, BLOCK);
    conf.setLong(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 1);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 1);
    // The favoured node takes every first replica even while it is the busiest.
    conf.setBoolean(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_CONSIDERLOAD_KEY, false);
    // Default dead-node interval on purpose: a loaded test machine can stall heartbeats for
    // seconds, and the stopped DataNode is restarted before it would be declared dead anyway.
    conf.set(HeteroConfigKeys.PROFILES_FILE, tmp.resolve("hetero-profiles").toString());
    cluster = new MiniDFSCluster.Builder(conf).numDataNodes(3).build();
    cluster.waitActive();
    fs = cluster.getFileSystem();
    FileSystem.setDefaultUri(conf, cluster.getURI());

    Map<String, Double> ratios = new LinkedHashMap<>();
    for (int i = 0; i < 3; i++) {
      UUIDS[i] = dn(i).getDatanodeUuid();
      ratios.put(dn(i).getXferAddress().getAddress().getHostAddress() + ":"
          + dn(i).getXferPort(), RATIOS[i]);
    }
    HeteroProfiles p = HeteroProfiles.EMPTY.withProfile("grep", ratios);
    for (String d : DIRS) {
      p = p.withBinding(d, "grep");
    }
    ProfileFile.write(tmp.resolve("hetero-profiles"), p);
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.shutdown();
    }
  }

  private static DataNode dn(int i) {
    return cluster.getDataNodes().get(i);
  }

  /** DataNode UUIDs of A, B, C: a restarted DataNode keeps its UUID but not its index. */
  private static final String[] UUIDS = new String[3];

  private static String uuid(int i) {
    return UUIDS[i];
  }

  /** Writes {@code blocks} blocks of random bytes with the first replica on node {@code on}. */
  private static void write(String path, int blocks, short replication, int on) throws Exception {
    byte[] data = new byte[blocks * BLOCK];
    new Random(path.hashCode()).nextBytes(data);
    InetSocketAddress favored = dn(on).getXferAddress();
    try (OutputStream out = fs.create(new org.apache.hadoop.fs.Path(path),
        FsPermission.getFileDefault(), true, 4096, replication, BLOCK, null,
        new InetSocketAddress[] {favored})) {
      out.write(data);
    }
    DFSTestUtil.waitReplication(fs, new org.apache.hadoop.fs.Path(path), replication);
    WRITTEN.put(path, MessageDigest.getInstance("MD5").digest(data));
  }

  private static byte[] md5(String path) throws Exception {
    MessageDigest md = MessageDigest.getInstance("MD5");
    try (InputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      byte[] buf = new byte[64 * 1024];
      for (int n; (n = in.read(buf)) > 0; ) {
        md.update(buf, 0, n);
      }
    }
    return md.digest();
  }

  private static int[] counts(String dir) throws IOException {
    BlockLayout l = BlockLayout.read(fs, List.of(dir));
    return new int[] {l.blocksOn(uuid(0)), l.blocksOn(uuid(1)), l.blocksOn(uuid(2))};
  }

  /** Block id to the sorted UUIDs of its replicas. */
  private static Map<Long, Set<String>> where(String dir) throws IOException {
    Map<Long, Set<String>> w = new TreeMap<>();
    for (BlockLayout.FileBlock b : BlockLayout.read(fs, List.of(dir)).blocks()) {
      Set<String> s = new TreeSet<>();
      for (DatanodeInfo d : b.locations()) {
        s.add(d.getDatanodeUuid());
      }
      w.put(b.block().getBlockId(), s);
    }
    return w;
  }

  /** Runs the tool; returns its exit code and (in {@code output}) what it printed. */
  private static int balance(StringBuilder output, String... args) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int rc;
    try (PrintStream ps = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      rc = ToolRunner.run(new Configuration(conf), new HeteroBalancer(ps), args);
    }
    String text = bytes.toString(StandardCharsets.UTF_8);
    System.out.print(text);
    if (output != null) {
      output.append(text);
    }
    return rc;
  }

  /** Each node's block count is within one block of its target share. */
  private static void assertNearTargets(String dir, double[] targets) throws IOException {
    int[] c = counts(dir);
    for (int i = 0; i < 3; i++) {
      assertTrue(Math.abs(c[i] - targets[i]) <= 1.0, dir + ": node " + "ABC".charAt(i)
          + " holds " + c[i] + " blocks, target " + targets[i] + " (all: "
          + java.util.Arrays.toString(c) + ")");
    }
  }

  private static final double[] SHARES = {6 / 11.0, 3 / 11.0, 2 / 11.0};

  @Test
  @Order(1)
  void allInCConvergesReplicationOne() throws Exception {
    write("/allc1/f", BLOCKS, (short) 1, 2);
    assertArrayEquals(new int[] {0, 0, BLOCKS}, counts("/allc1"));
    StringBuilder out = new StringBuilder();
    assertEquals(0, balance(out, "-dir", "/allc1", "-threshold", "1"), out.toString());
    assertTrue(out.toString().contains("converged"), out.toString());
    assertNearTargets("/allc1", new double[] {BLOCKS * SHARES[0], BLOCKS * SHARES[1],
        BLOCKS * SHARES[2]});
    assertArrayEquals(WRITTEN.get("/allc1/f"), md5("/allc1/f"));
  }

  @Test
  @Order(2)
  void allInCConvergesReplicationTwo() throws Exception {
    write("/allc2/f", BLOCKS, (short) 2, 2);
    assertEquals(BLOCKS, counts("/allc2")[2]);
    StringBuilder out = new StringBuilder();
    assertEquals(0, balance(out, "-profile", "grep", "-threshold", "1",
        "-bandwidth", "104857600"), out.toString());
    // A's share of 60 replicas (32.7) is more than one per block: capped at 30, rest 3 : 2.
    assertNearTargets("/allc2", new double[] {30, 18, 12});
    for (Set<String> replicas : where("/allc2").values()) {
      assertEquals(2, replicas.size());
    }
    assertArrayEquals(WRITTEN.get("/allc2/f"), md5("/allc2/f"));
  }

  @Test
  @Order(3)
  void evenSpreadConverges() throws Exception {
    for (int i = 0; i < 3; i++) {
      write("/even/f" + i, BLOCKS / 3, (short) 1, i);
    }
    assertArrayEquals(new int[] {10, 10, 10}, counts("/even"));
    StringBuilder out = new StringBuilder();
    assertEquals(0, balance(out, "-dir", "/even", "-threshold", "1", "-concurrency", "2"),
        out.toString());
    assertNearTargets("/even", new double[] {BLOCKS * SHARES[0], BLOCKS * SHARES[1],
        BLOCKS * SHARES[2]});
    for (int i = 0; i < 3; i++) {
      assertArrayEquals(WRITTEN.get("/even/f" + i), md5("/even/f" + i));
    }
  }

  @Test
  @Order(4)
  void dryRunPrintsThePlanAndMovesNothing() throws Exception {
    write("/dry/f", BLOCKS, (short) 1, 2);
    Map<Long, Set<String>> before = where("/dry");
    StringBuilder out = new StringBuilder();
    assertEquals(0, balance(out, "-dir", "/dry", "-dry-run"), out.toString());
    assertTrue(out.toString().contains("dry run: nothing was moved"), out.toString());
    assertTrue(out.toString().contains("  move blk_"), out.toString());
    assertEquals(before, where("/dry"));
    assertTrue(!fs.exists(new org.apache.hadoop.fs.Path(HeteroBalancer.LOCK_PATH)));
  }

  @Test
  @Order(5)
  void unknownDirectoryOrProfileIsRefused() throws Exception {
    assertEquals(ExitStatus.ILLEGAL_ARGUMENTS.getExitCode(),
        balance(null, "-dir", "/not-bound"));
    assertEquals(ExitStatus.ILLEGAL_ARGUMENTS.getExitCode(),
        balance(null, "-profile", "wordcount"));
    assertEquals(ExitStatus.ILLEGAL_ARGUMENTS.getExitCode(),
        balance(null, "-threshold", "x"));
  }

  @Test
  @Order(6)
  void dataNodeStoppedMidRunLosesNoBlock() throws Exception {
    write("/stop/f", BLOCKS, (short) 2, 2);
    AtomicInteger finished = new AtomicInteger();
    AtomicReference<MiniDFSCluster.DataNodeProperties> stopped = new AtomicReference<>();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    HeteroBalancer b = new HeteroBalancer(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String a = uuid(0);
    b.setMoveListener((move, ok) -> {
      // After the first successful move, stop A, the destination of most moves.
      if (ok && finished.incrementAndGet() == 1) {
        stopped.set(cluster.stopDataNode(dn(0).getDatanodeId().getXferAddr()));
      }
    });
    int rc = ToolRunner.run(new Configuration(conf), b,
        new String[] {"-dir", "/stop", "-threshold", "1", "-max-iterations", "5"});
    System.out.print(bytes.toString(StandardCharsets.UTF_8));
    assertTrue(stopped.get() != null, "no move finished");
    assertTrue(rc == 0 || rc == ExitStatus.IN_PROGRESS.getExitCode()
        || rc == ExitStatus.NO_MOVE_BLOCK.getExitCode()
        || rc == ExitStatus.NO_MOVE_PROGRESS.getExitCode(), "exit code " + rc);

    assertTrue(cluster.restartDataNode(stopped.get(), true));
    cluster.waitActive();
    assertEquals(a, cluster.getDataNodes().get(2).getDatanodeUuid());
    GenericTestUtils.waitFor(() -> {
      try {
        for (Set<String> replicas : where("/stop").values()) {
          if (replicas.size() != 2) {
            return false;
          }
        }
        return ToolRunner.run(cluster.getConfiguration(0), new DFSck(cluster.getConfiguration(0),
            new PrintStream(OutputStream.nullOutputStream())), new String[] {"/"}) == 0;
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    }, 200, 60_000);
    ByteArrayOutputStream fsck = new ByteArrayOutputStream();
    ToolRunner.run(cluster.getConfiguration(0), new DFSck(cluster.getConfiguration(0), new PrintStream(fsck, true,
        StandardCharsets.UTF_8)), new String[] {"/"});
    assertTrue(fsck.toString(StandardCharsets.UTF_8).contains("is HEALTHY"), fsck.toString());
    for (Map.Entry<String, byte[]> e : WRITTEN.entrySet()) {
      assertArrayEquals(e.getValue(), md5(e.getKey()), e.getKey());
    }

    // Resumable: the same command, run again, carries on from where the data now is.
    StringBuilder out = new StringBuilder();
    assertEquals(0, balance(out, "-dir", "/stop", "-threshold", "1"), out.toString());
    assertNearTargets("/stop", new double[] {30, 18, 12});
    assertArrayEquals(WRITTEN.get("/stop/f"), md5("/stop/f"));
  }
}
