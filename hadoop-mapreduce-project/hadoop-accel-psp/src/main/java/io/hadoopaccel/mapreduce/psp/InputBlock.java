package io.hadoopaccel.mapreduce.psp;

import io.hadoopaccel.hdfs.psp.PrefetchRequest;
import java.util.Arrays;
import java.util.List;

/** One block range of a map's input: the prefetch request and the hosts holding a replica. */
public final class InputBlock {
  final PrefetchRequest request;
  final List<String> replicaHosts;

  public InputBlock(PrefetchRequest request, String... replicaHosts) {
    this.request = request;
    this.replicaHosts = Arrays.asList(replicaHosts);
  }

  /**
   * Where to load this block for a map predicted on {@code host}: there when it holds a replica
   * (or the locations are unknown); else on the first replica's node, so that the map's remote
   * read is served from that node's memory instead of its disk (the bytes still cross the link).
   */
  String loadOn(String host) {
    return replicaHosts.isEmpty() || replicaHosts.contains(host) ? host : replicaHosts.get(0);
  }

  /**
   * The node a map on {@code host} reads this block from, as far as the AM can know: its own
   * replica, else the only replica's node; "" when the client may pick any of several.
   */
  String readFrom(String host) {
    if (replicaHosts.isEmpty() || replicaHosts.contains(host)) {
      return host;
    }
    return replicaHosts.size() == 1 ? replicaHosts.get(0) : "";
  }
}
