package org.apache.hadoop.mapreduce.v2.app.rm;

import io.hadoopaccel.common.conf.AccelConfiguration;
import io.hadoopaccel.hdfs.psp.PspConfigKeys;
import io.hadoopaccel.mapreduce.psp.LaunchEstimate;
import io.hadoopaccel.mapreduce.psp.MapInputs;
import io.hadoopaccel.mapreduce.psp.PrefetchDispatcher;
import io.hadoopaccel.mapreduce.psp.PspPlanner;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TypeConverter;
import org.apache.hadoop.mapreduce.v2.api.records.JobId;
import org.apache.hadoop.mapreduce.v2.api.records.Phase;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptState;
import org.apache.hadoop.mapreduce.v2.api.records.TaskType;
import org.apache.hadoop.mapreduce.v2.app.AppContext;
import org.apache.hadoop.mapreduce.v2.app.client.ClientService;
import org.apache.hadoop.mapreduce.v2.app.job.Task;
import org.apache.hadoop.mapreduce.v2.app.job.TaskAttempt;
import org.apache.hadoop.mapreduce.v2.app.job.event.JobCounterUpdateEvent;
import org.apache.hadoop.mapreduce.v2.app.rm.preemption.AMPreemptionPolicy;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.util.RackResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ADAPTER: the stock allocator with PSP's predictor ({@link PspPlanner}) beside it. Lives in the
 * allocator's package to see which map got which container (AssignedRequests, package-private).
 * It changes one thing in the stock allocator's behaviour: a map is requested on one of its
 * replica hosts (the planner's choice) instead of all, so each host's next node-local map is
 * known in advance and the prediction comes true. Everything else, including the locality order,
 * rack and off-switch fallbacks and failed maps, is the stock allocator's.
 */
public class PspContainerAllocator extends RMContainerAllocator {
  private static final Logger LOG = LoggerFactory.getLogger(PspContainerAllocator.class);
  /** Upstream MapTask's weight of its map phase when the job has reduces. */
  private static final float MAP_PHASE_WEIGHT = 0.667f;

  private JobId jobId;
  private PspPlanner<TaskAttemptId> planner;
  private PrefetchDispatcher<TaskAttemptId> dispatcher;
  /** Maps holding a container, with when they got it. */
  private final Map<TaskAttemptId, Long> placedAt = new HashMap<>();
  /** Each running map's first observed progress: the base of its rate. */
  private final Map<TaskAttemptId, FirstSeen> firstProgress = new HashMap<>();

  private record FirstSeen(long ms, float progress) {}

  public PspContainerAllocator(ClientService clientService, AppContext context,
      AMPreemptionPolicy preemptionPolicy) {
    super(clientService, context, preemptionPolicy);
  }

  @Override
  protected void serviceInit(Configuration conf) throws Exception {
    super.serviceInit(conf);
    // Bad values fail the AM here, naming the key.
    PspPlanner.Settings settings = new PspPlanner.Settings(
        AccelConfiguration.getBytes(conf, PspConfigKeys.AHEAD_BYTES),
        AccelConfiguration.getInt(conf, PspConfigKeys.LEAD_MS),
        AccelConfiguration.getBytes(conf, PspConfigKeys.READ_BYTES_PER_SEC),
        64,
        AccelConfiguration.getBoolean(conf, PspConfigKeys.PREFETCH_ON_LAUNCH));
    jobId = getContext().getAllJobs().keySet().iterator().next();
    MapInputs inputs;
    try {
      inputs = new MapInputs(conf, TypeConverter.fromYarn(jobId),
          new Path(conf.get(MRJobConfig.MAPREDUCE_JOB_DIR)));
    } catch (IOException | RuntimeException e) {
      LOG.warn("PSP off for this job (cannot read its splits: {}): maps are scheduled as stock",
          e.toString());
      return;
    }
    dispatcher = new PrefetchDispatcher<>(conf, id -> inputs.requests(index(id)),
        UserGroupInformation.getCurrentUser());
    planner = new PspPlanner<>(settings, dispatcher, id -> inputs.bytes(index(id)),
        (counter, value) -> {
          JobCounterUpdateEvent e = new JobCounterUpdateEvent(jobId);
          e.addCounterUpdate(counter, value);
          eventHandler.handle(e);
        });
    LOG.info("PSP on: predicting each node's next maps and prefetching their input through "
        + "the DataNodes' prefetchers on port {}",
        AccelConfiguration.getInt(conf, PspConfigKeys.PREFETCH_PORT));
  }

  private static int index(TaskAttemptId id) {
    return id.getTaskId().getId();
  }

  @Override
  protected synchronized void handleEvent(ContainerAllocatorEvent event) {
    if (planner == null) {
      super.handleEvent(event);
      return;
    }
    if (event.getType() == ContainerAllocator.EventType.CONTAINER_REQ
        && event.getAttemptID().getTaskId().getTaskType() == TaskType.MAP) {
      ContainerRequestEvent req = (ContainerRequestEvent) event;
      if (!req.getEarlierAttemptFailed()) {
        String host = planner.plan(req.getAttemptID(), req.getHosts(),
            Arrays.asList(req.getRacks()));
        if (host != null && req.getHosts().length > 1) {
          event = new ContainerRequestEvent(req.getAttemptID(), req.getCapability(),
              new String[] {host}, req.getRacks());
        }
      }
    } else if (event.getType() == ContainerAllocator.EventType.CONTAINER_DEALLOCATE
        && event.getAttemptID().getTaskId().getTaskType() == TaskType.MAP
        && !placedAt.containsKey(event.getAttemptID())) {
      planner.withdraw(event.getAttemptID());
    }
    super.handleEvent(event);
  }

  @Override
  protected synchronized void heartbeat() throws Exception {
    super.heartbeat();
    if (planner == null) {
      return;
    }
    try {
      observeAndPredict(System.currentTimeMillis());
    } catch (RuntimeException e) {
      // The predictor must never take the allocator down: stock scheduling goes on.
      LOG.warn("PSP prediction round failed; this heartbeat schedules as stock", e);
    }
  }

  private void observeAndPredict(long now) {
    Map<TaskAttemptId, Container> assigned = getAssignedRequests().maps;
    for (Map.Entry<TaskAttemptId, Container> e : assigned.entrySet()) {
      if (!placedAt.containsKey(e.getKey())) {
        placedAt.put(e.getKey(), now);
        planner.placed(e.getKey(), e.getValue().getNodeId().getHost(), now);
      }
    }
    Map<String, List<PspPlanner.Running>> running = new HashMap<>();
    Iterator<Map.Entry<TaskAttemptId, Long>> it = placedAt.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<TaskAttemptId, Long> e = it.next();
      TaskAttempt attempt = attempt(e.getKey());
      Container c = assigned.get(e.getKey());
      if (c == null) { // its container finished
        it.remove();
        firstProgress.remove(e.getKey());
        if (attempt != null && attempt.getState() == TaskAttemptState.SUCCEEDED
            && attempt.getNodeId() != null) {
          planner.finished(attempt.getNodeId().getHost(), now - e.getValue());
        }
        continue;
      }
      long launch = attempt != null && attempt.getLaunchTime() > 0
          ? attempt.getLaunchTime() : e.getValue();
      float progress = attempt == null ? 0f : inputProgress(attempt);
      long start = launch;
      if (progress >= LaunchEstimate.MIN_PROGRESS) {
        FirstSeen first = firstProgress.computeIfAbsent(e.getKey(),
            k -> new FirstSeen(now, progress));
        start = LaunchEstimate.rateStart(launch, first.ms(), first.progress(), now, progress);
      }
      running.computeIfAbsent(c.getNodeId().getHost(), h -> new ArrayList<>())
          .add(new PspPlanner.Running(start, progress));
    }
    planner.tick(now, running, host -> RackResolver.resolve(host).getNetworkLocation());
  }

  /**
   * How far a map is through its input. With reduces, MapTask weighs its map phase 0.667 and its
   * sort phase (the final merge) the rest, so a map still reading reports at most 0.667: taken
   * as is, every finish was predicted half a map too late, and requests timed on it went out as
   * the slot freed (measured in xie-psp: 10 of 18 predictions late, the third wave all of
   * them). A map in its sort phase has read its input and is taken as finishing.
   */
  private float inputProgress(TaskAttempt attempt) {
    float p = attempt.getProgress();
    if (getJob().getTotalReduces() == 0) {
      return p;
    }
    Phase phase = attempt.getPhase();
    if (phase == Phase.MAP) {
      return Math.min(1f, p / MAP_PHASE_WEIGHT);
    }
    return phase == Phase.SORT ? 1f : p;
  }

  private TaskAttempt attempt(TaskAttemptId id) {
    Task task = getJob().getTask(id.getTaskId());
    return task == null ? null : task.getAttempt(id);
  }

  @Override
  protected void serviceStop() throws Exception {
    if (planner != null) {
      LOG.info(planner.summary());
    }
    if (dispatcher != null) {
      dispatcher.close();
    }
    super.serviceStop();
  }
}
