package org.apache.hadoop.mapreduce.task.reduce;

import io.hadoopaccel.mapreduce.preshuffle.PreshuffleCounter;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapred.TaskCompletionEvent;
import org.apache.hadoop.mapred.TaskStatus;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.util.Progress;
import org.apache.hadoop.util.Time;

/**
 * Stock's scheduler, except that a map whose SUCCEEDED attempt pushed its whole output is
 * merged from what it pushed instead of being fetched. Every decision still follows the
 * ApplicationMaster's completion events, as stock's does. The copy phase's progress counts the
 * data pushed by maps still running, not only the maps copied (seed 003 §5.3).
 */
final class PreshuffleScheduler<K, V> extends ShuffleSchedulerImpl<K, V> {
  private final PushedOutputs<K, V> pushed;
  private final Reporter reporter;
  private final ExceptionReporter exceptions;
  private final Progress copyPhase;
  private final boolean[] copied;
  // Guarded by this.
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
    pushed.setProgressListener(this::updateProgress);
  }

  @Override
  public synchronized void copySucceeded(TaskAttemptID mapId, MapHost host, long bytes,
      long startMillis, long endMillis, MapOutput<K, V> output) throws IOException {
    super.copySucceeded(mapId, host, bytes, startMillis, endMillis, output);
    int map = mapId.getTaskID().getId();
    if (!copied[map]) {
      copied[map] = true;
      copiedMaps++;
    }
    updateProgress();
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
        List<MapOutput<K, V>> segments = pushed.claim(attempt);
        if (segments != null) {
          long bytes = segments.stream().mapToLong(MapOutput::getSize).sum();
          long now = Time.monotonicNow();
          try {
            copySucceeded(attempt, pushed.pushHost(), bytes, now, now,
                new PushedMapOutput<>(attempt, bytes, segments));
            reporter.incrCounter(PreshuffleCounter.MAPS_FROM_PUSH, 1);
          } catch (IOException e) {
            exceptions.reportException(e); // a merge input could not be committed
          }
          return;
        }
        reporter.incrCounter(PreshuffleCounter.MAPS_PULLED, 1);
        break;
      case FAILED:
      case KILLED:
      case OBSOLETE:
        pushed.kill(attempt);
        break;
      default:
        break;
    }
    super.resolve(event);
  }
}
