package org.apache.hadoop.mapred;

import io.hadoopaccel.common.conf.AccelConfiguration;
import io.hadoopaccel.mapreduce.coomr.CoomrConfigKeys;
import io.hadoopaccel.mapreduce.coomr.CoordinatorClient;
import java.io.IOException;
import java.nio.file.Paths;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.thirdparty.com.google.common.cache.CacheBuilder;
import org.apache.hadoop.thirdparty.com.google.common.cache.CacheLoader;
import org.apache.hadoop.thirdparty.com.google.common.cache.LoadingCache;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stock's ShuffleHandler, serving map outputs that CooMR maps left in the node's pool: its path
 * lookup asks the node coordinator first (where is this attempt's output now: the pool, its
 * LOCS log, or its disk path once written out) and falls back to stock's lookup for every other
 * output. For an output in a log, the data path is the log and the index on disk has offsets
 * into it. It keeps
 * a connection to the coordinator, and while it does, the coordinator lets maps leave their
 * outputs in the pool; without one (no coordinator on the node) it is stock's ShuffleHandler.
 * It lives in Hadoop's package because the path types of the handler context are
 * package-private. Set {@code yarn.nodemanager.aux-services.mapreduce_shuffle.class} to it.
 */
public class CoomrShuffleHandler extends ShuffleHandler {
  private static final Logger LOG = LoggerFactory.getLogger(CoomrShuffleHandler.class);
  /** How long a looked-up path is used: the coordinator keeps a pool copy 5 s past its move. */
  static final long PATH_EXPIRY_MS = 1_000;
  private static final long RECONNECT_MS = 1_000;

  private java.nio.file.Path socket;
  private long timeoutMs;
  private volatile CoordinatorClient.Lookups lookups;
  private ScheduledExecutorService connector;

  @Override
  protected void serviceInit(Configuration conf) throws Exception {
    socket = Paths.get(AccelConfiguration.getString(conf, CoomrConfigKeys.COORDINATOR_SOCKET));
    timeoutMs = AccelConfiguration.getInt(conf, CoomrConfigKeys.COORDINATOR_TIMEOUT_MS);
    super.serviceInit(conf);
  }

  @Override
  protected void serviceStart() throws Exception {
    super.serviceStart();
    // The coordinator may start after us, or be restarted: keep (re)connecting.
    connector = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "coomr-shuffle-connector");
      t.setDaemon(true);
      return t;
    });
    connector.scheduleWithFixedDelay(this::connect, 0, RECONNECT_MS, TimeUnit.MILLISECONDS);
  }

  private void connect() {
    if (lookups != null) {
      return;
    }
    try {
      lookups = CoordinatorClient.lookups(socket, timeoutMs);
      LOG.info("CooMR: connected to the node coordinator at {}: maps may leave their outputs"
          + " in its pool", socket);
    } catch (IOException e) {
      LOG.debug("CooMR: no node coordinator at {}: {}", socket, e.toString());
    }
  }

  @Override
  protected void serviceStop() throws Exception {
    if (connector != null) {
      connector.shutdownNow();
    }
    CoordinatorClient.Lookups l = lookups;
    lookups = null;
    if (l != null) {
      l.close();
    }
    super.serviceStop();
  }

  @Override
  protected ShuffleChannelHandlerContext createHandlerContext() {
    ShuffleChannelHandlerContext stock = super.createHandlerContext();
    LoadingCache<AttemptPathIdentifier, AttemptPathInfo> paths = CacheBuilder.newBuilder()
        .expireAfterWrite(PATH_EXPIRY_MS, TimeUnit.MILLISECONDS)
        .maximumSize(100_000)
        .build(new CacheLoader<AttemptPathIdentifier, AttemptPathInfo>() {
          @Override
          public AttemptPathInfo load(AttemptPathIdentifier id) throws Exception {
            AttemptPathInfo pooled = lookUp(id);
            return pooled != null ? pooled : stock.pathCache.get(id);
          }
        });
    return new ShuffleChannelHandlerContext(stock.conf, stock.userRsrc, stock.secretManager,
        paths, new PathKeyedIndexCache(new JobConf(stock.conf)), stock.metrics,
        stock.allChannels);
  }

  /**
   * Stock's index cache, keyed by the index's path as well as the map: a CooMR output's index
   * moves from the pool to the disk and, written out through a LOCS log, its offsets change
   * with it (they are into the log then).
   */
  static final class PathKeyedIndexCache extends IndexCache {
    PathKeyedIndexCache(JobConf conf) {
      super(conf);
    }

    @Override
    public IndexRecord getIndexInformation(String mapId, int reduce, Path fileName,
        String expectedIndexOwner) throws IOException {
      return super.getIndexInformation(mapId + "@" + fileName, reduce, fileName,
          expectedIndexOwner);
    }
  }

  /** The coordinator's answer, or null (not its output, or no coordinator). */
  private AttemptPathInfo lookUp(AttemptPathIdentifier id) {
    CoordinatorClient.Lookups l = lookups;
    if (l == null) {
      return null;
    }
    try {
      String[] where = l.lookup(id.jobId, id.attemptId);
      return where == null ? null : new AttemptPathInfo(new Path(where[1]), new Path(where[0]));
    } catch (IOException e) {
      // Maps attached to a restarted coordinator see no shuffle until we reconnect, so they
      // keep their outputs on disk meanwhile.
      LOG.warn("CooMR: lost the node coordinator ({}); reconnecting", e.toString());
      lookups = null;
      try {
        l.close();
      } catch (IOException ignored) {
        // closing a broken connection
      }
      return null;
    }
  }
}
