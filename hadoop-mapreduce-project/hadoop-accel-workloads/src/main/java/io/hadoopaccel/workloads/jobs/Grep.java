package io.hadoopaccel.workloads.jobs;

import io.hadoopaccel.workloads.WorkloadTool;
import io.hadoopaccel.workloads.util.Args;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.SequenceFileInputFormat;
import org.apache.hadoop.mapreduce.lib.map.InverseMapper;
import org.apache.hadoop.mapreduce.lib.map.RegexMapper;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.SequenceFileOutputFormat;
import org.apache.hadoop.mapreduce.lib.reduce.LongSumReducer;
import org.apache.hadoop.util.ToolRunner;

/**
 * grep: counts the matches of a Java regular expression, in upstream's two-job shape.
 * Job 1 (search): upstream's RegexMapper emits (match, 1) for every non-overlapping match in
 * every line (Matcher.find), a combiner and the reducers sum; output is a SequenceFile in a
 * temporary directory. Job 2 (sort): swaps to (count, match) and sorts by decreasing count in
 * one reduce; output "count TAB match". With -nosort only job 1 runs and writes
 * "match TAB count" in match order (as text, to OUTDIR).
 */
public class Grep extends WorkloadTool {

  @Override
  protected String programName() {
    return "grep";
  }

  @Override
  protected String usage() {
    return "[-nosort] [-r REDUCES] INPUT OUTDIR REGEX [GROUP]";
  }

  @Override
  protected int runTool(String[] args) throws Exception {
    Args a = new Args().flag("-nosort").option("-r").parse(args);
    List<String> p = a.positional();
    Args.require(p.size() == 3 || p.size() == 4, "expected INPUT OUTDIR REGEX [GROUP]");
    String regex = p.get(2);
    try {
      Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw new Args.UsageException("bad REGEX: " + e.getMessage());
    }
    Configuration conf = getConf();
    conf.set(RegexMapper.PATTERN, regex);
    if (p.size() == 4) {
      try {
        conf.setInt(RegexMapper.GROUP, Integer.parseInt(p.get(3)));
      } catch (NumberFormatException e) {
        throw new Args.UsageException("GROUP must be an integer: " + p.get(3));
      }
    }
    Path out = new Path(p.get(1));
    boolean sort = !a.has("-nosort");
    Path searchOut = sort
        ? out.suffix("_grep-temp-" + System.nanoTime())
        : out;

    Job search = Job.getInstance(conf, "grep-search");
    search.setJarByClass(Grep.class);
    FileInputFormat.addInputPaths(search, p.get(0));
    search.setMapperClass(RegexMapper.class);
    search.setCombinerClass(LongSumReducer.class);
    search.setReducerClass(LongSumReducer.class);
    search.setOutputKeyClass(Text.class);
    search.setOutputValueClass(LongWritable.class);
    JobSupport.setReduces(search, a);
    FileOutputFormat.setOutputPath(search, searchOut);
    if (sort) {
      search.setOutputFormatClass(SequenceFileOutputFormat.class);
    }
    try {
      if (!search.waitForCompletion(true)) {
        return 1;
      }
      if (!sort) {
        return 0;
      }
      Job sortJob = Job.getInstance(conf, "grep-sort");
      sortJob.setJarByClass(Grep.class);
      FileInputFormat.setInputPaths(sortJob, searchOut);
      sortJob.setInputFormatClass(SequenceFileInputFormat.class);
      sortJob.setMapperClass(InverseMapper.class);
      sortJob.setNumReduceTasks(1); // one output file, globally sorted
      sortJob.setOutputKeyClass(LongWritable.class);
      sortJob.setOutputValueClass(Text.class);
      sortJob.setSortComparatorClass(LongWritable.DecreasingComparator.class);
      FileOutputFormat.setOutputPath(sortJob, out);
      return waitFor(sortJob);
    } finally {
      if (sort) {
        FileSystem fs = searchOut.getFileSystem(conf);
        fs.delete(searchOut, true);
      }
    }
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new Grep(), args));
  }
}
