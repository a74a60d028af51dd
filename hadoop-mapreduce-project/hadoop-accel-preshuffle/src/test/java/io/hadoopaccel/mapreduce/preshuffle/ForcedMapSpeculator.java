package io.hadoopaccel.mapreduce.preshuffle;

import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskType;
import org.apache.hadoop.mapreduce.v2.app.AppContext;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskEvent;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskEventType;
import org.apache.hadoop.mapreduce.v2.app.speculate.Speculator;
import org.apache.hadoop.mapreduce.v2.app.speculate.SpeculatorEvent;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskAttemptStatusUpdateEvent.TaskAttemptStatus;
import org.apache.hadoop.service.AbstractService;

/**
 * A speculator ({@code yarn.app.mapreduce.am.job.speculator.class}) that adds exactly one
 * speculative attempt, for map 0, as soon as its first attempt starts, and none for any other
 * task: the two attempts of map 0 run at once, whatever the tasks' speeds.
 */
public final class ForcedMapSpeculator extends AbstractService implements Speculator {
  private final AppContext context;
  private final AtomicBoolean added = new AtomicBoolean();

  public ForcedMapSpeculator(Configuration conf, AppContext context) {
    super(ForcedMapSpeculator.class.getName());
    this.context = context;
  }

  @Override
  public void handle(SpeculatorEvent event) {
    if (event.getType() != EventType.ATTEMPT_START) {
      return;
    }
    TaskAttemptId attempt = event.getReportedStatus().id;
    if (attempt.getTaskId().getTaskType() == TaskType.MAP && attempt.getTaskId().getId() == 0
        && attempt.getId() == 0 && added.compareAndSet(false, true)) {
      context.getEventHandler().handle(
          new TaskEvent(attempt.getTaskId(), TaskEventType.T_ADD_SPEC_ATTEMPT));
    }
  }

  @Override
  public void handleAttempt(TaskAttemptStatus status) {
  }
}
