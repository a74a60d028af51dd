package io.hadoopaccel.workloads.gen;

import io.hadoopaccel.workloads.WorkloadConfigKeys;
import io.hadoopaccel.workloads.WorkloadTool;
import io.hadoopaccel.workloads.util.Args;
import io.hadoopaccel.workloads.util.ByteBuf;
import io.hadoopaccel.workloads.util.SplitMix64;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.util.ToolRunner;

/**
 * gen-selfjoin: input for SelfJoin (PUMA/Tarazu: Apriori-style candidate generation). Records
 * are k comma-separated item ids. They come in groups sharing a (k-1)-field prefix: group g
 * (its own random stream (seed, g)) draws k-1 distinct sorted items as the prefix, then a size
 * uniform in [1, 2*group-1] (mean {@code group}) and that many distinct last items, none of them
 * in the prefix. SelfJoin emits size*(size-1)/2 records per group, so {@code -group} sets the
 * output/input ratio (about (group-1)/2 plus the effect of the size spread).
 */
public class GenSelfJoin extends WorkloadTool {
  public static final String FIELDS = WorkloadConfigKeys.GEN_SELFJOIN_K;
  public static final String GROUP = WorkloadConfigKeys.GEN_SELFJOIN_GROUP;
  public static final String ITEMS = WorkloadConfigKeys.GEN_SELFJOIN_ITEMS;
  public static final int DEFAULT_FIELDS = 3;
  public static final int DEFAULT_GROUP = 8;
  public static final long DEFAULT_ITEMS = 100_000;

  @Override
  protected String programName() {
    return "gen-selfjoin";
  }

  @Override
  protected String usage() {
    return "-records N [-k N(3)] [-group N(8)] [-items N(100000)] [-seed N] [-maps N] OUTDIR";
  }

  /** Appends group {@code g}'s records, each ending with '\n'. */
  public static void appendGroup(long seed, int k, int group, long items, long g, ByteBuf out) {
    SplitMix64 rng = SplitMix64.forUnit(seed, Generators.DOMAIN_SELFJOIN, g);
    Set<Long> used = new HashSet<>();
    long[] prefix = new long[k - 1];
    for (int i = 0; i < prefix.length; i++) {
      long item;
      do {
        item = rng.nextLong(items);
      } while (!used.add(item));
      prefix[i] = item;
    }
    Arrays.sort(prefix);
    long size = Math.min(rng.nextLong(1, 2L * group - 1), items - prefix.length);
    for (long r = 0; r < size; r++) {
      long item;
      do {
        item = rng.nextLong(items);
      } while (!used.add(item));
      for (long p : prefix) {
        out.appendDecimal(p);
        out.append((byte) ',');
      }
      out.appendDecimal(item);
      out.append((byte) '\n');
    }
  }

  /** Writes one prefix group per input unit. */
  public static class SelfJoinMapper
      extends Mapper<LongWritable, NullWritable, Text, NullWritable> {
    private long seed;
    private int k;
    private int group;
    private long items;
    private final ByteBuf buf = new ByteBuf(4096);
    private final Text out = new Text();

    @Override
    protected void setup(Context context) {
      Configuration conf = context.getConfiguration();
      seed = conf.getLong(Generators.SEED, Generators.DEFAULT_SEED);
      k = conf.getInt(FIELDS, DEFAULT_FIELDS);
      group = conf.getInt(GROUP, DEFAULT_GROUP);
      items = conf.getLong(ITEMS, DEFAULT_ITEMS);
    }

    @Override
    protected void map(LongWritable g, NullWritable ignored, Context context)
        throws IOException, InterruptedException {
      buf.clear();
      appendGroup(seed, k, group, items, g.get(), buf);
      if (buf.length() > 0) {
        out.set(buf.array(), 0, buf.length() - 1);
        context.write(out, NullWritable.get());
      }
    }
  }

  @Override
  protected int runTool(String[] args) throws Exception {
    Args a = new Args().option("-records", "-k", "-group", "-items", "-seed", "-maps")
        .parse(args);
    Args.require(a.positional().size() == 1, "expected exactly one output directory");
    Args.require(a.has("-records"), "-records is required");
    long records = a.getLong("-records", 0);
    int k = a.getInt("-k", DEFAULT_FIELDS);
    int group = a.getInt("-group", DEFAULT_GROUP);
    long items = a.getLong("-items", DEFAULT_ITEMS);
    Args.require(records > 0, "-records must be positive");
    Args.require(k >= 2, "-k must be at least 2");
    Args.require(group >= 1, "-group must be at least 1");
    Args.require(items >= k, "-items must be at least k");
    Configuration conf = getConf();
    conf.setInt(FIELDS, k);
    conf.setInt(GROUP, group);
    conf.setLong(ITEMS, items);
    long groups = (records + group - 1) / group;
    Job job = Generators.newJob(conf, "gen-selfjoin ~" + records + " records, k=" + k, groups,
        a.getInt("-maps", 0), a.getLong("-seed", Generators.DEFAULT_SEED),
        new Path(a.positional().get(0)), SelfJoinMapper.class, GenSelfJoin.class);
    return waitFor(job);
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new GenSelfJoin(), args));
  }
}
