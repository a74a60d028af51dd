package io.hadoopaccel.hdfs.hetero;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
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
        List<ComputingRatios.Observation> obs = MapAttempts.of(job);
        int noBytes = 0;
        for (ComputingRatios.Observation o : obs) {
          if (o.bytes() == 0) {
            noBytes++;
          }
        }
        log.printf("Job %s (%s): %d successful map attempt(s)%s%n", id, job.getJobName(),
            obs.size(), noBytes == 0 ? "" : ", " + noBytes + " without bytes read (ignored)");
        all.addAll(obs);
      }
    } finally {
      cluster.close();
    }
    return all;
  }
}
