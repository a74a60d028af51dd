package io.hadoopaccel.common.conf;

/**
 * Names of the keys every feature shares. Each feature names its own keys in its own class
 * (JbsConfigKeys, KismConfigKeys, HeteroConfigKeys, ShmStreamingConfigKeys, WorkloadConfigKeys),
 * as upstream splits keys per component.
 *
 * <p>Defaults, ranges and descriptions live only in {@code accel-default.xml}; the classes hold
 * the names, spelled out in full so that {@code TestKeysDeclared} finds them: it fails on a key
 * named in the sources that the file does not declare, and on a declared key no source names.
 */
public final class AccelConfigKeys {
  /** Prefix of every key we own. */
  public static final String PREFIX = "hadoop.accel.";

  /** Master switch for native libraries; off means every feature takes its Java path. */
  public static final String NATIVE_ENABLED = "hadoop.accel.native.enabled";

  /** Extra directory searched first for native libraries. */
  public static final String NATIVE_LIB_DIR = "hadoop.accel.native.lib.dir";

  /**
   * Directory of the JBS daemons (empty: $HADOOP_HOME/bin). Shared because {@code hadoop
   * checknative}, in this module, reports the daemons too; JbsConfigKeys refers to it.
   */
  public static final String JBS_NATIVE_DIR = "hadoop.accel.jbs.native.dir";

  private AccelConfigKeys() {}
}
