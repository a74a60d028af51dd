package io.hadoopaccel.hdfs.psp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.minicluster.MiniHadoopClusterExtension;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.PspPrefetchPlugin;
import org.apache.hadoop.security.token.Token;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The DataNode plugin on a real DataNode with block tokens on: a request with the block's token
 * preloads the replica (mincore says resident), and holds a wholly cached one without reading
 * it; no token, a forged one or another block's is refused and reads nothing; the memory bound
 * refuses until a release; garbage closes the connection.
 */
class TestPrefetchServer {
  private static final int BLOCK = 1 << 20;
  private static final long FILE_BYTES = 3L * BLOCK;

  @RegisterExtension
  static final MiniHadoopClusterExtension CLUSTER = MiniHadoopClusterExtension.builder()
      .dfsOnly()
      .configure(conf -> {
        conf.setBoolean("dfs.block.access.token.enable", true);
        conf.set("dfs.datanode.plugins", PspPrefetchPlugin.class.getName());
        conf.setInt(PspConfigKeys.PREFETCH_PORT, 0);
        conf.set(PspConfigKeys.PREFETCH_BIND_ADDRESS, "127.0.0.1");
        // Room for one file's blocks, not two files'.
        conf.set(PspConfigKeys.PREFETCH_MAX_BYTES, "4m");
        conf.setLong("dfs.blocksize", BLOCK);
      })
      .build();

  private static PrefetchClient client;
  private static LocatedBlock blockA;
  private static LocatedBlock blockB;
  private static File fileA;

  @BeforeAll
  static void writeFiles() throws Exception {
    DataNode dn = CLUSTER.getDfsCluster().getDataNodes().get(0);
    int port = PspPrefetchPlugin.portOf(dn.getXferPort());
    assertTrue(port > 0, "plugin did not start");
    client = new PrefetchClient(port, 10_000);
    blockA = firstBlock(new Path("/psp/a"));
    blockB = firstBlock(new Path("/psp/b"));
    fileA = replicaFile(blockA);
    assertTrue(PageCache.isNative(), "these checks need mincore (Linux, JNA)");
  }

  @BeforeEach
  void coldCache() throws IOException {
    PageCache.evict(fileA);
    assertEquals(0, PageCache.residentBytes(fileA), "replica still cached after eviction");
  }

  @Test
  void blockTokenPreloadsTheReplica() throws IOException {
    PrefetchReply r = send(request(blockA, blockA.getBlockToken()));
    assertEquals(PrefetchReply.Status.LOADED, r.status);
    assertEquals(BLOCK, r.bytes);
    assertEquals(BLOCK, PageCache.residentBytes(fileA));
    assertEquals(PrefetchReply.Status.RELEASED,
        send(request(blockA, blockA.getBlockToken()).toRelease()).status);
  }

  @Test
  void aHeldBlockIsLockedInMemoryUntilReleased() throws IOException {
    long before = lockedBytes();
    PrefetchRequest a = request(blockA, blockA.getBlockToken());
    assertEquals(PrefetchReply.Status.LOADED, send(a).status);
    assertTrue(lockedBytes() - before >= BLOCK, "locked " + (lockedBytes() - before));
    // Locked pages survive what would drop merely cached ones.
    PageCache.evict(fileA);
    assertEquals(BLOCK, PageCache.residentBytes(fileA));
    assertEquals(PrefetchReply.Status.RELEASED, send(a.toRelease()).status);
    assertEquals(before, lockedBytes());
    PageCache.evict(fileA);
    assertEquals(0, PageCache.residentBytes(fileA));
  }

