package io.hadoopaccel.hdfs.hetero;

/**
 * Names of the heterogeneity-aware placement's keys (defaults, ranges and descriptions:
 * {@code accel-default.xml}).
 */
public final class HeteroConfigKeys {
  /** The computing-ratio profiles file (relative: under HADOOP_CONF_DIR). */
  public static final String PROFILES_FILE = "hadoop.accel.hetero.profiles.file";

  /** How often the NameNode checks the profiles file for changes. */
  public static final String PROFILES_RELOAD_MS = "hadoop.accel.hetero.profiles.reload.ms";

  /** Probe job (set by the active profiler): the sample file every node reads. */
  public static final String PROBE_SAMPLE = "hadoop.accel.hetero.probe.sample";

  /** Probe job: the nodes to measure. */
  public static final String PROBE_HOSTS = "hadoop.accel.hetero.probe.hosts";

  /** Probe job: equal splits of the sample per node. */
  public static final String PROBE_SPLITS_PER_NODE = "hadoop.accel.hetero.probe.splits-per-node";

  /** Probe job: the application's input format that reads the sample. */
  public static final String PROBE_INPUT_FORMAT = "hadoop.accel.hetero.probe.input-format";

  private HeteroConfigKeys() {}
}
