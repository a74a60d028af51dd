package io.hadoopaccel.hdfs.hetero;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;
import org.apache.hadoop.mapred.TIPStatus;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.TaskReport;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.NullOutputFormat;

/**
 * The seed's profiling procedure (section 3.3.1) as one map-only probe job: every live DataNode
 * runs the application's Mapper over the same sample file, read locally; a node's computing
 * ratio is its median map-attempt run time over the fastest node's.
 *
 * <p><b>One job for all nodes</b>, where the seed runs the application on each node in turn: a
 * single job runs every node under the same conditions at the same time (same job set-up, same
 * cluster load, same caches' state) and takes one job's time instead of N. The caveat: a node
 * that runs more probe maps at once than another (more containers: more memory or vcores
 * offered to YARN) shares its CPU and disks among them and looks slower per attempt. Give every
 * NodeManager the same number of containers for the probe (or queue so), or use
 * {@code -splits-per-node} no larger than the smallest node's container count.
 *
 * <p>To make every read local, the sample's replication is raised to the number of live
 * DataNodes before the job (and restored after it): each split names one node as its only
 * location, and wherever the scheduler runs it, that node holds a replica. Attempts are
 * attributed to the node they <i>ran</i> on (task completion events), not the one their split
 * asked for.
 *
 * <p><b>A node that ran no probe attempt</b> is an error naming it (suggesting more splits per
 * node, or checking that a NodeManager runs there): a node left out of a profile would be
 * treated as the fastest (ratio 1). With {@code skipMissing} it is only warned about and left
 * out.
 */
public final class ActiveProfiler {

  /** A profiling run that cannot give a usable profile; the message says why. */
  public static final class ProfilerException extends IOException {
    private static final long serialVersionUID = 1L;

    ProfilerException(String message) {
      super(message);
    }
  }

  /** What one probe job measured. */
  public static final class Result {
    final String jobId;
    final Map<String, Double> ratios;
    final Map<String, List<Long>> times;
    final List<String> missing;
    final long dataLocalMaps;
    final long launchedMaps;

    Result(String jobId, Map<String, Double> ratios, Map<String, List<Long>> times,
        List<String> missing, long dataLocalMaps, long launchedMaps) {
      this.jobId = jobId;
      this.ratios = ratios;
      this.times = times;
      this.missing = missing;
      this.dataLocalMaps = dataLocalMaps;
      this.launchedMaps = launchedMaps;
    }

    public String jobId() {
      return jobId;
    }

    /** Node (DataNode host name) to computing ratio. */
    public Map<String, Double> ratios() {
      return ratios;
    }

    /** Node to the run times (ms) of its successful probe attempts. */
    public Map<String, List<Long>> times() {
      return times;
    }

    /** Live DataNodes that ran no probe attempt (only with skipMissing). */
    public List<String> missing() {
      return missing;
    }

    public long dataLocalMaps() {
      return dataLocalMaps;
    }

    public long launchedMaps() {
      return launchedMaps;
    }
  }

  private final Configuration conf;
  private final PrintStream log;
  private int splitsPerNode = 2;
  private Class<? extends FileInputFormat> inputFormat;
  private boolean skipMissing;
  private long replicationWaitMs = 600_000;

  public ActiveProfiler(Configuration conf, PrintStream log) {
    this.conf = conf;
    this.log = log;
  }

