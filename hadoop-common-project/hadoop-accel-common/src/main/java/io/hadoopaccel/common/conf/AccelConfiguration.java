package io.hadoopaccel.common.conf;

import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.StringUtils;

/**
 * Reads our keys: the value set in the configuration (site files, job, command line), else the
 * default declared in {@code accel-default.xml}; strictly.
 *
 * <p>{@code accel-default.xml} is deliberately not registered with
 * {@code Configuration.addDefaultResource}: a default resource added after {@code hdfs-site.xml}
 * or {@code mapred-site.xml} were loaded would override the values users set there.
 *
 * <p>Upstream's {@code Configuration.getBoolean} quietly returns the default for a value such as
 * {@code "ture"}; a feature switch must not be silently ignored, so these getters reject bad
 * values with an {@link IllegalArgumentException} naming the key, at the feature's start-up.
 * Numbers are bounded by the key's {@code <range>} in the same file, never by literals in code.
 */
public final class AccelConfiguration {
  public static final String DEFAULT_RESOURCE = "accel-default.xml";

  private static final Configuration DEFAULTS = new Configuration(false);

  static {
    DEFAULTS.addResource(DEFAULT_RESOURCE);
  }

  private AccelConfiguration() {}

  /** A new {@link Configuration} with Hadoop's defaults and site files. */
  public static Configuration create() {
    return new Configuration();
  }

  /** The value of {@code key} in {@code conf}, else its default, trimmed; null if neither. */
  public static String get(Configuration conf, String key) {
    String v = conf.getTrimmed(key);
    return v != null ? v : DEFAULTS.getTrimmed(key);
  }

  /** Like {@link #get} for a key that must have a value (every key of ours has a default). */
  public static String getString(Configuration conf, String key) {
    return required(conf, key);
  }

  private static String required(Configuration conf, String key) {
    String v = get(conf, key);
    if (v == null) {
      throw new IllegalArgumentException(
          "Configuration key " + key + " has no value and no default in " + DEFAULT_RESOURCE);
    }
    return v;
  }

  private static IllegalArgumentException bad(String key, String value, String expected) {
    return new IllegalArgumentException(
        "Invalid value '" + value + "' for configuration key " + key + ": expected " + expected);
  }

  /** {@code true} or {@code false} (any case); anything else is an error naming the key. */
  public static boolean getBoolean(Configuration conf, String key) {
    String v = required(conf, key);
    switch (v.toLowerCase(Locale.ROOT)) {
      case "true":
        return true;
      case "false":
        return false;
      default:
        throw bad(key, v, "true or false");
    }
  }

  /**
   * An integer within the key's declared {@code <range>} (see {@link AccelKeyRanges}), which must
   * fit an int.
   */
  public static int getInt(Configuration conf, String key) {
    KeyRange r = AccelKeyRanges.of(key);
    if (r.min < Integer.MIN_VALUE || r.max > Integer.MAX_VALUE) {
      throw new IllegalStateException("range of " + key + " (" + r + ") does not fit an int");
    }
    String v = required(conf, key);
    long n;
    try {
      n = Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw bad(key, v, r.expected("an integer"));
    }
    if (!r.contains(n)) {
      throw bad(key, v, r.expected("an integer"));
    }
    return (int) n;
  }

  /**
   * A byte size such as {@code 128k}, {@code 64m} or {@code 1g}, within the key's declared
   * {@code <range>} (see {@link AccelKeyRanges}).
   */
  public static long getBytes(Configuration conf, String key) {
    KeyRange r = AccelKeyRanges.of(key);
    String v = required(conf, key);
    long n;
    try {
      n = StringUtils.TraditionalBinaryPrefix.string2long(v);
    } catch (IllegalArgumentException e) { // includes NumberFormatException
      throw bad(key, v, "a size such as 128k, 64m or 1g, " + r.expected("bytes"));
    }
    if (!r.contains(n)) {
      throw bad(key, v, r.expected("a size"));
    }
    return n;
  }

  /** One of the enum's constant names (any case). */
  public static <E extends Enum<E>> E getEnum(Configuration conf, String key, Class<E> type) {
    String v = required(conf, key);
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(v)) {
        return e;
      }
    }
    StringBuilder names = new StringBuilder();
    for (E e : type.getEnumConstants()) {
      names.append(names.length() == 0 ? "" : ", ").append(e.name().toLowerCase(Locale.ROOT));
    }
    throw bad(key, v, "one of " + names);
  }
}
