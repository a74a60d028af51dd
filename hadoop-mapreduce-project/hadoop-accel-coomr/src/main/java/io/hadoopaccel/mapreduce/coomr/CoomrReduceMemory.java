package io.hadoopaccel.mapreduce.coomr;

import io.hadoopaccel.common.conf.AccelConfiguration;
import io.hadoopaccel.common.mapred.SharedSegmentMemory;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.Reporter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's pool as a reduce's merge memory (seed 002 §3.1, last paragraph): set
 * {@code hadoop.accel.kism.shared.memory.class} to this class, with KISM's shuffle. The reduce
 * attaches to the node coordinator as a task of its own, so the same max-min fair balancer that
 * shares the pool among maps gives reduces their part. Each fetched map output that may not
 * stay in the heap asks for its bytes and, if granted, is appended to a log in the attempt's
 * pool dir instead of on disk. Everything goes back when the reduce ends (detach), or when it
 * dies (the coordinator sees its connection close).
 */
public final class CoomrReduceMemory implements SharedSegmentMemory {
  private static final Logger LOG = LoggerFactory.getLogger(CoomrReduceMemory.class);

  private CoordinatorClient pool;
  private Reporter reporter;
  private boolean lost; // the coordinator failed a call: later outputs go to disk

  @Override
  public String attach(Configuration job, String jobId, String attemptId, Reporter reporter) {
    this.reporter = reporter;
    String socket = AccelConfiguration.getString(job, CoomrConfigKeys.COORDINATOR_SOCKET);
    try {
      pool = CoordinatorClient.attach(Paths.get(socket), jobId, attemptId,
          AccelConfiguration.getInt(job, CoomrConfigKeys.COORDINATOR_TIMEOUT_MS));
      return null;
    } catch (IOException e) {
      reporter.incrCounter(CoomrCounter.REDUCE_FALLBACKS, 1);
      return "no node coordinator at " + socket + " (" + e.getMessage() + ")";
    }
  }

  @Override
  public synchronized Path reserve(long bytes) {
    if (pool == null || lost) {
      return null;
    }
    try {
      if (pool.request(bytes) == 0) {
        return null;
      }
      reporter.incrCounter(CoomrCounter.REDUCE_POOL_BYTES, bytes);
      return pool.dir();
    } catch (IOException e) {
      lost = true;
      LOG.warn("CooMR coordinator failed ({}); this reduce's further map outputs go to disk",
          e.toString());
      return null;
    }
  }

  @Override
  public synchronized void close() {
    if (pool == null) {
      return;
    }
    try {
      if (!lost) {
        pool.detach();
      }
    } catch (IOException e) {
      LOG.warn("CooMR coordinator failed at detach ({}); it frees the pool dir when the"
          + " connection closes", e.toString());
    } finally {
      try {
        pool.close();
      } catch (IOException e) {
        LOG.debug("closing the coordinator connection", e);
      }
      pool = null;
    }
  }
}
