package org.apache.hadoop.mapred;

import io.hadoopaccel.common.conf.AccelConfiguration;
import io.hadoopaccel.mapreduce.coomr.CoomrConfigKeys;
import io.hadoopaccel.mapreduce.coomr.CoomrCounter;
import io.hadoopaccel.mapreduce.coomr.CoordinatorClient;
import io.hadoopaccel.mapreduce.coomr.PoolSpillFiles;
import java.io.IOException;
import java.nio.file.Paths;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The map side of CooMR's COMS (seed 002 §3.1): stock's sort buffer does all the sorting,
 * combining, spilling and merging, but its spills go into the node's shared memory pool
 * whenever the node coordinator grants room ({@link PoolSpillFiles}), so a map with several
 * spills writes only its merged output to disk; where the node's shuffle is
 * {@link CoomrShuffleHandler}, the output stays in the pool too and the coordinator writes it to
 * disk after the map is done. Switch it on with
 * {@code mapreduce.job.map.output.collector.class=org.apache.hadoop.mapred.CoomrMapOutputCollector,org.apache.hadoop.mapred.MapTask$MapOutputBuffer}.
 * It lives in Hadoop's package to hand the sort buffer the redirecting map output files
 * ({@code Task.mapOutputFile} is protected). A map it cannot serve runs stock's buffer alone
 * and logs one line saying why.
 */
public class CoomrMapOutputCollector<K, V> implements MapOutputCollector<K, V> {
  private static final Logger LOG = LoggerFactory.getLogger(CoomrMapOutputCollector.class);

  private final MapTask.MapOutputBuffer<K, V> buffer = new MapTask.MapOutputBuffer<>();
  private CoordinatorClient pool;
  private PoolSpillFiles spills;
  private volatile long records; // read by the spill thread

  @Override
  public void init(Context context) throws IOException, ClassNotFoundException {
    JobConf job = context.getJobConf();
    MapTask task = context.getMapTask();
    String why = unsupportedReason(job);
    if (why == null) {
      String socket = AccelConfiguration.getString(job, CoomrConfigKeys.COORDINATOR_SOCKET);
      try {
        pool = CoordinatorClient.attach(Paths.get(socket), task.getJobID().toString(),
            task.getTaskID().toString(),
            AccelConfiguration.getInt(job, CoomrConfigKeys.COORDINATOR_TIMEOUT_MS));
      } catch (IOException e) {
        why = "no node coordinator at " + socket + " (" + e.getMessage() + ")";
      }
    }
    if (why != null) {
      LOG.info("CooMR is off for {}: {}; spills go to disk as stock", task.getTaskID(), why);
      context.getReporter().incrCounter(CoomrCounter.FALLBACKS, 1);
    } else {
      long sortBytes = (long) job.getInt(MRJobConfig.IO_SORT_MB, MRJobConfig.DEFAULT_IO_SORT_MB)
          << 20;
      spills = new PoolSpillFiles(task.mapOutputFile, pool, sortBytes, job.getNumReduceTasks(),
          job.getCompressMapOutput(), () -> records, context.getReporter());
      task.mapOutputFile = spills;
    }
    try {
      buffer.init(context);
    } catch (IOException | ClassNotFoundException | RuntimeException e) {
      closePool();
      throw e;
    }
  }

  static String unsupportedReason(JobConf job) {
    if (MRConfig.LOCAL_FRAMEWORK_NAME.equals(job.get(MRConfig.FRAMEWORK_NAME))) {
      return "the local job runner has no node coordinator";
    }
    if (job.getBoolean(MRJobConfig.MR_ENCRYPTED_INTERMEDIATE_DATA, false)) {
      return "intermediate data is encrypted (spill IVs are kept by path)";
    }
    if (job.getNumReduceTasks() == 0) {
      return "a map-only job does not spill";
    }
    return null;
  }

  @Override
  public void collect(K key, V value, int partition) throws IOException, InterruptedException {
    records++; // before: a spill may start inside collect, with this record in it
    buffer.collect(key, value, partition);
  }

  @Override
  public void flush() throws IOException, InterruptedException, ClassNotFoundException {
    if (spills != null) {
      spills.finalSpillNext();
    }
    buffer.flush(); // the final spill and the merge, which deletes the pooled spills
    if (spills != null) {
      spills.handover(); // an output left in the pool is the coordinator's from now on
    }
    closePool();
  }

  @Override
  public void close() throws IOException, InterruptedException {
    try {
      buffer.close();
    } finally {
      closePool();
    }
  }

  /** Leaves the pool: the coordinator deletes the attempt's dir and takes its blocks back. */
  private void closePool() throws IOException {
    if (pool != null) {
      try {
        if (spills != null) {
          spills.detach();
        }
      } finally {
        pool.close();
        pool = null;
      }
    }
  }
}
