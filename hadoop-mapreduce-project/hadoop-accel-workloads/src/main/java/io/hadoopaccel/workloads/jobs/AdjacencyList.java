package io.hadoopaccel.workloads.jobs;

import io.hadoopaccel.workloads.WorkloadTool;
import io.hadoopaccel.workloads.util.Args;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.util.ToolRunner;

/**
 * adjacencylist (PUMA/Tarazu AdjacencyList, used by seeds 001/002): builds every vertex's
 * outgoing and incoming adjacency lists from a graph given as lines
 * {@code src SEP dst[,dst...]} where SEP is the first TAB or space: an edge list
 * ({@code src dst}) or adjacency lists (gen-adjacency's {@code v TAB n1,n2,...}).
 *
 * <p>The mapper emits {@code (src, "O" + list)} once per line - with gen-adjacency's input a
 * 4-64 KB intermediate value, seed 002's large-value case - and {@code (dst, "I" + src)} per
 * edge. The reducer writes {@code v TAB out-list TAB in-list}, both comma-separated and sorted
 * (string order: byte order for ASCII ids), duplicates (parallel edges) kept; an empty list is an empty field. Lines with
 * no separator or no destination are skipped and counted (MALFORMED_LINES).
 */
public class AdjacencyList extends WorkloadTool {
  static final byte OUT = 'O';
  static final byte IN = 'I';

  @Override
  protected String programName() {
    return "adjacencylist";
  }

  @Override
  protected String usage() {
    return "[-r REDUCES] INPUT... OUTDIR";
  }

  /** Emits the out-list under its source and a back edge under each destination. */
  public static class EdgeMapper extends Mapper<LongWritable, Text, Text, Text> {
    private final Text vertex = new Text();
    private final Text value = new Text();
    private final byte[] tag = new byte[1];

    @Override
    protected void map(LongWritable offset, Text line, Context context)
        throws IOException, InterruptedException {
      byte[] b = line.getBytes();
      int n = line.getLength();
      while (n > 0 && (b[n - 1] == '\r' || b[n - 1] == ' ' || b[n - 1] == '\t')) {
        n--;
      }
      int sep = 0;
      while (sep < n && b[sep] != '\t' && b[sep] != ' ') {
        sep++;
      }
      int listStart = sep + 1;
      while (listStart < n && (b[listStart] == '\t' || b[listStart] == ' ')) {
        listStart++;
      }
      if (sep == 0 || listStart >= n) {
        context.getCounter(COUNTER_GROUP, "MALFORMED_LINES").increment(1);
        return;
      }
      vertex.set(b, 0, sep);
      tag[0] = OUT;
      value.set(tag, 0, 1);
      value.append(b, listStart, n - listStart);
      context.write(vertex, value);

      tag[0] = IN;
      int start = listStart;
      for (int i = listStart; i <= n; i++) {
        if (i == n || b[i] == ',') {
          if (i > start) {
            value.set(tag, 0, 1);
            value.append(b, 0, sep);
            vertex.set(b, start, i - start);
            context.write(vertex, value);
          }
          start = i + 1;
        }
      }
    }
  }

  /** v TAB sorted out-list TAB sorted in-list. */
  public static class ListReducer extends Reducer<Text, Text, Text, Text> {
    private final Text lists = new Text();

    @Override
    protected void reduce(Text vertex, Iterable<Text> values, Context context)
        throws IOException, InterruptedException {
      List<String> out = new ArrayList<>();
      List<String> in = new ArrayList<>();
      for (Text v : values) {
        String s = v.toString();
        if (s.isEmpty()) {
          continue;
        }
        if (s.charAt(0) == OUT) {
          for (String d : s.substring(1).split(",")) {
            if (!d.isEmpty()) {
              out.add(d);
            }
          }
        } else {
          in.add(s.substring(1));
        }
      }
      Collections.sort(out);
      Collections.sort(in);
      lists.set(String.join(",", out) + "\t" + String.join(",", in));
      context.write(vertex, lists);
    }
  }

  @Override
  protected int runTool(String[] args) throws Exception {
    Args a = new Args().option("-r").parse(args);
    Args.require(a.positional().size() >= 2, "expected INPUT... OUTDIR");
    Job job = Job.getInstance(getConf(), "adjacencylist");
    job.setJarByClass(AdjacencyList.class);
    job.setMapperClass(EdgeMapper.class);
    job.setReducerClass(ListReducer.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(Text.class);
    JobSupport.setReduces(job, a);
    JobSupport.setInputOutput(job, a.positional());
    return waitFor(job);
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new AdjacencyList(), args));
  }
}
