package io.hadoopaccel.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.workloads.gen.ZipfText;
import io.hadoopaccel.workloads.util.Args;
import io.hadoopaccel.workloads.util.ByteBuf;
import io.hadoopaccel.workloads.util.SplitMix64;
import io.hadoopaccel.workloads.util.Vocabulary;
import io.hadoopaccel.workloads.util.ZipfSampler;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The building blocks of the generators, without MapReduce. */
class TestPrimitives {

  @Test
  void splitMix64MatchesTheReferenceOutput() {
    // Reference values of Vigna's splitmix64.c for seed 1234567.
    SplitMix64 r = new SplitMix64(1234567L);
    long[] expected = {
        Long.parseUnsignedLong("6457827717110365317"),
        Long.parseUnsignedLong("3203168211198807973"),
        Long.parseUnsignedLong("9817491932198370423"),
        Long.parseUnsignedLong("4593380528125082431"),
        Long.parseUnsignedLong("16408922859458223821")};
    long[] actual = new long[expected.length];
    for (int i = 0; i < actual.length; i++) {
      actual[i] = r.nextLong();
    }
    assertArrayEquals(expected, actual);
  }

  @Test
  void boundedDrawsStayInRangeAndCoverIt() {
    SplitMix64 r = new SplitMix64(7);
    int[] seen = new int[7];
    for (int i = 0; i < 7000; i++) {
      seen[r.nextInt(7)]++;
      long v = r.nextLong(-3, 3);
      assertTrue(v >= -3 && v <= 3, "nextLong(-3, 3) gave " + v);
      double d = r.nextDouble();
      assertTrue(d >= 0 && d < 1, "nextDouble gave " + d);
    }
    for (int count : seen) {
      assertTrue(count > 850 && count < 1150, "nextInt(7) is not uniform: " + count);
    }
  }

  @Test
  void unitStreamsDependOnSeedDomainAndIndex() {
    long a = SplitMix64.forUnit(1, 2, 3).nextLong();
    assertEquals(a, SplitMix64.forUnit(1, 2, 3).nextLong());
    assertFalse(a == SplitMix64.forUnit(9, 2, 3).nextLong());
    assertFalse(a == SplitMix64.forUnit(1, 9, 3).nextLong());
    assertFalse(a == SplitMix64.forUnit(1, 2, 9).nextLong());
  }

  @Test
  void zipfSamplerFollowsZipfsLaw() {
    ZipfSampler z = new ZipfSampler(10_000, 1.0);
    double total = 0;
    for (int i = 0; i < z.size(); i++) {
      total += z.probability(i);
    }
    assertEquals(1.0, total, 1e-9);
    assertEquals(2.0, z.probability(0) / z.probability(1), 1e-9);
    assertEquals(100.0, z.probability(0) / z.probability(99), 1e-9);
    // Harmonic number H(10000) = 9.7876...: p(rank 1) = 1/H.
    assertEquals(1 / 9.787606036, z.probability(0), 1e-6);

    int draws = 1_000_000;
    int[] counts = new int[z.size()];
    SplitMix64 r = new SplitMix64(42);
    for (int i = 0; i < draws; i++) {
      counts[z.sample(r)]++;
    }
    for (int rank : new int[] {0, 1, 2, 9, 99}) {
      double expected = z.probability(rank) * draws;
      // > 5 standard deviations would be a broken sampler (the draws are fixed: no flakiness).
      double sd = Math.sqrt(expected);
      assertEquals(expected, counts[rank], 5 * sd, "rank " + rank);
    }
    int tail = 0;
    double tailP = 0;
    for (int rank = 1000; rank < z.size(); rank++) {
      tail += counts[rank];
      tailP += z.probability(rank);
    }
    assertEquals(tailP * draws, tail, 5 * Math.sqrt(tailP * draws));
  }

  @Test
  void zipfExponentZeroIsUniform() {
    ZipfSampler z = new ZipfSampler(4, 0.0);
    for (int i = 0; i < 4; i++) {
      assertEquals(0.25, z.probability(i), 1e-12);
    }
  }

  @Test
  void vocabularyHasTenThousandDistinctWordsShortOnesFrequent() {
    Vocabulary v = Vocabulary.standard();
    assertEquals(10_000, v.size());
    Set<String> distinct = new HashSet<>();
    int shortTop = 0;
    int shortBottom = 0;
    for (int i = 0; i < v.size(); i++) {
      String w = v.word(i);
      assertTrue(w.matches("[a-z]{2,16}"), "bad word '" + w + "'");
      distinct.add(w);
      if (i < 100) {
        shortTop += w.length();
      } else if (i >= v.size() - 100) {
        shortBottom += w.length();
      }
    }
    assertEquals(10_000, distinct.size());
    assertTrue(shortTop / 100.0 < 5.5 && shortBottom / 100.0 > 6.5,
        "top words avg " + shortTop / 100.0 + ", rare words avg " + shortBottom / 100.0);
    // Independent of everything but its size.
    Vocabulary again = Vocabulary.create(10_000);
    for (int i = 0; i < v.size(); i++) {
      assertArrayEquals(v.wordBytes(i), again.wordBytes(i));
    }
  }

  @Test
  void zipfTextLinesHaveTenToTwentyVocabularyWords() {
    ZipfText text = ZipfText.standard();
    Map<String, Integer> rank = new HashMap<>();
    for (int i = 0; i < text.vocabulary().size(); i++) {
      rank.put(text.vocabulary().word(i), i);
    }
    ByteBuf buf = new ByteBuf(1 << 16);
    long target = 200_000;
    text.appendLines(new SplitMix64(3), target, buf);
    assertTrue(buf.length() >= target && buf.length() < target + text.maxLineBytes(),
        "block of " + buf.length() + " bytes for a target of " + target);
    String s = new String(buf.toByteArray(), StandardCharsets.US_ASCII);
    assertTrue(s.endsWith("\n"));
    int[] perLength = new int[21];
    for (String line : s.substring(0, s.length() - 1).split("\n", -1)) {
      String[] words = line.split(" ", -1);
      assertTrue(words.length >= 10 && words.length <= 20, "line of " + words.length + " words");
      perLength[words.length]++;
      for (String w : words) {
        assertTrue(rank.containsKey(w), "'" + w + "' not in the vocabulary");
      }
    }
    for (int n = 10; n <= 20; n++) {
      assertTrue(perLength[n] > 0, "no line of " + n + " words");
    }
  }

  @Test
  void argsParseFlagsOptionsSizesAndPositionals() {
    Args a = new Args().flag("-x").option("-n", "-size")
        .parse(new String[] {"in", "-x", "-size", "64k", "-n", "3", "out", "--", "-regex"});
    assertTrue(a.has("-x"));
    assertEquals(3, a.getInt("-n", 0));
    assertEquals(65536, a.getSize("-size", 0));
    assertEquals(1 << 20, a.getSize("-missing", 1 << 20));
    assertEquals(List.of("in", "out", "-regex"), a.positional());
    assertThrows(Args.UsageException.class, () -> new Args().parse(new String[] {"-bogus"}));
    assertThrows(Args.UsageException.class,
        () -> new Args().option("-n").parse(new String[] {"-n"}));
    assertThrows(Args.UsageException.class,
        () -> new Args().option("-n").parse(new String[] {"-n", "x"}).getInt("-n", 0));
  }
}
