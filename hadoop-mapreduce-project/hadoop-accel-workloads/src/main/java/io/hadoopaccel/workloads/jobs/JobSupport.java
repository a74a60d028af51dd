package io.hadoopaccel.workloads.jobs;

import io.hadoopaccel.workloads.util.Args;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;

/** Argument handling shared by the jobs. */
final class JobSupport {
  private JobSupport() {
  }

  /** -r N sets the number of reduces; otherwise mapreduce.job.reduces applies. */
  static void setReduces(Job job, Args a) {
    if (a.has("-r")) {
      int r = a.getInt("-r", 1);
      Args.require(r >= 1, "-r must be at least 1");
      job.setNumReduceTasks(r);
    }
  }

  /** All positional arguments but the last are inputs (each may be a glob or a comma list). */
  static void setInputOutput(Job job, List<String> positional) throws IOException {
    for (String in : positional.subList(0, positional.size() - 1)) {
      FileInputFormat.addInputPaths(job, in);
    }
    FileOutputFormat.setOutputPath(job, new Path(positional.get(positional.size() - 1)));
  }
}
