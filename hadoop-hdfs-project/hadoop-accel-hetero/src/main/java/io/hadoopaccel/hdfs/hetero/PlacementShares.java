package io.hadoopaccel.hdfs.hetero;

import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;

/**
 * First-replica counts of one bound directory, and the choice of the node that is furthest
 * behind its share.
 *
 * <p>The seed assigns fragments round-robin weighted by computing ratio. We pick, for block
 * n+1, the node with the largest deficit (n+1)·share − placed: for any prefix of blocks every
 * node's count then stays within one block of n·share (largest-remainder apportionment), and a
 * node that is full, excluded or gone is simply skipped and catches up later. O(nodes) per
 * choice; memory is one counter per node that ever took a block of the directory.
 */
final class PlacementShares {
  private final String directory;
  private final String profile;
  /** DataNode UUID to blocks placed (first replicas). */
  private final Map<String, Long> placed = new HashMap<>();
  private long total;

  PlacementShares(String directory, String profile) {
    this.directory = directory;
    this.profile = profile;
  }

  String directory() {
    return directory;
  }

  String profile() {
    return profile;
  }

  /**
   * The node of {@code shares} furthest behind its share: the largest (n+1)·share − placed.
   * Counts of nodes absent from {@code shares} (dead, excluded) do not enter the sums, so the
   * live nodes share the work. Ties go to the first node in {@code shares}' order.
   */
  synchronized <D extends DatanodeInfo> D mostBehind(Map<D, Double> shares) {
    long n = 0;
    for (D dn : shares.keySet()) {
      n += placed.getOrDefault(dn.getDatanodeUuid(), 0L);
    }
    D best = null;
    double bestDeficit = Double.NEGATIVE_INFINITY;
    for (Map.Entry<D, Double> e : shares.entrySet()) {
      double deficit = (n + 1) * e.getValue()
          - placed.getOrDefault(e.getKey().getDatanodeUuid(), 0L);
      if (deficit > bestDeficit) {
        best = e.getKey();
        bestDeficit = deficit;
      }
    }
    return best;
  }

  synchronized void record(DatanodeInfo dn) {
    placed.merge(dn.getDatanodeUuid(), 1L, Long::sum);
    total++;
  }

  synchronized long placed(DatanodeInfo dn) {
    return placed.getOrDefault(dn.getDatanodeUuid(), 0L);
  }

  synchronized long total() {
    return total;
  }

  /** One line for the log: each node's target and actual share. */
  synchronized <D extends DatanodeInfo> String describe(Map<D, Double> shares) {
    StringBuilder sb = new StringBuilder();
    sb.append(directory).append(" (profile ").append(profile).append(", ").append(total)
        .append(" first replicas):");
    for (Map.Entry<D, Double> e : shares.entrySet()) {
      long c = placed.getOrDefault(e.getKey().getDatanodeUuid(), 0L);
      sb.append(String.format(java.util.Locale.ROOT, " %s target %.1f%% actual %.1f%% (%d)",
          e.getKey().getHostName(), 100 * e.getValue(), total == 0 ? 0.0 : 100.0 * c / total, c));
    }
    return sb.toString();
  }
}