  /** This JVM's (the DataNode's) locked memory, from /proc/self/status. */
  private static long lockedBytes() throws IOException {
    for (String line : java.nio.file.Files.readAllLines(java.nio.file.Paths.get(
        "/proc/self/status"))) {
      if (line.startsWith("VmLck:")) {
        return 1024 * Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IOException("no VmLck in /proc/self/status");
  }

  @Test
  void whollyCachedRangeIsHeldWithoutARead() throws IOException {
    PrefetchRequest a = request(blockA, blockA.getBlockToken());
    // Half cached is not resident: the prefetcher reads the block. (The second half: readahead
    // goes forward and stops at the end, where from the start it may take the whole block.)
    try (FileChannel ch = FileChannel.open(fileA.toPath(), StandardOpenOption.READ)) {
      ch.read(ByteBuffer.allocate(BLOCK / 2), BLOCK / 2);
    }
    long cached = PageCache.residentBytes(fileA);
    assertTrue(cached >= BLOCK / 2 && cached < BLOCK, "cached " + cached);
    assertEquals(new PrefetchReply(PrefetchReply.Status.LOADED, BLOCK).toString(),
        send(a).toString());
    assertEquals(PrefetchReply.Status.RELEASED, send(a.toRelease()).status);
    // Wholly cached: held (a second request finds it held), nothing read.
    assertEquals(new PrefetchReply(PrefetchReply.Status.RESIDENT, 0).toString(),
        send(a).toString());
    assertEquals(PrefetchReply.Status.ALREADY_HELD, send(a).status);
    assertEquals(new PrefetchReply(PrefetchReply.Status.RELEASED, BLOCK).toString(),
        send(a.toRelease()).toString());
  }

  @Test
  void missingForgedOrForeignTokensAreRefused() throws IOException {
    Token<?> good = blockA.getBlockToken();
    byte[] badPassword = good.getPassword().clone();
    badPassword[0] ^= 1;
    Token<?> forged = new Token<>(good.getIdentifier(), badPassword, good.getKind(),
        good.getService());
    for (Token<?> t : new Token<?>[] {null, forged, blockB.getBlockToken()}) {
      assertEquals(PrefetchReply.Status.REFUSED_TOKEN, send(request(blockA, t)).status,
          "token " + t);
    }
    assertEquals(0, PageCache.residentBytes(fileA), "a refused request read the replica");
  }

  @Test
  void boundRefusesUntilReleased() throws IOException {
    PrefetchRequest a = request(blockA, blockA.getBlockToken());
    LocatedBlock[] more = others();
    for (LocatedBlock b : more) { // cached since written; a cached block would not be read
      PageCache.evict(replicaFile(b));
    }
    assertEquals(PrefetchReply.Status.LOADED, send(a).status);
    assertEquals(PrefetchReply.Status.ALREADY_HELD, send(a).status);
    // 1 MiB held of 4 MiB: three more fit, the fourth does not.
    for (int i = 0; i < 3; i++) {
      assertEquals(PrefetchReply.Status.LOADED,
          send(request(more[i], more[i].getBlockToken())).status);
    }
    PrefetchRequest last = request(more[3], more[3].getBlockToken());
    assertEquals(PrefetchReply.Status.FULL, send(last).status);
    assertEquals(PrefetchReply.Status.RELEASED, send(a.toRelease()).status);
    assertEquals(PrefetchReply.Status.LOADED, send(last).status);
    for (int i = 0; i < 4; i++) {
      send(request(more[i], more[i].getBlockToken()).toRelease());
    }
  }

  @Test
  void garbageClosesTheConnection() throws IOException {
    DataNode dn = CLUSTER.getDfsCluster().getDataNodes().get(0);
    try (Socket s = new Socket("127.0.0.1", PspPrefetchPlugin.portOf(dn.getXferPort()))) {
      s.setSoTimeout(10_000);
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      out.writeInt(PrefetchRequest.MAGIC);
      out.writeByte(0);
      out.writeUTF("BP-x");
      out.writeLong(1);
      out.writeLong(1);
      out.writeLong(0);
      out.writeLong(1);
      out.writeInt(Integer.MAX_VALUE); // token length over the bound
      out.flush();
      assertEquals(-1, s.getInputStream().read(), "server answered a malformed request");
    }
    // And the server still serves well-formed requests.
    assertEquals(PrefetchReply.Status.LOADED,
        send(request(blockA, blockA.getBlockToken())).status);
    send(request(blockA, blockA.getBlockToken()).toRelease());
  }

  @Test
  void unknownReplicaIsReported() throws IOException {
    ExtendedBlock b = blockA.getBlock();
    PrefetchRequest stale = new PrefetchRequest(PrefetchRequest.Op.PREFETCH, b.getBlockPoolId(),
        b.getBlockId(), b.getGenerationStamp() + 1, 0, BLOCK, blockA.getBlockToken());
    PrefetchReply r = send(stale);
    // The token names the generation stamp too, so either answer leaves the cache alone.
    assertTrue(r.status == PrefetchReply.Status.NO_REPLICA
        || r.status == PrefetchReply.Status.REFUSED_TOKEN, r.toString());
    assertEquals(0, PageCache.residentBytes(fileA));
    assertThrows(IOException.class,
        () -> new PrefetchClient(1, 1_000).send("127.0.0.1", List.of(stale)),
        "no prefetcher on port 1");
  }

  private static File replicaFile(LocatedBlock b) throws IOException {
    DataNode dn = CLUSTER.getDfsCluster().getDataNodes().get(0);
    return new File(dn.getFSDataset().getBlockLocalPathInfo(b.getBlock()).getBlockPath());
  }

  private static LocatedBlock[] others() throws IOException {
    LocatedBlock[] blocks = new LocatedBlock[4];
    List<LocatedBlock> b = locate(new Path("/psp/b"));
    List<LocatedBlock> c = locate(new Path("/psp/c"));
    blocks[0] = b.get(1);
    blocks[1] = b.get(2);
    blocks[2] = c.get(0);
    blocks[3] = c.get(1);
    return blocks;
  }

  private static PrefetchReply send(PrefetchRequest r) throws IOException {
    return client.send("127.0.0.1", List.of(r)).get(0);
  }

  private static PrefetchRequest request(LocatedBlock lb, Token<?> token) throws IOException {
    ExtendedBlock b = lb.getBlock();
    return new PrefetchRequest(PrefetchRequest.Op.PREFETCH, b.getBlockPoolId(), b.getBlockId(),
        b.getGenerationStamp(), 0, b.getNumBytes(), token);
  }

  private static LocatedBlock firstBlock(Path p) throws IOException {
    return locate(p).get(0);
  }

  private static List<LocatedBlock> locate(Path p) throws IOException {
    DistributedFileSystem fs = CLUSTER.getFileSystem();
    if (!fs.exists(p)) {
      byte[] data = new byte[(int) FILE_BYTES];
      new java.util.Random(p.hashCode()).nextBytes(data);
      try (FSDataOutputStream out = fs.create(p)) {
        out.write(data);
      }
    }
    return fs.getClient().getLocatedBlocks(p.toString(), 0, FILE_BYTES).getLocatedBlocks();
  }
}
