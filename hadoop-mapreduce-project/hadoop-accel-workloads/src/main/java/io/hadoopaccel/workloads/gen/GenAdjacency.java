package io.hadoopaccel.workloads.gen;

import io.hadoopaccel.workloads.WorkloadConfigKeys;
import io.hadoopaccel.workloads.WorkloadTool;
import io.hadoopaccel.workloads.util.Args;
import io.hadoopaccel.workloads.util.ByteBuf;
import io.hadoopaccel.workloads.util.SplitMix64;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.util.ToolRunner;

/**
 * gen-adjacency: a directed graph whose adjacency lists are large values (seed 002's
 * AdjacencyList/PageRank case: 4-64 KB per value). Vertices are 0..V-1 in decimal. Vertex v's
 * out-list is drawn from its own random stream (seed, v): a target size uniform in
 * [minValue, maxValue - digits(V-1)], then neighbours uniform over all vertices (repeats and
 * self-loops allowed) appended until the list reaches the target, so every list is between
 * minValue and maxValue bytes.
 *
 * <p>Formats: {@code adj} (default) writes {@code v TAB n1,n2,...,nk} per vertex; {@code edges}
 * writes the same graph as {@code v TAB n} per edge. The adjacencylist job reads both.
 */
public class GenAdjacency extends WorkloadTool {
  public static final String VERTICES = WorkloadConfigKeys.GEN_ADJACENCY_VERTICES;
  public static final String MIN_VALUE = WorkloadConfigKeys.GEN_ADJACENCY_MIN_VALUE;
  public static final String MAX_VALUE = WorkloadConfigKeys.GEN_ADJACENCY_MAX_VALUE;
  public static final String EDGES = WorkloadConfigKeys.GEN_ADJACENCY_EDGES;
  public static final int DEFAULT_MIN_VALUE = 4 << 10;
  public static final int DEFAULT_MAX_VALUE = 64 << 10;

  @Override
  protected String programName() {
    return "gen-adjacency";
  }

  @Override
  protected String usage() {
    return "(-vertices N | -bytes SIZE) [-minValue SIZE(4k)] [-maxValue SIZE(64k)]"
        + " [-format adj|edges] [-seed N] [-maps N] OUTDIR";
  }

  static int digits(long v) {
    return Long.toString(v).length();
  }

  /**
   * Appends vertex {@code v}'s out-list (comma-separated ids) to {@code out}; the graph is a
   * pure function of (seed, vertices, minValue, maxValue).
   */
  public static void appendOutList(long seed, long vertices, int minValue, int maxValue, long v,
      ByteBuf out) {
    SplitMix64 rng = SplitMix64.forUnit(seed, Generators.DOMAIN_ADJACENCY, v);
    int maxDigits = digits(vertices - 1);
    long target = rng.nextLong(minValue, maxValue - maxDigits);
    int start = out.length();
    while (out.length() - start < target) {
      if (out.length() > start) {
        out.append((byte) ',');
      }
      out.appendDecimal(rng.nextLong(vertices));
    }
  }

  /** Writes one vertex's list, or its edges, per input unit. */
  public static class AdjacencyMapper
      extends Mapper<LongWritable, NullWritable, Text, NullWritable> {
    private long seed;
    private long vertices;
    private int minValue;
    private int maxValue;
    private boolean edges;
    private final ByteBuf list = new ByteBuf(DEFAULT_MAX_VALUE + 64);
    private final ByteBuf record = new ByteBuf(DEFAULT_MAX_VALUE + 64);
    private final Text out = new Text();

    @Override
    protected void setup(Context context) {
      Configuration conf = context.getConfiguration();
      seed = conf.getLong(Generators.SEED, Generators.DEFAULT_SEED);
      vertices = conf.getLong(VERTICES, 1);
      minValue = conf.getInt(MIN_VALUE, DEFAULT_MIN_VALUE);
      maxValue = conf.getInt(MAX_VALUE, DEFAULT_MAX_VALUE);
      edges = conf.getBoolean(EDGES, false);
    }

    @Override
    protected void map(LongWritable vertex, NullWritable ignored, Context context)
        throws IOException, InterruptedException {
      long v = vertex.get();
      list.clear();
      appendOutList(seed, vertices, minValue, maxValue, v, list);
      record.clear();
      if (!edges) {
        record.appendDecimal(v);
        record.append((byte) '\t');
        record.append(list.array(), 0, list.length());
        context.getCounter(COUNTER_GROUP, "GENERATED_VALUE_BYTES").increment(list.length());
      } else {
        byte[] l = list.array();
        int start = 0;
        long edgeCount = 0;
        for (int i = 0; i <= list.length(); i++) {
          if (i == list.length() || l[i] == ',') {
            if (record.length() > 0) {
              record.append((byte) '\n');
            }
            record.appendDecimal(v);
            record.append((byte) '\t');
            record.append(l, start, i - start);
            edgeCount++;
            start = i + 1;
          }
        }
        context.getCounter(COUNTER_GROUP, "GENERATED_EDGES").increment(edgeCount);
      }
      out.set(record.array(), 0, record.length());
      context.write(out, NullWritable.get());
    }
  }

  @Override
  protected int runTool(String[] args) throws Exception {
    Args a = new Args()
        .option("-vertices", "-bytes", "-minValue", "-maxValue", "-format", "-seed", "-maps")
        .parse(args);
    Args.require(a.positional().size() == 1, "expected exactly one output directory");
    Args.require(a.has("-vertices") != a.has("-bytes"),
        "give exactly one of -vertices and -bytes");
    long minValue = a.getSize("-minValue", DEFAULT_MIN_VALUE);
    long maxValue = a.getSize("-maxValue", DEFAULT_MAX_VALUE);
    String format = a.get("-format", "adj");
    Args.require(format.equals("adj") || format.equals("edges"),
        "-format must be adj or edges");
    Args.require(minValue > 0 && maxValue <= Integer.MAX_VALUE / 2,
        "-minValue/-maxValue out of range");
    long vertices;
    if (a.has("-vertices")) {
      vertices = a.getLong("-vertices", 0);
    } else {
      // adj records average about (min+max)/2 + digits + 2 bytes.
      long bytes = a.getSize("-bytes", 0);
      Args.require(bytes > 0, "-bytes must be positive");
      long avg = (minValue + maxValue) / 2 + 2 + digits(bytes / ((minValue + maxValue) / 2));
      vertices = Math.max(1, Math.round((double) bytes / avg));
    }
    Args.require(vertices > 0, "-vertices must be positive");
    Args.require(maxValue - digits(vertices - 1) >= minValue,
        "-maxValue must exceed -minValue by at least the digits of the largest vertex id");
    Configuration conf = getConf();
    conf.setLong(VERTICES, vertices);
    conf.setInt(MIN_VALUE, (int) minValue);
    conf.setInt(MAX_VALUE, (int) maxValue);
    conf.setBoolean(EDGES, format.equals("edges"));
    Job job = Generators.newJob(conf, "gen-adjacency " + vertices + " vertices (" + format + ")",
        vertices, a.getInt("-maps", 0), a.getLong("-seed", Generators.DEFAULT_SEED),
        new Path(a.positional().get(0)), AdjacencyMapper.class, GenAdjacency.class);
    return waitFor(job);
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new GenAdjacency(), args));
  }
}
