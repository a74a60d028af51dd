package io.hadoopaccel.streaming.shm;

import java.io.IOException;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.OutputCollector;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.streaming.PipeMapper;

/** Streaming's mapper under {@code -io shm}: the program gets the shim; counters at the end. */
public class ShmPipeMapper extends PipeMapper {
  @Override
  public void configure(JobConf job) {
    super.configure(ShmPreload.prepare(this, job));
  }

  @Override
  public void map(Object key, Object value, OutputCollector output, Reporter reporter)
      throws IOException {
    ShmChannel.useReporter(this, reporter);
    super.map(key, value, output, reporter);
  }

  @Override
  public void close() {
    super.close();
    ShmChannel.finish(this);
  }
}
