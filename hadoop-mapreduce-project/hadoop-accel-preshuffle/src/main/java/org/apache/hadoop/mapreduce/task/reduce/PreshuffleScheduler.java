package org.apache.hadoop.mapreduce.task.reduce;

import io.hadoopaccel.mapreduce.preshuffle.PreshuffleCounter;
import io.hadoopaccel.mapreduce.preshuffle.PushProtocol;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapred.TaskCompletionEvent;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.util.Progress;
import org.apache.hadoop.util.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stock's scheduler, except that a map whose SUCCEEDED attempt pushed its whole output is
 * merged from what it pushed instead of being fetched, and one that pushed its first spills
 * and left the rest is merged from those plus its leftover outputs, fetched by stock's fetchers
 * from the map's node like map outputs. Every decision still follows the ApplicationMaster's
 * completion events, as stock's does. The copy phase's progress counts the data pushed by maps
 * still running, not only the maps copied (seed 003 §5.3).
 */
final class PreshuffleScheduler<K, V> extends ShuffleSchedulerImpl<K, V> {
  private static final Logger LOG = LoggerFactory.getLogger(PreshuffleScheduler.class);
  private final PushedOutputs<K, V> pushed;
  private final Reporter reporter;
  private final ExceptionReporter exceptions;
  private final Progress copyPhase;
  private final boolean[] copied;
  private final TaskAttemptID reduceId;
  // Guarded by this.
  private final Map<TaskAttemptID, Partial<K, V>> partials = new HashMap<>();
  private int copiedMaps;
  private float shown;

  PreshuffleScheduler(JobConf job, TaskStatus status, TaskAttemptID reduceId,
      ExceptionReporter exceptions, Progress progress, Counters.Counter shuffledMaps,
      Counters.Counter shuffleBytes, Counters.Counter failedShuffles, PushedOutputs<K, V> pushed,
      Reporter reporter) {
    super(job, status, reduceId, exceptions, progress, shuffledMaps, shuffleBytes,
        failedShuffles);
    this.pushed = pushed;
    this.reporter = reporter;
    this.exceptions = exceptions;
    this.copyPhase = progress;
    this.copied = new boolean[job.getNumMapTasks()];
    this.reduceId = reduceId;
    pushed.setProgressListener(this::updateProgress);
  }

  /** A map whose pushed spills are held while its leftover spills are fetched. */
  private static final class Partial<K, V> {
    final TaskAttemptID attempt;
    final PushedOutputs.Claim<K, V> pushed;
    final String host;
    final String url;
    final TreeMap<Integer, MapOutput<K, V>> fetched = new TreeMap<>();
    long bytes;

    Partial(TaskAttemptID attempt, PushedOutputs.Claim<K, V> pushed, String host, String url) {
      this.attempt = attempt;
      this.pushed = pushed;
      this.host = host;
      this.url = url;
      this.bytes = pushed.segments.stream().mapToLong(MapOutput::getSize).sum();
    }
  }

  @Override
  public synchronized void copySucceeded(TaskAttemptID mapId, MapHost host, long bytes,
      long startMillis, long endMillis, MapOutput<K, V> output) throws IOException {
    if (PushProtocol.isLeftover(mapId)) {
      leftoverFetched(mapId, host, bytes, startMillis, endMillis, output);
      return;
    }
    super.copySucceeded(mapId, host, bytes, startMillis, endMillis, output);
    int map = mapId.getTaskID().getId();
    if (!copied[map]) {
      copied[map] = true;
      copiedMaps++;
    }
    updateProgress();
  }

  private void leftoverFetched(TaskAttemptID leftover, MapHost host, long bytes,
      long startMillis, long endMillis, MapOutput<K, V> output) throws IOException {
    Partial<K, V> p = partials.get(PushProtocol.leftoverOf(leftover));
    int spill = PushProtocol.leftoverSpill(leftover);
    if (p == null || p.fetched.containsKey(spill)) {
      pushed.discard(output); // the map is pulled whole after all, or was re-run
      return;
    }
    p.fetched.put(spill, output);
    p.bytes += bytes;
    if (p.fetched.size() < p.pushed.spills - p.pushed.pullFrom) {
      return;
    }
    partials.remove(p.attempt);
    List<MapOutput<K, V>> all = new ArrayList<>(p.pushed.segments);
    all.addAll(p.fetched.values());
    all.forEach(pushed::release);
    copySucceeded(p.attempt, host, p.bytes, startMillis, endMillis,
        new PushedMapOutput<>(p.attempt, p.bytes, all));
    reporter.incrCounter(PreshuffleCounter.MAPS_PARTLY_PULLED, 1);
  }

