package io.hadoopaccel.mapreduce.jbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.common.daemon.SupervisedDaemon;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.metrics2.AbstractMetric;
import org.apache.hadoop.metrics2.MetricsRecord;
import org.apache.hadoop.metrics2.impl.MetricsCollectorImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JbsShuffle metrics source against shell-script daemons: STATS decoded into counters and
 * gauges, counters kept across a restart, a daemon that never answers reported down within
 * the poll bound, and the STATS decoder's bounds.
 */
class TestJbsMetrics {
  @TempDir
  Path dir;

  @Test
  void decodeAcceptsVersionOneAndRefusesEverythingElse() {
    Map<String, Long> m = JbsMetrics.decode("STATS 1 bytes_served=12 active_connections=0");
    assertEquals(Map.of("bytes_served", 12L, "active_connections", 0L), m);
    assertEquals(Map.of(), JbsMetrics.decode("STATS 1"));
    assertEquals(Long.MAX_VALUE, JbsMetrics.decode("STATS 1 a=9223372036854775807").get("a"));
    for (String bad : new String[] {null, "", "OK", "ERR x", "STATS", "STATS 2 a=1",
        "STATS 1 a", "STATS 1 a=", "STATS 1 =1", "STATS 1 A=1", "STATS 1 a=-1", "STATS 1 a=1x",
        "STATS 1 a=1 a=2", "STATS 1 a=9223372036854775808", "STATS 1 a=99999999999999999999",
        "STATS 1 " + "a".repeat(65) + "=1", "STATS 1 a=1" + " ".repeat(4096)}) {
      assertThrows(IllegalArgumentException.class, () -> JbsMetrics.decode(bad), bad);
    }
    StringBuilder many = new StringBuilder("STATS 1");
    for (int i = 0; i <= 128; i++) {
      many.append(" f").append(i).append("=1");
    }
    assertThrows(IllegalArgumentException.class, () -> JbsMetrics.decode(many.toString()));
  }

  @Test
  void quantileIsTheUpperBoundOfItsBucket() {
    long[] b = new long[JbsMetrics.LATENCY_BOUNDS_MS.length + 1];
    assertEquals(0, JbsMetrics.quantile(b, 0, 50));
    b[0] = 50;   // <= 1 ms
    b[2] = 40;   // <= 16 ms
    b[5] = 9;    // <= 1 s
    b[8] = 1;    // beyond 16 s
    assertEquals(1, JbsMetrics.quantile(b, 100, 50));
    assertEquals(16, JbsMetrics.quantile(b, 100, 90));
    assertEquals(1000, JbsMetrics.quantile(b, 100, 99));
    assertEquals(16000, JbsMetrics.quantile(b, 100, 100));
  }

  /** A daemon that answers STATS with {@code stats} (and OK to anything else). */
  private SupervisedDaemon daemon(String name, String stats) throws Exception {
    Path script = dir.resolve(name);
    Files.writeString(script, "#!/bin/sh\necho READY x\n"
        + "while read line; do\n"
        + "  if [ \"$line\" = STATS ]; then echo \"" + stats + "\"; else echo OK; fi\n"
        + "done\n");
    assertTrue(script.toFile().setExecutable(true));
    SupervisedDaemon d = new SupervisedDaemon(name, prev -> List.of(script.toString()), 10_000,
        10_000, 50, () -> { });
    assertTrue(d.start());
    return d;
  }

  private static Map<String, Number> collect(JbsMetrics m) {
    MetricsCollectorImpl c = new MetricsCollectorImpl();
    m.getMetrics(c, true);
    List<? extends MetricsRecord> recs = c.getRecords();
    assertEquals(1, recs.size());
    assertEquals(JbsMetrics.SOURCE_NAME, recs.get(0).name());
    Map<String, Number> out = new HashMap<>();
    for (AbstractMetric a : recs.get(0).metrics()) {
      out.put(a.name(), a.value());
    }
    return out;
  }

