package io.hadoopaccel.workloads.jobs;

import io.hadoopaccel.workloads.WorkloadTool;
import io.hadoopaccel.workloads.util.Args;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.util.ToolRunner;

/**
 * wordcount: (word, 1) per word (see {@link Words}), summed; output "word TAB count". The
 * combiner is on by default, as in upstream's example; -nocombiner measures the shuffle-heavy
 * variant (seed 000 measured both).
 */
public class WordCount extends WorkloadTool {

  @Override
  protected String programName() {
    return "wordcount";
  }

  @Override
  protected String usage() {
    return "[-combiner | -nocombiner] [-r REDUCES] INPUT... OUTDIR";
  }

  /** Emits (word, 1) for every word of the line. */
  public static class TokenizerMapper extends Mapper<LongWritable, Text, Text, IntWritable> {
    private static final IntWritable ONE = new IntWritable(1);
    private final Text word = new Text();
    private final Words.Tokenizer words = new Words.Tokenizer();

    @Override
    protected void map(LongWritable offset, Text line, Context context)
        throws IOException, InterruptedException {
      words.reset(line);
      while (words.next(word)) {
        context.write(word, ONE);
      }
    }
  }

  /** Map-side partial sums (keeps the map output types). */
  public static class IntSumCombiner extends Reducer<Text, IntWritable, Text, IntWritable> {
    private final IntWritable sum = new IntWritable();

    @Override
    protected void reduce(Text word, Iterable<IntWritable> counts, Context context)
        throws IOException, InterruptedException {
      int s = 0;
      for (IntWritable c : counts) {
        s += c.get();
      }
      sum.set(s);
      context.write(word, sum);
    }
  }

  /** Final sums as longs (a frequent word passes 2^31 in a few hundred GB of text). */
  public static class LongSumReducer extends Reducer<Text, IntWritable, Text, LongWritable> {
    private final LongWritable sum = new LongWritable();

    @Override
    protected void reduce(Text word, Iterable<IntWritable> counts, Context context)
        throws IOException, InterruptedException {
      long s = 0;
      for (IntWritable c : counts) {
        s += c.get();
      }
      sum.set(s);
      context.write(word, sum);
    }
  }

  @Override
  protected int runTool(String[] args) throws Exception {
    Args a = new Args().flag("-combiner", "-nocombiner").option("-r").parse(args);
    Args.require(!(a.has("-combiner") && a.has("-nocombiner")),
        "-combiner and -nocombiner exclude each other");
    Args.require(a.positional().size() >= 2, "expected INPUT... OUTDIR");
    Job job = job(getConf(), "wordcount", TokenizerMapper.class,
        a.has("-nocombiner") ? null : IntSumCombiner.class, LongSumReducer.class);
    JobSupport.setReduces(job, a);
    JobSupport.setInputOutput(job, a.positional());
    return waitFor(job);
  }

  /**
   * A WordCount job with these classes (tests subclass them to fail or stall an attempt), no
   * combiner if {@code combiner} is null; input, output and reduces are left to the caller.
   */
  public static Job job(Configuration conf, String name,
      Class<? extends TokenizerMapper> mapper, Class<? extends IntSumCombiner> combiner,
      Class<? extends LongSumReducer> reducer) throws IOException {
    Job job = Job.getInstance(conf, name);
    job.setJarByClass(mapper);
    job.setMapperClass(mapper);
    if (combiner != null) {
      job.setCombinerClass(combiner);
    }
    job.setReducerClass(reducer);
    job.setMapOutputKeyClass(Text.class);
    job.setMapOutputValueClass(IntWritable.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(LongWritable.class);
    return job;
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new WordCount(), args));
  }
}
