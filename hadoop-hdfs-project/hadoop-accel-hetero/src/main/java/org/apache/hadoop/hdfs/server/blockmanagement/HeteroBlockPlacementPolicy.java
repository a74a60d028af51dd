package org.apache.hadoop.hdfs.server.blockmanagement;

import io.hadoopaccel.hdfs.hetero.HeteroPlacement;
import io.hadoopaccel.hdfs.hetero.HeteroPlacementMetrics;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.AddBlockFlag;
import org.apache.hadoop.hdfs.protocol.BlockStoragePolicy;
import org.apache.hadoop.net.NetworkTopology;
import org.apache.hadoop.net.Node;

/**
 * Heterogeneity-aware HDFS placement, switched on in the NameNode's hdfs-site.xml with
 * {@code dfs.block.replicator.classname=
 * org.apache.hadoop.hdfs.server.blockmanagement.HeteroBlockPlacementPolicy}.
 *
 * <p>A thin adapter: it lives in upstream's package only because {@code initialize} names the
 * package-private {@code Host2NodesMap}. The decisions are {@link HeteroPlacement}'s. Files
 * outside bound directories, and re-replication, are placed exactly as stock places them.
 */
public class HeteroBlockPlacementPolicy extends BlockPlacementPolicyDefault {
  private HeteroPlacement hetero;

  @Override
  public void initialize(Configuration conf, FSClusterStats stats, NetworkTopology clusterMap,
      Host2NodesMap host2datanodeMap) {
    super.initialize(conf, stats, clusterMap, host2datanodeMap);
    hetero = new HeteroPlacement(conf, stats, clusterMap);
    HeteroPlacementMetrics.register(hetero);
    hetero.registerRefreshHandler();
  }

  /** The 9-argument form is the one on the write path (new blocks). */
  @Override
  public DatanodeStorageInfo[] chooseTarget(String srcPath, int numOfReplicas, Node writer,
      List<DatanodeStorageInfo> chosenNodes, boolean returnChosenNodes, Set<Node> excludedNodes,
      long blocksize, BlockStoragePolicy storagePolicy, EnumSet<AddBlockFlag> flags) {
    HeteroPlacement.Choice choice = null;
    if (numOfReplicas > 0 && chosenNodes.isEmpty()) {
      boolean noLocalWrite = flags != null && flags.contains(AddBlockFlag.NO_LOCAL_WRITE);
      choice = hetero.choose(srcPath, excludedNodes, noLocalWrite ? writer : null);
    } else if (numOfReplicas > 0) {
      hetero.stockChoice();
    }
    if (choice == null) {
      return super.chooseTarget(srcPath, numOfReplicas, writer, chosenNodes, returnChosenNodes,
          excludedNodes, blocksize, storagePolicy, flags);
    }
    DatanodeStorageInfo[] targets = super.chooseTarget(srcPath, numOfReplicas,
        choice.preferred(), chosenNodes, returnChosenNodes, excludedNodes, blocksize,
        storagePolicy, choice.flags(flags));
    choice.placed(targets);
    return targets;
  }

  /** The placement decisions, for tests and tools running in the NameNode's JVM. */
  public HeteroPlacement hetero() {
    return hetero;
  }
}
