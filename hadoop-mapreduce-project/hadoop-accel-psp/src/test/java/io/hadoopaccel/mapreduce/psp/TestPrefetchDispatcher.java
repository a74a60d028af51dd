package io.hadoopaccel.mapreduce.psp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.hdfs.psp.PrefetchReply;
import io.hadoopaccel.hdfs.psp.PrefetchRequest;
import java.io.IOException;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.junit.jupiter.api.Test;

/** Which node loads which block, what the outcome counts, and where releases go. */
class TestPrefetchDispatcher {
  /** Answers LOADED with the requested length; records "host:OP:blockId" per request. */
  private static final class FakeNodes implements PrefetchDispatcher.Transport {
    final List<String> log = Collections.synchronizedList(new ArrayList<>());
    final String down;
    final CountDownLatch releases;

    FakeNodes(String down, int releases) {
      this.down = down;
      this.releases = new CountDownLatch(releases);
    }

    @Override
    public List<PrefetchReply> send(String host, List<PrefetchRequest> batch)
        throws IOException {
      if (host.equals(down)) {
        throw new ConnectException("nothing listens on " + host);
      }
      List<PrefetchReply> out = new ArrayList<>();
      for (PrefetchRequest r : batch) {
        log.add(host + ":" + r.op + ":" + r.blockId);
        boolean release = r.op == PrefetchRequest.Op.RELEASE;
        out.add(new PrefetchReply(release ? PrefetchReply.Status.RELEASED
            : PrefetchReply.Status.LOADED, release ? 0 : r.length));
        if (release) {
          releases.countDown();
        }
      }
      return out;
    }
  }

  private static InputBlock block(long id, long length, String... hosts) throws IOException {
    return new InputBlock(new PrefetchRequest(PrefetchRequest.Op.PREFETCH, "BP-1", id, 1, 0,
        length, new Token<>()), hosts);
  }

  private static PrefetchDispatcher<String> dispatcher(FakeNodes nodes, List<InputBlock> input)
      throws IOException {
    return new PrefetchDispatcher<>(nodes, map -> input,
        UserGroupInformation.getCurrentUser(), 1_000, 1);
  }

  @Test
  void aBlockWithoutALocalReplicaIsLoadedOnItsReplicasNode() throws Exception {
    FakeNodes nodes = new FakeNodes(null, 2);
    try (PrefetchDispatcher<String> d = dispatcher(nodes,
        List.of(block(1, 100, "h2", "h1"), block(2, 50, "h3")))) {
      PspPlanner.Outcome o = d.send("m0", "h1");
      assertEquals(2, o.loaded);
      assertEquals(150, o.loadedBytes);
      assertEquals(1, o.remote, "block 2 has no replica on h1");
      assertEquals(List.of("h1:PREFETCH:1", "h3:PREFETCH:2"), nodes.log);

      // A run on h2 reads block 1 from its own replica, block 2 from h3, where it was loaded.
      assertEquals(50, d.readOnLoadedNode("m0", "h2"));
      assertEquals(150, d.readOnLoadedNode("m0", "h1"));

      nodes.log.clear();
      d.release("m0", "h1");
      assertTrue(nodes.releases.await(10, TimeUnit.SECONDS), "releases not sent: " + nodes.log);
      assertEquals(List.of("h1:RELEASE:1", "h3:RELEASE:2"), nodes.log.stream().sorted().toList());
    }
  }

  @Test
  void aDeadReplicaNodeCostsOnlyItsBlocks() throws Exception {
    FakeNodes nodes = new FakeNodes("h3", 0);
    try (PrefetchDispatcher<String> d = dispatcher(nodes,
        List.of(block(1, 100, "h1"), block(2, 50, "h3")))) {
      PspPlanner.Outcome o = d.send("m0", "h1");
      assertTrue(o.unreachable);
      assertEquals(1, o.loaded);
      assertEquals(0, o.remote);
      assertEquals(List.of("h1:PREFETCH:1"), nodes.log);
      // h3 is now skipped without a connection attempt; h1 still serves.
      nodes.log.clear();
      assertTrue(d.send("m1", "h3").unreachable);
      assertEquals(List.of("h1:PREFETCH:1"), nodes.log);
    }
  }
}
