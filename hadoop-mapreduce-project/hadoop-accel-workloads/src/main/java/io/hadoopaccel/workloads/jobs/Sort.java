package io.hadoopaccel.workloads.jobs;

import io.hadoopaccel.workloads.WorkloadTool;
import io.hadoopaccel.workloads.util.Args;
import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.SequenceFileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.SequenceFileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.TextOutputFormat;
import org.apache.hadoop.mapreduce.lib.partition.InputSampler;
import org.apache.hadoop.mapreduce.lib.partition.TotalOrderPartitioner;
import org.apache.hadoop.util.ToolRunner;

/**
 * sort: identity map and identity reduce, i.e. the framework's sort and shuffle alone.
 * {@code -inFormat text} (default) sorts the lines of text files by their bytes (the line is the
 * key, duplicates kept); {@code -inFormat seq} sorts SequenceFile records by key, with the key
 * and value classes read from the first input file. The output format defaults to the input
 * format. Each reduce's output is sorted; with {@code -totalOrder} the part files are also in
 * order (upstream's InputSampler.RandomSampler + TotalOrderPartitioner, sampling 10% of the
 * records, at most {@code -samples} (10000) from at most 10 splits).
 */
public class Sort extends WorkloadTool {

  @Override
  protected String programName() {
    return "sort";
  }

  @Override
  protected String usage() {
    return "[-inFormat text|seq] [-outFormat text|seq] [-totalOrder [-samples N]]"
        + " [-r REDUCES] INPUT... OUTDIR";
  }

  /** The first data file under the inputs (directories are searched one level deep). */
  static Path firstInputFile(Job job) throws IOException {
    Configuration conf = job.getConfiguration();
    for (Path in : FileInputFormat.getInputPaths(job)) {
      FileSystem fs = in.getFileSystem(conf);
      FileStatus[] matches = fs.globStatus(in);
      if (matches == null) {
        continue;
      }
      for (FileStatus st : matches) {
        if (st.isFile()) {
          return st.getPath();
        }
        for (FileStatus child : fs.listStatus(st.getPath())) {
          String name = child.getPath().getName();
          if (child.isFile() && !name.startsWith("_") && !name.startsWith(".")) {
            return child.getPath();
          }
        }
      }
    }
    throw new FileNotFoundException("no input files in " + conf.get(FileInputFormat.INPUT_DIR));
  }

  @Override
  protected int runTool(String[] args) throws Exception {
    Args a = new Args().flag("-totalOrder")
        .option("-inFormat", "-outFormat", "-samples", "-r").parse(args);
    Args.require(a.positional().size() >= 2, "expected INPUT... OUTDIR");
    String inFormat = a.get("-inFormat", "text");
    String outFormat = a.get("-outFormat", inFormat);
    Args.require(inFormat.equals("text") || inFormat.equals("seq"),
        "-inFormat must be text or seq");
    Args.require(outFormat.equals("text") || outFormat.equals("seq"),
        "-outFormat must be text or seq");
    int samples = a.getInt("-samples", 10_000);
    Args.require(samples > 0, "-samples must be positive");

    Job job = Job.getInstance(getConf(), "sort");
    job.setJarByClass(Sort.class);
    JobSupport.setReduces(job, a);
    JobSupport.setInputOutput(job, a.positional());
    job.setMapperClass(Mapper.class);
    job.setReducerClass(Reducer.class);
    if (inFormat.equals("text")) {
      job.setInputFormatClass(LineKeyInputFormat.class);
      job.setOutputKeyClass(Text.class);
      job.setOutputValueClass(NullWritable.class);
    } else {
      job.setInputFormatClass(SequenceFileInputFormat.class);
      Path first = firstInputFile(job);
      try (SequenceFile.Reader r = new SequenceFile.Reader(job.getConfiguration(),
          SequenceFile.Reader.file(first))) {
        job.setOutputKeyClass(r.getKeyClass());
        job.setOutputValueClass(r.getValueClass());
      }
    }
    job.setOutputFormatClass(outFormat.equals("text")
        ? TextOutputFormat.class : SequenceFileOutputFormat.class);

    Path partitions = null;
    if (a.has("-totalOrder") && job.getNumReduceTasks() > 1) {
      Path out = new Path(a.positional().get(a.positional().size() - 1));
      partitions = out.suffix("_sort-partitions-" + System.nanoTime());
      TotalOrderPartitioner.setPartitionFile(job.getConfiguration(), partitions);
      job.setPartitionerClass(TotalOrderPartitioner.class);
      InputSampler.writePartitionFile(job,
          new InputSampler.RandomSampler<Object, Object>(0.1, samples, 10));
    }
    try {
      return waitFor(job);
    } finally {
      if (partitions != null) {
        partitions.getFileSystem(job.getConfiguration()).delete(partitions, false);
      }
    }
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new Sort(), args));
  }
}
