package io.hadoopaccel.workloads.jobs;

import io.hadoopaccel.workloads.WorkloadTool;
import io.hadoopaccel.workloads.util.Args;
import java.io.IOException;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.util.ToolRunner;

/**
 * invertedindex (seed 000's third benchmark, PUMA's InvertedIndex): for every word (see
 * {@link Words}) the sorted list of the names (last path component) of the files containing it;
 * output "word TAB file1,file2,...". The mapper emits (word, file name) per occurrence, so the
 * intermediate data is about the size of the input; -combiner removes duplicates map-side.
 */
public class InvertedIndex extends WorkloadTool {

  @Override
  protected String programName() {
    return "invertedindex";
  }

  @Override
  protected String usage() {
    return "[-combiner] [-r REDUCES] INPUT... OUTDIR";
  }

  /** Emits (word, name of the file the split comes from). */
  public static class IndexMapper extends Mapper<LongWritable, Text, Text, Text> {
    private final Text word = new Text();
    private final Words.Tokenizer words = new Words.Tokenizer();
    private final Text file = new Text();

    @Override
    protected void setup(Context context) {
      InputSplit split = context.getInputSplit();
      if (split instanceof FileSplit) {
        file.set(((FileSplit) split).getPath().getName());
      } else {
        String path = context.getConfiguration().get(MRJobConfig.MAP_INPUT_FILE);
        if (path == null) {
          throw new IllegalStateException("cannot tell the input file of split " + split);
        }
        file.set(new org.apache.hadoop.fs.Path(path).getName());
      }
    }

    @Override
    protected void map(LongWritable offset, Text line, Context context)
        throws IOException, InterruptedException {
      words.reset(line);
      while (words.next(word)) {
        context.write(word, file);
      }
    }
  }

  /** Distinct file names of a word, in byte order. */
  static TreeSet<Text> distinct(Iterable<Text> files) {
    TreeSet<Text> set = new TreeSet<>();
    for (Text f : files) {
      if (!set.contains(f)) {
        set.add(new Text(f)); // the framework reuses f
      }
    }
    return set;
  }

  /** Drops duplicate (word, file) pairs map-side. */
  public static class DedupCombiner extends Reducer<Text, Text, Text, Text> {
    @Override
    protected void reduce(Text word, Iterable<Text> files, Context context)
        throws IOException, InterruptedException {
      for (Text f : distinct(files)) {
        context.write(word, f);
      }
    }
  }

  /** word TAB sorted distinct file names, comma-separated. */
  public static class IndexReducer extends Reducer<Text, Text, Text, Text> {
    private final Text list = new Text();

    @Override
    protected void reduce(Text word, Iterable<Text> files, Context context)
        throws IOException, InterruptedException {
      StringBuilder sb = new StringBuilder();
      for (Text f : distinct(files)) {
        if (sb.length() > 0) {
          sb.append(',');
        }
        sb.append(f.toString());
      }
      list.set(sb.toString());
      context.write(word, list);
    }
  }

  @Override
  protected int runTool(String[] args) throws Exception {
    Args a = new Args().flag("-combiner").option("-r").parse(args);
    Args.require(a.positional().size() >= 2, "expected INPUT... OUTDIR");
    Job job = Job.getInstance(getConf(), "invertedindex");
    job.setJarByClass(InvertedIndex.class);
    job.setMapperClass(IndexMapper.class);
    if (a.has("-combiner")) {
      job.setCombinerClass(DedupCombiner.class);
    }
    job.setReducerClass(IndexReducer.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(Text.class);
    JobSupport.setReduces(job, a);
    JobSupport.setInputOutput(job, a.positional());
    return waitFor(job);
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new InvertedIndex(), args));
  }
}
