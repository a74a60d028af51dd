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
 * The successful map attempts of a finished job as {@link ComputingRatios.Observation}s: the
 * host an attempt ran on and its run time come from the job's task completion events (the
 * NodeManager's address and launch-to-finish time); the bytes it read from the counters of the
 * task's successful attempt (HDFS_BYTES_READ, else the input format's BYTES_READ).
 */
final class MapAttempts {
  private static final int EVENTS_PER_CALL = 1000;

  private MapAttempts() {}

  /** Observations of every successful map attempt of {@code job}, in completion order. */
  static List<ComputingRatios.Observation> of(Job job) throws IOException, InterruptedException {
    Map<TaskAttemptID, Long> bytes = new HashMap<>();
    for (TaskReport r : job.getTaskReports(TaskType.MAP)) {
      TaskAttemptID ok = r.getSuccessfulTaskAttemptId();
      if (ok != null && r.getTaskCounters() != null) {
        bytes.put(ok, bytesRead(r.getTaskCounters()));
      }
    }
    List<ComputingRatios.Observation> out = new ArrayList<>();
    for (int from = 0; ; ) {
      TaskCompletionEvent[] events = job.getTaskCompletionEvents(from, EVENTS_PER_CALL);
      if (events == null || events.length == 0) {
        break;
      }
      from += events.length;
      for (TaskCompletionEvent e : events) {
        if (e.isMapTask() && e.getStatus() == TaskCompletionEvent.Status.SUCCEEDED) {
          out.add(new ComputingRatios.Observation(hostOf(e.getTaskTrackerHttp()),
              e.getTaskRunTime(), bytes.getOrDefault(e.getTaskAttemptId(), 0L)));
        }
      }
    }
    return out;
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
