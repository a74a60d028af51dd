package io.hadoopaccel.mapreduce.jbs;

import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.WritableComparator;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.DefaultCodec;
import org.apache.hadoop.io.compress.Lz4Codec;
import org.apache.hadoop.io.compress.SnappyCodec;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;

/**
 * What the NetMerger can merge (DESIGN.md §3): the raw comparisons of the registered
 * comparators of Text, BytesWritable, IntWritable and LongWritable, uncompressed, zlib
 * ({@link DefaultCodec}), {@link SnappyCodec} or {@link Lz4Codec} map output (the last two
 * only if the NetMerger was built with their libraries; otherwise REGISTER says so and the
 * reduce falls back with FALLBACK_CODEC), no intermediate encryption, no encrypted shuffle
 * ({@code mapreduce.shuffle.ssl.enabled}: the daemons speak no TLS, so such jobs keep stock's
 * HTTPS fetches), and first attempts only (a retried reduce runs the fallback).
 */
public final class JbsEligibility {
  private JbsEligibility() {}

  /** DESIGN.md key_type of the job's map output key, or 0 if the NetMerger cannot sort it. */
  public static int keyType(JobConf conf) {
    if (conf.get(MRJobConfig.KEY_COMPARATOR) != null) {
      return 0;
    }
    Class<?> keyClass = conf.getMapOutputKeyClass();
    int type;
    Class<?> comparator;
    if (keyClass == Text.class) {
      type = ReducerProtocol.KEY_TEXT;
      comparator = Text.Comparator.class;
    } else if (keyClass == BytesWritable.class) {
      type = ReducerProtocol.KEY_BYTES_WRITABLE;
      comparator = BytesWritable.Comparator.class;
    } else if (keyClass == IntWritable.class) {
      type = ReducerProtocol.KEY_INT;
      comparator = IntWritable.Comparator.class;
    } else if (keyClass == LongWritable.class) {
      type = ReducerProtocol.KEY_LONG;
      comparator = LongWritable.Comparator.class;
    } else {
      return 0;
    }
    // Someone may have registered another comparator for the class (WritableComparator.define).
    WritableComparator registered = WritableComparator.get(keyClass.asSubclass(
        org.apache.hadoop.io.WritableComparable.class), conf);
    return registered.getClass() == comparator ? type : 0;
  }

  /** DESIGN.md codec of the map output, or -1 if unsupported. */
  public static int codec(CompressionCodec codec) {
    if (codec == null) {
      return ReducerProtocol.CODEC_NONE;
    }
    Class<?> c = codec.getClass();
    if (c == DefaultCodec.class) {
      return ReducerProtocol.CODEC_ZLIB;
    }
    if (c == SnappyCodec.class) {
      return ReducerProtocol.CODEC_SNAPPY;
    }
    if (c == Lz4Codec.class) {
      return ReducerProtocol.CODEC_LZ4;
    }
    return -1;
  }

  /**
   * Why this reduce must run its fallback, or null if JBS can take it.
   *
   * @param localMapFiles true for the local runner / uber tasks (map outputs handed over
   *     in-process)
   */
  public static JbsFallback fallback(JobConf conf, CompressionCodec codec,
      TaskAttemptID reduceId, boolean localMapFiles) {
    if (localMapFiles) {
      return new JbsFallback(JbsCounter.FALLBACK_LOCAL_MAP_FILES,
          "map outputs are local files (local or uber job)");
    }
    if (reduceId.getId() > 0) {
      // A retry may follow a native failure; a speculative attempt runs beside a slow native
      // one. Both take the other path.
      return new JbsFallback(JbsCounter.FALLBACK_RETRY_ATTEMPT, "attempt " + reduceId.getId()
          + " is a retry or a speculative attempt (those run the fallback)");
    }
    String comparator = conf.get(MRJobConfig.KEY_COMPARATOR);
    if (comparator != null) {
      return new JbsFallback(JbsCounter.FALLBACK_COMPARATOR,
          "the job sets its own key comparator " + comparator);
    }
    if (keyType(conf) == 0) {
      Class<?> key = conf.getMapOutputKeyClass();
      boolean known = key == Text.class || key == BytesWritable.class
          || key == IntWritable.class || key == LongWritable.class;
      return known
          ? new JbsFallback(JbsCounter.FALLBACK_COMPARATOR, "the comparator registered for "
              + key.getName() + " is not its own")
          : new JbsFallback(JbsCounter.FALLBACK_KEY_CLASS, "map output key class "
              + key.getName() + " is not Text, BytesWritable, IntWritable or LongWritable");
    }
    if (codec(codec) < 0) {
      return new JbsFallback(JbsCounter.FALLBACK_CODEC, "map output codec "
          + codec.getClass().getName() + " is not supported (only none, DefaultCodec, SnappyCodec and Lz4Codec)");
    }
    if (conf.getBoolean(MRJobConfig.MR_ENCRYPTED_INTERMEDIATE_DATA, false)) {
      return new JbsFallback(JbsCounter.FALLBACK_ENCRYPTION,
          "intermediate data encryption is on");
    }
    if (conf.getBoolean(MRConfig.SHUFFLE_SSL_ENABLED_KEY,
        MRConfig.SHUFFLE_SSL_ENABLED_DEFAULT)) {
      return new JbsFallback(JbsCounter.FALLBACK_ENCRYPTION, MRConfig.SHUFFLE_SSL_ENABLED_KEY
          + " is true: the JBS daemons move map output without TLS");
    }
    return null;
  }
}
