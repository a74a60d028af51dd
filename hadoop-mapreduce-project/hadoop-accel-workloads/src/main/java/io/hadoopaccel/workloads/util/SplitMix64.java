package io.hadoopaccel.workloads.util;

/**
 * SplitMix64 (Steele, Lea, Flood 2014): a tiny pseudo-random generator whose output is fully
 * specified by this file, so generated data is byte-identical on every JVM and release (unlike
 * {@code java.util.SplittableRandom}, whose algorithm is not part of its contract).
 *
 * <p>Generators derive one independent stream per unit of work (text block, file, vertex) with
 * {@link #forUnit(long, long, long)}, so what a unit contains depends only on the seed and the
 * unit's index, never on how units are spread over map tasks.
 */
public final class SplitMix64 {
  private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

  private long state;

  public SplitMix64(long seed) {
    this.state = seed;
  }

  /** The finaliser of SplitMix64 (a bijective 64-bit mixer). */
  public static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /**
   * The stream for unit {@code index} of a generator identified by {@code domain} (a constant per
   * generator, so two generators given the same seed do not produce correlated data).
   */
  public static SplitMix64 forUnit(long seed, long domain, long index) {
    return new SplitMix64(mix64(mix64(seed ^ domain) + mix64(index + GOLDEN_GAMMA)));
  }

  public long nextLong() {
    state += GOLDEN_GAMMA;
    return mix64(state);
  }

  /** Uniform in [0, bound), bound &gt; 0, without modulo bias (rejection). */
  public int nextInt(int bound) {
    if (bound <= 0) {
      throw new IllegalArgumentException("bound must be positive: " + bound);
    }
    return (int) nextLong(bound);
  }

  /** Uniform in [0, bound), bound &gt; 0, without modulo bias (rejection). */
  public long nextLong(long bound) {
    if (bound <= 0) {
      throw new IllegalArgumentException("bound must be positive: " + bound);
    }
    long limit = Long.remainderUnsigned(-bound, bound); // 2^64 mod bound
    while (true) {
      long r = nextLong();
      // Accept r unless it falls in the incomplete last interval [2^64 - limit, 2^64).
      if (Long.compareUnsigned(r, -limit) < 0 || limit == 0) {
        return Long.remainderUnsigned(r, bound);
      }
    }
  }

  /** Uniform in [lo, hi], inclusive. */
  public long nextLong(long lo, long hi) {
    if (hi < lo) {
      throw new IllegalArgumentException("empty range [" + lo + ", " + hi + "]");
    }
    return lo + nextLong(hi - lo + 1);
  }

  /** Uniform in [0, 1) with 53 random bits. */
  public double nextDouble() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }
}
