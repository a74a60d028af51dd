package io.hadoopaccel.hdfs.hetero;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a profile's computing ratios into each DataNode's share of a bound directory's blocks:
 * share = (1/ratio) / sum of (1/ratio) over the nodes considered (ratios 1, 2, 3 give 6 : 3 : 2,
 * the seed's Table 3.2). A node the profile does not know gets ratio 1, with one warning.
 */
public final class NodeWeights {
  private static final Logger LOG = LoggerFactory.getLogger(NodeWeights.class);
  private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

  private NodeWeights() {}

  /** The ratio of a DataNode in {@code profile}: by ip:port, host:port, host, then ip. */
  public static double ratio(HeteroProfiles.Profile profile, DatanodeInfo dn) {
    double r = profile.ratioOf(dn.getXferAddr(), dn.getHostName() + ":" + dn.getXferPort(),
        dn.getHostName(), dn.getIpAddr());
    if (Double.isNaN(r)) {
      if (WARNED.add(profile.name() + "/" + dn.getXferAddr())) {
        LOG.warn("Profile {} has no computing ratio for DataNode {} ({}): using ratio 1 (as fast "
            + "as the fastest). Run 'hdfs hetero profile' or 'hdfs hetero set' to add it.",
            profile.name(), dn.getHostName(), dn.getXferAddr());
      }
      return 1.0;
    }
    return r;
  }

  /** Each node's share (summing to 1) of the blocks, in the order of {@code nodes}. */
  public static <D extends DatanodeInfo> Map<D, Double> shares(
      HeteroProfiles.Profile profile, List<D> nodes) {
    Map<D, Double> ratios = new LinkedHashMap<>();
    for (D dn : nodes) {
      ratios.put(dn, ratio(profile, dn));
    }
    return sharesOf(ratios);
  }

  /** (1/ratio) / Σ(1/ratio) for each key, in the order of {@code ratios}. */
  public static <K> Map<K, Double> sharesOf(Map<K, Double> ratios) {
    double total = 0;
    for (double r : ratios.values()) {
      total += 1 / r;
    }
    Map<K, Double> shares = new LinkedHashMap<>();
    for (Map.Entry<K, Double> e : ratios.entrySet()) {
      shares.put(e.getKey(), (1 / e.getValue()) / total);
    }
    return shares;
  }
}
