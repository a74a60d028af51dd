package io.hadoopaccel.hdfs.hetero;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.AddBlockFlag;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeStorageInfo;
import org.apache.hadoop.hdfs.server.blockmanagement.FSClusterStats;
import org.apache.hadoop.ipc.RefreshHandler;
import org.apache.hadoop.ipc.RefreshRegistry;
import org.apache.hadoop.ipc.RefreshResponse;
import org.apache.hadoop.net.NetworkTopology;
import org.apache.hadoop.net.Node;
import org.apache.hadoop.net.NodeBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decisions of heterogeneity-aware placement (seed 003 chapter 3), kept apart from the thin
 * {@code HeteroBlockPlacementPolicy} adapter that plugs them into stock placement.
 *
 * <p>For a new block of a file under a directory bound to a computing-ratio profile, the first
 * replica goes to the live node furthest behind its speed share of that directory's blocks
 * ({@link PlacementShares}). The adapter hands that node to stock placement as the writer, so
 * stock's own checks (space, load, staleness, decommissioning, exclusions) still decide whether
 * it can take the block, and the other replicas follow stock rack-aware rules from it.
 */
public final class HeteroPlacement {
  private static final Logger LOG = LoggerFactory.getLogger(HeteroPlacement.class);
  /** Log the target and actual shares of a directory every this many blocks. */
  private static final long LOG_EVERY_BLOCKS = 100;

  private final ProfileFile profiles;
  private final long staleIntervalMs;
  private final FSClusterStats clusterStats;
  private final NetworkTopology clusterMap;
  private final Map<String, PlacementShares> shares = new ConcurrentHashMap<>();
  private final long startedAtMs = System.currentTimeMillis();
  private final LongAdder placedByProfile = new LongAdder();
  private final LongAdder unbound = new LongAdder();
  private final LongAdder noCandidate = new LongAdder();
  private final LongAdder refused = new LongAdder();
  private final LongAdder stockOther = new LongAdder();

  /** Reads the profiles; a malformed file or a setting placement cannot work with throws. */
  public HeteroPlacement(Configuration conf, FSClusterStats stats, NetworkTopology clusterMap) {
    this.clusterStats = stats;
    this.clusterMap = clusterMap;
    this.staleIntervalMs = conf.getLong(DFSConfigKeys.DFS_NAMENODE_STALE_DATANODE_INTERVAL_KEY,
        DFSConfigKeys.DFS_NAMENODE_STALE_DATANODE_INTERVAL_DEFAULT);
    if (!conf.getBoolean(
        DFSConfigKeys.DFS_NAMENODE_BLOCKPLACEMENTPOLICY_DEFAULT_PREFER_LOCAL_NODE_KEY,
        DFSConfigKeys.DFS_NAMENODE_BLOCKPLACEMENTPOLICY_DEFAULT_PREFER_LOCAL_NODE_DEFAULT)) {
      throw new IllegalArgumentException("Hetero placement needs "
          + DFSConfigKeys.DFS_NAMENODE_BLOCKPLACEMENTPOLICY_DEFAULT_PREFER_LOCAL_NODE_KEY
          + "=true: it places the first replica through stock's writer-local choice");
    }
    try {
      this.profiles = new ProfileFile(conf);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read computing-ratio profiles", e);
    }
    HeteroProfiles p = profiles.get();
    LOG.info("Hetero placement on: profiles from {} ({} profile(s), bound directories {})",
        profiles.store(), p.profiles().size(), p.bindings().keySet());
  }

  /** The identifier of {@code hdfs dfsadmin -refresh <namenode host:ipc port> IDENTIFIER}. */
  public static final String REFRESH_IDENTIFIER = "hetero.profiles";

  /**
   * Lets {@code hdfs dfsadmin -refresh <namenode> hetero.profiles} re-read the profiles on
   * that NameNode now, without waiting for the reload interval.
   */
  public RefreshHandler registerRefreshHandler() {
    RefreshHandler h = (identifier, args) -> {
      String msg = profiles.reloadNow();
      LOG.info("{} refresh: {}", REFRESH_IDENTIFIER, msg);
      return new RefreshResponse(msg.startsWith("profiles version") && !msg.contains("last error")
          ? 0 : 1, msg);
    };
    RefreshRegistry.defaultRegistry().register(REFRESH_IDENTIFIER, h);
    return h;
  }

  /** The profiles file as this NameNode reads it. */
  public ProfileFile profiles() {
    return profiles;
  }

  /** Where the first replica of a new block should go, and what to record once it went. */
  public final class Choice {
    private final PlacementShares dirShares;
    private final Map<DatanodeDescriptor, Double> target;
    private final DatanodeDescriptor preferred;

    private Choice(PlacementShares dirShares, Map<DatanodeDescriptor, Double> target) {
      this.dirShares = dirShares;
      this.target = target;
      this.preferred = dirShares.mostBehind(target);
    }

    /** The node to hand to stock placement as the writer. */
    public DatanodeDescriptor preferred() {
      return preferred;
    }

    /**
     * The client's flags without the hints about its own node and rack: for a bound directory
     * the profile decides where the first replica goes.
     */
    public EnumSet<AddBlockFlag> flags(EnumSet<AddBlockFlag> flags) {
      if (flags == null) {
        return null;
      }
      EnumSet<AddBlockFlag> f = EnumSet.copyOf(flags);
      f.remove(AddBlockFlag.NO_LOCAL_WRITE);
      f.remove(AddBlockFlag.NO_LOCAL_RACK);
      return f;
    }

