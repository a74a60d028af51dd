package io.hadoopaccel.hdfs.psp;

import java.io.File;
import java.io.IOException;

/**
 * What the prefetcher needs from its DataNode: the local file of a replica, given only after the
 * request's block token passed the check the DataNode applies to a read of that block.
 */
public interface ReplicaAccess {
  /**
   * The finalized replica's block file.
   *
   * @throws org.apache.hadoop.security.token.SecretManager.InvalidToken the token does not allow
   *     reading this block (missing, forged, expired, another block or pool)
   * @throws java.io.FileNotFoundException this node has no such replica
   */
  File replicaFile(PrefetchRequest request) throws IOException;
}