  public ActiveProfiler splitsPerNode(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("splits per node must be at least 1: " + k);
    }
    this.splitsPerNode = k;
    return this;
  }

  public ActiveProfiler inputFormat(Class<? extends FileInputFormat> cls) {
    this.inputFormat = cls;
    return this;
  }

  public ActiveProfiler skipMissing(boolean skip) {
    this.skipMissing = skip;
    return this;
  }

  public ActiveProfiler replicationWaitMs(long ms) {
    this.replicationWaitMs = ms;
    return this;
  }

  /** Runs the probe job over {@code sample} with {@code mapper}; the ratios are not saved. */
  public Result run(Path sample, Class<? extends Mapper> mapper, String name)
      throws IOException, InterruptedException, ClassNotFoundException {
    FileSystem fs = sample.getFileSystem(conf);
    if (!(fs instanceof DistributedFileSystem)) {
      throw new ProfilerException("the sample " + sample + " must be on HDFS (it is on "
          + fs.getUri() + ")");
    }
    DistributedFileSystem dfs = (DistributedFileSystem) fs;
    FileStatus st = dfs.getFileStatus(sample);
    if (!st.isFile() || st.getLen() == 0) {
      throw new ProfilerException("the sample " + sample + " must be a non-empty file");
    }
    if (st.isErasureCoded()) {
      throw new ProfilerException("the sample " + sample
          + " is erasure-coded: every node must be able to hold a full replica");
    }
    DatanodeInfo[] live = dfs.getDataNodeStats(DatanodeReportType.LIVE);
    if (live.length == 0) {
      throw new ProfilerException("no live DataNode");
    }
    Set<String> hosts = new LinkedHashSet<>();
    Map<String, String> hostByIp = new TreeMap<>();
    for (DatanodeInfo dn : live) {
      hosts.add(dn.getHostName());
      hostByIp.put(dn.getIpAddr(), dn.getHostName());
    }
    short original = st.getReplication();
    short everywhere = (short) Math.min(Short.MAX_VALUE, live.length);
    boolean raised = original < everywhere;
    try {
      if (raised) {
        log.printf("Raising the replication of %s from %d to %d (one replica per DataNode)%n",
            st.getPath(), original, everywhere);
        dfs.setReplication(st.getPath(), everywhere);
        awaitReplicas(dfs, st, everywhere);
      }
      Job job = probeJob(st.getPath(), mapper, name, hosts);
      job.submit();
      log.printf("Probe job %s: %s over %s (%d bytes), %d node(s) x %d split(s)%n",
          job.getJobID(), mapper.getName(), st.getPath(), st.getLen(), hosts.size(),
          splitsPerNode);
      awaitJob(job);
      if (!job.isSuccessful()) {
        throw new ProfilerException("probe job " + job.getJobID() + " did not succeed ("
            + job.getJobState() + "): " + job.getStatus().getFailureInfo());
      }
      return collect(job, hosts, hostByIp);
    } finally {
      if (raised) {
        dfs.setReplication(st.getPath(), original);
        log.printf("Restored the replication of %s to %d%n", st.getPath(), original);
      }
    }
  }

  private Job probeJob(Path sample, Class<? extends Mapper> mapper, String name,
      Set<String> hosts) throws IOException {
    Job job = Job.getInstance(new Configuration(conf), "hetero-profile " + name);
    Configuration jc = job.getConfiguration();
    jc.set(ProbeInputFormat.SAMPLE, sample.toString());
    jc.setStrings(ProbeInputFormat.HOSTS, hosts.toArray(new String[0]));
    jc.setInt(ProbeInputFormat.SPLITS_PER_NODE, splitsPerNode);
    if (inputFormat != null) {
      jc.setClass(ProbeInputFormat.DELEGATE, inputFormat, FileInputFormat.class);
    }
    // A speculative duplicate would run the same split on another node: wasted, and noise.
    jc.setBoolean(MRJobConfig.MAP_SPECULATIVE, false);
    job.setJarByClass(mapper);
    shipOwnJar(jc);
    job.setMapperClass(mapper);
    job.setNumReduceTasks(0);
    job.setInputFormatClass(ProbeInputFormat.class);
    job.setOutputFormatClass(NullOutputFormat.class);
    return job;
  }

  /** Tasks need ProbeInputFormat: ship the jar it came from, like -libjars would. */
  private static void shipOwnJar(Configuration jc) {
    try {
      File jar = new File(ProbeInputFormat.class.getProtectionDomain().getCodeSource()
          .getLocation().toURI());
      if (jar.isFile() && jar.getName().endsWith(".jar")) {
        String uri = jar.toURI().toString();
        String tmp = jc.get("tmpjars");
        jc.set("tmpjars", tmp == null || tmp.isEmpty() ? uri : tmp + "," + uri);
      }
    } catch (URISyntaxException | SecurityException | NullPointerException e) {
      // Not from a local jar (tests run from classes/): the class path has it already.
    }
  }

  /**
   * Waits for the probe job as {@code waitForCompletion} would, printing a timestamped line of
   * tasks done and left whenever they change.
   */
  private void awaitJob(Job job) throws IOException, InterruptedException {
    int pollMs = Job.getCompletionPollInterval(job.getConfiguration());
    String last = null;
    while (true) {
      boolean complete = job.isComplete(); // before the reports: the last line is final
      int done = 0;
      int running = 0;
      TaskReport[] maps = job.getTaskReports(TaskType.MAP);
      for (TaskReport t : maps) {
        if (t.getCurrentStatus() == TIPStatus.COMPLETE) {
          done++;
        } else if (t.getCurrentStatus() == TIPStatus.RUNNING) {
          running++;
        }
      }
      String counts = done + "/" + running + "/" + maps.length;
      if (maps.length > 0 && !counts.equals(last)) {
        log.println(ProgressLine.profiler(Instant.now(), job.getJobID().toString(), done,
            running, maps.length));
        last = counts;
      }
      if (complete) {
        return;
      }
      Thread.sleep(pollMs);
    }
  }

  /** Polls the NameNode until every block of {@code st} has {@code n} replicas. */
  private void awaitReplicas(DistributedFileSystem dfs, FileStatus st, int n)
      throws IOException, InterruptedException {
    long deadline = System.currentTimeMillis() + replicationWaitMs;
    while (true) {
      int fewest = Integer.MAX_VALUE;
      for (BlockLocation b : dfs.getFileBlockLocations(st.getPath(), 0, st.getLen())) {
        fewest = Math.min(fewest, b.getNames().length);
      }
      if (fewest >= n) {
        return;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new ProfilerException("the sample " + st.getPath() + " did not reach " + n
            + " replicas within " + replicationWaitMs / 1000 + " s (a block has " + fewest
            + "): is every DataNode able to take it? (-wait SECONDS waits longer)");
      }
      Thread.sleep(500);
    }
  }

  private Result collect(Job job, Set<String> hosts, Map<String, String> hostByIp)
      throws IOException, InterruptedException {
    MapAttempts.Result attempts = MapAttempts.of(job);
    if (attempts.notFirstAttempt + attempts.incomplete > 0) {
      log.printf("NOTE: %d probe map(s) left out: %d succeeded only on a retry, %d without a "
          + "node or run time in the job's reports%n",
          attempts.notFirstAttempt + attempts.incomplete, attempts.notFirstAttempt,
          attempts.incomplete);
    }
    List<String> missing = new ArrayList<>();
    Map<String, List<Long>> times = timesByDataNode(attempts.observations, hosts, hostByIp,
        skipMissing, job.getJobID().toString(), log, missing);
    long local = job.getCounters().findCounter(JobCounter.DATA_LOCAL_MAPS).getValue();
    long launched = job.getCounters().findCounter(JobCounter.TOTAL_LAUNCHED_MAPS).getValue();
    if (local < launched) {
      log.printf("NOTE: %d of %d probe maps ran away from the node their split named; each "
          + "still counts for the node it ran on, which holds a replica of the sample%n",
          launched - local, launched);
    }
    return new Result(job.getJobID().toString(), ComputingRatios.fromResponseTimes(times),
        times, Collections.unmodifiableList(missing), local, launched);
  }

  /**
   * Run times per DataNode host, attributing each observation to the DataNode on the machine
   * it ran on; observations from machines without a DataNode are ignored with a warning.
   *
   * @param missing receives the DataNode hosts without any observation
   * @throws ProfilerException naming them, if there are any and {@code skipMissing} is off
   */
  static Map<String, List<Long>> timesByDataNode(List<ComputingRatios.Observation> obs,
      Set<String> hosts, Map<String, String> hostByIp, boolean skipMissing, String jobId,
      PrintStream log, List<String> missing) throws ProfilerException {
    Map<String, List<Long>> times = new LinkedHashMap<>();
    for (String h : hosts) {
      times.put(h, new ArrayList<>());
    }
    for (ComputingRatios.Observation o : obs) {
      String host = dataNodeHost(o.host(), hosts, hostByIp);
      if (host == null) {
        log.printf("WARNING: probe attempt on %s ignored: no DataNode runs there, so it did "
            + "not read the sample locally%n", o.host());
      } else {
        times.get(host).add(o.millis());
      }
    }
    times.forEach((h, t) -> {
      if (t.isEmpty()) {
        missing.add(h);
      }
    });
    if (!missing.isEmpty()) {
      String msg = "no probe attempt ran on " + String.join(", ", missing) + " (job " + jobId
          + "): check that a NodeManager runs there and can get containers, or raise "
          + "-splits-per-node";
      if (!skipMissing) {
        throw new ProfilerException(msg + "; -skip-missing leaves such nodes out (the NameNode"
            + " then gives them ratio 1)");
      }
      log.println("WARNING: " + msg + "; left out of the profile (-skip-missing)");
      times.keySet().removeAll(missing);
    }
    return times;
  }

  /** The DataNode host an attempt's NodeManager host is, by name or by address. */
  static String dataNodeHost(String nmHost, Set<String> hosts, Map<String, String> hostByIp) {
    if (hosts.contains(nmHost)) {
      return nmHost;
    }
    String byIp = hostByIp.get(nmHost);
    if (byIp != null) {
      return byIp;
    }
    try {
      for (InetAddress a : InetAddress.getAllByName(nmHost)) {
        byIp = hostByIp.get(a.getHostAddress());
        if (byIp != null) {
          return byIp;
        }
      }
    } catch (UnknownHostException e) {
      // not resolvable: no match
    }
    return null;
  }
}
