package io.hadoopaccel.hdfs.hetero;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.HdfsLocatedFileStatus;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;

/**
 * Where the blocks of some HDFS directories are, as the NameNode reports them: every block of
 * every file under them (recursively) with its replicas' DataNodes, storage types and storage
 * IDs, and per DataNode the replica bytes and block counts.
 *
 * <p>A snapshot: read it again to see moves. Files still open for writing and erasure-coded
 * files are listed in {@link #skippedFiles()} and not counted (their blocks cannot be moved
 * replica by replica). Nodes are keyed by DataNode UUID.
 */
public final class BlockLayout {

  /** One block of a file, with its replica locations. */
  public static final class FileBlock {
    private final String path;
    private final LocatedBlock located;

    FileBlock(String path, LocatedBlock located) {
      this.path = path;
      this.located = located;
    }

    /** The file the block belongs to. */
    public String path() {
      return path;
    }

    /** The block, its locations, storage types and storage IDs (parallel arrays). */
    public LocatedBlock located() {
      return located;
    }

    public ExtendedBlock block() {
      return located.getBlock();
    }

    public long bytes() {
      return located.getBlockSize();
    }

    public DatanodeInfo[] locations() {
      return located.getLocations();
    }

    /** True when a replica of the block is on the DataNode with this UUID. */
    public boolean isOn(String datanodeUuid) {
      for (DatanodeInfo dn : located.getLocations()) {
        if (dn.getDatanodeUuid().equals(datanodeUuid)) {
          return true;
        }
      }
      return false;
    }

    @Override
    public String toString() {
      return located.getBlock().getBlockName() + " of " + path;
    }
  }

  private final List<String> dirs;
  private final List<FileBlock> blocks;
  private final List<String> skippedFiles;
  private final int files;
  private final Map<String, DatanodeInfo> nodes = new LinkedHashMap<>();
  private final Map<String, Long> bytesByNode = new TreeMap<>();
  private final Map<String, Integer> blocksByNode = new TreeMap<>();
  private long totalBytes;
  private long totalReplicaBytes;

  /** A layout of the given blocks (for tests and tools that build one themselves). */
  public BlockLayout(Collection<String> dirs, List<FileBlock> blocks, int files,
      List<String> skippedFiles) {
    this.dirs = Collections.unmodifiableList(new ArrayList<>(dirs));
    this.blocks = Collections.unmodifiableList(new ArrayList<>(blocks));
    this.files = files;
    this.skippedFiles = Collections.unmodifiableList(new ArrayList<>(skippedFiles));
    for (FileBlock b : blocks) {
      totalBytes += b.bytes();
      for (DatanodeInfo dn : b.locations()) {
        String id = dn.getDatanodeUuid();
        nodes.putIfAbsent(id, dn);
        bytesByNode.merge(id, b.bytes(), Long::sum);
        blocksByNode.merge(id, 1, Integer::sum);
        totalReplicaBytes += b.bytes();
      }
    }
  }

  /** Wraps one located block (for tests that build layouts without a cluster). */
  public static FileBlock fileBlock(String path, LocatedBlock located) {
    return new FileBlock(path, located);
  }

  /**
   * Lists every file under {@code dirs} with its block locations (one listing RPC per batch of
   * files, as {@code FileSystem#listFiles} does). A directory that does not exist is skipped.
   */
  public static BlockLayout read(DistributedFileSystem fs, Collection<String> dirs)
      throws IOException {
    List<FileBlock> blocks = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    int files = 0;
    for (String dir : dirs) {
      RemoteIterator<LocatedFileStatus> it;
      try {
        it = fs.listFiles(new Path(dir), true);
        if (!it.hasNext()) {
          continue;
        }
      } catch (FileNotFoundException e) {
        continue;
      }
      while (it.hasNext()) {
        LocatedFileStatus st;
        try {
          st = it.next();
        } catch (FileNotFoundException e) {
          continue; // deleted while listing
        }
        String path = Path.getPathWithoutSchemeAndAuthority(st.getPath()).toString();
        LocatedBlocks lbs = st instanceof HdfsLocatedFileStatus
            ? ((HdfsLocatedFileStatus) st).getLocatedBlocks()
            : fs.getClient().getLocatedBlocks(path, 0, st.getLen());
        if (lbs == null) {
          continue;
        }
        if (lbs.isUnderConstruction() || lbs.getErasureCodingPolicy() != null) {
          skipped.add(path);
          continue;
        }
        files++;
        for (LocatedBlock lb : lbs.getLocatedBlocks()) {
          blocks.add(new FileBlock(path, lb));
        }
      }
    }
    return new BlockLayout(dirs, blocks, files, skipped);
  }

  /** The directories this layout was read from. */
  public List<String> dirs() {
    return dirs;
  }

  public List<FileBlock> blocks() {
    return blocks;
  }

  /** Files counted (complete, replicated). */
  public int files() {
    return files;
  }

  /** Files left out: open for writing, or erasure-coded. */
  public List<String> skippedFiles() {
    return skippedFiles;
  }

  /** Every DataNode holding at least one replica, by UUID. */
  public Map<String, DatanodeInfo> nodes() {
    return Collections.unmodifiableMap(nodes);
  }

  /** Replica bytes per DataNode UUID. */
  public Map<String, Long> bytesByNode() {
    return Collections.unmodifiableMap(bytesByNode);
  }

  /** Replica count per DataNode UUID. */
  public Map<String, Integer> blocksByNode() {
    return Collections.unmodifiableMap(blocksByNode);
  }

  public long bytesOn(String datanodeUuid) {
    return bytesByNode.getOrDefault(datanodeUuid, 0L);
  }

  public int blocksOn(String datanodeUuid) {
    return blocksByNode.getOrDefault(datanodeUuid, 0);
  }

  /** Logical bytes: each block counted once. */
  public long totalBytes() {
    return totalBytes;
  }

  /** Bytes of all replicas: what the nodes hold between them. */
  public long totalReplicaBytes() {
    return totalReplicaBytes;
  }
}