    /** Records the node that took the first replica: the preferred one if stock accepted it. */
    public void placed(DatanodeStorageInfo[] targets) {
      DatanodeDescriptor first = null;
      for (DatanodeStorageInfo t : targets) {
        if (t.getDatanodeDescriptor().equals(preferred)) {
          first = preferred;
        }
      }
      if (first == null && targets.length > 0) {
        // Stock refused the preferred node (full, busy): it stays in deficit and is tried
        // again for the next block.
        refused.increment();
        first = targets[0].getDatanodeDescriptor();
        LOG.debug("{} could not take a block under {}; placed on {}", preferred,
            dirShares.directory(), first);
      }
      if (first == preferred) {
        placedByProfile.increment();
      }
      if (first != null) {
        dirShares.record(first);
        if (dirShares.total() % LOG_EVERY_BLOCKS == 1) {
          LOG.info("Hetero placement {}", dirShares.describe(target));
        }
      }
    }
  }

  /**
   * The choice for a new block of {@code srcPath}, or null when stock placement applies (not
   * under a bound directory, or no candidate node).
   *
   * @param excludedNodes nodes the caller excludes (may be null)
   * @param clientNodeToAvoid the writer's node when it asked not to be written to, else null
   */
  public Choice choose(String srcPath, Set<Node> excludedNodes, Node clientNodeToAvoid) {
    if (srcPath == null) {
      return null;
    }
    HeteroProfiles p = profiles.get();
    String dir = p.boundDirectoryOf(srcPath);
    if (dir == null) {
      unbound.increment();
      return null;
    }
    String profileName = p.bindings().get(dir);
    // Re-binding a directory to another profile starts its counts afresh.
    PlacementShares dirShares = shares.compute(dir, (d, s) ->
        s != null && s.profile().equals(profileName) ? s : new PlacementShares(d, profileName));
    Map<DatanodeDescriptor, Double> target = NodeWeights.shares(
        p.profile(profileName), candidates(excludedNodes, clientNodeToAvoid));
    if (target.isEmpty()) {
      noCandidate.increment();
      return null;
    }
    return new Choice(dirShares, target);
  }

  /** Counts a choice left to stock without asking the profile: re-replication, pipeline repair. */
  public void stockChoice() {
    stockOther.increment();
  }

  /** Live, in-service, non-excluded (and, when stock avoids them, non-stale) DataNodes. */
  private List<DatanodeDescriptor> candidates(Set<Node> excludedNodes, Node notThisOne) {
    boolean avoidStale = clusterStats != null && clusterStats.isAvoidingStaleDataNodesForWrite();
    List<DatanodeDescriptor> out = new ArrayList<>();
    for (Node n : clusterMap.getLeaves(NodeBase.ROOT)) {
      if (!(n instanceof DatanodeDescriptor) || n.equals(notThisOne)
          || (excludedNodes != null && excludedNodes.contains(n))) {
        continue;
      }
      DatanodeDescriptor dn = (DatanodeDescriptor) n;
      if (dn.isAlive() && dn.isInService() && !(avoidStale && dn.isStale(staleIntervalMs))) {
        out.add(dn);
      }
    }
    return out;
  }

  /** One DataNode of one bound directory, for the metrics. */
  public record NodeShare(String directory, String profile, String node, long placed,
      double target) {}

  /** Placement counters since {@link #startedAtMs()}, for the metrics. */
  public record Counters(long placedByProfile, long unbound, long noCandidate, long refused,
      long stockOther) {}

  public Counters counters() {
    return new Counters(placedByProfile.sum(), unbound.sum(), noCandidate.sum(), refused.sum(),
        stockOther.sum());
  }

  /** When this NameNode's counts began (epoch ms): they live in memory only. */
  public long startedAtMs() {
    return startedAtMs;
  }

  /** Blocks counted under {@code dir} since its counts began (all nodes, live or not). */
  public long placedTotal(String dir) {
    PlacementShares s = shares.get(dir);
    return s == null ? 0 : s.total();
  }

  /**
   * For every directory bound now that has counts, each live in-service DataNode's first
   * replicas placed and its target share among those nodes (node as host_transferport).
   */
  public List<NodeShare> nodeShares() {
    HeteroProfiles p = profiles.get();
    List<DatanodeDescriptor> live = candidates(null, null);
    live.sort((a, b) -> a.getXferAddr().compareTo(b.getXferAddr()));
    List<NodeShare> out = new ArrayList<>();
    for (PlacementShares s : new TreeMap<>(shares).values()) {
      String profileName = p.bindings().get(s.directory());
      if (profileName == null || !profileName.equals(s.profile())) {
        continue; // unbound or re-bound since: the next block starts new counts
      }
      Map<DatanodeDescriptor, Double> target = NodeWeights.shares(p.profile(profileName), live);
      for (Map.Entry<DatanodeDescriptor, Double> e : target.entrySet()) {
        DatanodeDescriptor dn = e.getKey();
        out.add(new NodeShare(s.directory(), profileName,
            dn.getHostName() + "_" + dn.getXferPort(), s.placed(dn), e.getValue()));
      }
    }
    return out;
  }

  /** First replicas this NameNode placed under the bound {@code dir}, by DataNode ip:port. */
  public Map<String, Long> placedFirstReplicas(String dir) {
    PlacementShares s = shares.get(HeteroProfiles.normalize(dir));
    Map<String, Long> out = new TreeMap<>();
    if (s != null) {
      for (Node n : clusterMap.getLeaves(NodeBase.ROOT)) {
        if (n instanceof DatanodeDescriptor) {
          DatanodeDescriptor dn = (DatanodeDescriptor) n;
          out.put(dn.getXferAddr(), s.placed(dn));
        }
      }
    }
    return out;
  }
}
