package org.apache.hadoop.mapreduce.v2.app;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.v2.app.client.ClientService;
import org.apache.hadoop.mapreduce.v2.app.rm.ContainerAllocator;
import org.apache.hadoop.mapreduce.v2.app.rm.PspContainerAllocator;
import org.apache.hadoop.mapreduce.v2.util.MRWebAppUtil;
import org.apache.hadoop.util.ExitUtil;
import org.apache.hadoop.util.ShutdownHookManager;
import org.apache.hadoop.yarn.YarnUncaughtExceptionHandler;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.ApplicationConstants.Environment;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ADAPTER: the MapReduce AM with PSP's allocator. The switch: end
 * {@code yarn.app.mapreduce.am.command-opts} with this class's name, so the AM's java command
 * runs it instead of MRAppMaster (which then is only an ignored argument), as Celeborn and
 * Uniffle launch their AMs. Lives in MRAppMaster's package for its package-private shutdown hook.
 */
public class PspMRAppMaster extends MRAppMaster {
  private static final Logger LOG = LoggerFactory.getLogger(PspMRAppMaster.class);

  public PspMRAppMaster(ApplicationAttemptId appAttemptId, ContainerId containerId,
      String nmHost, int nmPort, int nmHttpPort, long appSubmitTime) {
    super(appAttemptId, containerId, nmHost, nmPort, nmHttpPort, appSubmitTime);
  }

  private volatile PspAllocatorRouter router;

  @Override
  protected ContainerAllocator createContainerAllocator(ClientService clientService,
      AppContext context) {
    // Uber jobs run their maps inside the AM: nothing to predict, the stock router decides.
    router = new PspAllocatorRouter(super.createContainerAllocator(clientService, context),
        () -> new PspContainerAllocator(clientService, context,
            createPreemptionPolicy(getConfig())),
        context);
    return router;
  }

  /** Stock tells its own router; ours must hear it too, or a non-last attempt unregisters. */
  @Override
  public void notifyIsLastAMRetry(boolean isLastAMRetry) {
    super.notifyIsLastAMRetry(isLastAMRetry);
    PspAllocatorRouter r = router;
    if (r != null) {
      r.setShouldUnregister(isLastAMRetry);
    }
  }

  /** What stock's shutdown hook does to its router, for ours: runs just before that hook. */
  private void signalled() {
    PspAllocatorRouter r = router;
    if (r != null) {
      r.setSignalled(true);
    }
  }

  /** Set by {@link #main}: this JVM is the AM's, so the AM ends it (stock's flag is private). */
  private static volatile boolean startedByMain;

  /**
   * Stock exits the JVM at the end of {@code shutDownJob} only when its own main started it;
   * under ours it disables System.exit instead and returns. Exit as stock would, with the status
   * it tried to exit with (1 when the shutdown failed), so the NodeManager sees it.
   */
  @Override
  public void shutDownJob() {
    super.shutDownJob();
    if (startedByMain) {
      ExitUtil.ExitException exit = ExitUtil.getFirstExitException();
      ExitUtil.enableSystemExit();
      ExitUtil.terminate(exit != null ? exit.getExitCode() : 0);
    }
  }

  /** The AM's entry point: what MRAppMaster's main does, with this class. */
  public static void main(String[] args) {
    startedByMain = true;
    Thread.setDefaultUncaughtExceptionHandler(new YarnUncaughtExceptionHandler());
    try {
      ContainerId containerId = ContainerId.fromString(env(Environment.CONTAINER_ID.name()));
      PspMRAppMaster am = new PspMRAppMaster(containerId.getApplicationAttemptId(), containerId,
          env(Environment.NM_HOST.name()), Integer.parseInt(env(Environment.NM_PORT.name())),
          Integer.parseInt(env(Environment.NM_HTTP_PORT.name())),
          Long.parseLong(env(ApplicationConstants.APP_SUBMIT_TIME_ENV)));
      ShutdownHookManager.get().addShutdownHook(new MRAppMasterShutdownHook(am),
          SHUTDOWN_HOOK_PRIORITY);
      ShutdownHookManager.get().addShutdownHook(am::signalled, SHUTDOWN_HOOK_PRIORITY + 1);
      JobConf conf = new JobConf(new YarnConfiguration());
      conf.addResource(new Path(MRJobConfig.JOB_CONF_FILE));
      MRWebAppUtil.initialize(conf);
      String user = env(Environment.USER.name());
      conf.set(MRJobConfig.USER_NAME, user);
      initAndStartAppMaster(am, conf, user);
    } catch (Throwable t) {
      LOG.error("Error starting PspMRAppMaster", t);
      ExitUtil.terminate(1, t);
    }
  }

  private static String env(String name) {
    String v = System.getenv(name);
    if (v == null) {
      throw new IllegalStateException(name + " is not set: not started by YARN as an AM");
    }
    return v;
  }
}
