package io.hadoopaccel.hdfs.hetero;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;
import org.apache.hadoop.mapreduce.Cluster;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.JobStatus;

/**
 * Computing ratios derived passively from jobs that already ran (beyond the seed): every
 * successful map attempt of the given finished jobs is an observation of its node's throughput
 * (bytes read over run time; {@link ComputingRatios#fromThroughputs}). Finished jobs are found
 * through {@link Cluster#getJob}, i.e. the ResourceManager and the JobHistory server.
 *
 * <p>Unlike the active profiler, the nodes did not process the same data: the ratios are only
 * as good as the jobs are representative (same application, input read locally, splits large
 * enough that task start-up does not dominate, nodes not idle because there were too few maps).
 */
public final class PassiveDeriver {

  private final Configuration conf;
  private final PrintStream log;

  public PassiveDeriver(Configuration conf, PrintStream log) {
    this.conf = conf;
    this.log = log;
  }

  /**
   * The observations of every successful map attempt of {@code jobIds}.
   *
   * @throws IllegalArgumentException if an id is malformed (the message names it)
   * @throws ActiveProfiler.ProfilerException if a job is unknown or has not finished
   */
  public List<ComputingRatios.Observation> observe(List<String> jobIds)
      throws IOException, InterruptedException {
    List<JobID> ids = new ArrayList<>();
    for (String id : jobIds) {
      try {
        ids.add(JobID.forName(id));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("'" + id + "' is not a job id (job_<cluster>_<n>)");
      }
    }
    List<ComputingRatios.Observation> all = new ArrayList<>();
    Cluster cluster = new Cluster(conf);
    try {
      for (JobID id : ids) {
        Job job = cluster.getJob(id);
        if (job == null) {
          throw new ActiveProfiler.ProfilerException("job " + id + " not found (neither the "
              + "ResourceManager nor the JobHistory server knows it)");
        }
        if (!job.isComplete()) {
          throw new ActiveProfiler.ProfilerException("job " + id + " has not finished");
        }
        JobStatus.State state = job.getJobState();
        if (state != JobStatus.State.SUCCEEDED) {
          log.printf("NOTE: job %s %s; its successful map attempts still count%n", id,
              state.toString().toLowerCase(java.util.Locale.ROOT));
        }
        MapAttempts.Result r = MapAttempts.of(job);
        int noBytes = 0;
        for (ComputingRatios.Observation o : r.observations) {
          if (o.bytes() == 0) {
            noBytes++;
          }
        }
        StringBuilder left = new StringBuilder();
        if (noBytes > 0) {
          left.append(", ").append(noBytes).append(" without bytes read");
        }
        if (r.notFirstAttempt > 0) {
          left.append(", ").append(r.notFirstAttempt).append(" successful only on a retry or "
              + "speculative attempt");
        }
        if (r.incomplete > 0) {
          left.append(", ").append(r.incomplete).append(" without a node or run time");
        }
        log.printf("Job %s (%s): %d successful map attempt(s) observed%s%n", id,
            job.getJobName(), r.observations.size() - noBytes,
            left.length() == 0 ? "" : " (left out" + left + ")");
        all.addAll(r.observations);
      }
    } finally {
      cluster.close();
    }
    return byDataNode(all);
  }

  /**
   * The observations with each NodeManager host replaced by the name of the DataNode on that
   * machine (by name or address), so that derived profiles name nodes as the active profiler
   * and the NameNode do. Hosts without a live DataNode keep their name, with a note; so do all
   * when the default file system is not HDFS.
   */
  private List<ComputingRatios.Observation> byDataNode(List<ComputingRatios.Observation> obs)
      throws IOException {
    FileSystem fs = FileSystem.get(conf);
    if (!(fs instanceof DistributedFileSystem)) {
      return obs;
    }
    Set<String> hosts = new LinkedHashSet<>();
    Map<String, String> hostByIp = new TreeMap<>();
    for (DatanodeInfo dn : ((DistributedFileSystem) fs).getDataNodeStats(DatanodeReportType.LIVE)) {
      hosts.add(dn.getHostName());
      hostByIp.put(dn.getIpAddr(), dn.getHostName());
    }
    Map<String, String> renamed = new TreeMap<>();
    List<ComputingRatios.Observation> out = new ArrayList<>();
    for (ComputingRatios.Observation o : obs) {
      String dn = renamed.computeIfAbsent(o.host(),
          h -> ActiveProfiler.dataNodeHost(h, hosts, hostByIp));
      if (dn == null) {
        renamed.put(o.host(), o.host());
        log.printf("NOTE: map attempts ran on %s, where no live DataNode runs: kept under that "
            + "name%n", o.host());
        dn = o.host();
      }
      out.add(dn.equals(o.host()) ? o : new ComputingRatios.Observation(dn, o.millis(), o.bytes()));
    }
    renamed.forEach((nm, dn) -> {
      if (!nm.equals(dn)) {
        log.printf("Map attempts on %s count for DataNode %s%n", nm, dn);
      }
    });
    return out;
  }
}
