package io.hadoopaccel.workloads.jobs;

import io.hadoopaccel.workloads.WorkloadConfigKeys;
import io.hadoopaccel.workloads.WorkloadTool;
import io.hadoopaccel.workloads.util.Args;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.util.ToolRunner;

/**
 * selfjoin (PUMA/Tarazu SelfJoin: the candidate step of Apriori): joins k-field records with
 * themselves on their first k-1 fields. Fields are separated by commas and/or white space. The
 * mapper emits (first k-1 fields, last field); the reducer takes the distinct last fields of a
 * prefix in byte order v1 &lt; v2 &lt; ... and writes one (k+1)-field record
 * {@code p1,...,pk-1,vi,vj} per pair i &lt; j. With {@code -k K} records of another width are
 * skipped; without it, every record of at least 2 fields is used. Skipped lines are counted
 * (MALFORMED_LINES). Input: gen-selfjoin.
 */
public class SelfJoin extends WorkloadTool {
  public static final String FIELDS = WorkloadConfigKeys.SELFJOIN_K;

  @Override
  protected String programName() {
    return "selfjoin";
  }

  @Override
  protected String usage() {
    return "[-k FIELDS] [-r REDUCES] INPUT... OUTDIR";
  }

  static boolean isDelimiter(byte c) {
    return c == ',' || Words.isSpace(c);
  }

  /** Emits (comma-joined prefix, last field). */
  public static class PrefixMapper extends Mapper<LongWritable, Text, Text, Text> {
    private int k;
    private final Text prefix = new Text();
    private final Text last = new Text();
    private final List<int[]> fields = new ArrayList<>();
    private static final byte[] COMMA = {','};

    @Override
    protected void setup(Context context) {
      k = context.getConfiguration().getInt(FIELDS, 0);
    }

    @Override
    protected void map(LongWritable offset, Text line, Context context)
        throws IOException, InterruptedException {
      byte[] b = line.getBytes();
      int n = line.getLength();
      fields.clear();
      int i = 0;
      while (i < n) {
        while (i < n && isDelimiter(b[i])) {
          i++;
        }
        int start = i;
        while (i < n && !isDelimiter(b[i])) {
          i++;
        }
        if (i > start) {
          fields.add(new int[] {start, i});
        }
      }
      if (fields.size() < 2 || (k > 0 && fields.size() != k)) {
        context.getCounter(COUNTER_GROUP, "MALFORMED_LINES").increment(1);
        return;
      }
      prefix.clear();
      for (int f = 0; f < fields.size() - 1; f++) {
        int[] r = fields.get(f);
        if (f > 0) {
          prefix.append(COMMA, 0, 1);
        }
        prefix.append(b, r[0], r[1] - r[0]);
      }
      int[] r = fields.get(fields.size() - 1);
      last.set(b, r[0], r[1] - r[0]);
      context.write(prefix, last);
    }
  }

  /** One joined record per pair of distinct last fields. */
  public static class PairReducer extends Reducer<Text, Text, Text, NullWritable> {
    private final Text record = new Text();
    private static final byte[] COMMA = {','};

    @Override
    protected void reduce(Text prefix, Iterable<Text> lasts, Context context)
        throws IOException, InterruptedException {
      List<Text> values = new ArrayList<>(InvertedIndex.distinct(lasts));
      for (int i = 0; i < values.size(); i++) {
        for (int j = i + 1; j < values.size(); j++) {
          record.set(prefix);
          record.append(COMMA, 0, 1);
          record.append(values.get(i).getBytes(), 0, values.get(i).getLength());
          record.append(COMMA, 0, 1);
          record.append(values.get(j).getBytes(), 0, values.get(j).getLength());
          context.write(record, NullWritable.get());
        }
        context.progress();
      }
    }
  }

  @Override
  protected int runTool(String[] args) throws Exception {
    Args a = new Args().option("-k", "-r").parse(args);
    Args.require(a.positional().size() >= 2, "expected INPUT... OUTDIR");
    Job job = Job.getInstance(getConf(), "selfjoin");
    if (a.has("-k")) {
      int k = a.getInt("-k", 0);
      Args.require(k >= 2, "-k must be at least 2");
      job.getConfiguration().setInt(FIELDS, k);
    }
    job.setJarByClass(SelfJoin.class);
    job.setMapperClass(PrefixMapper.class);
    job.setReducerClass(PairReducer.class);
    job.setMapOutputKeyClass(Text.class);
    job.setMapOutputValueClass(Text.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(NullWritable.class);
    JobSupport.setReduces(job, a);
    JobSupport.setInputOutput(job, a.positional());
    return waitFor(job);
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new SelfJoin(), args));
  }
}
