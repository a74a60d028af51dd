package io.hadoopaccel.workloads.gen;

import io.hadoopaccel.workloads.WorkloadConfigKeys;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.TextOutputFormat;

/** Shared set-up of the map-only generator jobs. */
public final class Generators {
  public static final String SEED = WorkloadConfigKeys.GEN_SEED;
  public static final long DEFAULT_SEED = 20240601L;
  /**
   * Number of map tasks. Not mapreduce.job.maps: the local job runner's protocol provider
   * forces that to 1 (which is why upstream TeraGen runs one map in local mode).
   */
  public static final String MAPS = WorkloadConfigKeys.GEN_MAPS;

  /** Stream domains: one per generator, so equal seeds give unrelated data. */
  static final long DOMAIN_TEXT = 0x7465787400000000L;
  static final long DOMAIN_FILES = 0x66696c6500000000L;
  static final long DOMAIN_ADJACENCY = 0x61646a6100000000L;
  static final long DOMAIN_SELFJOIN = 0x73656c6600000000L;

  private Generators() {
  }

  /**
   * A map-only job over units [0, units) in {@code maps} map tasks (when maps &lt;= 0,
   * {@link #MAPS}, or else mapreduce.job.maps, as configured). The mapper writes
   * (Text, NullWritable) through TextOutputFormat unless the caller changes the output format.
   */
  public static Job newJob(Configuration conf, String name, long units, int maps, long seed,
      Path out, Class<? extends Mapper<?, ?, ?, ?>> mapper, Class<?> jarClass)
      throws IOException {
    Job job = Job.getInstance(conf, name);
    job.setJarByClass(jarClass);
    Configuration jc = job.getConfiguration();
    RangeInputFormat.setUnits(jc, units);
    jc.setLong(SEED, seed);
    if (maps <= 0) {
      maps = jc.getInt(MAPS, jc.getInt(MRJobConfig.NUM_MAPS, 1));
    }
    jc.setInt(MAPS, Math.max(1, maps));
    // Output is a pure function of the unit index: a speculative duplicate is wasted work.
    job.setSpeculativeExecution(false);
    job.setInputFormatClass(RangeInputFormat.class);
    job.setMapperClass(mapper);
    job.setNumReduceTasks(0);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(NullWritable.class);
    job.setOutputFormatClass(TextOutputFormat.class);
    FileOutputFormat.setOutputPath(job, out);
    return job;
  }
}
