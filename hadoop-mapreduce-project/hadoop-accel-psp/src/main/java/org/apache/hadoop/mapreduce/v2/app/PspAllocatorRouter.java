package org.apache.hadoop.mapreduce.v2.app;

import java.util.function.Supplier;
import org.apache.hadoop.mapreduce.v2.app.job.Job;
import org.apache.hadoop.mapreduce.v2.app.rm.ContainerAllocator;
import org.apache.hadoop.mapreduce.v2.app.rm.ContainerAllocatorEvent;
import org.apache.hadoop.mapreduce.v2.app.rm.RMCommunicator;
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
  /** What the AM told us before an allocator was chosen (null: nothing). */
  private Boolean signalled;
  private Boolean shouldUnregister;

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
    synchronized (this) {
      forward();
    }
    ((Service) chosen).start();
    super.serviceStart();
  }

  /**
   * The AM was signalled (SIGTERM): stock's shutdown hook tells its own router this, which it
   * cannot see behind ours, so PSP's AM forwards it here.
   */
  synchronized void setSignalled(boolean value) {
    signalled = value;
    forward();
  }

  /** Whether the allocator unregisters at stop: only on the AM's last attempt. */
  synchronized void setShouldUnregister(boolean value) {
    shouldUnregister = value;
    forward();
  }

  // Reaches PSP's allocator only: stock's router (uber jobs) is private to MRAppMaster.
  private void forward() {
    ContainerAllocator c = chosen;
    if (c instanceof RMCommunicator) {
      RMCommunicator r = (RMCommunicator) c;
      if (signalled != null) {
        r.setSignalled(signalled);
      }
      if (shouldUnregister != null) {
        r.setShouldUnregister(shouldUnregister);
      }
    }
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
