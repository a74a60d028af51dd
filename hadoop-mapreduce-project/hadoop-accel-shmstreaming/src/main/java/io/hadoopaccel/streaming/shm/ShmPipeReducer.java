package io.hadoopaccel.streaming.shm;

import java.io.IOException;
import java.util.Iterator;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.OutputCollector;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.streaming.PipeReducer;

/** Streaming's reducer under {@code -io shm}: the program gets the shim; counters at the end. */
public class ShmPipeReducer extends PipeReducer {
  @Override
  public void configure(JobConf job) {
    super.configure(ShmPreload.prepare(this, job));
  }

  @Override
  public void reduce(Object key, Iterator values, OutputCollector output, Reporter reporter)
      throws IOException {
    ShmChannel.useReporter(this, reporter);
    super.reduce(key, values, output, reporter);
  }

  @Override
  public void close() {
    super.close();
    ShmChannel.finish(this);
  }
}
