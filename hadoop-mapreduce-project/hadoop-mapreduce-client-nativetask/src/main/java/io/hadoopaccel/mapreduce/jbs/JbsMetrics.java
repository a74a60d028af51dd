package io.hadoopaccel.mapreduce.jbs;

import io.hadoopaccel.common.daemon.SupervisedDaemon;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsException;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.MetricsSystem;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.metrics2.lib.Interns;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metrics2 source {@value #SOURCE_NAME} of the JBS aux service: on /jmx of the NodeManager
 * as {@code Hadoop:service=NodeManager,name=JbsShuffle}, and to every sink of
 * hadoop-metrics2.properties ({@code nodemanager.sink.*}). Each {@link #getMetrics} asks both
 * daemons for {@code STATS} on their control channels and waits at most
 * {@value #POLL_TIMEOUT_MS} ms for both answers (the metrics system is never held up by a
 * stuck daemon: a daemon that does not answer in time is reported down with its last values).
 * Counters stay monotonic across daemon restarts: a new process's counts are added to what the
 * earlier ones had reported. The module README lists every metric.
 */
final class JbsMetrics implements MetricsSource {
  private static final Logger LOG = LoggerFactory.getLogger(JbsMetrics.class);
  static final String SOURCE_NAME = "JbsShuffle";
  static final String SOURCE_DESC = "JBS native shuffle: MOFSupplier and NetMerger daemons";
  static final long POLL_TIMEOUT_MS = 1_000;
  /** Upper bounds of the daemons' latency buckets (jbs_stats.h), then one bucket beyond. */
  static final long[] LATENCY_BOUNDS_MS = {1, 4, 16, 64, 256, 1000, 4000, 16000};

  /** One value of a STATS answer: its name there, its metric name and description. */
  static final class Field {
    final String stats;
    final String metric;
    final String desc;
    final boolean gauge;

    Field(String stats, String metric, boolean gauge, String desc) {
      this.stats = stats;
      this.metric = metric;
      this.gauge = gauge;
      this.desc = desc;
    }
  }

  static final Field[] SUPPLIER_FIELDS = {
      new Field("bytes_served", "SupplierBytesServed", false,
          "Map output bytes sent to NetMergers (chunk payloads)"),
      new Field("requests", "SupplierRequests", false,
          "Fetch requests answered, whatever the status"),
      new Field("busy_answers", "SupplierBusyAnswers", false,
          "Fetch requests answered BUSY (queue full or no buffer in time)"),
      new Field("auth_refusals", "SupplierAuthRefusals", false,
          "Fetch requests refused UNAUTHORIZED (unknown job or bad job-token MAC)"),
      new Field("active_connections", "SupplierActiveConnections", true,
          "Open TCP connections from NetMergers"),
      new Field("connections_accepted", "SupplierConnectionsAccepted", false,
          "TCP connections accepted"),
      new Field("limit_refusals", "SupplierLimitRefusals", false,
          "Connections closed by limits: over the connection cap, or not authenticated in"
              + " time or beyond the unauthenticated cap"),
      new Field("stalled_connections", "SupplierStalledConnections", false,
          "Connections closed for moving no byte within the stall timeout"),
      new Field("junk_connections", "SupplierJunkConnections", false,
          "Connections closed for sending something that is not a valid request"),
  };

  static final Field[] MERGER_FIELDS = merger();

  private static Field[] merger() {
    Field[] fixed = {
        new Field("bytes_fetched", "MergerBytesFetched", false,
            "Map output bytes fetched from MOFSuppliers"),
        new Field("bytes_merged", "MergerBytesMerged", false,
            "Merged stream bytes sent to reduces (raw records)"),
        new Field("bytes_spilled", "MergerBytesSpilled", false,
            "Bytes written to hierarchical merge runs"),
        new Field("sessions", "MergerSessions", false, "Reduces registered"),
        new Field("active_sessions", "MergerActiveSessions", true,
            "Reduces registered and not finished"),
        new Field("merges", "MergerMerges", false, "Merged streams sent whole (END)"),
        new Field("fetch_failures", "MergerFetchFailures", false,
            "Chunk fetches that failed after their retries"),
        new Field("fetch_retries", "MergerFetchRetries", false, "Chunk fetches retried"),
        new Field("auth_refusals", "MergerAuthRefusals", false,
            "REGISTERs refused (unknown job or bad MAC)"),
        new Field("active_connections", "MergerActiveConnections", true,
            "Open connections to MOFSuppliers"),
        new Field("fetch_latency_count", "MergerFetchLatencyCount", false,
            "Chunk fetches timed (request queued to outcome, retries included)"),
        new Field("fetch_latency_sum_us", "MergerFetchLatencySumUs", false,
            "Sum of the timed chunk fetches, microseconds"),
    };
    Field[] all = new Field[fixed.length + LATENCY_BOUNDS_MS.length + 1];
    System.arraycopy(fixed, 0, all, 0, fixed.length);
    for (int b = 0; b < LATENCY_BOUNDS_MS.length; b++) {
      long ms = LATENCY_BOUNDS_MS[b];
      long lower = b == 0 ? 0 : LATENCY_BOUNDS_MS[b - 1];
      all[fixed.length + b] = new Field(bucket(b), "MergerFetchLatencyLe" + ms + "ms", false,
          "Chunk fetches that took more than " + lower + " ms and at most " + ms + " ms");
    }
    long last = LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1];
    all[all.length - 1] = new Field(bucket(LATENCY_BOUNDS_MS.length),
        "MergerFetchLatencyGt" + last + "ms", false,
        "Chunk fetches that took more than " + last + " ms");
    return all;
  }

  /** The STATS name of latency bucket b. */
  static String bucket(int b) {
    return b < LATENCY_BOUNDS_MS.length ? "fetch_latency_le_" + LATENCY_BOUNDS_MS[b] + "ms"
        : "fetch_latency_gt_" + LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1] + "ms";
  }

  private final Supplier<SupervisedDaemon> supplier;
  private final Supplier<SupervisedDaemon> merger;
  private final DaemonStats supplierStats = new DaemonStats("Supplier", SUPPLIER_FIELDS);
  private final DaemonStats mergerStats = new DaemonStats("Merger", MERGER_FIELDS);
  private final AtomicLong pollFailures = new AtomicLong();
  /** Latency buckets at the previous poll, for the interval's quantiles. */
  private long[] previousBuckets;
  private long previousCount;
  private long previousSumUs;

  JbsMetrics(Supplier<SupervisedDaemon> supplier, Supplier<SupervisedDaemon> merger) {
    this.supplier = supplier;
    this.merger = merger;
  }

  /** Registers a source with the process's metrics system; null (one WARN) if it cannot. */
  static JbsMetrics register(Supplier<SupervisedDaemon> supplier,
      Supplier<SupervisedDaemon> merger) {
    JbsMetrics m = new JbsMetrics(supplier, merger);
    try {
      DefaultMetricsSystem.instance().register(SOURCE_NAME, SOURCE_DESC, m);
      return m;
    } catch (MetricsException e) {
      LOG.warn("JBS: no metrics source {}: {}", SOURCE_NAME, e.getMessage());
      return null;
    }
  }

  static void unregister() {
    MetricsSystem ms = DefaultMetricsSystem.instance();
    ms.unregisterSource(SOURCE_NAME);
  }

  @Override
  public void getMetrics(MetricsCollector collector, boolean all) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(POLL_TIMEOUT_MS);
    SupervisedDaemon s = supplier.get();
    SupervisedDaemon m = merger.get();
    supplierStats.poll(s);
    mergerStats.poll(m);
    supplierStats.collect(deadline);
    mergerStats.collect(deadline);
    MetricsRecordBuilder rb = collector.addRecord(SOURCE_NAME).setContext("jbs");
    supplierStats.addTo(rb);
    mergerStats.addTo(rb);
    addLatencyQuantiles(rb);
    addSupervision(rb, "Supplier", s);
    addSupervision(rb, "Merger", m);
    rb.addCounter(Interns.info("StartGiveUps",
        "Daemons whose supervisor gave up after too many failed starts in a row"),
        (s != null && s.gaveUp() ? 1L : 0L) + (m != null && m.gaveUp() ? 1L : 0L));
    rb.addCounter(Interns.info("StatsPollFailures",
        "STATS polls of a running daemon that failed or got no answer in time"),
        pollFailures.get());
  }

  private static void addSupervision(MetricsRecordBuilder rb, String who, SupervisedDaemon d) {
    int starts = d == null ? 0 : d.starts();
    rb.addCounter(Interns.info(who + "Restarts",
        "Processes of the daemon started after the first (failed starts included)"),
        (long) Math.max(0, starts - 1));
    rb.addCounter(Interns.info(who + "FailedStarts", "Starts that did not reach READY"),
        d == null ? 0L : (long) d.failedStarts());
    rb.addGauge(Interns.info(who + "GaveUp",
        "1 once the supervisor stopped restarting the daemon"), d != null && d.gaveUp() ? 1 : 0);
  }

  /**
   * Fetch latency over the interval since the previous poll, from the daemon's buckets: the
   * average, and p50/p90/p99 as the upper bound of the bucket that holds them (the last
   * bound for the bucket beyond it). All 0 when the interval saw no fetch.
   */
  private synchronized void addLatencyQuantiles(MetricsRecordBuilder rb) {
    int n = LATENCY_BOUNDS_MS.length + 1;
    long[] now = new long[n];
    for (int b = 0; b < n; b++) {
      now[b] = mergerStats.total(bucket(b));
    }
    long count = mergerStats.total("fetch_latency_count");
    long sumUs = mergerStats.total("fetch_latency_sum_us");
    long[] delta = new long[n];
    long samples = 0;
    for (int b = 0; b < n; b++) {
      delta[b] = Math.max(0, now[b] - (previousBuckets == null ? 0 : previousBuckets[b]));
      samples += delta[b];
    }
    long dCount = count - previousCount;
    long dSum = sumUs - previousSumUs;
    previousBuckets = now;
    previousCount = count;
    previousSumUs = sumUs;
    rb.addGauge(Interns.info("MergerFetchLatencyAvgMs",
        "Average chunk fetch latency since the previous poll, ms"),
        dCount > 0 && dSum >= 0 ? dSum / 1000.0 / dCount : 0.0);
    for (int q : new int[] {50, 90, 99}) {
      rb.addGauge(Interns.info("MergerFetchLatencyP" + q + "Ms", "Chunk fetch latency, " + q
          + "th percentile since the previous poll, ms (upper bound of its bucket)"),
          quantile(delta, samples, q));
    }
  }

  /** The upper bound (ms) of the bucket holding the q-th percentile of the counts. */
  static long quantile(long[] buckets, long samples, int q) {
    if (samples <= 0) {
      return 0;
    }
    long rank = (samples * q + 99) / 100; // the sample at this 1-based rank
    long seen = 0;
    for (int b = 0; b < buckets.length; b++) {
      seen += buckets[b];
      if (seen >= rank) {
        return LATENCY_BOUNDS_MS[Math.min(b, LATENCY_BOUNDS_MS.length - 1)];
      }
    }
    return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1];
  }

  /**
   * Parses a STATS answer (jbs_stats.h, version 1): {@code STATS 1 name=value ...}, names of
   * [a-z0-9_] up to 64, values decimal in [0, 2^63), at most 128 fields, none twice, at most
   * 4096 characters. Throws IllegalArgumentException naming what is wrong.
   */
  static Map<String, Long> decode(String line) {
    if (line == null || line.length() > 4096) {
      throw new IllegalArgumentException("STATS answer missing or longer than 4096 characters");
    }
    String[] words = line.trim().split(" +");
    if (words.length < 2 || !words[0].equals("STATS")) {
      throw new IllegalArgumentException("not a STATS answer: "
          + line.substring(0, Math.min(line.length(), 80)));
    }
    if (!words[1].equals("1")) {
      throw new IllegalArgumentException("STATS version "
          + words[1].substring(0, Math.min(words[1].length(), 16)) + " (this reader knows 1)");
    }
    if (words.length - 2 > 128) {
      throw new IllegalArgumentException("more than 128 STATS fields");
    }
    Map<String, Long> out = new HashMap<>();
    for (int i = 2; i < words.length; i++) {
      String w = words[i];
      int eq = w.indexOf('=');
      if (eq <= 0 || eq > 64 || !w.substring(0, eq).matches("[a-z0-9_]+")) {
        throw new IllegalArgumentException("bad STATS field " + w);
      }
      String digits = w.substring(eq + 1);
      if (digits.isEmpty() || digits.length() > 19 || !digits.matches("[0-9]+")) {
        throw new IllegalArgumentException("bad STATS value in " + w);
      }
      long v;
      try {
        v = Long.parseLong(digits);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("STATS value out of range in " + w);
      }
      if (out.put(w.substring(0, eq), v) != null) {
        throw new IllegalArgumentException("STATS field twice: " + w.substring(0, eq));
      }
    }
    return out;
  }

  /** What is known of one daemon: its last STATS, and counters of its earlier processes. */
  private final class DaemonStats {
    private final String prefix;
    private final Field[] fields;
    private final Map<String, Long> last = new HashMap<>();
    private final Map<String, Long> base = new HashMap<>();
    private long lastPid = -1;
    private CompletableFuture<String> pending;
    private long pendingPid = -1;
    private boolean up;

    DaemonStats(String prefix, Field[] fields) {
      this.prefix = prefix;
      this.fields = fields;
    }

    /** Asks a running daemon for STATS, unless the previous question is still unanswered. */
    synchronized void poll(SupervisedDaemon d) {
      Process p = d == null ? null : d.process();
      if (p == null || !d.isRunning()) {
        pending = null;
        return;
      }
      if (pending == null || pending.isDone()) {
        pending = d.query("STATS");
        pendingPid = p.pid();
      }
    }

    /** Takes the answer if it comes before the deadline; else the daemon counts as down. */
    synchronized void collect(long deadlineNanos) {
      CompletableFuture<String> f = pending;
      if (f == null) {
        up = false;
        return;
      }
      try {
        long waitNanos = Math.max(0, deadlineNanos - System.nanoTime());
        Map<String, Long> values = decode(f.get(waitNanos, TimeUnit.NANOSECONDS));
        if (pendingPid != lastPid) {
          // A new process counts from zero: keep what the earlier ones had counted.
          for (Field fl : fields) {
            if (!fl.gauge) {
              base.merge(fl.stats, last.getOrDefault(fl.stats, 0L), Long::sum);
            }
          }
          last.clear();
          lastPid = pendingPid;
        }
        last.putAll(values);
        up = true;
      } catch (TimeoutException e) {
        up = false;
        pollFailures.incrementAndGet();
      } catch (ExecutionException | IllegalArgumentException e) {
        up = false;
        pollFailures.incrementAndGet();
        LOG.debug("JBS: STATS of {} failed: {}", prefix, e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        up = false;
      }
    }

    /** A counter's total over every process so far (a gauge: its last value). */
    synchronized long total(String stats) {
      return base.getOrDefault(stats, 0L) + last.getOrDefault(stats, 0L);
    }

    synchronized void addTo(MetricsRecordBuilder rb) {
      rb.addGauge(Interns.info(prefix + "Up",
          "1 if the daemon answered STATS in this poll, else 0"), up ? 1 : 0);
      for (Field f : fields) {
        if (f.gauge) {
          rb.addGauge(Interns.info(f.metric, f.desc), up ? last.getOrDefault(f.stats, 0L) : 0L);
        } else {
          rb.addCounter(Interns.info(f.metric, f.desc), total(f.stats));
        }
      }
    }
  }
}
