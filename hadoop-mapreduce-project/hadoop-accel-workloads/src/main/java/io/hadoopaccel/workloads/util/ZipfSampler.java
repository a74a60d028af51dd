package io.hadoopaccel.workloads.util;

/**
 * Draws ranks 0..n-1 with probability proportional to 1/(rank+1)^s (Zipf's law) in constant time
 * per draw, using Vose's alias method. Construction is O(n) and deterministic.
 */
public final class ZipfSampler {
  private final double[] probability;
  private final int[] alias;
  private final double[] pmf;

  public ZipfSampler(int n, double exponent) {
    if (n <= 0) {
      throw new IllegalArgumentException("n must be positive: " + n);
    }
    if (!(exponent >= 0) || Double.isInfinite(exponent)) {
      throw new IllegalArgumentException("Zipf exponent must be finite and >= 0: " + exponent);
    }
    pmf = new double[n];
    double total = 0;
    for (int i = 0; i < n; i++) {
      pmf[i] = 1.0 / Math.pow(i + 1, exponent);
      total += pmf[i];
    }
    for (int i = 0; i < n; i++) {
      pmf[i] /= total;
    }
    probability = new double[n];
    alias = new int[n];
    double[] scaled = new double[n];
    int[] small = new int[n];
    int[] large = new int[n];
    int ns = 0;
    int nl = 0;
    for (int i = 0; i < n; i++) {
      scaled[i] = pmf[i] * n;
      if (scaled[i] < 1.0) {
        small[ns++] = i;
      } else {
        large[nl++] = i;
      }
    }
    while (ns > 0 && nl > 0) {
      int s = small[--ns];
      int l = large[--nl];
      probability[s] = scaled[s];
      alias[s] = l;
      scaled[l] = (scaled[l] + scaled[s]) - 1.0;
      if (scaled[l] < 1.0) {
        small[ns++] = l;
      } else {
        large[nl++] = l;
      }
    }
    while (nl > 0) {
      int l = large[--nl];
      probability[l] = 1.0;
      alias[l] = l;
    }
    while (ns > 0) { // only from rounding error
      int s = small[--ns];
      probability[s] = 1.0;
      alias[s] = s;
    }
  }

  public int size() {
    return pmf.length;
  }

  /** The exact probability of rank {@code i}. */
  public double probability(int i) {
    return pmf[i];
  }

  public int sample(SplitMix64 rng) {
    int i = rng.nextInt(probability.length);
    return rng.nextDouble() < probability[i] ? i : alias[i];
  }
}
