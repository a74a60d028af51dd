package org.apache.hadoop.mapred;

import io.hadoopaccel.common.conf.AccelConfiguration;
import io.hadoopaccel.mapreduce.preshuffle.PreshuffleConfigKeys;
import io.hadoopaccel.mapreduce.preshuffle.PreshuffleCounter;
import io.hadoopaccel.mapreduce.preshuffle.PushProtocol;
import io.hadoopaccel.mapreduce.preshuffle.PushSender;
import io.hadoopaccel.mapreduce.preshuffle.ReducerRegistry;
import io.hadoopaccel.mapreduce.preshuffle.SpillWatchingOutputFiles;
import java.io.IOException;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.util.Progress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The map side of Preshuffle (seed 003 §5.2): stock's sort buffer does all the sorting,
 * combining, spilling and merging, so the map output file and every pull of it stay stock's;
 * a second thread ({@link PushSender}) pushes each spill to the reducers as soon as it is on
 * disk. Switch it on with
 * {@code mapreduce.job.map.output.collector.class=org.apache.hadoop.mapred.PreshuffleMapOutputCollector}.
 * It lives in Hadoop's package to hand the sort buffer the task's map output files with a
 * listener on them ({@code Task.mapOutputFile} is protected). A map it cannot serve runs stock's
 * buffer alone and logs one line saying why.
 */
public class PreshuffleMapOutputCollector<K, V> implements MapOutputCollector<K, V> {
  private static final Logger LOG = LoggerFactory.getLogger(PreshuffleMapOutputCollector.class);

  private final MapTask.MapOutputBuffer<K, V> buffer = new MapTask.MapOutputBuffer<>();
  private PushSender sender;
  /** Set once the map has consumed all its input: every later spill holds the whole of it. */
  private volatile boolean flushing;

  @Override
  public void init(Context context) throws IOException, ClassNotFoundException {
    JobConf job = context.getJobConf();
    MapTask task = context.getMapTask();
    String why = unsupportedReason(job, task);
    if (why != null) {
      LOG.info("Preshuffle is off for {}: {}; map output is pulled as stock", task.getTaskID(),
          why);
      context.getReporter().incrCounter(PreshuffleCounter.FALLBACKS, 1);
    } else {
      // Every spill's index goes to a file, where the sender reads it (stock keeps the first
      // ones in memory, out of reach).
      job.setLong(MRJobConfig.INDEX_CACHE_MEMORY_LIMIT, 0);
      Progress mapPhase = task.getProgress().phase(); // the collector is made while mapping
      sender = new PushSender(task.getTaskID(), job, task.getShuffleSecret(),
          context.getReporter(), new ReducerRegistry(job),
          () -> flushing ? PushProtocol.WHOLE
              : Math.round(Math.min(1f, mapPhase.getProgress()) * PushProtocol.WHOLE),
          AccelConfiguration.getInt(job, PreshuffleConfigKeys.SOCKET_TIMEOUT_MS),
          AccelConfiguration.getInt(job, PreshuffleConfigKeys.REGISTRY_REFRESH_MS),
          AccelConfiguration.getInt(job, PreshuffleConfigKeys.DRAIN_TIMEOUT_MS),
          AccelConfiguration.getInt(job, PreshuffleConfigKeys.SENDER_STREAMS));
      task.mapOutputFile = new SpillWatchingOutputFiles(task.mapOutputFile, sender);
    }
    buffer.init(context);
  }

  static String unsupportedReason(JobConf job, MapTask task) {
    if (MRConfig.LOCAL_FRAMEWORK_NAME.equals(job.get(MRConfig.FRAMEWORK_NAME))) {
      return "the local job runner has no reducers running alongside";
    }
    if (job.getBoolean(MRJobConfig.MR_ENCRYPTED_INTERMEDIATE_DATA, false)) {
      return "intermediate data is encrypted (spills carry their own IVs)";
    }
    if (job.get(MRJobConfig.MAPREDUCE_JOB_DIR) == null) {
      return MRJobConfig.MAPREDUCE_JOB_DIR + " is not set";
    }
    if (task.getShuffleSecret() == null) {
      return "no job token";
    }
    return null;
  }

  @Override
  public void collect(K key, V value, int partition) throws IOException, InterruptedException {
    buffer.collect(key, value, partition);
  }

  @Override
  public void flush() throws IOException, InterruptedException, ClassNotFoundException {
    flushing = true;
    buffer.flush(); // the final spill and merge; the sender saw both through the files
  }

  @Override
  public void close() throws IOException, InterruptedException {
    try {
      buffer.close();
    } finally {
      if (sender != null) {
        sender.close();
      }
    }
  }
}
