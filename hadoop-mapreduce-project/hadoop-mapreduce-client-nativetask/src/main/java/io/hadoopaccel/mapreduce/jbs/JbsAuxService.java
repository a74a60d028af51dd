package io.hadoopaccel.mapreduce.jbs;

import io.hadoopaccel.common.daemon.SupervisedDaemon;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.apache.hadoop.yarn.server.api.ApplicationTerminationContext;
import org.apache.hadoop.yarn.server.api.AuxiliaryService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NodeManager aux service {@code jbs_shuffle} (DESIGN.md §1, §4): starts and supervises this
 * node's {@code jbs_mof_supplier} and {@code jbs_net_merger}, and tells both of every job
 * ({@code ADD_JOB <job> <user> <hex secret>}, {@code REMOVE_JOB <job>}). The job secret comes
 * from this service's application data when it carries the token (serialized as for stock
 * ShuffleHandler), else from {@link JbsShuffleHandler} in the same NodeManager (Hadoop 3.5.0's
 * ApplicationMaster gives other shuffle providers an empty buffer). A missing executable is one
 * ERROR line: the service stays up, reduces fall back to stock shuffle.
 */
public class JbsAuxService extends AuxiliaryService implements JbsJobTokens.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(JbsAuxService.class);
  private static final long REPLY_TIMEOUT_MS = 10_000;
  private static final long STOP_GRACE_MS = 5_000;

  private JbsConfig cfg;
  private List<String> localDirs;
  private SupervisedDaemon supplier;
  private SupervisedDaemon merger;
  private JbsMetrics metrics;
  /** job id -> ADD_JOB arguments (user and hex secret), for re-sending after a restart. */
  private final Map<String, String> jobs = new ConcurrentHashMap<>();
  /** Started instances in this JVM (tests reach the daemons of a mini cluster's NodeManager). */
  static final java.util.Set<JbsAuxService> STARTED = ConcurrentHashMap.newKeySet();

  public JbsAuxService() {
    super(JbsConfig.SERVICE_NAME);
  }

  @Override
  protected void serviceInit(Configuration conf) throws Exception {
    cfg = JbsConfig.from(conf); // bad values stop the NodeManager here, naming the key
    localDirs = localDirs(conf);
    super.serviceInit(conf);
  }

  static List<String> localDirs(Configuration conf) {
    String[] dirs = conf.getTrimmedStrings("yarn.nodemanager.local-dirs");
    List<String> out = new ArrayList<>();
    if (dirs.length == 0) {
      out.add(conf.get("hadoop.tmp.dir", "/tmp") + "/nm-local-dir");
    }
    for (String d : dirs) {
      out.add(new Path(d).toUri().getPath());
    }
    return out;
  }

  @Override
  protected void serviceStart() throws Exception {
    JbsJobTokens.addListener(this);
    STARTED.add(this);
    // Registered even without daemons: /jmx then shows them down.
    metrics = JbsMetrics.register(() -> supplier, () -> merger);
    File supplierBin = cfg.supplierBinary();
    File mergerBin = cfg.mergerBinary();
    if (!SupervisedDaemon.executable(supplierBin) || !SupervisedDaemon.executable(mergerBin)) {
      LOG.error("JBS native shuffle is off on this node: {} not found or not executable (set "
          + JbsConfigKeys.NATIVE_DIR + "); reduces here run stock shuffle",
          !SupervisedDaemon.executable(supplierBin) ? supplierBin : mergerBin);
      super.serviceStart();
      return;
    }
    List<String> spillDirs = new ArrayList<>();
    for (String d : localDirs) {
      File spill = new File(d, "jbs-spill");
      if (spill.isDirectory() || spill.mkdirs()) {
        spillDirs.add(spill.getPath());
      }
    }
    supplier = new SupervisedDaemon(JbsConfig.SUPPLIER_BINARY,
        previous -> cfg.supplierCommand(supplierBin,
            previous == null ? cfg.supplierPort : parsePort(previous), localDirs),
        cfg.readyTimeoutMs, REPLY_TIMEOUT_MS, cfg.restartBackoffMs,
        () -> resendJobs(supplier));
    merger = new SupervisedDaemon(JbsConfig.MERGER_BINARY,
        previous -> cfg.mergerCommand(mergerBin, spillDirs),
        cfg.readyTimeoutMs, REPLY_TIMEOUT_MS, cfg.restartBackoffMs,
        () -> resendJobs(merger));
    for (SupervisedDaemon d : new SupervisedDaemon[] {supplier, merger}) {
      d.setWhenGivenUp("JBS native shuffle is off on this node: reduces here run stock shuffle;"
          + " other nodes' reduces fall back to stock shuffle when their NetMerger cannot"
          + " connect here.");
    }
    startDaemon(supplier);
    startDaemon(merger);
    super.serviceStart();
  }

  private static void startDaemon(SupervisedDaemon d) {
    try {
      if (!d.start()) {
        LOG.error("JBS native shuffle: could not start {}: {}; retrying in the background", d,
            d.lastStartFailure());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The port of a READY address ("13570" or "host:13570"). */
  static int parsePort(String address) {
    String p = address.substring(address.lastIndexOf(':') + 1).trim();
    return Integer.parseInt(p);
  }

  @Override
  protected void serviceStop() throws Exception {
    JbsJobTokens.removeListener(this);
    STARTED.remove(this);
    if (metrics != null) {
      JbsMetrics.unregister();
      metrics = null;
    }
    if (merger != null) {
      merger.stop(STOP_GRACE_MS);
    }
    if (supplier != null) {
      supplier.stop(STOP_GRACE_MS);
    }
    super.serviceStop();
  }

  static String jobId(ApplicationId app) {
    return new JobID(Long.toString(app.getClusterTimestamp()), app.getId()).toString();
  }

  @Override
  public void initializeApplication(ApplicationInitializationContext context) {
    ApplicationId app = context.getApplicationId();
    ByteBuffer data = context.getApplicationDataForService();
    if (data != null && data.hasRemaining()) {
      try {
        // As stock ShuffleHandler.initializeApplication reads its service data.
        Token<JobTokenIdentifier> jt = ShuffleHandler.deserializeServiceData(data.duplicate());
        addJob(app, context.getUser(), jt.getPassword());
      } catch (IOException e) {
        LOG.error("JBS: cannot read the job token of " + app, e);
      }
      return;
    }
    JbsJobTokens.Entry e = JbsJobTokens.get(app);
    if (e != null) {
      addJob(app, e.user, e.secret);
    }
    // else JbsShuffleHandler publishes it (jobSecret below), or nobody does: then the
    // daemons never learn of the job and its reduces fall back when REGISTER is refused.
  }

  @Override
  public void jobSecret(ApplicationId app, String user, byte[] secret) {
    addJob(app, user, secret);
  }

  /*
   * ADD_JOB / REMOVE_JOB are queued to each daemon's control thread (the NodeManager's
   * dispatcher calls us and must not wait up to the reply timeout per daemon). The lock keeps
   * the order of the queued commands that of the changes to `jobs`, so a REMOVE_JOB never
   * overtakes its ADD_JOB, also not one re-sent after a restart.
   */
  private final Object jobsLock = new Object();

  private void addJob(ApplicationId app, String user, byte[] secret) {
    String job = jobId(app);
    String args = user + " " + ReducerProtocol.hex(secret);
    synchronized (jobsLock) {
      if (args.equals(jobs.put(job, args))) {
        return; // every container of the job repeats the application init
      }
      send(supplier, "ADD_JOB " + job + " " + args);
      send(merger, "ADD_JOB " + job + " " + args);
    }
  }

  @Override
  public void stopApplication(ApplicationTerminationContext context) {
    String job = jobId(context.getApplicationId());
    synchronized (jobsLock) {
      if (jobs.remove(job) != null) {
        send(supplier, "REMOVE_JOB " + job);
        send(merger, "REMOVE_JOB " + job);
      }
    }
  }

  private void resendJobs(SupervisedDaemon d) {
    synchronized (jobsLock) {
      for (Map.Entry<String, String> e : jobs.entrySet()) {
        send(d, "ADD_JOB " + e.getKey() + " " + e.getValue());
      }
    }
  }

  private static void send(SupervisedDaemon d, String line) {
    if (d != null) {
      d.submit(line);
    }
  }

  /**
   * The supplier's TCP port as ShuffleHandler serializes its own (an int): the port it is READY
   * on, else the configured one. Never null: the NodeManager refuses to launch any container
   * whose service data names an aux service without metadata, so jobs that list jbs_shuffle in
   * mapreduce.job.shuffle.provider.services must still run (on stock shuffle) when the daemons
   * are missing.
   */
  @Override
  public ByteBuffer getMetaData() {
    SupervisedDaemon s = supplier;
    int port = cfg == null ? 0 : cfg.supplierPort;
    if (s != null && s.address() != null) {
      try {
        port = parsePort(s.address());
      } catch (NumberFormatException e) {
        // keep the configured port
      }
    }
    try {
      return ShuffleHandler.serializeMetaData(port);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** For tests: the supervised daemons (null if not started). */
  SupervisedDaemon supplierDaemon() {
    return supplier;
  }

  SupervisedDaemon mergerDaemon() {
    return merger;
  }

  boolean hasJob(String job) {
    return jobs.containsKey(job);
  }
}
