package io.hadoopaccel.workloads.util;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/**
 * A fixed vocabulary of distinct lower-case pseudo-English words, ordered by rank: like real
 * English, frequent (low-rank) words are short (2-4 letters) and rare ones longer (6-8); in
 * Zipf-distributed text a word averages ~4.9 letters (English running text: ~4.7-5.1).
 * Seed 000 drew from "the 10,000 most frequently used English words"; we generate the words
 * (so no word list is shipped) but keep the size, the length profile and, with
 * {@link ZipfSampler}, the Zipf-like frequencies.
 *
 * <p>The vocabulary depends only on its size: it never changes with the data seed.
 */
public final class Vocabulary {
  public static final int DEFAULT_SIZE = 10_000;
  private static final long VOCABULARY_SEED = 0x5EED_000L;
  private static final String CONSONANTS = "bcdfghjklmnprstvwyz";
  private static final String VOWELS = "aeiou";

  private static volatile Vocabulary standard;

  private final byte[][] words;

  private Vocabulary(byte[][] words) {
    this.words = words;
  }

  /** The 10,000-word vocabulary (cached). */
  public static Vocabulary standard() {
    Vocabulary v = standard;
    if (v == null) {
      v = create(DEFAULT_SIZE);
      standard = v;
    }
    return v;
  }

  public static Vocabulary create(int size) {
    if (size <= 0) {
      throw new IllegalArgumentException("vocabulary size must be positive: " + size);
    }
    if (size == DEFAULT_SIZE && standard != null) {
      return standard;
    }
    SplitMix64 rng = new SplitMix64(VOCABULARY_SEED);
    Set<String> seen = new HashSet<>(size * 2);
    byte[][] words = new byte[size][];
    for (int rank = 0; rank < size; rank++) {
      // Frequency-weighted mean ~5 letters, as English running text (~4.7-5.1).
      int base = 2 + (int) Math.floor(1.2 * Math.log10(rank + 1.0));
      int length = base + rng.nextInt(3);
      String w;
      int attempts = 0;
      do {
        // Too many collisions at this length (tiny spaces for 2-3 letters): grow by one.
        w = pseudoWord(rng, length + attempts / 16);
        attempts++;
      } while (!seen.add(w));
      words[rank] = w.getBytes(StandardCharsets.US_ASCII);
    }
    return new Vocabulary(words);
  }

  private static String pseudoWord(SplitMix64 rng, int length) {
    StringBuilder sb = new StringBuilder(length);
    boolean vowel = rng.nextInt(3) == 0;
    for (int i = 0; i < length; i++) {
      String from = vowel ? VOWELS : CONSONANTS;
      sb.append(from.charAt(rng.nextInt(from.length())));
      // Mostly alternate consonant/vowel; sometimes keep two of a kind ("st", "ea").
      vowel = rng.nextInt(5) == 0 ? vowel : !vowel;
    }
    return sb.toString();
  }

  public int size() {
    return words.length;
  }

  /** The word of rank {@code rank} as US-ASCII bytes (do not modify). */
  public byte[] wordBytes(int rank) {
    return words[rank];
  }

  public String word(int rank) {
    return new String(words[rank], StandardCharsets.US_ASCII);
  }

  public int maxWordLength() {
    int max = 0;
    for (byte[] w : words) {
      max = Math.max(max, w.length);
    }
    return max;
  }
}
