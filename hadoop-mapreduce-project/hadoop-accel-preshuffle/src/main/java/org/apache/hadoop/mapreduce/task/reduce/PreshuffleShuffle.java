package org.apache.hadoop.mapreduce.task.reduce;

import io.hadoopaccel.common.conf.AccelConfiguration;
import io.hadoopaccel.mapreduce.preshuffle.PreshuffleConfigKeys;
import io.hadoopaccel.mapreduce.preshuffle.PreshuffleCounter;
import io.hadoopaccel.mapreduce.preshuffle.PushProtocol;
import io.hadoopaccel.mapreduce.preshuffle.PushReceiver;
import io.hadoopaccel.mapreduce.preshuffle.ReducerRegistry;
import java.io.IOException;
import java.net.InetAddress;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapred.Task;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reduce side of Preshuffle: stock's event fetcher, fetchers and merge, plus a receiver that
 * takes the maps' pushed spills while they run (seed 003 §5.2). A map whose SUCCEEDED attempt
 * pushed all of its output is merged without a fetch; every other map is pulled as stock pulls
 * it. Switch it on with
 * {@code mapreduce.job.reduce.shuffle.consumer.plugin.class=org.apache.hadoop.mapreduce.task.reduce.PreshuffleShuffle}
 * together with the map side, {@code PreshuffleMapOutputCollector}.
 */
public class PreshuffleShuffle<K, V> implements ShuffleConsumerPlugin<K, V>, ExceptionReporter {
  private static final Logger LOG = LoggerFactory.getLogger(PreshuffleShuffle.class);
  private static final int PROGRESS_FREQUENCY = 2000;
  private static final int MAX_EVENTS_TO_FETCH = 10000;
  private static final int MIN_EVENTS_TO_FETCH = 100;
  private static final int MAX_RPC_OUTSTANDING_EVENTS = 3000000;

  private Context<K, V> context;
  private Shuffle<K, V> stock; // the local runner: nobody to push to
  private JobConf conf;
  private Reporter reporter;
  private ShuffleClientMetrics metrics;
  private MergeManagerImpl<K, V> merger;
  private PushedOutputs<K, V> pushed;
  private PreshuffleScheduler<K, V> scheduler;
  private PushReceiver receiver;
  private ReducerRegistry registry;
  private Path registration;
  private Throwable failure;
  private String failedThread;

  @Override
  public void init(Context<K, V> context) {
    this.context = context;
    if (context.getLocalMapFiles() != null) {
      stock = new Shuffle<>();
      stock.init(context);
      return;
    }
    this.conf = context.getJobConf();
    this.reporter = context.getReporter();
    TaskAttemptID reduceId = context.getReduceId();
    this.metrics = ShuffleClientMetrics.create(reduceId, conf);
    this.merger = createMergeManager(context);
    // The merge manager's own budget (its fields are private): heap or the configured total.
    long heap = conf.getLong(MRJobConfig.REDUCE_MEMORY_TOTAL_BYTES,
        Runtime.getRuntime().maxMemory());
    long shuffleMemory = (long) (Math.min(heap, Integer.MAX_VALUE)
        * conf.getFloat(MRJobConfig.SHUFFLE_INPUT_BUFFER_PERCENT, 0.70f));
    this.pushed = new PushedOutputs<>(merger, conf, context.getMapOutputFile(), reporter,
        metrics, shuffleMemory);
    this.scheduler = new PreshuffleScheduler<>(conf, context.getStatus(), reduceId, this,
        context.getCopyPhase(), context.getShuffledMapsCounter(),
        context.getReduceShuffleBytes(), context.getFailedShuffleCounter(), pushed, reporter);
    startReceiver(reduceId);
  }

  /**
   * Stock's merge manager, as stock's {@code Shuffle.createMergeManager} makes it; a subclass
   * may return its own (pushed segments are reserved and committed through it).
   */
  protected MergeManagerImpl<K, V> createMergeManager(Context<K, V> context) {
    return new MergeManagerImpl<>(context.getReduceId(), context.getJobConf(),
        context.getLocalFS(), context.getLocalDirAllocator(), context.getReporter(),
        context.getCodec(), context.getCombinerClass(), context.getCombineCollector(),
        context.getSpilledRecordsCounter(), context.getReduceCombineInputCounter(),
        context.getMergedMapOutputsCounter(), this, context.getMergePhase(),
        context.getMapOutputFile());
  }

