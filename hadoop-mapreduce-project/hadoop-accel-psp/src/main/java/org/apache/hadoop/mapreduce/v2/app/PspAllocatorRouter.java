package org.apache.hadoop.mapreduce.v2.app;

import java.util.function.Supplier;
import org.apache.hadoop.mapreduce.v2.app.job.Job;
import org.apache.hadoop.mapreduce.v2.app.rm.ContainerAllocator;
import org.apache.hadoop.mapreduce.v2.app.rm.ContainerAllocatorEvent;
import org.apache.hadoop.mapreduce.v2.app.rm.RMHeartbeatHandler;
import org.apache.hadoop.service.AbstractService;
import org.apache.hadoop.service.Service;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks the allocator once the job is known, as the stock router does: an uber job keeps the
 * stock router (its maps run in the AM), any other job gets PSP's allocator.
 */
final class PspAllocatorRouter extends AbstractService
    implements ContainerAllocator, RMHeartbeatHandler {
  private static final Logger LOG = LoggerFactory.getLogger(PspAllocatorRouter.class);

  private final ContainerAllocator stock;
  private final Supplier<ContainerAllocator> psp;
  private final AppContext context;
  private volatile ContainerAllocator chosen;

  PspAllocatorRouter(ContainerAllocator stock, Supplier<ContainerAllocator> psp,
      AppContext context) {
    super(PspAllocatorRouter.class.getName());
    this.stock = stock;
    this.psp = psp;
    this.context = context;
  }

  @Override
  protected void serviceStart() throws Exception {
    Job job = context.getAllJobs().values().iterator().next();
    if (job.isUber()) {
      LOG.info("PSP off: uber job, its maps run inside the AM");
      chosen = stock;
    } else {
      chosen = psp.get();
    }
    ((Service) chosen).init(getConfig());
    ((Service) chosen).start();
    super.serviceStart();
  }

  @Override
  protected void serviceStop() throws Exception {
    if (chosen != null) {
      ((Service) chosen).stop();
    }
    super.serviceStop();
  }

  @Override
  public void handle(ContainerAllocatorEvent event) {
    chosen.handle(event);
  }

  @Override
  public long getLastHeartbeatTime() {
    return ((RMHeartbeatHandler) chosen).getLastHeartbeatTime();
  }

  @Override
  public void runOnNextHeartbeat(Runnable callback) {
    ((RMHeartbeatHandler) chosen).runOnNextHeartbeat(callback);
  }
}
