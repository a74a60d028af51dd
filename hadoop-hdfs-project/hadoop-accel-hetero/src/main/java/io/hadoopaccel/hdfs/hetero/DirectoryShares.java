package io.hadoopaccel.hdfs.hetero;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;

/**
 * Where the blocks of a directory are, per DataNode, next to the shares its profile asks for:
 * what {@code hdfs hetero show -dir} prints. Replicas are counted (a block of replication 3
 * counts on three nodes), from the balancer's {@link BlockLayout} of the directory; the target
 * share of a live DataNode is {@link NodeWeights#shares} over the live DataNodes.
 */
public final class DirectoryShares {

  /** One DataNode's part of the directory. */
  public static final class Node {
    final String address;
    final String host;
    final boolean live;
    long replicas;
    long bytes;
    double target = Double.NaN;
    double ratio = Double.NaN;

    Node(String address, String host, boolean live) {
      this.address = address;
      this.host = host;
      this.live = live;
    }

    /** DataNode transfer address, ip:port. */
    public String address() {
      return address;
    }

    public String host() {
      return host;
    }

    public boolean live() {
      return live;
    }

    public long replicas() {
      return replicas;
    }

    public long bytes() {
      return bytes;
    }

    /** Target share of replicas (0..1), or NaN when the directory has no profile. */
    public double target() {
      return target;
    }

    /** Ratio the profile gives this node (1 for a node it does not know), or NaN. */
    public double ratio() {
      return ratio;
    }
  }

  private final Path dir;
  private final String profile;
  private final Map<String, Node> nodes;
  private final long files;
  private final long blocks;
  private final long replicas;
  private final long bytes;
  private final List<String> unknownToProfile;
  private final List<String> skippedFiles;

  private DirectoryShares(Path dir, String profile, Map<String, Node> nodes, long files,
      long blocks, long replicas, long bytes, List<String> unknownToProfile,
      List<String> skippedFiles) {
    this.dir = dir;
    this.profile = profile;
    this.nodes = Collections.unmodifiableMap(nodes);
    this.files = files;
    this.blocks = blocks;
    this.replicas = replicas;
    this.bytes = bytes;
    this.unknownToProfile = Collections.unmodifiableList(unknownToProfile);
    this.skippedFiles = Collections.unmodifiableList(skippedFiles);
  }

  /**
   * Counts the replicas of every file under {@code dir}, from a {@link BlockLayout} of it.
   *
   * @param profile the profile the directory is placed by, or null for none
   * @throws java.io.FileNotFoundException if {@code dir} does not exist
   */
  public static DirectoryShares of(DistributedFileSystem dfs, Path dir,
      HeteroProfiles.Profile profile) throws IOException {
    dfs.getFileStatus(dir); // a missing directory is an error here, not an empty layout
    String d = Path.getPathWithoutSchemeAndAuthority(dir).toString();
    BlockLayout layout = BlockLayout.read(dfs, Collections.singletonList(d));

    Map<String, Node> nodes = new LinkedHashMap<>(); // by DataNode UUID
    List<DatanodeInfo> live = new ArrayList<>();
    for (DatanodeInfo dn : dfs.getDataNodeStats(DatanodeReportType.LIVE)) {
      live.add(dn);
    }
    live.sort((a, b) -> a.getXferAddr().compareTo(b.getXferAddr()));
    for (DatanodeInfo dn : live) {
      nodes.put(dn.getDatanodeUuid(), new Node(dn.getXferAddr(), dn.getHostName(), true));
    }
    List<String> unknown = new ArrayList<>();
    if (profile != null) {
      for (Map.Entry<DatanodeInfo, Double> e : NodeWeights.shares(profile, live).entrySet()) {
        DatanodeInfo dn = e.getKey();
        Node n = nodes.get(dn.getDatanodeUuid());
        n.target = e.getValue();
        n.ratio = NodeWeights.ratio(profile, dn);
        if (Double.isNaN(profile.ratioOf(dn.getXferAddr(),
            dn.getHostName() + ":" + dn.getXferPort(), dn.getHostName(), dn.getIpAddr()))) {
          unknown.add(dn.getHostName() + " (" + dn.getXferAddr() + ")");
        }
      }
    }
    long replicas = 0;
    for (Map.Entry<String, DatanodeInfo> e : layout.nodes().entrySet()) {
      DatanodeInfo dn = e.getValue();
      Node n = nodes.computeIfAbsent(e.getKey(),
          id -> new Node(dn.getXferAddr(), dn.getHostName(), false));
      n.replicas = layout.blocksOn(e.getKey());
      n.bytes = layout.bytesOn(e.getKey());
      replicas += n.replicas;
    }
    return new DirectoryShares(dir, profile == null ? null : profile.name(), nodes,
        layout.files(), layout.blocks().size(), replicas, layout.totalBytes(), unknown,
        layout.skippedFiles());
  }

  public Path dir() {
    return dir;
  }

  /** The profile name, or null. */
  public String profile() {
    return profile;
  }

  /** By DataNode UUID: live ones (sorted by address) first, then others holding replicas. */
  public Map<String, Node> nodes() {
    return nodes;
  }

  public long files() {
    return files;
  }

  public long blocks() {
    return blocks;
  }

  public long replicas() {
    return replicas;
  }

  public long bytes() {
    return bytes;
  }

  /** Live DataNodes the profile has no ratio for (they count as ratio 1). */
  public List<String> unknownToProfile() {
    return unknownToProfile;
  }

  /** Files not counted: open for writing or erasure-coded ({@link BlockLayout}). */
  public List<String> skippedFiles() {
    return skippedFiles;
  }

  /** Node address to its actual share of replicas (0..1). */
  public Map<String, Double> actualShares() {
    Map<String, Double> out = new TreeMap<>();
    for (Node n : nodes.values()) {
      out.put(n.address, replicas == 0 ? 0.0 : (double) n.replicas / replicas);
    }
    return out;
  }
}
