package io.hadoopaccel.workloads.gen;

import io.hadoopaccel.workloads.WorkloadConfigKeys;
import io.hadoopaccel.workloads.WorkloadTool;
import io.hadoopaccel.workloads.util.Args;
import io.hadoopaccel.workloads.util.ByteBuf;
import io.hadoopaccel.workloads.util.SplitMix64;
import io.hadoopaccel.workloads.util.Vocabulary;
import java.io.IOException;
import java.io.PrintStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.util.ToolRunner;

/**
 * gen-text: seed 000's WordCount/Grep input. The output is cut into 1 MiB blocks; block i is
 * generated from its own random stream (seed, i) and holds whole lines (it ends at the first line
 * end at or after its 1 MiB), so the concatenated part files are the same bytes whatever the
 * number of map tasks.
 */
public class GenText extends WorkloadTool {
  public static final String BYTES = WorkloadConfigKeys.GEN_TEXT_BYTES;
  public static final String EXPONENT = WorkloadConfigKeys.GEN_TEXT_ZIPF;
  public static final String MIN_WORDS = WorkloadConfigKeys.GEN_TEXT_MIN_WORDS;
  public static final String MAX_WORDS = WorkloadConfigKeys.GEN_TEXT_MAX_WORDS;
  public static final String VOCABULARY_SIZE = WorkloadConfigKeys.GEN_TEXT_VOCABULARY;
  /** Bytes per generated block (the unit of work and of determinism). */
  public static final int BLOCK_BYTES = 1 << 20;

  @Override
  protected String programName() {
    return "gen-text";
  }

  @Override
  protected String usage() {
    return "-bytes SIZE [-seed N] [-maps N] [-zipf S] [-minWords N] [-maxWords N]"
        + " [-vocabulary N] OUTDIR\n   or: gen-text -printVocabulary [-vocabulary N] [-zipf S]";
  }

  /** The text generator a job's configuration describes. */
  static ZipfText textOf(Configuration conf) {
    int vocabularySize = conf.getInt(VOCABULARY_SIZE, Vocabulary.DEFAULT_SIZE);
    return new ZipfText(Vocabulary.create(vocabularySize),
        conf.getDouble(EXPONENT, ZipfText.DEFAULT_EXPONENT),
        conf.getInt(MIN_WORDS, ZipfText.DEFAULT_MIN_WORDS),
        conf.getInt(MAX_WORDS, ZipfText.DEFAULT_MAX_WORDS));
  }

  /** Copies the text options shared by gen-text and gen-smallfiles into the configuration. */
  static void textOptions(Args a, Configuration conf) {
    int vocabulary = a.getInt("-vocabulary", Vocabulary.DEFAULT_SIZE);
    int minWords = a.getInt("-minWords", ZipfText.DEFAULT_MIN_WORDS);
    int maxWords = a.getInt("-maxWords", ZipfText.DEFAULT_MAX_WORDS);
    double zipf = a.getDouble("-zipf", ZipfText.DEFAULT_EXPONENT);
    Args.require(vocabulary > 0, "-vocabulary must be positive");
    Args.require(minWords >= 1 && maxWords >= minWords, "need 1 <= -minWords <= -maxWords");
    Args.require(zipf >= 0 && !Double.isInfinite(zipf), "-zipf must be >= 0");
    conf.setInt(VOCABULARY_SIZE, vocabulary);
    conf.setInt(MIN_WORDS, minWords);
    conf.setInt(MAX_WORDS, maxWords);
    conf.setDouble(EXPONENT, zipf);
  }

  /** Generates one block per input unit. */
  public static class TextMapper extends Mapper<LongWritable, NullWritable, Text, NullWritable> {
    private ZipfText text;
    private long seed;
    private long totalBytes;
    private final ByteBuf buf = new ByteBuf(BLOCK_BYTES + 4096);
    private final Text out = new Text();

    @Override
    protected void setup(Context context) {
      Configuration conf = context.getConfiguration();
      text = textOf(conf);
      seed = conf.getLong(Generators.SEED, Generators.DEFAULT_SEED);
      totalBytes = conf.getLong(BYTES, 0);
    }

    @Override
    protected void map(LongWritable block, NullWritable ignored, Context context)
        throws IOException, InterruptedException {
      long target = Math.min(BLOCK_BYTES, totalBytes - block.get() * BLOCK_BYTES);
      buf.clear();
      text.appendLines(SplitMix64.forUnit(seed, Generators.DOMAIN_TEXT, block.get()), target,
          buf);
      if (buf.length() == 0) {
        return;
      }
      // TextOutputFormat ends each record with '\n': hand it the block minus its last newline.
      out.set(buf.array(), 0, buf.length() - 1);
      context.write(out, NullWritable.get());
      context.getCounter(COUNTER_GROUP, "GENERATED_BYTES").increment(buf.length());
    }
  }

  @Override
  protected int runTool(String[] args) throws Exception {
    Args a = new Args().flag("-printVocabulary")
        .option("-bytes", "-seed", "-maps", "-zipf", "-minWords", "-maxWords", "-vocabulary")
        .parse(args);
    Configuration conf = getConf();
    textOptions(a, conf);
    if (a.has("-printVocabulary")) {
      printVocabulary(textOf(conf), System.out);
      return 0;
    }
    Args.require(a.positional().size() == 1, "expected exactly one output directory");
    Args.require(a.has("-bytes"), "-bytes is required");
    long bytes = a.getSize("-bytes", 0);
    Args.require(bytes > 0, "-bytes must be positive");
    conf.setLong(BYTES, bytes);
    long blocks = (bytes + BLOCK_BYTES - 1) / BLOCK_BYTES;
    Job job = Generators.newJob(conf, "gen-text " + bytes + " bytes", blocks,
        a.getInt("-maps", 0), a.getLong("-seed", Generators.DEFAULT_SEED),
        new Path(a.positional().get(0)), TextMapper.class, GenText.class);
    return waitFor(job);
  }

  /** rank, word, probability: to pick Grep patterns of a known selectivity. */
  static void printVocabulary(ZipfText text, PrintStream out) {
    for (int i = 0; i < text.vocabulary().size(); i++) {
      out.printf("%d\t%s\t%.6g%n", i + 1, text.vocabulary().word(i),
          text.sampler().probability(i));
    }
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new Configuration(), new GenText(), args));
  }
}
