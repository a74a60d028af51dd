package io.hadoopaccel.mapreduce.kism;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapreduce.task.reduce.MergeManager;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stock shuffle (fetchers, scheduler, failure reporting to the ApplicationMaster all unchanged)
 * with KISM's merge. Switch it on with
 * {@code mapreduce.job.reduce.shuffle.consumer.plugin.class=io.hadoopaccel.mapreduce.kism.KismShuffle}.
 * A reduce KISM cannot handle runs stock's merge and logs one line saying why.
 */
public class KismShuffle<K, V> extends Shuffle<K, V> {
  private static final Logger LOG = LoggerFactory.getLogger(KismShuffle.class);

  private KismMergeManager<K, V> kism;

  @Override
  protected MergeManager<K, V> createMergeManager(ShuffleConsumerPlugin.Context context) {
    JobConf conf = context.getJobConf();
    String reason = KismMergeManager.unsupportedReason(conf, context.getLocalFS());
    if (reason != null) {
      LOG.info("KISM is off for {}: {}; using the stock merge", context.getReduceId(), reason);
      context.getReporter().incrCounter(KismCounter.FALLBACKS, 1);
      return super.createMergeManager(context);
    }
    kism = new KismMergeManager<>(context.getReduceId(), conf, context.getLocalFS(),
        context.getCodec(), context.getMapOutputFile(), context.getReporter(),
        context.getMergedMapOutputsCounter());
    return kism;
  }

  @Override
  public void close() {
    super.close();
    if (kism != null) {
      kism.cleanup();
    }
  }
}
