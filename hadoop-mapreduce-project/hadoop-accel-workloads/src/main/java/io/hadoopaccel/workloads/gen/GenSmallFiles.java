package io.hadoopaccel.workloads.gen;

import io.hadoopaccel.workloads.WorkloadConfigKeys;
import io.hadoopaccel.workloads.WorkloadTool;
import io.hadoopaccel.workloads.util.Args;
import io.hadoopaccel.workloads.util.ByteBuf;
import io.hadoopaccel.workloads.util.SplitMix64;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.LazyOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.TextOutputFormat;
import org.apache.hadoop.util.ToolRunner;

/**
 * gen-smallfiles: seed 003 ch.4's "1 GB as 1000 files of 1 MB". Each file is seed-000 text
 * (whole lines; it ends at the first line end at or after the requested size) from its own
 * random stream (seed, file index). Map tasks write the files as side files in their task
 * output directory, so the output committer publishes them (no part files are created).
 */
public class GenSmallFiles extends WorkloadTool {
  public static final String FILE_BYTES = WorkloadConfigKeys.GEN_SMALLFILES_BYTES;
  public static final long DEFAULT_FILE_BYTES = 1L << 20;
  private static final int CHUNK = 1 << 20;

  @Override
  protected String programName() {
    return "gen-smallfiles";
  }

  @Override
  protected String usage() {
    return "-numFiles N [-fileSize SIZE(1m)] [-seed N] [-maps N] [-zipf S] [-minWords N]"
        + " [-maxWords N] [-vocabulary N] OUTDIR";
  }

  /** The name of file {@code index}: file-000000.txt, ... (sorts in index order). */
  public static String fileName(long index) {
    return String.format("file-%06d.txt", index);
  }

  /** Writes one file per input unit. */
  public static class FileMapper
      extends Mapper<LongWritable, NullWritable, NullWritable, NullWritable> {
    private ZipfText text;
    private long seed;
    private long fileBytes;
    private final ByteBuf buf = new ByteBuf(CHUNK + 4096);

    @Override
    protected void setup(Context context) {
      Configuration conf = context.getConfiguration();
      text = GenText.textOf(conf);
      seed = conf.getLong(Generators.SEED, Generators.DEFAULT_SEED);
      fileBytes = conf.getLong(FILE_BYTES, DEFAULT_FILE_BYTES);
    }

    @Override
    protected void map(LongWritable index, NullWritable ignored, Context context)
        throws IOException, InterruptedException {
      Path dir = FileOutputFormat.getWorkOutputPath(context);
      Path file = new Path(dir, fileName(index.get()));
      FileSystem fs = file.getFileSystem(context.getConfiguration());
      SplitMix64 rng = SplitMix64.forUnit(seed, Generators.DOMAIN_FILES, index.get());
      long written = 0;
      try (FSDataOutputStream out = fs.create(file, true)) {
        // Chunked so huge "small" files need no huge buffer; the lines are the same as if
        // generated in one go (the stream and the stopping rule do not depend on chunking).
        while (written < fileBytes) {
          buf.clear();
          text.appendLines(rng, Math.min(CHUNK, fileBytes - written), buf);
          out.write(buf.array(), 0, buf.length());
          written += buf.length();
          context.progress();
        }
      }
      context.getCounter(COUNTER_GROUP, "GENERATED_FILES").increment(1);
      context.getCounter(COUNTER_GROUP, "GENERATED_BYTES").increment(written);
    }
  }

  @Override
  protected int runTool(String[] args) throws Exception {
    Args a = new Args()
        .option("-numFiles", "-fileSize", "-seed", "-maps", "-zipf", "-minWords", "-maxWords",
            "-vocabulary")
        .parse(args);
    Args.require(a.positional().size() == 1, "expected exactly one output directory");
    Args.require(a.has("-numFiles"), "-numFiles is required");
    long files = a.getLong("-numFiles", 0);
    long fileBytes = a.getSize("-fileSize", DEFAULT_FILE_BYTES);
    Args.require(files > 0, "-numFiles must be positive");
    Args.require(fileBytes > 0, "-fileSize must be positive");
    Configuration conf = getConf();
    GenText.textOptions(a, conf);
    conf.setLong(FILE_BYTES, fileBytes);
    Job job = Generators.newJob(conf, "gen-smallfiles " + files + " x " + fileBytes + " bytes",
        files, a.getInt("-maps", 0), a.getLong("-seed", Generators.DEFAULT_SEED),
        new Path(a.positional().get(0)), FileMapper.class, GenSmallFiles.class);
    job.setOutputKeyClass(NullWritable.class);
    // Only the side files: no empty part-m-* files among the small files.
    LazyOutputFormat.setOutputFormatClass(job, TextOutputFormat.class);
    return waitFor(job);
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new GenSmallFiles(), args));
  }
}
