package io.hadoopaccel.hdfs.hetero;

import io.hadoopaccel.common.conf.AccelConfiguration;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.InputFormat;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.hadoop.util.ReflectionUtils;

/**
 * Input of the active profiler's probe job: for every node named in {@link #HOSTS}, the whole
 * sample file cut into {@link #SPLITS_PER_NODE} equal splits, each with that node as its only
 * location. Every node thus gets the same work (the same byte ranges); the records are read by
 * the application's own input format ({@link #DELEGATE}, TextInputFormat by default), which
 * must be a {@link FileInputFormat} whose readers accept a {@link FileSplit}.
 */
public class ProbeInputFormat<K, V> extends InputFormat<K, V> {
  public static final String SAMPLE = HeteroConfigKeys.PROBE_SAMPLE;
  public static final String HOSTS = HeteroConfigKeys.PROBE_HOSTS;
  public static final String SPLITS_PER_NODE = HeteroConfigKeys.PROBE_SPLITS_PER_NODE;
  public static final String DELEGATE = HeteroConfigKeys.PROBE_INPUT_FORMAT;

  @Override
  public List<InputSplit> getSplits(JobContext context) throws IOException {
    Configuration conf = context.getConfiguration();
    Path sample = new Path(require(conf, SAMPLE));
    String[] hosts = conf.getTrimmedStrings(HOSTS);
    int k = AccelConfiguration.getInt(conf, SPLITS_PER_NODE);
    if (hosts.length == 0) {
      throw new IOException("probe job needs " + HOSTS);
    }
    FileStatus st = sample.getFileSystem(conf).getFileStatus(sample);
    List<InputSplit> splits = new ArrayList<>();
    for (String host : hosts) {
      for (int i = 0; i < k; i++) {
        long start = st.getLen() * i / k;
        long end = st.getLen() * (i + 1) / k;
        splits.add(new FileSplit(st.getPath(), start, end - start, new String[] {host}));
      }
    }
    return splits;
  }

  @Override
  @SuppressWarnings("unchecked")
  public RecordReader<K, V> createRecordReader(InputSplit split, TaskAttemptContext context)
      throws IOException, InterruptedException {
    Configuration conf = context.getConfiguration();
    Class<? extends FileInputFormat> cls =
        conf.getClass(DELEGATE, TextInputFormat.class, FileInputFormat.class);
    FileInputFormat<K, V> delegate = ReflectionUtils.newInstance(cls, conf);
    return delegate.createRecordReader(split, context);
  }

  private static String require(Configuration conf, String key) throws IOException {
    String v = conf.getTrimmed(key);
    if (v == null || v.isEmpty()) {
      throw new IOException("probe job needs " + key);
    }
    return v;
  }
}
