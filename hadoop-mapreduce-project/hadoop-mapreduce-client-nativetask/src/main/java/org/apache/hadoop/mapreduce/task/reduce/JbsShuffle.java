package org.apache.hadoop.mapreduce.task.reduce;

import io.hadoopaccel.common.conf.AccelConfiguration;
import io.hadoopaccel.mapreduce.jbs.JbsConfig;
import io.hadoopaccel.mapreduce.jbs.JbsConfigKeys;
import io.hadoopaccel.mapreduce.jbs.JbsCounter;
import io.hadoopaccel.mapreduce.jbs.JbsEligibility;
import io.hadoopaccel.mapreduce.jbs.JbsFallback;
import io.hadoopaccel.mapreduce.jbs.MergedStreamIterator;
import io.hadoopaccel.mapreduce.jbs.NativeShuffleSession;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.util.ReflectionUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JBS reduce side: the node's NetMerger fetches and merges this reduce's map outputs and
 * streams the merged records here. Switch it on with
 * {@code mapreduce.job.reduce.shuffle.consumer.plugin.class=org.apache.hadoop.mapreduce.task.reduce.JbsShuffle}.
 *
 * <p>Thin adapter in upstream's package (for the package-private {@link EventFetcher}); the
 * logic is in {@code io.hadoopaccel.mapreduce.jbs}. A reduce JBS cannot take, or any failure
 * before the first merged record reaches the reducer, runs the fallback plugin
 * ({@code hadoop.accel.jbs.fallback.plugin.class}: stock {@link Shuffle} by default, or e.g.
 * KISM): one log line naming the reason, the counter JBS/FALLBACKS and one JBS/FALLBACK_*
 * counter. Fetch failures reach the ApplicationMaster through upstream's
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
  private Class<? extends ShuffleConsumerPlugin> fallbackClass;
  private ShuffleConsumerPlugin<K, V> fallback;
  private NativeShuffleSession<K, V> session;
  private MergedStreamIterator iterator;

  @Override
  public void init(ShuffleConsumerPlugin.Context context) {
    this.context = context;
    // A bad fallback key fails the task here, naming the key, whichever path the reduce takes.
    this.fallbackClass = fallbackPlugin(context.getJobConf());
    // Stock Shuffle's own state (scheduler, MergeManager and its merge threads) is set up only
    // if the reduce falls back to it (run), not for a native reduce.
  }

  /**
   * The plugin hadoop.accel.jbs.fallback.plugin.class names (default stock Shuffle).
   *
   * @throws IllegalArgumentException naming the key if it is not a ShuffleConsumerPlugin or is
   *     JBS itself (a chain that would never end)
   */
  @SuppressWarnings("rawtypes")
  public static Class<? extends ShuffleConsumerPlugin> fallbackPlugin(Configuration conf) {
    String name = AccelConfiguration.getString(conf, JbsConfigKeys.FALLBACK_PLUGIN).trim();
    Class<?> c;
    try {
      c = conf.getClassByName(name);
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalArgumentException("Invalid value '" + name + "' for configuration key "
          + JbsConfigKeys.FALLBACK_PLUGIN + ": class not found", e);
    }
    if (!ShuffleConsumerPlugin.class.isAssignableFrom(c)) {
      throw new IllegalArgumentException("Invalid value '" + name + "' for configuration key "
          + JbsConfigKeys.FALLBACK_PLUGIN + ": not a " + ShuffleConsumerPlugin.class.getName());
    }
    if (JbsShuffle.class.isAssignableFrom(c)) {
      throw new IllegalArgumentException("Invalid value '" + name + "' for configuration key "
          + JbsConfigKeys.FALLBACK_PLUGIN + ": JBS cannot be its own fallback");
    }
    return c.asSubclass(ShuffleConsumerPlugin.class);
  }

  @Override
  public RawKeyValueIterator run() throws IOException, InterruptedException {
    JobConf conf = context.getJobConf();
    TaskAttemptID reduceId = context.getReduceId();
    Reporter reporter = context.getReporter();
    JbsFallback why = JbsEligibility.fallback(conf, context.getCodec(), reduceId,
        context.getLocalMapFiles() != null);
    if (why == null) {
      JbsConfig cfg = JbsConfig.from(conf); // a bad value fails the task naming the key
      if (cfg.supplierPort == 0) {
        why = new JbsFallback(JbsCounter.FALLBACK_CONFIG, JbsConfigKeys.SUPPLIER_PORT
            + " is 0 in the job: the reduce cannot know the MOFSuppliers' port");
      } else {
        try {
          RawKeyValueIterator it = runNative(cfg);
          reporter.incrCounter(JbsCounter.NATIVE_REDUCES, 1);
          LOG.info("JBS: {} reads its input merged by the NetMerger at {}", reduceId,
              cfg.mergerSocket);
          return it;
        } catch (IOException e) {
          LOG.debug("JBS native path failed", e);
          why = JbsFallback.ofSessionFailure(e);
        }
      }
    }
    LOG.info("JBS is off for {} ({}): {}; running {}", reduceId, why.counter, why.reason,
        fallbackClass.getName());
    reporter.incrCounter(why.counter, 1);
    reporter.incrCounter(JbsCounter.FALLBACKS, 1);
    return runFallback();
  }

  @SuppressWarnings("unchecked")
  private RawKeyValueIterator runFallback() throws IOException, InterruptedException {
    if (fallbackClass == Shuffle.class) {
      super.init(context);
      return super.run();
    }
    fallback = ReflectionUtils.newInstance(fallbackClass, context.getJobConf());
    fallback.init(context);
    return fallback.run();
  }

  private RawKeyValueIterator runNative(JbsConfig cfg) throws IOException, InterruptedException {
    JobConf conf = context.getJobConf();
    TaskAttemptID reduceId = context.getReduceId();
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
    if (fallback != null) {
      fallback.close();
    }
    super.close();
  }
}
