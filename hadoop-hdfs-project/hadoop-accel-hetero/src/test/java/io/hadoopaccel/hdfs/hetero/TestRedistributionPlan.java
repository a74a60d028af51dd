package io.hadoopaccel.hdfs.hetero;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hdfs.protocol.DatanodeID;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.junit.jupiter.api.Test;

/**
 * The redistribution procedure (seed 003 Table 3.1) on simulated layouts: targets from the
 * ratios, tolerance, the rack rule, and that a planned layout is a converged one.
 */
class TestRedistributionPlan {
  private static final long MB = 1 << 20;

  private static DatanodeInfo node(String name, String rack) {
    return new DatanodeInfo.DatanodeInfoBuilder()
        .setNodeID(new DatanodeID("10.0.0." + (name.charAt(0) - 'a' + 1), name, "uuid-" + name,
            9866, 9864, 9865, 9867))
        .setNetworkLocation(rack)
        .build();
  }

  private static HeteroProfiles.Profile profile(Object... nameRatio) {
    Map<String, Double> r = new LinkedHashMap<>();
    for (int i = 0; i < nameRatio.length; i += 2) {
      r.put((String) nameRatio[i], ((Number) nameRatio[i + 1]).doubleValue());
    }
    return HeteroProfiles.EMPTY.withProfile("p", r).profile("p");
  }