  @Test
  void reportsWhatTheDaemonsSayAndKeepsCountersAcrossARestart() throws Exception {
    SupervisedDaemon s = daemon("supplier", "STATS 1 bytes_served=1000 requests=7"
        + " active_connections=3 auth_refusals=2 future_field=9");
    SupervisedDaemon m = daemon("merger", "STATS 1 bytes_fetched=1000 bytes_merged=900"
        + " sessions=2 active_sessions=1 fetch_latency_le_1ms=3 fetch_latency_le_4ms=1"
        + " fetch_latency_count=4 fetch_latency_sum_us=5000");
    try {
      JbsMetrics metrics = new JbsMetrics(() -> s, () -> m);
      Map<String, Number> v = collect(metrics);
      assertEquals(1, v.get("SupplierUp").intValue());
      assertEquals(1000L, v.get("SupplierBytesServed"));
      assertEquals(7L, v.get("SupplierRequests"));
      assertEquals(3L, v.get("SupplierActiveConnections"));
      assertEquals(2L, v.get("SupplierAuthRefusals"));
      assertEquals(0L, v.get("SupplierLimitRefusals")); // not reported: 0
      assertEquals(1000L, v.get("MergerBytesFetched"));
      assertEquals(900L, v.get("MergerBytesMerged"));
      assertEquals(1L, v.get("MergerActiveSessions"));
      assertEquals(3L, v.get("MergerFetchLatencyLe1ms"));
      assertEquals(1.25, v.get("MergerFetchLatencyAvgMs").doubleValue(), 1e-9);
      assertEquals(1L, v.get("MergerFetchLatencyP50Ms"));
      assertEquals(4L, v.get("MergerFetchLatencyP99Ms"));
      assertEquals(0L, v.get("SupplierRestarts"));
      assertEquals(0L, v.get("StatsPollFailures"));
      // Nothing new in the next interval: no latency.
      assertEquals(0L, collect(metrics).get("MergerFetchLatencyP50Ms"));

      // A restarted supplier counts from zero; the source keeps the earlier process's counts.
      long pid = s.process().pid();
      s.process().destroyForcibly();
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (!(s.isRunning() && s.process().pid() != pid) && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertTrue(s.isRunning(), "supplier not restarted");
      v = collect(metrics);
      assertEquals(2000L, v.get("SupplierBytesServed"));
      assertEquals(14L, v.get("SupplierRequests"));
      assertEquals(3L, v.get("SupplierActiveConnections")); // a gauge: the new process's
      assertEquals(1L, v.get("SupplierRestarts"));
    } finally {
      s.stop(2_000);
      m.stop(2_000);
    }
  }

  @Test
  void aMuteDaemonIsReportedDownWithinThePollBound() throws Exception {
    Path script = dir.resolve("mute");
    Files.writeString(script, "#!/bin/sh\necho READY x\nwhile read line; do :; done\n");
    assertTrue(script.toFile().setExecutable(true));
    SupervisedDaemon mute = new SupervisedDaemon("mute", prev -> List.of(script.toString()),
        10_000, 10_000, 50, () -> { });
    assertTrue(mute.start());
    try {
      JbsMetrics metrics = new JbsMetrics(() -> mute, () -> null);
      long t0 = System.nanoTime();
      Map<String, Number> v = collect(metrics);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms < JbsMetrics.POLL_TIMEOUT_MS + 2_000, "getMetrics took " + ms + " ms");
      assertEquals(0, v.get("SupplierUp").intValue());
      assertEquals(0, v.get("MergerUp").intValue());
      assertEquals(1L, v.get("StatsPollFailures"));
      assertEquals(0L, v.get("SupplierBytesServed"));
      // Each later poll waits for the same pending question, again within the bound.
      assertEquals(2L, collect(metrics).get("StatsPollFailures"));
      assertTrue(mute.isRunning());
    } finally {
      mute.stop(2_000);
    }
  }
}