  /** A leftover spill could not be fetched: the map is pulled whole, as stock would. */
  @Override
  public synchronized void copyFailed(TaskAttemptID mapId, MapHost host, boolean readError,
      boolean connectExcpt) {
    if (!PushProtocol.isLeftover(mapId)) {
      super.copyFailed(mapId, host, readError, connectExcpt);
      return;
    }
    Partial<K, V> p = partials.remove(PushProtocol.leftoverOf(mapId));
    obsoleteMapOutput(mapId); // never again: a map left to pull whole, or done with
    if (p != null) {
      LOG.info("Leftover {} not fetched from {}; pulling all of {}", mapId, host.getHostName(),
          p.attempt);
      drop(p);
      addKnownMapOutput(p.host, p.url, p.attempt);
      reporter.incrCounter(PreshuffleCounter.MAPS_PULLED, 1);
    }
  }

  private void drop(Partial<K, V> p) {
    p.pushed.segments.forEach(pushed::discard);
    p.fetched.values().forEach(pushed::discard);
    for (int s = p.pushed.pullFrom; s < p.pushed.spills; s++) {
      obsoleteMapOutput(PushProtocol.leftover(p.attempt, s)); // fetchers skip them from now
    }
  }

  @Override
  public synchronized void close() throws InterruptedException {
    super.close();
    partials.values().forEach(this::drop);
    partials.clear();
  }

  /**
   * Stock's share of maps copied, plus what maps still running have pushed so far. It never
   * goes back (stock's copySucceeded sets the share of maps alone, and a discarded attempt's
   * pushes are taken again by a pull).
   */
  private synchronized void updateProgress() {
    if (copied.length > 0) {
      float now = Math.min(1f, (copiedMaps + pushed.pendingMaps()) / copied.length);
      shown = Math.max(shown, now);
      copyPhase.set(shown);
    }
  }

  @Override
  public void resolve(TaskCompletionEvent event) {
    TaskAttemptID attempt = event.getTaskAttemptId();
    switch (event.getTaskStatus()) {
      case SUCCEEDED:
        PushedOutputs.Claim<K, V> claim = pushed.claim(attempt);
        if (claim != null && claim.pullFrom == claim.spills) {
          long bytes = claim.segments.stream().mapToLong(MapOutput::getSize).sum();
          claim.segments.forEach(pushed::release);
          long now = Time.monotonicNow();
          try {
            copySucceeded(attempt, pushed.pushHost(), bytes, now, now,
                new PushedMapOutput<>(attempt, bytes, claim.segments));
            reporter.incrCounter(PreshuffleCounter.MAPS_FROM_PUSH, 1);
          } catch (IOException e) {
            exceptions.reportException(e); // a merge input could not be committed
          }
          return;
        }
        if (claim != null) {
          fetchLeftovers(attempt, claim, event.getTaskTrackerHttp());
          return;
        }
        reporter.incrCounter(PreshuffleCounter.MAPS_PULLED, 1);
        break;
      case FAILED:
      case KILLED:
      case OBSOLETE:
        pushed.kill(attempt);
        synchronized (this) {
          Partial<K, V> p = partials.remove(attempt);
          if (p != null) {
            drop(p);
          }
        }
        break;
      default:
        break;
    }
    super.resolve(event);
  }

  /** Stock's fetchers take the map's leftover spills from its node, as map outputs. */
  private synchronized void fetchLeftovers(TaskAttemptID attempt, PushedOutputs.Claim<K, V> claim,
      String trackerHttp) {
    URI u = getBaseURI(reduceId, trackerHttp);
    Partial<K, V> p = new Partial<>(attempt, claim, u.getHost() + ":" + u.getPort(),
        u.toString());
    partials.put(attempt, p);
    for (int s = claim.pullFrom; s < claim.spills; s++) {
      addKnownMapOutput(p.host, p.url, PushProtocol.leftover(attempt, s));
    }
  }
}