  /** {@code n} blocks of {@code size}, replica i on {@code placer(i)}. */
  private static BlockLayout layout(int n, long size, java.util.function.IntFunction<DatanodeInfo[]> placer) {
    List<BlockLayout.FileBlock> blocks = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      blocks.add(BlockLayout.fileBlock("/d/f",
          new LocatedBlock(new ExtendedBlock("bp", 1000 + i, size, 1), placer.apply(i))));
    }
    return new BlockLayout(List.of("/d"), blocks, 1, List.of());
  }

  /** The layout after the plan's moves, checking each move is legal on the way. */
  private static BlockLayout apply(BlockLayout before, RedistributionPlan plan) {
    Map<Long, List<DatanodeInfo>> where = new HashMap<>();
    for (BlockLayout.FileBlock b : before.blocks()) {
      where.put(b.block().getBlockId(), new ArrayList<>(Arrays.asList(b.locations())));
    }
    Set<Long> moved = new HashSet<>();
    for (RedistributionPlan.Move m : plan.moves()) {
      long id = m.block().block().getBlockId();
      assertTrue(moved.add(id), "block moved twice in one round: " + m);
      List<DatanodeInfo> locs = where.get(id);
      assertTrue(locs.removeIf(d -> d.getDatanodeUuid().equals(m.source().getDatanodeUuid())),
          "source holds no replica: " + m);
      for (DatanodeInfo d : locs) {
        assertFalse(d.getDatanodeUuid().equals(m.target().getDatanodeUuid()),
            "target already holds the block: " + m);
      }
      locs.add(m.target());
    }
    List<BlockLayout.FileBlock> blocks = new ArrayList<>();
    for (BlockLayout.FileBlock b : before.blocks()) {
      blocks.add(BlockLayout.fileBlock(b.path(), new LocatedBlock(b.block(),
          where.get(b.block().getBlockId()).toArray(new DatanodeInfo[0]))));
    }
    return new BlockLayout(before.dirs(), blocks, before.files(), List.of());
  }

  private static RedistributionPlan plan(BlockLayout l, List<DatanodeInfo> live,
      HeteroProfiles.Profile p, double threshold) {
    return RedistributionPlan.compute(l, live, p, threshold, Long.MAX_VALUE, Integer.MAX_VALUE);
  }

  @Test
  void table32RatiosGiveSixThreeTwoFromAllInC() {
    DatanodeInfo a = node("a", "/r");
    DatanodeInfo b = node("b", "/r");
    DatanodeInfo c = node("c", "/r");
    List<DatanodeInfo> live = List.of(a, b, c);
    BlockLayout allInC = layout(11, MB, i -> new DatanodeInfo[] {c});
    RedistributionPlan plan = plan(allInC, live, profile("a", 1, "b", 2, "c", 3), 0);

    assertFalse(plan.isConverged());
    assertEquals(List.of(6 * MB, 3 * MB, 2 * MB),
        plan.nodes().stream().map(RedistributionPlan.NodeSummary::targetBytes).toList());
    assertEquals(List.of(6 * MB, 3 * MB, 2 * MB),
        plan.nodes().stream().map(RedistributionPlan.NodeSummary::bytesAfter).toList());
    assertEquals(9, plan.moves().size());
    assertEquals(9 * MB, plan.bytesToMove());
    // Left: c holds 8.5 MB beyond target + half a block, a and b lack 5.5 + 2.5 MB below it.
    assertEquals(8 * MB, plan.bytesLeft());
    BlockLayout after = apply(allInC, plan);
    assertEquals(6, after.blocksOn("uuid-a"));
    assertEquals(3, after.blocksOn("uuid-b"));
    assertEquals(2, after.blocksOn("uuid-c"));
    RedistributionPlan again = plan(after, live, profile("a", 1, "b", 2, "c", 3), 0);
    assertTrue(again.isConverged());
    assertTrue(again.moves().isEmpty());
    assertEquals(0, again.bytesLeft());
  }

  @Test
  void evenSpreadConvergesWithinABlockOfFractionalTargets() {
    DatanodeInfo[] n = {node("a", "/r"), node("b", "/r"), node("c", "/r"), node("d", "/r"),
        node("e", "/r")};
    List<DatanodeInfo> live = List.of(n);
    // Table 3.4, Grep: 1, 2, 3.3, 3.3, 3.3; 97 blocks spread evenly, last one short.
    HeteroProfiles.Profile grep = profile("a", 1, "b", 2, "c", 3.3, "d", 3.3, "e", 3.3);
    List<BlockLayout.FileBlock> blocks = new ArrayList<>();
    for (int i = 0; i < 97; i++) {
      blocks.add(BlockLayout.fileBlock("/d/f", new LocatedBlock(
          new ExtendedBlock("bp", i, i == 96 ? MB / 3 : MB, 1), new DatanodeInfo[] {n[i % 5]})));
    }
    BlockLayout even = new BlockLayout(List.of("/d"), blocks, 1, List.of());
    RedistributionPlan plan = plan(even, live, grep, 0);
    BlockLayout after = apply(even, plan);
    for (RedistributionPlan.NodeSummary s : plan.nodes()) {
      long actual = after.bytesOn(s.node().getDatanodeUuid());
      assertEquals(s.bytesAfter(), actual);
      assertTrue(Math.abs(actual - s.targetBytes()) <= MB,
          s.node().getHostName() + " holds " + actual + ", target " + s.targetBytes());
    }
    assertEquals(even.totalReplicaBytes(), after.totalReplicaBytes());
    assertTrue(plan(after, live, grep, 0).isConverged());
  }

  @Test
  void thresholdDecidesWhatIsBalanced() {
    DatanodeInfo a = node("a", "/r");
    DatanodeInfo b = node("b", "/r");
    List<DatanodeInfo> live = List.of(a, b);
    // Equal ratios, 45 : 55 blocks of 1 MB: 5 MB (10 %) from the 50 MB target.
    BlockLayout l = layout(100, MB, i -> new DatanodeInfo[] {i < 45 ? a : b});
    HeteroProfiles.Profile same = profile("a", 1, "b", 1);
    RedistributionPlan loose = plan(l, live, same, 10);
    assertTrue(loose.isConverged());
    assertTrue(loose.moves().isEmpty());
    RedistributionPlan strict = plan(l, live, same, 5);
    assertFalse(strict.isConverged());
    // Moves stop once both are inside 5 % (2.5 MB) of 50 MB.
    assertEquals(3, strict.moves().size());
    // Below half a block, the tolerance is half a block: 45.5 : 54.5 would bounce forever.
    BlockLayout odd = layout(101, MB, i -> new DatanodeInfo[] {i < 50 ? a : b});
    assertTrue(plan(odd, live, same, 0).isConverged());
  }

  @Test
  void budgetBoundsARound() {
    DatanodeInfo a = node("a", "/r");
    DatanodeInfo b = node("b", "/r");
    BlockLayout l = layout(20, MB, i -> new DatanodeInfo[] {b});
    RedistributionPlan p = RedistributionPlan.compute(l, List.of(a, b), profile("a", 1, "b", 1),
        0, 3 * MB, Integer.MAX_VALUE);
    assertEquals(3, p.moves().size());
    assertTrue(p.isBudgetSpent());
    p = RedistributionPlan.compute(l, List.of(a, b), profile("a", 1, "b", 1), 0,
        Long.MAX_VALUE, 2);
    assertEquals(2, p.moves().size());
  }

  @Test
  void neverBreaksRackFaultTolerance() {
    DatanodeInfo a = node("a", "/r1");
    DatanodeInfo b = node("b", "/r1");
    DatanodeInfo c = node("c", "/r2");
    DatanodeInfo d = node("d", "/r2");
    List<DatanodeInfo> live = List.of(a, b, c, d);
    // Every block on a (rack 1) and c (rack 2); c is slow, b fast and empty. Moving c's
    // replicas to b would leave each block on rack 1 only.
    BlockLayout l = layout(10, MB, i -> new DatanodeInfo[] {a, c});
    RedistributionPlan p = plan(l, live, profile("a", 1, "b", 1, "c", 100, "d", 100), 0);
    assertFalse(p.isConverged());
    assertTrue(p.moves().isEmpty(), "planned " + p.moves());

    assertFalse(RedistributionPlan.keepsRacks(List.of(a, c), c, b));
    assertTrue(RedistributionPlan.keepsRacks(List.of(a, c), c, d));
    assertTrue(RedistributionPlan.keepsRacks(List.of(a, c), a, b));
    // A block on one rack may stay on one rack; one of three racks may go.
    assertTrue(RedistributionPlan.keepsRacks(List.of(a, b), b, b));
    DatanodeInfo e = node("e", "/r3");
    assertTrue(RedistributionPlan.keepsRacks(List.of(a, c, e), e, b));
  }

  @Test
  void neverMovesToANodeHoldingTheBlockAndCapsTargetsAtOneReplicaPerBlock() {
    DatanodeInfo a = node("a", "/r");
    DatanodeInfo b = node("b", "/r");
    DatanodeInfo c = node("c", "/r");
    List<DatanodeInfo> live = List.of(a, b, c);
    // Replication 2, "All-in-C": every block on c, second replicas alternating a, b.
    BlockLayout l = layout(30, MB, i -> new DatanodeInfo[] {c, i % 2 == 0 ? a : b});
    HeteroProfiles.Profile p = profile("a", 1, "b", 2, "c", 3);
    RedistributionPlan plan = plan(l, live, p, 0);
    // a's share of 60 MB is 32.7 MB, more than one replica of each block: capped at 30 MB,
    // the rest split 3 : 2.
    assertEquals(List.of(30 * MB, 18 * MB, 12 * MB),
        plan.nodes().stream().map(RedistributionPlan.NodeSummary::targetBytes).toList());
    BlockLayout after = apply(l, plan); // asserts no move targets a holder
    assertEquals(30, after.blocksOn("uuid-a"));
    assertEquals(18, after.blocksOn("uuid-b"));
    assertEquals(12, after.blocksOn("uuid-c"));
    assertEquals(60 * MB, after.totalReplicaBytes());
  }

  @Test
  void newEmptyNodeTakesItsShare() {
    DatanodeInfo a = node("a", "/r");
    DatanodeInfo b = node("b", "/r");
    DatanodeInfo fresh = node("c", "/r");
    BlockLayout l = layout(20, MB, i -> new DatanodeInfo[] {i % 2 == 0 ? a : b});
    RedistributionPlan p = plan(l, List.of(a, b, fresh), profile("a", 2, "b", 2, "c", 1), 0);
    BlockLayout after = apply(l, p);
    assertEquals(5, after.blocksOn("uuid-a"));
    assertEquals(5, after.blocksOn("uuid-b"));
    assertEquals(10, after.blocksOn("uuid-c"));
  }
}
