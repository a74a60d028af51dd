package io.hadoopaccel.hdfs.hetero;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.metrics2.MetricsCollector;
import org.apache.hadoop.metrics2.MetricsException;
import org.apache.hadoop.metrics2.MetricsInfo;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.metrics2.lib.Interns;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NameNode's metrics2 source for hetero placement, {@value #NAME}: on {@code /jmx} as
 * {@code Hadoop:service=NameNode,name=HeteroPlacement}, and to every sink of
 * {@code hadoop-metrics2.properties} (prefix {@code namenode}).
 *
 * <p>One record (several would get numbered names on /jmx). Per bound directory and live
 * DataNode, metrics named {@code Dir[<dir>].Node[<host>_<transfer port>].<what>} (/jmx drops
 * names with '=', ':' or ' '; host names have no '_'): {@code Placed} (first
 * replicas), {@code TargetRatio} (its share, 0..1) and {@code Deviation} (Placed minus
 * TargetRatio times the directory's blocks on those nodes, in blocks; placement keeps it within
 * ±1 while the nodes stay the same). The counts are this NameNode's, in memory, since
 * {@code CountsSinceTime}: a restart or failover starts them again, as it starts placement's own
 * deficits again. The real layout, whoever placed it, is {@code hdfs hetero show -dir}.
 */
public final class HeteroPlacementMetrics implements MetricsSource {
  private static final Logger LOG = LoggerFactory.getLogger(HeteroPlacementMetrics.class);
  public static final String NAME = "HeteroPlacement";
  private static final MetricsInfo RECORD =
      Interns.info(NAME, "Heterogeneity-aware block placement (hadoop-accel-hetero)");

  private final HeteroPlacement placement;

  public HeteroPlacementMetrics(HeteroPlacement placement) {
    this.placement = placement;
  }

  /**
   * Registers a source for {@code placement} with the process's metrics system, replacing one
   * a NameNode restarted in the same JVM left behind. Metrics are not worth failing placement
   * for: an error is logged.
   */
  public static HeteroPlacementMetrics register(HeteroPlacement placement) {
    HeteroPlacementMetrics m = new HeteroPlacementMetrics(placement);
    try {
      DefaultMetricsSystem.instance().unregisterSource(NAME);
      DefaultMetricsSystem.instance().register(NAME, RECORD.description(), m);
    } catch (MetricsException e) {
      LOG.warn("Hetero placement metrics not registered: {}", e.toString());
    }
    return m;
  }

  /** A metric's name and value, in the order they are reported. */
  record Metric(String name, String description, Number value, boolean counter) {
    Metric(String name, String description, Number value) {
      this(name, description, value, false);
    }
  }

  private static Metric counter(String name, String description, long value) {
    return new Metric(name, description, value, true);
  }

  /** Everything the source reports, in order (tests read this and /jmx alike). */
  List<Metric> snapshot() {
    List<Metric> out = new ArrayList<>();
    ProfileFile pf = placement.profiles();
    HeteroPlacement.Counters c = placement.counters();
    out.add(new Metric("CountsSinceTime",
        "When this NameNode began counting (epoch ms); counts are in memory only",
        placement.startedAtMs()));
    out.add(new Metric("ProfilesVersion",
        "Changes of the profiles in force since start-up (0: not read yet)", pf.version()));
    out.add(new Metric("ProfilesLoadedTime", "Last successful read of the profiles (epoch ms)",
        pf.loadedAtMs()));
    out.add(new Metric("ProfilesChecksum",
        "CRC32 of the profiles in force: equal on NameNodes that agree", pf.checksum()));
    out.add(counter("ProfilesReloadFailures",
        "Reads of the profiles that failed (the previous ones stayed in force)",
        pf.reloadFailures()));
    out.add(new Metric("BoundDirectories", "Directories bound to a profile",
        pf.get().bindings().size()));
    out.add(counter("BlocksPlacedByProfile",
        "New blocks whose first replica was placed by a profile", c.placedByProfile()));
    out.add(counter("BlocksUnbound",
        "New blocks outside every bound directory (stock placement)", c.unbound()));
    out.add(counter("FallbacksNoCandidate",
        "New blocks of a bound directory left to stock: no live, in-service, non-excluded node",
        c.noCandidate()));
    out.add(counter("FallbacksPreferredRefused",
        "New blocks of a bound directory whose preferred node stock refused (full, busy)",
        c.refused()));
    out.add(counter("StockReplicaChoices",
        "Choices left to stock by design: re-replication, pipeline recovery", c.stockOther()));

    Map<String, List<HeteroPlacement.NodeShare>> byDir = new LinkedHashMap<>();
    for (HeteroPlacement.NodeShare s : placement.nodeShares()) {
      byDir.computeIfAbsent(s.directory(), d -> new ArrayList<>()).add(s);
    }
    for (Map.Entry<String, List<HeteroPlacement.NodeShare>> e : byDir.entrySet()) {
      String dir = "Dir[" + e.getKey() + "]";
      long n = 0;
      for (HeteroPlacement.NodeShare s : e.getValue()) {
        n += s.placed();
      }
      out.add(new Metric(dir + ".Placed", "First replicas placed under the directory",
          placement.placedTotal(e.getKey())));
      double worst = 0;
      for (HeteroPlacement.NodeShare s : e.getValue()) {
        String node = dir + ".Node[" + s.node() + "]";
        double deviation = s.placed() - s.target() * n;
        worst = Math.max(worst, Math.abs(deviation));
        out.add(new Metric(node + ".Placed", "First replicas placed on the node", s.placed()));
        out.add(new Metric(node + ".TargetRatio", "The node's target share (0..1)",
            s.target()));
        out.add(new Metric(node + ".Deviation",
            "Placed minus target share times the directory's blocks on live nodes", deviation));
      }
      out.add(new Metric(dir + ".MaxAbsDeviation", "Largest |Deviation| of the directory",
          worst));
    }
    return out;
  }

  @Override
  public void getMetrics(MetricsCollector collector, boolean all) {
    MetricsRecordBuilder rb = collector.addRecord(RECORD).setContext("dfs")
        .tag(Interns.info("ProfilesLocation", "Where the profiles are read from"),
            placement.profiles().store().toString());
    for (Metric m : snapshot()) {
      MetricsInfo info = Interns.info(m.name(), m.description());
      if (m.counter()) {
        rb.addCounter(info, m.value().longValue());
      } else if (m.value() instanceof Double d) {
        rb.addGauge(info, d);
      } else {
        rb.addGauge(info, m.value().longValue());
      }
    }
  }
}
