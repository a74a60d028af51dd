package io.hadoopaccel.hdfs.hetero;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.util.StringUtils;

/**
 * One round of the seed's data redistribution procedure (Table 3.1) for the blocks of one
 * profile's directories, computed without touching the cluster.
 *
 * <ol>
 * <li>Each live node's target is its speed share of all replica bytes (no node can hold more
 * than one replica of a block, so a target above the logical bytes is capped and the rest shared
 * among the others).</li>
 * <li>Nodes more than a tolerance above their target are over-utilised, more than it below are
 * under-utilised; both lists are sorted, largest excess/deficit first.</li>
 * <li>The top source and destination that admit a move exchange one block replica, the move is
 * applied to the simulated layout, and the lists re-sorted.</li>
 * <li>Repeat until a list empties, no move is possible, or the round's byte/move budget is
 * spent.</li>
 * </ol>
 *
 * A move is allowed only if the destination holds no replica of the block, the block keeps at
 * least min(racks before, 2) racks, it does not overshoot (size/2 at most the source's excess and
 * the destination's deficit), and the block was not already moved this round. Bytes, not block
 * counts, are balanced, so short last blocks count for what they are.
 */
public final class RedistributionPlan {

  /** One replica to move. */
  public static final class Move {
    private final BlockLayout.FileBlock block;
    private final DatanodeInfo source;
    private final DatanodeInfo target;
    private final StorageType storageType;

    Move(BlockLayout.FileBlock block, DatanodeInfo source, DatanodeInfo target,
        StorageType storageType) {
      this.block = block;
      this.source = source;
      this.target = target;
      this.storageType = storageType;
    }

    public BlockLayout.FileBlock block() {
      return block;
    }

    public DatanodeInfo source() {
      return source;
    }

    public DatanodeInfo target() {
      return target;
    }

    /** The source replica's storage type, which the target replica keeps. */
    public StorageType storageType() {
      return storageType;
    }

    public long bytes() {
      return block.bytes();
    }

    @Override
    public String toString() {
      return block.block().getBlockName() + " (" + StringUtils.byteDesc(bytes()) + ") "
          + source.getXferAddr() + " -> " + target.getXferAddr() + " [" + block.path() + "]";
    }
  }

  /** One node's target and bytes before and after the planned moves. */
  public static final class NodeSummary {
    private final DatanodeInfo node;
    private final double ratio;
    private final double share;
    private final long target;
    private final long tolerance;
    private final long before;
    private long after;

    NodeSummary(DatanodeInfo node, double ratio, double share, long target, long tolerance,
        long before) {
      this.node = node;
      this.ratio = ratio;
      this.share = share;
      this.target = target;
      this.tolerance = tolerance;
      this.before = before;
      this.after = before;
    }

    public DatanodeInfo node() {
      return node;
    }

    public double ratio() {
      return ratio;
    }

    /** Share of the replica bytes from the computing ratios (before any cap). */
    public double share() {
      return share;
    }

    public long targetBytes() {
      return target;
    }

    public long toleranceBytes() {
      return tolerance;
    }

    public long bytesBefore() {
      return before;
    }

    public long bytesAfter() {
      return after;
    }

    /** Bytes above (positive) or below (negative) the target, after the planned moves. */
    long deviation() {
      return after - target;
    }

    boolean isOver() {
      return after - target > tolerance;
    }

    boolean isUnder() {
      return target - after > tolerance;
    }

    boolean wasWithinTolerance() {
      return Math.abs(before - target) <= tolerance;
    }
  }

  private final String profile;
  private final List<NodeSummary> nodes;
  private final List<Move> moves;
  private final boolean budgetSpent;

  private RedistributionPlan(String profile, List<NodeSummary> nodes, List<Move> moves,
      boolean budgetSpent) {
    this.profile = profile;
    this.nodes = Collections.unmodifiableList(nodes);
    this.moves = Collections.unmodifiableList(moves);
    this.budgetSpent = budgetSpent;
  }

  public String profile() {
    return profile;
  }

  /** Live nodes in the order given, with targets and bytes before/after. */
  public List<NodeSummary> nodes() {
    return nodes;
  }

  public List<Move> moves() {
    return moves;
  }

  public long bytesToMove() {
    long b = 0;
    for (Move m : moves) {
      b += m.bytes();
    }
    return b;
  }

  /**
   * Bytes left to move before this plan's moves (the balancer's progress figure): the smaller
   * of what over-utilised nodes hold beyond target plus tolerance and what under-utilised
   * nodes lack below it. Zero exactly when {@link #isConverged()}: the procedure stops when
   * either side is empty.
   */
  public long bytesLeft() {
    long over = 0;
    long under = 0;
    for (NodeSummary n : nodes) {
      over += Math.max(0, n.before - n.target - n.tolerance);
      under += Math.max(0, n.target - n.tolerance - n.before);
    }
    return Math.min(over, under);
  }

