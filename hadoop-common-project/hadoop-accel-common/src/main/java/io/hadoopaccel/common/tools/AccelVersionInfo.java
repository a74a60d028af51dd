package io.hadoopaccel.common.tools;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import org.apache.hadoop.util.ClassUtil;
import org.apache.hadoop.util.VersionInfo;

/**
 * {@code hadoop version}: upstream's build facts, with our release appended to the version so
 * operators can tell this distribution from stock Hadoop at a glance.
 */
public final class AccelVersionInfo {
  private static final Properties PROPS = load();

  private AccelVersionInfo() {}

  private static Properties load() {
    Properties p = new Properties();
    try (InputStream in =
        AccelVersionInfo.class.getClassLoader().getResourceAsStream("hadoop-accel-version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p;
  }

  /** Our release, e.g. {@code 0.1.0-SNAPSHOT}. */
  public static String getAccelVersion() {
    return PROPS.getProperty("accel.version", "Unknown");
  }

  /** Upstream version of the running jars plus our suffix, e.g. {@code 3.5.0-accel-0.1.0}. */
  public static String getVersion() {
    return VersionInfo.getVersion() + "-accel-" + getAccelVersion();
  }

  public static void main(String[] args) {
    System.out.println("Hadoop " + getVersion());
    System.out.println("Upstream Apache Hadoop " + VersionInfo.getVersion()
        + ", source " + VersionInfo.getUrl() + " -r " + VersionInfo.getRevision());
    System.out.println("Upstream compiled by " + VersionInfo.getUser() + " on " + VersionInfo.getDate()
        + " with protoc " + VersionInfo.getProtocVersion());
    System.out.println("Upstream source checksum " + VersionInfo.getSrcChecksum());
    System.out.println("Accel " + getAccelVersion() + " built against Hadoop "
        + PROPS.getProperty("hadoop.version", "Unknown"));
    System.out.println("This command was run using " + ClassUtil.findContainingJar(VersionInfo.class));
  }
}
