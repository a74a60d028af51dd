package io.hadoopaccel.workloads;

import io.hadoopaccel.workloads.util.Args;
import java.io.IOException;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.util.Tool;

/**
 * Base of every generator and job: parses its own options after ToolRunner removed the generic
 * ones, prints usage and returns 2 on a usage error, 1 when a job fails, 0 on success.
 */
public abstract class WorkloadTool extends Configured implements Tool {
  /** Counter group of the workloads' own counters. */
  public static final String COUNTER_GROUP = "Workloads";

  /** One line per argument, without the program name; shown on a usage error. */
  protected abstract String usage();

  protected abstract int runTool(String[] args) throws Exception;

  /** The name under which WorkloadDriver knows this tool. */
  protected abstract String programName();

  @Override
  public final int run(String[] args) throws Exception {
    try {
      return runTool(args);
    } catch (Args.UsageException e) {
      System.err.println(programName() + ": " + e.getMessage());
      System.err.println("Usage: hadoop jar hadoop-accel-workloads-*.jar " + programName() + " "
          + usage());
      return 2;
    }
  }

  /** Runs a job, printing progress; 0 when it succeeded. */
  protected static int waitFor(Job job) throws IOException, InterruptedException,
      ClassNotFoundException {
    return job.waitForCompletion(true) ? 0 : 1;
  }
}
