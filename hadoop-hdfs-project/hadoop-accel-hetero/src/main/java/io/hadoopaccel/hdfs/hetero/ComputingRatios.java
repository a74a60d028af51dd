package io.hadoopaccel.hdfs.hetero;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The arithmetic of computing ratios (seed 003 section 3.3.1), apart from the jobs that feed it.
 *
 * <ul>
 *   <li><b>Active</b> (the seed's procedure): every node processes the same amount of data; its
 *       ratio is its response time over the fastest node's. We take each node's <i>median</i>
 *       map-attempt run time, so one slow attempt (a JVM that started cold, a disk hiccup) does
 *       not decide a node's ratio.
 *   <li><b>Passive</b> (beyond the seed): finished jobs processed different amounts of data on
 *       each node, so we compare throughputs instead: a node's throughput is the bytes its
 *       successful map attempts read over their summed run time, and its ratio is the best
 *       node's throughput over its own. For equal work per attempt the two definitions coincide.
 * </ul>
 *
 * Both give ratio 1 for the fastest node, and ratios rounded as the profiles file writes them.
 */
public final class ComputingRatios {

  /** One successful map attempt: where it ran, how long it took, how many bytes it read. */
  public static final class Observation {
    private final String host;
    private final long millis;
    private final long bytes;

    public Observation(String host, long millis, long bytes) {
      if (host == null || host.isEmpty()) {
        throw new IllegalArgumentException("observation without a host");
      }
      if (millis < 0 || bytes < 0) {
        throw new IllegalArgumentException(
            "negative time or bytes for " + host + ": " + millis + " ms, " + bytes + " bytes");
      }
      this.host = host;
      this.millis = millis;
      this.bytes = bytes;
    }

    public String host() {
      return host;
    }

    public long millis() {
      return millis;
    }

    public long bytes() {
      return bytes;
    }

    @Override
    public String toString() {
      return host + " " + millis + " ms " + bytes + " bytes";
    }
  }

  /** How close two profiles are on the nodes they share. */
  public static final class Agreement {
    private final Map<String, double[]> common;
    private final List<String> onlyReference;
    private final List<String> onlyOther;
    private final double max;
    private final double mean;

    Agreement(Map<String, double[]> common, List<String> onlyReference, List<String> onlyOther) {
      this.common = Collections.unmodifiableMap(common);
      this.onlyReference = Collections.unmodifiableList(onlyReference);
      this.onlyOther = Collections.unmodifiableList(onlyOther);
      double m = 0;
      double sum = 0;
      for (double[] v : common.values()) {
        double d = relativeDifference(v[0], v[1]);
        m = Math.max(m, d);
        sum += d;
      }
      this.max = m;
      this.mean = common.isEmpty() ? Double.NaN : sum / common.size();
    }

    /** Node to {reference ratio, other ratio}, for the nodes both know, sorted by name. */
    public Map<String, double[]> common() {
      return common;
    }

    /** Nodes only the reference profile knows. */
    public List<String> onlyReference() {
      return onlyReference;
    }

    /** Nodes only the other profile knows. */
    public List<String> onlyOther() {
      return onlyOther;
    }

    /** Largest |other − reference| / reference over the common nodes (0 when none). */
    public double maxRelativeDifference() {
      return max;
    }

    /** Mean |other − reference| / reference over the common nodes (NaN when none). */
    public double meanRelativeDifference() {
      return mean;
    }
  }

  private ComputingRatios() {}

  /**
   * Ratios from response times of the same work on every node: each node's median time over
   * the smallest median. Nodes without any time are left out.
   *
   * @throws IllegalArgumentException if no node has a time, or the fastest median is 0 ms
   */
  public static Map<String, Double> fromResponseTimes(Map<String, ? extends Collection<Long>> ms) {
    Map<String, Double> median = new TreeMap<>();
    for (Map.Entry<String, ? extends Collection<Long>> e : ms.entrySet()) {
      if (!e.getValue().isEmpty()) {
        median.put(e.getKey(), median(e.getValue()));
      }
    }
    if (median.isEmpty()) {
      throw new IllegalArgumentException("no response time to compute ratios from");
    }
    double fastest = Collections.min(median.values());
    if (!(fastest > 0)) {
      throw new IllegalArgumentException("the fastest node's median response time is 0 ms: "
          + "use a larger sample");
    }
    Map<String, Double> ratios = new TreeMap<>();
    median.forEach((host, t) -> ratios.put(host, round(t / fastest)));
    return ratios;
  }

  /** Response times of {@code obs} grouped by host, for {@link #fromResponseTimes}. */
  public static Map<String, List<Long>> timesByHost(Collection<Observation> obs) {
    Map<String, List<Long>> byHost = new TreeMap<>();
    for (Observation o : obs) {
      byHost.computeIfAbsent(o.host(), h -> new ArrayList<>()).add(o.millis());
    }
    return byHost;
  }

  /**
   * Per-host throughput (bytes/s): Σ bytes / Σ run time of the host's observations. Hosts whose
   * observations sum to 0 ms or 0 bytes are left out.
   */
  public static Map<String, Double> throughputs(Collection<Observation> obs) {
    Map<String, long[]> sums = new TreeMap<>();
    for (Observation o : obs) {
      long[] s = sums.computeIfAbsent(o.host(), h -> new long[2]);
      s[0] += o.bytes();
      s[1] += o.millis();
    }
    Map<String, Double> tput = new TreeMap<>();
    sums.forEach((host, s) -> {
      if (s[0] > 0 && s[1] > 0) {
        tput.put(host, s[0] * 1000.0 / s[1]);
      }
    });
    return tput;
  }

  /**
   * Ratios from throughputs: the best throughput over each host's.
   *
   * @throws IllegalArgumentException if no host read any byte in a measurable time
   */
  public static Map<String, Double> fromThroughputs(Collection<Observation> obs) {
    Map<String, Double> tput = throughputs(obs);
    if (tput.isEmpty()) {
      throw new IllegalArgumentException(
          "no map attempt with both bytes read and a run time to compute ratios from");
    }
    double best = Collections.max(tput.values());
    Map<String, Double> ratios = new TreeMap<>();
    tput.forEach((host, t) -> ratios.put(host, round(best / t)));
    return ratios;
  }

  /**
   * Compares {@code other} with {@code reference} node by node (relative differences are
   * taken against the reference). Nodes are matched by exact name, or a bare host name of
   * {@code other} against the {@code host:port} entries of {@code reference} when the
   * reference names several DataNodes on one host.
   */
  public static Agreement agreement(Map<String, Double> reference, Map<String, Double> other) {
    Map<String, double[]> common = new TreeMap<>();
    List<String> onlyRef = new ArrayList<>();
    List<String> matchedOther = new ArrayList<>();
    for (Map.Entry<String, Double> r : new TreeMap<>(reference).entrySet()) {
      String key = r.getKey();
      Double o = other.get(key);
      if (o == null) {
        String host = hostPart(key);
        o = host.equals(key) ? null : other.get(host);
        if (o != null) {
          matchedOther.add(host);
        }
      } else {
        matchedOther.add(key);
      }
      if (o == null) {
        onlyRef.add(r.getKey());
      } else {
        common.put(key, new double[] {r.getValue(), o});
      }
    }
    List<String> onlyOther = new ArrayList<>();
    for (String k : new TreeMap<>(other).keySet()) {
      if (!matchedOther.contains(k)) {
        onlyOther.add(k);
      }
    }
    return new Agreement(common, onlyRef, onlyOther);
  }

  /** |b − a| / a. */
  public static double relativeDifference(double a, double b) {
    return Math.abs(b - a) / a;
  }

  /** The median (mean of the two middle values for an even count). */
  public static double median(Collection<Long> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("median of nothing");
    }
    List<Long> v = new ArrayList<>(values);
    Collections.sort(v);
    int n = v.size();
    return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2.0;
  }

  /** Rounded to the 3 decimals the profiles file keeps, never below 1. */
  static double round(double ratio) {
    return Math.max(1.0, Math.round(ratio * 1000) / 1000.0);
  }

  /** "host" of "host:port"; IPv6 literals in brackets keep their brackets. */
  static String hostPart(String node) {
    if (node.startsWith("[")) {
      int close = node.indexOf(']');
      return close < 0 ? node : node.substring(0, close + 1);
    }
    int colon = node.indexOf(':');
    return colon < 0 || node.indexOf(':', colon + 1) >= 0 ? node : node.substring(0, colon);
  }
}
