package io.hadoopaccel.workloads.gen;

import io.hadoopaccel.workloads.util.ByteBuf;
import io.hadoopaccel.workloads.util.SplitMix64;
import io.hadoopaccel.workloads.util.Vocabulary;
import io.hadoopaccel.workloads.util.ZipfSampler;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Seed 000's text (§5): lines of {@code minWords..maxWords} words (10-20 by default, uniform),
 * separated by one space, each word drawn from the vocabulary with Zipf frequencies.
 */
public final class ZipfText {
  public static final int DEFAULT_MIN_WORDS = 10;
  public static final int DEFAULT_MAX_WORDS = 20;
  public static final double DEFAULT_EXPONENT = 1.0;

  private final Vocabulary vocabulary;
  private final ZipfSampler sampler;
  private final int minWords;
  private final int maxWords;

  public ZipfText(Vocabulary vocabulary, double exponent, int minWords, int maxWords) {
    if (minWords < 1 || maxWords < minWords) {
      throw new IllegalArgumentException(
          "need 1 <= minWords <= maxWords, got " + minWords + ".." + maxWords);
    }
    this.vocabulary = vocabulary;
    this.sampler = new ZipfSampler(vocabulary.size(), exponent);
    this.minWords = minWords;
    this.maxWords = maxWords;
  }

  public static ZipfText standard() {
    return new ZipfText(Vocabulary.standard(), DEFAULT_EXPONENT, DEFAULT_MIN_WORDS,
        DEFAULT_MAX_WORDS);
  }

  public Vocabulary vocabulary() {
    return vocabulary;
  }

  public ZipfSampler sampler() {
    return sampler;
  }

  /** The longest line this generator can produce, newline included. */
  public int maxLineBytes() {
    return maxWords * (vocabulary.maxWordLength() + 1);
  }

  /** Appends one line, '\n' included. */
  public void appendLine(SplitMix64 rng, ByteBuf out) {
    int n = minWords + rng.nextInt(maxWords - minWords + 1);
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        out.append((byte) ' ');
      }
      out.append(vocabulary.wordBytes(sampler.sample(rng)));
    }
    out.append((byte) '\n');
  }

  /**
   * Appends whole lines until at least {@code targetBytes} were appended (so a block overshoots
   * its target by less than one line). Appends nothing when {@code targetBytes <= 0}.
   */
  public void appendLines(SplitMix64 rng, long targetBytes, ByteBuf out) {
    int start = out.length();
    while (out.length() - start < targetBytes) {
      appendLine(rng, out);
    }
  }

  /**
   * Writes files {@code text-0, text-1, ...} of whole lines into {@code dir}, file {@code f}
   * at least {@code sizes[f]} bytes from seed {@code seed * 1000 + f}: the test inputs of the
   * feature modules.
   */
  public static void writeFiles(FileSystem fs, Path dir, int[] sizes, long seed)
      throws IOException {
    ZipfText text = standard();
    for (int f = 0; f < sizes.length; f++) {
      ByteBuf buf = new ByteBuf(sizes[f] + text.maxLineBytes());
      text.appendLines(new SplitMix64(seed * 1_000 + f), sizes[f], buf);
      try (OutputStream out = fs.create(new Path(dir, "text-" + f))) {
        out.write(buf.array(), 0, buf.length());
      }
    }
  }
}
