package io.hadoopaccel.hdfs.hetero;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.hdfs.hetero.ComputingRatios.Agreement;
import io.hadoopaccel.hdfs.hetero.ComputingRatios.Observation;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The pure arithmetic: response times and throughputs to ratios, and agreement. */
class TestComputingRatios {

  private static Map<String, Double> map(Object... kv) {
    Map<String, Double> m = new TreeMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], ((Number) kv[i + 1]).doubleValue());
    }
    return m;
  }

  @Test
  void seedExampleResponseTimesGiveRatiosOneTwoThree() {
    // Section 3.3.1: nodes A, B, C answer in 10, 20 and 30 s.
    Map<String, List<Long>> t = new TreeMap<>();
    t.put("a", List.of(10_000L));
    t.put("b", List.of(20_000L));
    t.put("c", List.of(30_000L));
    assertEquals(map("a", 1, "b", 2, "c", 3), ComputingRatios.fromResponseTimes(t));
  }

  @Test
  void medianPerNodeIgnoresOneOutlierAttempt() {
    Map<String, List<Long>> t = new TreeMap<>();
    t.put("fast", Arrays.asList(1000L, 1000L, 9000L)); // one cold JVM
    t.put("slow", Arrays.asList(3300L, 3300L, 3300L));
    t.put("idle", Collections.emptyList()); // no attempt: left out, not ratio 0 or infinity
    assertEquals(map("fast", 1, "slow", 3.3), ComputingRatios.fromResponseTimes(t));
    assertEquals(1500.0, ComputingRatios.median(Arrays.asList(2000L, 1000L)));
    assertEquals(2000.0, ComputingRatios.median(Arrays.asList(3000L, 1000L, 2000L)));
  }

  @Test
  void ratiosAreRoundedToThreeDecimalsAndNeverBelowOne() {
    Map<String, List<Long>> t = new TreeMap<>();
    t.put("a", List.of(3000L));
    t.put("b", List.of(10_000L));
    assertEquals(map("a", 1, "b", 3.333), ComputingRatios.fromResponseTimes(t));
  }

  @Test
  void noTimeOrZeroTimeIsAnError() {
    Map<String, List<Long>> none = new TreeMap<>();
    none.put("a", Collections.emptyList());
    assertThrows(IllegalArgumentException.class, () -> ComputingRatios.fromResponseTimes(none));
    Map<String, List<Long>> zero = new TreeMap<>();
    zero.put("a", List.of(0L));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ComputingRatios.fromResponseTimes(zero));
    assertTrue(e.getMessage().contains("larger sample"), e.getMessage());
  }

  @Test
  void throughputIsSumOfBytesOverSumOfTimePerHost() {
    List<Observation> obs = List.of(
        new Observation("a", 1000, 100_000_000), // a: 300 MB in 2 s = 150 MB/s
        new Observation("a", 1000, 200_000_000),
        new Observation("b", 4000, 200_000_000), // b: 300 MB in 6 s = 50 MB/s
        new Observation("b", 2000, 100_000_000),
        new Observation("c", 500, 0)); // no bytes: not a throughput
    Map<String, Double> tput = ComputingRatios.throughputs(obs);
    assertEquals(1.5e8, tput.get("a"), 1e-3);
    assertEquals(5e7, tput.get("b"), 1e-3);
    assertEquals(2, tput.size());
    assertEquals(map("a", 1, "b", 3), ComputingRatios.fromThroughputs(obs));
  }

  @Test
  void equalWorkGivesTheSameRatiosBothWays() {
    List<Observation> obs = List.of(new Observation("a", 10_000, 64 << 20),
        new Observation("b", 20_000, 64 << 20), new Observation("c", 33_000, 64 << 20));
    assertEquals(ComputingRatios.fromResponseTimes(ComputingRatios.timesByHost(obs)),
        ComputingRatios.fromThroughputs(obs));
  }

  @Test
  void noBytesAnywhereIsAnError() {
    assertThrows(IllegalArgumentException.class,
        () -> ComputingRatios.fromThroughputs(List.of(new Observation("a", 100, 0))));
    assertThrows(IllegalArgumentException.class, () -> new Observation("", 1, 1));
    assertThrows(IllegalArgumentException.class, () -> new Observation("a", -1, 1));
  }

  @Test
  void agreementReportsMaxAndMeanRelativeDifferenceOnCommonNodes() {
    Map<String, Double> active = map("a", 1, "b", 2, "c", 4, "gone", 1);
    Map<String, Double> derived = map("a", 1, "b", 2.2, "c", 3, "new", 1.5);
    Agreement ag = ComputingRatios.agreement(active, derived);
    assertEquals(List.of("a", "b", "c"), List.copyOf(ag.common().keySet()));
    assertEquals(0.25, ag.maxRelativeDifference(), 1e-9); // c: |3 - 4| / 4
    assertEquals((0 + 0.1 + 0.25) / 3, ag.meanRelativeDifference(), 1e-9);
    assertEquals(List.of("gone"), ag.onlyReference());
    assertEquals(List.of("new"), ag.onlyOther());
  }

  @Test
  void agreementMatchesHostPortEntriesToTheirHost() {
    Agreement ag = ComputingRatios.agreement(map("h1:9866", 1, "h1:9867", 1.2, "h2", 2),
        map("h1", 1.1, "h2", 2));
    assertEquals(3, ag.common().size());
    assertTrue(ag.onlyOther().isEmpty(), ag.onlyOther().toString());
    assertTrue(ag.onlyReference().isEmpty());
    Agreement none = ComputingRatios.agreement(map("x", 1), map("y", 1));
    assertTrue(Double.isNaN(none.meanRelativeDifference()));
    assertEquals(0.0, none.maxRelativeDifference());
  }

  @Test
  void nodeManagerHostsMapToDataNodeNamesByNameOrAddress() {
    Set<String> hosts = Set.of("dn1", "127.0.0.1");
    Map<String, String> byIp = Map.of("10.0.0.1", "dn1", "127.0.0.1", "127.0.0.1");
    assertEquals("dn1", ActiveProfiler.dataNodeHost("dn1", hosts, byIp));
    assertEquals("dn1", ActiveProfiler.dataNodeHost("10.0.0.1", hosts, byIp));
    // A name resolved to a DataNode's address (the mini cluster: NM localhost, DN 127.0.0.1).
    assertEquals("127.0.0.1", ActiveProfiler.dataNodeHost("localhost", hosts, byIp));
    assertNull(ActiveProfiler.dataNodeHost("10.9.9.9", hosts, byIp));
  }

  @Test
  void aDataNodeWithoutProbeAttemptIsAnErrorNamingItUnlessSkipped() throws Exception {
    Set<String> hosts = new java.util.LinkedHashSet<>(List.of("dn1", "dn2", "dn3"));
    Map<String, String> byIp = Map.of("10.0.0.1", "dn1", "10.0.0.2", "dn2", "10.0.0.3", "dn3");
    List<Observation> obs = List.of(new Observation("dn1", 1000, 10),
        new Observation("10.0.0.1", 1200, 10), // dn1 by address
        new Observation("dn3", 3000, 10),
        new Observation("10.9.9.9", 500, 10)); // no DataNode there: ignored, not the fastest
    java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
    java.io.PrintStream log = new java.io.PrintStream(buf, true, "UTF-8");

    List<String> missing = new java.util.ArrayList<>();
    ActiveProfiler.ProfilerException e = assertThrows(ActiveProfiler.ProfilerException.class,
        () -> ActiveProfiler.timesByDataNode(obs, hosts, byIp, false, "job_1_0001", log,
            missing));
    assertTrue(e.getMessage().startsWith("no probe attempt ran on dn2 (job job_1_0001)"),
        e.getMessage());
    assertTrue(e.getMessage().contains("-splits-per-node"), e.getMessage());
    assertTrue(buf.toString("UTF-8").contains("probe attempt on 10.9.9.9 ignored"));

    missing.clear();
    Map<String, List<Long>> times =
        ActiveProfiler.timesByDataNode(obs, hosts, byIp, true, "job_1_0001", log, missing);
    assertEquals(List.of("dn2"), missing);
    assertEquals(Map.of("dn1", List.of(1000L, 1200L), "dn3", List.of(3000L)), times);
    assertTrue(buf.toString("UTF-8").contains("left out of the profile (-skip-missing)"));
    assertEquals(map("dn1", 1, "dn3", 2.727), ComputingRatios.fromResponseTimes(times));
  }

  @Test
  void trackerAddressesGiveHostNames() {
    assertEquals("node7.example.com", MapAttempts.hostOf("http://node7.example.com:8042"));
    assertEquals("10.0.0.7", MapAttempts.hostOf("10.0.0.7:8042"));
    assertEquals("localhost", MapAttempts.hostOf("http://localhost:41235/"));
    assertEquals("h", ComputingRatios.hostPart("h:1"));
    assertEquals("[::1]", ComputingRatios.hostPart("[::1]:9866"));
  }
}
