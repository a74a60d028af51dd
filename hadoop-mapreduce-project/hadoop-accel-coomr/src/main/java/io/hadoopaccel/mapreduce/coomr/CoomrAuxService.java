package io.hadoopaccel.mapreduce.coomr;

import io.hadoopaccel.common.conf.AccelConfiguration;
import io.hadoopaccel.common.daemon.SupervisedDaemon;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.JobID;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.apache.hadoop.yarn.server.api.ApplicationTerminationContext;
import org.apache.hadoop.yarn.server.api.AuxiliaryService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NodeManager aux service {@code coomr}: starts and supervises this node's
 * {@code coomr_coordinator} (the shared pool of seed 002 §3.1) with {@link SupervisedDaemon},
 * and tells it when a job ends ({@code END_JOB <job>}), so that the job's dir in the pool goes.
 * A missing executable is one ERROR line: the service stays up, maps spill to disk as stock.
 */
public class CoomrAuxService extends AuxiliaryService {
  public static final String SERVICE_NAME = "coomr";
  static final String BINARY = "coomr_coordinator";
  private static final Logger LOG = LoggerFactory.getLogger(CoomrAuxService.class);
  private static final long READY_TIMEOUT_MS = 10_000;
  private static final long REPLY_TIMEOUT_MS = 10_000;
  private static final long RESTART_BACKOFF_MS = 1_000;
  private static final long STOP_GRACE_MS = 5_000;

  private Path socket;
  private String poolDir;
  private long poolBytes;
  private long blockSize;
  private boolean locs;
  private File binary;
  private SupervisedDaemon coordinator;
  /** The latest jobs ended here, oldest first: ended again in a restarted coordinator. */
  private final Set<String> endedJobs = new LinkedHashSet<>();
  private static final int ENDED_JOBS_KEPT = 1000;

  public CoomrAuxService() {
    super(SERVICE_NAME);
  }

  @Override
  protected void serviceInit(Configuration conf) throws Exception {
    // Bad values stop the NodeManager here, naming the key.
    socket = Paths.get(absolute(conf, CoomrConfigKeys.COORDINATOR_SOCKET));
    if (socket.toString().length() > 107) {
      throw new IllegalArgumentException("Invalid value '" + socket + "' for configuration key "
          + CoomrConfigKeys.COORDINATOR_SOCKET + ": longer than a UNIX socket path may be (107)");
    }
    poolDir = absolute(conf, CoomrConfigKeys.POOL_DIR);
    poolBytes = AccelConfiguration.getBytes(conf, CoomrConfigKeys.POOL_BYTES);
    blockSize = AccelConfiguration.getBytes(conf, CoomrConfigKeys.BLOCK_SIZE);
    locs = AccelConfiguration.getBoolean(conf, CoomrConfigKeys.LOCS);
    String dir = AccelConfiguration.get(conf, CoomrConfigKeys.NATIVE_DIR);
    binary = new File(dir == null || dir.isEmpty() ? SupervisedDaemon.hadoopBinDir()
        : new File(dir), BINARY);
    super.serviceInit(conf);
  }

  private static String absolute(Configuration conf, String key) {
    String v = AccelConfiguration.getString(conf, key);
    if (!v.startsWith("/")) {
      throw new IllegalArgumentException("Invalid value '" + v + "' for configuration key "
          + key + ": expected an absolute path");
    }
    return v;
  }

  @Override
  protected void serviceStart() throws Exception {
    if (!SupervisedDaemon.executable(binary)) {
      LOG.error("CooMR is off on this node: {} not found or not executable (set {}); maps here"
          + " spill to disk as stock", binary, CoomrConfigKeys.NATIVE_DIR);
    } else {
      makePrivateDir(socket.getParent());
      List<String> cmd = new ArrayList<>(List.of(binary.getPath(), "--socket",
          socket.toString(), "--pool-dir", poolDir, "--pool-bytes", Long.toString(poolBytes),
          "--block-size", Long.toString(blockSize)));
      if (locs) {
        cmd.add("--locs");
      }
      cmd.add("--supervised");
      // The first coordinator empties the pool (an earlier NodeManager's tasks are gone). One
      // restarted after a crash keeps it: it writes out the outputs handed over to the dead one,
      // and running maps go on reading their pooled spills (their later spills go to disk). A
      // job that ended while it was down is ended again, since that END_JOB was dropped.
      coordinator = new SupervisedDaemon(BINARY,
          previous -> previous == null ? cmd : withRecover(cmd), READY_TIMEOUT_MS,
          REPLY_TIMEOUT_MS, RESTART_BACKOFF_MS, this::endJobsAgain);
      coordinator.setWhenGivenUp("CooMR is off on this node: maps here spill to disk as stock.");
      try {
        if (!coordinator.start()) {
          LOG.error("CooMR: could not start {}: {}; retrying in the background", BINARY,
              coordinator.lastStartFailure());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    super.serviceStart();
  }

  private static List<String> withRecover(List<String> cmd) {
    List<String> recovering = new ArrayList<>(cmd);
    recovering.add(recovering.size() - 1, "--recover");
    return recovering;
  }

  private void endJobsAgain() {
    List<String> ended;
    synchronized (endedJobs) {
      ended = new ArrayList<>(endedJobs);
    }
    for (String job : ended) {
      coordinator.submit("END_JOB " + job);
    }
  }

  /** The socket's dir: made 0700 if missing; refused if a link or another user's. */
  static void makePrivateDir(Path dir) throws IOException {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      Files.createDirectories(dir,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }
    String me = System.getProperty("user.name");
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
        || !Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName().equals(me)) {
      throw new IOException(dir + " is not a directory of " + me
          + " (a link, or another user's): refusing to put the coordinator's socket there");
    }
  }

  @Override
  protected void serviceStop() throws Exception {
    if (coordinator != null) {
      coordinator.stop(STOP_GRACE_MS);
    }
    super.serviceStop();
  }

  @Override
  public void initializeApplication(ApplicationInitializationContext context) {
    // Tasks attach themselves; nothing to set up per job.
  }

  @Override
  public void stopApplication(ApplicationTerminationContext context) {
    ApplicationId app = context.getApplicationId();
    String job = new JobID(Long.toString(app.getClusterTimestamp()), app.getId()).toString();
    synchronized (endedJobs) {
      endedJobs.add(job);
      if (endedJobs.size() > ENDED_JOBS_KEPT) {
        endedJobs.remove(endedJobs.iterator().next());
      }
    }
    if (coordinator != null) {
      coordinator.submit("END_JOB " + job);
    }
  }

  @Override
  public ByteBuffer getMetaData() {
    return ByteBuffer.allocate(0);
  }

  /** For tests: the supervised coordinator (null if not started). */
  SupervisedDaemon coordinator() {
    return coordinator;
  }
}
