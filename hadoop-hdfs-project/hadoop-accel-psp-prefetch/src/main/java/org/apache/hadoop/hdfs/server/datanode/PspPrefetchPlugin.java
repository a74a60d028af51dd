package org.apache.hadoop.hdfs.server.datanode;

import io.hadoopaccel.hdfs.psp.PrefetchRequest;
import io.hadoopaccel.hdfs.psp.PrefetchServer;
import io.hadoopaccel.hdfs.psp.PspConfigKeys;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hdfs.protocol.BlockLocalPathInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenIdentifier;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.FsDatasetSpi;
import org.apache.hadoop.security.token.SecretManager.InvalidToken;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.ServicePlugin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ADAPTER: PSP's prefetcher as a DataNode service plugin
 * ({@code dfs.datanode.plugins=org.apache.hadoop.hdfs.server.datanode.PspPrefetchPlugin}).
 * Lives in the DataNode's package to read {@code isBlockTokenEnabled} (package-private) and so
 * check a request's block token exactly when, and as, DataXceiver checks a read's. The protocol,
 * the bound and the loading are {@link PrefetchServer}'s.
 */
public final class PspPrefetchPlugin implements ServicePlugin {
  private static final Logger LOG = LoggerFactory.getLogger(PspPrefetchPlugin.class);
  /** Bound ports by DataNode transfer port, for tests that start several DataNodes on a host. */
  private static final Map<Integer, Integer> PORTS = new ConcurrentHashMap<>();

  private PrefetchServer server;
  private int xferPort;

  @Override
  public void start(Object service) {
    DataNode dn = (DataNode) service;
    try {
      server = new PrefetchServer(dn.getConf(), request -> replicaFile(dn, request));
    } catch (IOException | RuntimeException e) {
      // The DataNode runs on without it; AMs find no prefetcher and run their maps as stock.
      LOG.error("PSP prefetcher not started (check " + PspConfigKeys.PREFETCH_PORT + ", "
          + PspConfigKeys.PREFETCH_BIND_ADDRESS + "): maps on this node read as stock", e);
      return;
    }
    xferPort = dn.getXferPort();
    PORTS.put(xferPort, server.getPort());
    LOG.info("PSP prefetcher listening on port {} (block tokens checked when the DataNode "
        + "checks them)", server.getPort());
  }

  /** The prefetcher's port on the DataNode with this transfer port, or -1 if none runs. */
  public static int portOf(int dataNodeXferPort) {
    return PORTS.getOrDefault(dataNodeXferPort, -1);
  }

  @Override
  public void stop() {
    if (server != null) {
      PORTS.remove(xferPort);
      server.close();
      server = null;
    }
  }

  @Override
  public void close() {
    stop();
  }

  @SuppressWarnings("unchecked")
  private static File replicaFile(DataNode dn, PrefetchRequest r) throws IOException {
    ExtendedBlock block = new ExtendedBlock(r.poolId, r.blockId, 0, r.genStamp);
    if (dn.isBlockTokenEnabled) {
      Token<?> token = r.token();
      if (token == null) {
        throw new InvalidToken("no block token for " + block);
      }
      // The check DataXceiver makes before a read (opReadBlock): identifier, password,
      // expiry, block pool, block id and READ access.
      dn.getBlockPoolTokenSecretManager().checkAccess(
          (Token<BlockTokenIdentifier>) token, null, block,
          BlockTokenIdentifier.AccessMode.READ);
    }
    FsDatasetSpi<?> dataset = dn.getFSDataset();
    // Only a finalized replica of this generation: never an older one or one being written.
    org.apache.hadoop.hdfs.protocol.Block stored = dataset.getStoredBlock(r.poolId, r.blockId);
    if (stored == null || stored.getGenerationStamp() != r.genStamp) {
      throw new FileNotFoundException("no replica " + block);
    }
    BlockLocalPathInfo info = dataset.getBlockLocalPathInfo(block);
    return new File(info.getBlockPath());
  }
}