  /**
   * True when the procedure has nothing to do: no node is over its target by more than its
   * tolerance, or none is under (Table 3.1 stops when either list is empty).
   */
  public boolean isConverged() {
    boolean over = false;
    boolean under = false;
    for (NodeSummary n : nodes) {
      over |= n.before - n.target > n.tolerance;
      under |= n.target - n.before > n.tolerance;
    }
    return !over || !under;
  }

  /** True when the round stopped on its byte/move budget rather than on balance. */
  public boolean isBudgetSpent() {
    return budgetSpent;
  }

  /**
   * Plans one round.
   *
   * @param layout the blocks of the profile's directories
   * @param liveNodes the in-service DataNodes that may hold replicas of them
   * @param profile the computing ratios
   * @param thresholdPercent how far (percent of its target) a node may stay from it
   * @param maxBytes at most this many bytes are planned (at least one move is, if any is possible)
   * @param maxMoves at most this many moves are planned
   */
  public static RedistributionPlan compute(BlockLayout layout, List<? extends DatanodeInfo> liveNodes,
      HeteroProfiles.Profile profile, double thresholdPercent, long maxBytes, int maxMoves) {
    if (thresholdPercent < 0) {
      throw new IllegalArgumentException("threshold must not be negative: " + thresholdPercent);
    }
    List<DatanodeInfo> live = new ArrayList<>(liveNodes);
    Map<DatanodeInfo, Double> shares = NodeWeights.shares(profile, live);
    long largestBlock = 0;
    for (BlockLayout.FileBlock b : layout.blocks()) {
      largestBlock = Math.max(largestBlock, b.bytes());
    }
    long replicaBytes = 0;
    for (DatanodeInfo dn : live) {
      replicaBytes += layout.bytesOn(dn.getDatanodeUuid());
    }
    Map<DatanodeInfo, Long> targets = targets(shares, replicaBytes, layout.totalBytes());

    Map<String, NodeSummary> byUuid = new LinkedHashMap<>();
    List<NodeSummary> summaries = new ArrayList<>();
    for (DatanodeInfo dn : live) {
      long target = targets.get(dn);
      // Half the largest block: otherwise a node could bounce around a target no whole number
      // of blocks reaches.
      long tolerance = Math.max((long) (thresholdPercent / 100.0 * target), (largestBlock + 1) / 2);
      NodeSummary s = new NodeSummary(dn, NodeWeights.ratio(profile, dn), shares.get(dn), target,
          tolerance, layout.bytesOn(dn.getDatanodeUuid()));
      summaries.add(s);
      byUuid.put(dn.getDatanodeUuid(), s);
    }

    // Simulated replica locations, and each live node's candidate blocks, largest first.
    Map<BlockLayout.FileBlock, List<DatanodeInfo>> where = new HashMap<>();
    Map<String, List<BlockLayout.FileBlock>> onNode = new HashMap<>();
    for (BlockLayout.FileBlock b : layout.blocks()) {
      List<DatanodeInfo> locs = new ArrayList<>();
      Collections.addAll(locs, b.locations());
      where.put(b, locs);
      for (DatanodeInfo dn : locs) {
        if (byUuid.containsKey(dn.getDatanodeUuid())) {
          onNode.computeIfAbsent(dn.getDatanodeUuid(), k -> new ArrayList<>()).add(b);
        }
      }
    }
    for (List<BlockLayout.FileBlock> l : onNode.values()) {
      l.sort(Comparator.comparingLong(BlockLayout.FileBlock::bytes).reversed());
    }

    List<Move> moves = new ArrayList<>();
    Set<BlockLayout.FileBlock> moved = new HashSet<>();
    long planned = 0;
    boolean budgetSpent = false;
    while (true) {
      if (moves.size() >= maxMoves || (planned >= maxBytes && !moves.isEmpty())) {
        budgetSpent = true;
        break;
      }
      List<NodeSummary> over = new ArrayList<>();
      List<NodeSummary> under = new ArrayList<>();
      for (NodeSummary s : summaries) {
        if (s.isOver()) {
          over.add(s);
        } else if (s.isUnder()) {
          under.add(s);
        }
      }
      if (over.isEmpty() || under.isEmpty()) {
        break;
      }
      over.sort(Comparator.comparingLong(NodeSummary::deviation).reversed());
      under.sort(Comparator.comparingLong(NodeSummary::deviation));
      Move move = null;
      search:
      for (NodeSummary src : over) {
        for (NodeSummary dst : under) {
          move = choose(src, dst, onNode.get(src.node.getDatanodeUuid()), where, moved);
          if (move != null) {
            break search;
          }
        }
      }
      if (move == null) {
        break;
      }
      // Apply to the simulation.
      List<DatanodeInfo> locs = where.get(move.block);
      locs.remove(indexOf(locs, move.source.getDatanodeUuid()));
      locs.add(move.target);
      onNode.get(move.source.getDatanodeUuid()).remove(move.block);
      byUuid.get(move.source.getDatanodeUuid()).after -= move.bytes();
      byUuid.get(move.target.getDatanodeUuid()).after += move.bytes();
      moved.add(move.block);
      moves.add(move);
      planned += move.bytes();
    }
    return new RedistributionPlan(profile.name(), summaries, moves, budgetSpent);
  }

