package io.hadoopaccel.workloads;

/**
 * Names of the workload programs' keys: parameters a program sets in its job configuration from
 * its command-line options for its tasks to read (declared, with the defaults the tasks fall back
 * to, in {@code accel-default.xml}; not meant for site files).
 */
public final class WorkloadConfigKeys {
  public static final String GEN_SEED = "hadoop.accel.workloads.gen.seed";
  public static final String GEN_MAPS = "hadoop.accel.workloads.gen.maps";
  public static final String GEN_UNITS = "hadoop.accel.workloads.gen.units";
  public static final String GEN_TEXT_BYTES = "hadoop.accel.workloads.gen.text.bytes";
  public static final String GEN_TEXT_ZIPF = "hadoop.accel.workloads.gen.text.zipf";
  public static final String GEN_TEXT_MIN_WORDS = "hadoop.accel.workloads.gen.text.min-words";
  public static final String GEN_TEXT_MAX_WORDS = "hadoop.accel.workloads.gen.text.max-words";
  public static final String GEN_TEXT_VOCABULARY = "hadoop.accel.workloads.gen.text.vocabulary";
  public static final String GEN_SMALLFILES_BYTES = "hadoop.accel.workloads.gen.smallfiles.bytes";
  public static final String GEN_ADJACENCY_VERTICES =
      "hadoop.accel.workloads.gen.adjacency.vertices";
  public static final String GEN_ADJACENCY_MIN_VALUE =
      "hadoop.accel.workloads.gen.adjacency.min-value";
  public static final String GEN_ADJACENCY_MAX_VALUE =
      "hadoop.accel.workloads.gen.adjacency.max-value";
  public static final String GEN_ADJACENCY_EDGES = "hadoop.accel.workloads.gen.adjacency.edges";
  public static final String GEN_SELFJOIN_K = "hadoop.accel.workloads.gen.selfjoin.k";
  public static final String GEN_SELFJOIN_GROUP = "hadoop.accel.workloads.gen.selfjoin.group";
  public static final String GEN_SELFJOIN_ITEMS = "hadoop.accel.workloads.gen.selfjoin.items";
  public static final String SELFJOIN_K = "hadoop.accel.workloads.selfjoin.k";

  private WorkloadConfigKeys() {}
}
