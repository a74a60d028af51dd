package org.apache.hadoop.mapreduce.task.reduce;

import io.hadoopaccel.mapreduce.jbs.JbsConfig;
import io.hadoopaccel.mapreduce.jbs.JbsConfigKeys;
import io.hadoopaccel.mapreduce.jbs.JbsCounter;
import io.hadoopaccel.mapreduce.jbs.JbsEligibility;
import io.hadoopaccel.mapreduce.jbs.MergedStreamIterator;
import io.hadoopaccel.mapreduce.jbs.NativeShuffleSession;
import java.io.IOException;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JBS reduce side: the node's NetMerger fetches and merges this reduce's map outputs and
 * streams the merged records here. Switch it on with
 * {@code mapreduce.job.reduce.shuffle.consumer.plugin.class=org.apache.hadoop.mapreduce.task.reduce.JbsShuffle}.
 *
 * <p>Thin adapter in upstream's package (for the package-private {@link EventFetcher}); the
 * logic is in {@code io.hadoopaccel.mapreduce.jbs}. A reduce JBS cannot take, or any failure
 * before the first merged record reaches the reducer, runs stock {@link Shuffle}: one log line
 * and the counter JBS/FALLBACKS. Fetch failures reach the ApplicationMaster through upstream's
 * {@link ShuffleSchedulerImpl}, exactly as with stock fetchers.
 */
public class JbsShuffle<K, V> extends Shuffle<K, V> {
  private static final Logger LOG = LoggerFactory.getLogger(JbsShuffle.class);

  // As stock Shuffle.run: scale events per RPC with the number of reduces.
  private static final int MAX_EVENTS_TO_FETCH = 10000;
  private static final int MIN_EVENTS_TO_FETCH = 100;
  private static final int MAX_RPC_OUTSTANDING_EVENTS = 3000000;
  private static final int PROGRESS_FREQUENCY = 2000;

  private ShuffleConsumerPlugin.Context context;
  private NativeShuffleSession<K, V> session;
  private MergedStreamIterator iterator;

  @Override
  public void init(ShuffleConsumerPlugin.Context context) {
    this.context = context;
    super.init(context);
  }

  @Override
  public RawKeyValueIterator run() throws IOException, InterruptedException {
    JobConf conf = context.getJobConf();
    TaskAttemptID reduceId = context.getReduceId();
    Reporter reporter = context.getReporter();
    String why = JbsEligibility.unsupportedReason(conf, context.getCodec(), reduceId,
        context.getLocalMapFiles() != null);
    if (why == null) {
      JbsConfig cfg = JbsConfig.from(conf); // a bad value fails the task naming the key
      try {
        RawKeyValueIterator it = runNative(cfg);
        reporter.incrCounter(JbsCounter.NATIVE_REDUCES, 1);
        LOG.info("JBS: {} reads its input merged by the NetMerger at {}", reduceId,
            cfg.mergerSocket);
        return it;
      } catch (IOException e) {
        why = e.getMessage() == null ? e.toString() : e.getMessage();
        LOG.debug("JBS native path failed", e);
        reporter.incrCounter(JbsCounter.SESSION_FALLBACKS, 1);
      }
    } else if (JbsEligibility.isEncryptionReason(why)) {
      reporter.incrCounter(JbsCounter.ENCRYPTION_FALLBACKS, 1);
    }
    LOG.info("JBS is off for {}: {}; running stock shuffle", reduceId, why);
    reporter.incrCounter(JbsCounter.FALLBACKS, 1);
    return super.run();
  }

  private RawKeyValueIterator runNative(JbsConfig cfg) throws IOException, InterruptedException {
    JobConf conf = context.getJobConf();
    TaskAttemptID reduceId = context.getReduceId();
    if (cfg.supplierPort == 0) {
      throw new IOException(JbsConfigKeys.SUPPLIER_PORT + " is 0 in the job: the reduce cannot"
          + " know the MOFSuppliers' port");
    }
    byte[] secret = context.getReduceTask().getShuffleSecret().getEncoded();
    NativeShuffleSession<K, V> s = NativeShuffleSession.open(cfg.mergerSocket,
        cfg.connectTimeoutMs, cfg.reducerReadTimeoutMs, reduceId.getJobID().toString(),
        reduceId.getTaskID().getId(), conf.getNumMapTasks(), JbsEligibility.keyType(conf),
        JbsEligibility.codec(context.getCodec()), secret, context.getReporter(),
        cfg.supplierPort);
    session = s;
    ShuffleSchedulerImpl<K, V> scheduler = new ShuffleSchedulerImpl<>(conf,
        context.getStatus(), reduceId, s, context.getCopyPhase(),
        context.getShuffledMapsCounter(), context.getReduceShuffleBytes(),
        context.getFailedShuffleCounter());
    int eventsPerReducer = Math.max(MIN_EVENTS_TO_FETCH,
        MAX_RPC_OUTSTANDING_EVENTS / conf.getNumReduceTasks());
    EventFetcher<K, V> events = new EventFetcher<>(reduceId, context.getUmbilical(), scheduler,
        s, Math.min(MAX_EVENTS_TO_FETCH, eventsPerReducer));
    boolean ok = false;
    try {
      s.start(scheduler);
      events.start();
      while (!scheduler.waitUntilDone(PROGRESS_FREQUENCY)) {
        context.getReporter().progress();
        s.checkFailed();
      }
      s.checkFailed();
      events.shutDown();
      scheduler.close();
      iterator = s.merge();
      ok = true;
    } finally {
      if (!ok) {
        events.shutDown();
        scheduler.close();
        s.close();
        session = null;
      }
    }
    // As stock Shuffle.run once the copy is over.
    context.getCopyPhase().complete();
    context.getStatus().setPhase(TaskStatus.Phase.SORT);
    context.getReduceTask().statusUpdate(context.getUmbilical());
    return iterator;
  }

  @Override
  public void close() {
    if (session != null) {
      session.close();
    }
    super.close();
  }
}
