package io.hadoopaccel.common.mapred;

import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.InputSplit;
import org.apache.hadoop.mapred.Reporter;

/**
 * A Reporter that keeps its counters, as a task's does, for tests and benchmarks of code that
 * takes one (KISM's merge, CooMR's pool spills); threads may share it.
 */
public final class CountingReporter implements Reporter {
  public final Counters counters = new Counters();

  @Override
  public void setStatus(String status) {}

  @Override
  public Counters.Counter getCounter(Enum<?> name) {
    return counters.findCounter(name);
  }

  @Override
  public Counters.Counter getCounter(String group, String name) {
    return counters.findCounter(group, name);
  }

  @Override
  public synchronized void incrCounter(Enum<?> key, long amount) {
    counters.findCounter(key).increment(amount);
  }

  @Override
  public synchronized void incrCounter(String group, String counter, long amount) {
    counters.findCounter(group, counter).increment(amount);
  }

  @Override
  public InputSplit getInputSplit() {
    throw new UnsupportedOperationException();
  }

  @Override
  public float getProgress() {
    return 0;
  }

  @Override
  public void progress() {}
}