  /** Opens and registers the receiver; if it cannot, this reduce pulls everything. */
  private void startReceiver(TaskAttemptID reduceId) {
    Task task = context.getReduceTask();
    try {
      if (task.getShuffleSecret() == null) {
        throw new IOException("no job token");
      }
      receiver = new PushReceiver(reduceId.getJobID(), reduceId.getTaskID().getId(),
          task.getShuffleSecret(),
          AccelConfiguration.getInt(conf, PreshuffleConfigKeys.RECEIVER_THREADS),
          AccelConfiguration.getInt(conf, PreshuffleConfigKeys.SOCKET_TIMEOUT_MS), pushed);
      String host = System.getenv("NM_HOST");
      if (host == null) {
        host = InetAddress.getLocalHost().getCanonicalHostName();
      }
      registry = new ReducerRegistry(conf);
      registration = registry.register(reduceId.getTaskID().getId(), reduceId.getId(), host,
          receiver.port());
      LOG.info("Preshuffle receiver of {} listens on {}:{}", reduceId, host, receiver.port());
    } catch (IOException e) {
      LOG.info("Preshuffle is off for {}: {}; pulling every map output as stock", reduceId,
          e.toString());
      reporter.incrCounter(PreshuffleCounter.FALLBACKS, 1);
      stopReceiver();
    }
  }

  private void stopReceiver() {
    if (receiver != null) {
      receiver.close();
      receiver = null;
    }
    if (registration != null) {
      try {
        registry.unregister(registration);
      } catch (IOException e) {
        LOG.info("Could not remove {}: {}", registration, e.toString());
      }
      registration = null;
    }
  }

  @Override
  public RawKeyValueIterator run() throws IOException, InterruptedException {
    if (stock != null) {
      return stock.run();
    }
    TaskAttemptID reduceId = context.getReduceId();
    int eventsPerReducer =
        Math.max(MIN_EVENTS_TO_FETCH, MAX_RPC_OUTSTANDING_EVENTS / conf.getNumReduceTasks());
    EventFetcher<K, V> events = new EventFetcher<>(reduceId, context.getUmbilical(), scheduler,
        this, Math.min(MAX_EVENTS_TO_FETCH, eventsPerReducer));
    events.start();
    Fetcher<K, V>[] fetchers = newFetchers(conf.getInt(MRJobConfig.SHUFFLE_PARALLEL_COPIES, 5));
    for (Fetcher<K, V> f : fetchers) {
      f.start();
    }
    while (!scheduler.waitUntilDone(PROGRESS_FREQUENCY)) {
      reporter.progress();
      throwIfFailed();
    }
    events.shutDown();
    for (Fetcher<K, V> f : fetchers) {
      f.shutDown();
    }
    scheduler.close();
    stopReceiver();
    pushed.close();

    context.getCopyPhase().complete();
    TaskStatus status = context.getStatus();
    status.setPhase(TaskStatus.Phase.SORT);
    context.getReduceTask().statusUpdate(context.getUmbilical());
    RawKeyValueIterator records;
    try {
      records = merger.close();
    } catch (Throwable e) {
      throw new Shuffle.ShuffleError("Error while doing final merge ", e);
    }
    throwIfFailed();
    return records;
  }

  /**
   * The merge manager as the fetchers see it: a leftover spill is reserved as a pushed segment
   * is, under a name of its own (stock names every output of a map alike on disk).
   */
  private final MergeManager<K, V> leftoversApart = new MergeManager<K, V>() {
    @Override
    public void waitForResource() throws InterruptedException {
      merger.waitForResource();
    }

    @Override
    public MapOutput<K, V> reserve(TaskAttemptID mapId, long size, int fetcher)
        throws IOException {
      if (PushProtocol.isLeftover(mapId)) {
        return pushed.reserveLeftover(PushProtocol.leftoverOf(mapId),
            PushProtocol.leftoverSpill(mapId), size);
      }
      return merger.reserve(mapId, size, fetcher);
    }

    @Override
    public RawKeyValueIterator close() throws Throwable {
      return merger.close();
    }
  };

  @SuppressWarnings("unchecked")
  private Fetcher<K, V>[] newFetchers(int n) {
    Fetcher<K, V>[] fetchers = new Fetcher[n];
    for (int i = 0; i < n; i++) {
      fetchers[i] = new Fetcher<>(conf, context.getReduceId(), scheduler, leftoversApart,
          reporter, metrics, this, context.getReduceTask().getShuffleSecret());
    }
    return fetchers;
  }

  private synchronized void throwIfFailed() throws IOException {
    if (failure != null) {
      throw new Shuffle.ShuffleError("error in shuffle in " + failedThread, failure);
    }
  }

  @Override
  public synchronized void reportException(Throwable t) {
    if (failure == null) {
      failure = t;
      failedThread = Thread.currentThread().getName();
      synchronized (scheduler) {
        scheduler.notifyAll(); // wake run()'s wait at once
      }
    }
  }

  @Override
  public void close() {
    if (stock != null) {
      stock.close();
      return;
    }
    stopReceiver();
    if (pushed != null) {
      pushed.close();
    }
  }
}
