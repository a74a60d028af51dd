package io.hadoopaccel.workloads.gen;

import io.hadoopaccel.workloads.WorkloadConfigKeys;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.mapreduce.InputFormat;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;

/**
 * Input of the map-only generators (the TeraGen pattern): no files, just the unit indices
 * 0..units-1 ({@link #UNITS}) cut into {@link Generators#MAPS} contiguous ranges. Each map
 * task receives its unit indices as keys and generates those units.
 */
public class RangeInputFormat extends InputFormat<LongWritable, NullWritable> {
  public static final String UNITS = WorkloadConfigKeys.GEN_UNITS;

  public static void setUnits(Configuration conf, long units) {
    conf.setLong(UNITS, units);
  }

  /** A contiguous range of unit indices. */
  public static class RangeSplit extends InputSplit implements Writable {
    private long first;
    private long count;

    public RangeSplit() {
    }

    public RangeSplit(long first, long count) {
      this.first = first;
      this.count = count;
    }

    public long getFirst() {
      return first;
    }

    public long getCount() {
      return count;
    }

    @Override
    public long getLength() {
      return count;
    }

    @Override
    public String[] getLocations() {
      return new String[0];
    }

    @Override
    public void write(DataOutput out) throws IOException {
      out.writeLong(first);
      out.writeLong(count);
    }

    @Override
    public void readFields(DataInput in) throws IOException {
      first = in.readLong();
      count = in.readLong();
    }

    @Override
    public String toString() {
      return "units [" + first + ", " + (first + count) + ")";
    }
  }

  /**
   * Splits [0, units) into at most {@code maps} ranges whose sizes differ by at most one, the
   * larger ones first. The order matters: JobSubmitter stable-sorts splits by decreasing length
   * and numbers the tasks (part-m-NNNNN) in that order, so non-increasing lengths keep part file
   * order = unit order, and the concatenated output independent of the number of maps.
   */
  static List<InputSplit> split(long units, int maps) {
    List<InputSplit> splits = new ArrayList<>();
    int n = (int) Math.max(1, Math.min(maps, units));
    long base = units / n;
    long larger = units % n;
    long start = 0;
    for (int i = 0; i < n; i++) {
      long count = base + (i < larger ? 1 : 0);
      if (count > 0) {
        splits.add(new RangeSplit(start, count));
      }
      start += count;
    }
    return splits;
  }

  @Override
  public List<InputSplit> getSplits(JobContext context) {
    Configuration conf = context.getConfiguration();
    long units = conf.getLong(UNITS, -1);
    if (units < 0) {
      throw new IllegalArgumentException(UNITS + " is not set");
    }
    return split(units, conf.getInt(Generators.MAPS, 1));
  }

  @Override
  public RecordReader<LongWritable, NullWritable> createRecordReader(InputSplit split,
      TaskAttemptContext context) {
    return new RecordReader<LongWritable, NullWritable>() {
      private long first;
      private long count;
      private long done;
      private final LongWritable key = new LongWritable();

      @Override
      public void initialize(InputSplit s, TaskAttemptContext c) {
        RangeSplit r = (RangeSplit) s;
        first = r.getFirst();
        count = r.getCount();
        done = 0;
      }

      @Override
      public boolean nextKeyValue() {
        if (done >= count) {
          return false;
        }
        key.set(first + done);
        done++;
        return true;
      }

      @Override
      public LongWritable getCurrentKey() {
        return key;
      }

      @Override
      public NullWritable getCurrentValue() {
        return NullWritable.get();
      }

      @Override
      public float getProgress() {
        return count == 0 ? 1f : (float) done / count;
      }

      @Override
      public void close() {
      }
    };
  }
}