  /** The largest block on {@code src} that may move to {@code dst}, or null. */
  private static Move choose(NodeSummary src, NodeSummary dst, List<BlockLayout.FileBlock> blocks,
      Map<BlockLayout.FileBlock, List<DatanodeInfo>> where, Set<BlockLayout.FileBlock> moved) {
    if (blocks == null) {
      return null;
    }
    long room = Math.min(src.deviation(), -dst.deviation());
    // A node that reports its space must have room for the replica (minus what we planned).
    long free = dst.node.getCapacity() > 0
        ? dst.node.getRemaining() - (dst.after - dst.before) : Long.MAX_VALUE;
    String dstId = dst.node.getDatanodeUuid();
    for (BlockLayout.FileBlock b : blocks) {
      if (b.bytes() / 2.0 > room || b.bytes() > free || moved.contains(b)) {
        continue;
      }
      List<DatanodeInfo> locs = where.get(b);
      if (indexOf(locs, dstId) >= 0) {
        continue; // never two replicas of a block on one node
      }
      if (!keepsRacks(locs, src.node, dst.node)) {
        continue;
      }
      return new Move(b, src.node, dst.node, storageTypeOn(b, src.node));
    }
    return null;
  }

  /** Racks spanned after replacing {@code from} by {@code to} stay at least min(before, 2). */
  static boolean keepsRacks(List<DatanodeInfo> locs, DatanodeInfo from, DatanodeInfo to) {
    Set<String> before = new HashSet<>();
    Set<String> after = new HashSet<>();
    for (DatanodeInfo dn : locs) {
      before.add(dn.getNetworkLocation());
      if (!dn.getDatanodeUuid().equals(from.getDatanodeUuid())) {
        after.add(dn.getNetworkLocation());
      }
    }
    after.add(to.getNetworkLocation());
    return after.size() >= Math.min(before.size(), 2);
  }

  private static StorageType storageTypeOn(BlockLayout.FileBlock b, DatanodeInfo dn) {
    DatanodeInfo[] locs = b.locations();
    StorageType[] types = b.located().getStorageTypes();
    for (int i = 0; i < locs.length; i++) {
      if (locs[i].getDatanodeUuid().equals(dn.getDatanodeUuid()) && types != null
          && i < types.length && types[i] != null) {
        return types[i];
      }
    }
    return StorageType.DEFAULT;
  }

  private static int indexOf(List<DatanodeInfo> locs, String uuid) {
    for (int i = 0; i < locs.size(); i++) {
      if (locs.get(i).getDatanodeUuid().equals(uuid)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Each node's target: share × replica bytes, capped at the logical bytes (one replica of each
   * block at most), the capped-off remainder shared among the others by their shares.
   */
  static <D extends DatanodeInfo> Map<D, Long> targets(Map<D, Double> shares, long replicaBytes,
      long logicalBytes) {
    Map<D, Long> out = new LinkedHashMap<>();
    Map<D, Double> open = new LinkedHashMap<>(shares);
    long left = replicaBytes;
    boolean capped = true;
    while (capped && !open.isEmpty()) {
      capped = false;
      double sum = 0;
      for (double s : open.values()) {
        sum += s;
      }
      for (Map.Entry<D, Double> e : new ArrayList<>(open.entrySet())) {
        if (left * e.getValue() / sum > logicalBytes) {
          out.put(e.getKey(), logicalBytes);
          open.remove(e.getKey());
          left -= logicalBytes;
          capped = true;
        }
      }
    }
    double sum = 0;
    for (double s : open.values()) {
      sum += s;
    }
    for (Map.Entry<D, Double> e : open.entrySet()) {
      out.put(e.getKey(), Math.round(left * e.getValue() / sum));
    }
    Map<D, Long> ordered = new LinkedHashMap<>();
    for (D d : shares.keySet()) {
      ordered.put(d, out.get(d));
    }
    return ordered;
  }

  /** A table of the nodes, for the tool's output. */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%-28s %6s %7s %12s %12s %12s  %s%n", "DataNode", "ratio",
        "share", "target", "now", "planned", "state"));
    for (NodeSummary n : nodes) {
      String state = n.wasWithinTolerance() ? "ok"
          : n.bytesBefore() > n.targetBytes() ? "over" : "under";
      sb.append(String.format(Locale.ROOT, "%-28s %6s %6.1f%% %12s %12s %12s  %s%n",
          n.node.getHostName() + " " + n.node.getXferAddr(),
          HeteroProfiles.formatRatio(n.ratio), 100 * n.share, StringUtils.byteDesc(n.target),
          StringUtils.byteDesc(n.before), StringUtils.byteDesc(n.after), state));
    }
    sb.append(String.format(Locale.ROOT, "%d move(s), %s%s%n", moves.size(),
        StringUtils.byteDesc(bytesToMove()), budgetSpent ? " (round budget reached)" : ""));
    return sb.toString();
  }
}
