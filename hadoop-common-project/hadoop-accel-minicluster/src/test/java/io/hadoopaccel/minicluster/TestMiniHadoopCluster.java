package io.hadoopaccel.minicluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.map.TokenCounterMapper;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.reduce.IntSumReducer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Real jobs on the shared per-class cluster: HDFS 2 datanodes, YARN 1 nodemanager. */
class TestMiniHadoopCluster {

  @RegisterExtension
  static final MiniHadoopClusterExtension CLUSTER = MiniHadoopClusterExtension.builder()
      .numDataNodes(2)
      .configure(conf -> conf.set("io.hadoopaccel.test.marker", "from-builder"))
      .build();

  private static MiniDFSCluster dfsAtStart;

  @BeforeAll
  static void rememberCluster() {
    dfsAtStart = CLUSTER.getDfsCluster();
  }

  @Test
  void wordCountMatchesCountsComputedHere() throws Exception {
    FileSystem fs = CLUSTER.getFileSystem();
    Path in = new Path("/wordcount/in");
    Path out = new Path("/wordcount/out");
    Map<String, Integer> expected = new TreeMap<>();
    long lines = 0;
    Random rnd = new Random(20240611L);
    for (int f = 0; f < 3; f++) {
      try (Writer w = new OutputStreamWriter(fs.create(new Path(in, "input-" + f)),
          StandardCharsets.UTF_8)) {
        for (int l = 0; l < 2_000; l++, lines++) {
          int words = 1 + rnd.nextInt(12);
          for (int i = 0; i < words; i++) {
            // Skewed vocabulary of 200 words so counts differ widely.
            String word = "w" + (int) Math.floor(200 * Math.pow(rnd.nextDouble(), 2));
            expected.merge(word, 1, Integer::sum);
            w.write(i == 0 ? word : " " + word);
          }
          w.write('\n');
        }
      }
    }

    Configuration conf = CLUSTER.getConfiguration();
    assertEquals("from-builder", conf.get("io.hadoopaccel.test.marker"));
    assertEquals("yarn", conf.get("mapreduce.framework.name"));
    Job job = Job.getInstance(conf, "wordcount");
    job.setJarByClass(TestMiniHadoopCluster.class);
    job.setMapperClass(TokenCounterMapper.class);
    job.setCombinerClass(IntSumReducer.class);
    job.setReducerClass(IntSumReducer.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(IntWritable.class);
    job.setNumReduceTasks(2);
    FileInputFormat.addInputPath(job, in);
    FileOutputFormat.setOutputPath(job, out);
    assertTrue(job.waitForCompletion(false), "wordcount job failed");

    List<String> want = new ArrayList<>();
    expected.forEach((word, count) -> want.add(word + "\t" + count));
    want.sort(null); // readOutputLines sorts whole lines
    assertEquals(want, CLUSTER.readOutputLines(out));
    assertEquals(2, fs.listStatus(out, p -> p.getName().startsWith("part-r-")).length);

    assertEquals(lines,
        job.getCounters().findCounter(TaskCounter.MAP_INPUT_RECORDS).getValue());
    assertEquals(expected.size(),
        job.getCounters().findCounter(TaskCounter.REDUCE_OUTPUT_RECORDS).getValue());
    assertSame(dfsAtStart, CLUSTER.getDfsCluster(), "cluster restarted within the class");
  }

  /** Emits each input line unchanged; the key (byte offset) is dropped. */
  public static class LineMapper extends Mapper<LongWritable, Text, Text, NullWritable> {
    @Override
    protected void map(LongWritable key, Text value, Context ctx)
        throws IOException, InterruptedException {
      ctx.write(value, NullWritable.get());
    }
  }

  @Test
  void mapOnlyJobGetsOneSplitPerHdfsBlock() throws Exception {
    FileSystem fs = CLUSTER.getFileSystem();
    Path in = new Path("/maponly/in/data.txt");
    Path out = new Path("/maponly/out");
    long blockSize = 1024 * 1024;
    List<String> want = new ArrayList<>();
    Random rnd = new Random(7L);
    // ~3.5 blocks of 100-byte lines, written with a 1 MiB block size and replication 2.
    try (FSDataOutputStream os = fs.create(in, true, 4096, (short) 2, blockSize)) {
      for (int i = 0; i < 36_000; i++) {
        StringBuilder line = new StringBuilder(String.format("%08d ", i));
        while (line.length() < 99) {
          line.append((char) ('a' + rnd.nextInt(26)));
        }
        want.add(line.toString());
        os.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      }
    }
    FileStatus st = fs.getFileStatus(in);
    assertEquals(3_600_000L, st.getLen());
    assertEquals(4, fs.getFileBlockLocations(st, 0, st.getLen()).length);
    for (var loc : fs.getFileBlockLocations(st, 0, st.getLen())) {
      assertEquals(2, loc.getHosts().length, "block not on both datanodes");
    }

    Job job = Job.getInstance(CLUSTER.getConfiguration(), "map-only");
    job.setJarByClass(TestMiniHadoopCluster.class);
    job.setMapperClass(LineMapper.class);
    job.setNumReduceTasks(0);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(NullWritable.class);
    FileInputFormat.addInputPath(job, in);
    FileOutputFormat.setOutputPath(job, out);
    assertTrue(job.waitForCompletion(false), "map-only job failed");

    assertEquals(4, fs.listStatus(out, p -> p.getName().startsWith("part-m-")).length);
    want.sort(null);
    assertEquals(want, CLUSTER.readOutputLines(out));
    assertEquals(4, job.getCounters().findCounter(
        org.apache.hadoop.mapreduce.JobCounter.TOTAL_LAUNCHED_MAPS).getValue());
    assertSame(dfsAtStart, CLUSTER.getDfsCluster(), "cluster restarted within the class");
  }
}
