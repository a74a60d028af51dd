package io.hadoopaccel.hdfs.hetero;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.FileSystemCounter;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.mapreduce.TaskReport;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter;

/**
 * The successful map attempts of a finished job as {@link ComputingRatios.Observation}s.
 *
 * <ul>
 *   <li>host: the job's task completion events (the NodeManager address of the attempt);
 *   <li>run time: the task report's start to finish, i.e. the attempt's container launch to its
 *       end. The client API's completion events carry no run time on YARN (the conversion from
 *       the ApplicationMaster's records drops it: always 0), hence the task reports. A task whose
 *       successful attempt is not its first (a retry after a failure, or a speculative attempt)
 *       is left out: its report's start belongs to an earlier attempt;
 *   <li>bytes: the counters of the task's successful attempt, HDFS_BYTES_READ, else the input
 *       format's BYTES_READ.
 * </ul>
 */
final class MapAttempts {
  private static final int EVENTS_PER_CALL = 1000;

  /** The observations, and how many successful map tasks could not be used. */
  static final class Result {
    final List<ComputingRatios.Observation> observations = new ArrayList<>();
    /** Successful on a later attempt than the first: no attempt-level run time. */
    int notFirstAttempt;
    /** No completion event naming the node, or no start/finish time in the report. */
    int incomplete;
  }

  private MapAttempts() {}

  /** Observations of the successful map tasks of {@code job}, in task order. */
  static Result of(Job job) throws IOException, InterruptedException {
    Map<TaskAttemptID, String> hosts = new HashMap<>();
    for (int from = 0; ; ) {
      TaskCompletionEvent[] events = job.getTaskCompletionEvents(from, EVENTS_PER_CALL);
      if (events == null || events.length == 0) {
        break;
      }
      from += events.length;
      for (TaskCompletionEvent e : events) {
        if (e.isMapTask() && e.getStatus() == TaskCompletionEvent.Status.SUCCEEDED) {
          hosts.put(e.getTaskAttemptId(), hostOf(e.getTaskTrackerHttp()));
        }
      }
    }
    Result r = new Result();
    for (TaskReport t : job.getTaskReports(TaskType.MAP)) {
      TaskAttemptID ok = t.getSuccessfulTaskAttemptId();
      if (ok == null) {
        continue;
      }
      String host = hosts.get(ok);
      long ms = t.getFinishTime() - t.getStartTime();
      if (ok.getId() != 0) {
        r.notFirstAttempt++;
      } else if (host == null || t.getStartTime() <= 0 || ms <= 0) {
        r.incomplete++;
      } else {
        long bytes = t.getTaskCounters() == null ? 0 : bytesRead(t.getTaskCounters());
        r.observations.add(new ComputingRatios.Observation(host, ms, bytes));
      }
    }
    return r;
  }

  /** HDFS bytes read by a task, or its input format's bytes read when it read none from HDFS. */
  static long bytesRead(Counters c) {
    long hdfs = c.findCounter("hdfs", FileSystemCounter.BYTES_READ).getValue();
    return hdfs > 0 ? hdfs : c.findCounter(FileInputFormatCounter.BYTES_READ).getValue();
  }

  /** "host" of a task tracker (NodeManager) HTTP address such as "http://host:8042". */
  static String hostOf(String trackerHttp) {
    if (trackerHttp == null || trackerHttp.isEmpty()) {
      throw new IllegalArgumentException("task completion event without a node address");
    }
    String s = trackerHttp.contains("://") ? trackerHttp : "http://" + trackerHttp;
    try {
      String h = URI.create(s).getHost();
      if (h != null && !h.isEmpty()) {
        return h;
      }
    } catch (IllegalArgumentException e) {
      // fall through to the plain split
    }
    String rest = s.substring(s.indexOf("://") + 3);
    int slash = rest.indexOf('/');
    rest = slash < 0 ? rest : rest.substring(0, slash);
    return ComputingRatios.hostPart(rest);
  }
}
