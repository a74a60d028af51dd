package io.hadoopaccel.common.conf;

import org.apache.hadoop.util.StringUtils;

/**
 * The legal values of a numeric key, as its {@code <range>} in {@code accel-default.xml} declares
 * them: {@code MIN..MAX}, optionally {@code step N} (MIN plus a multiple of N); the numbers take
 * Hadoop's binary suffixes (k, m, g, t, p).
 */
public final class KeyRange {
  public final String key;
  public final long min;
  public final long max;
  public final long step;

  KeyRange(String key, long min, long max, long step) {
    if (min > max || step < 1) {
      throw new IllegalArgumentException("range of " + key + " is empty: " + min + ".." + max
          + " step " + step);
    }
    this.key = key;
    this.min = min;
    this.max = max;
    this.step = step;
  }

  /** Parses a declaration such as {@code 4k..16m step 4k}; throws naming the key. */
  static KeyRange parse(String key, String text) {
    String t = text.trim();
    String stepText = "1";
    int s = t.indexOf(" step ");
    if (s >= 0) {
      stepText = t.substring(s + " step ".length()).trim();
      t = t.substring(0, s).trim();
    }
    int dots = t.indexOf("..");
    if (dots < 0) {
      throw new IllegalArgumentException("range of " + key + " is not MIN..MAX: '" + text + "'");
    }
    try {
      return new KeyRange(key, number(t.substring(0, dots)), number(t.substring(dots + 2)),
          number(stepText));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("range of " + key + " is malformed: '" + text + "'", e);
    }
  }

  private static long number(String s) {
    return StringUtils.TraditionalBinaryPrefix.string2long(s.trim());
  }

  public boolean contains(long v) {
    return v >= min && v <= max && (v - min) % step == 0;
  }

  /** What a legal value is, for error messages: "an integer in [1, 65536]". */
  String expected(String what) {
    String multiple = step == 1 ? ""
        : " and a multiple of " + step + (min % step == 0 ? "" : " above " + min);
    return what + " in [" + min + ", " + max + "]" + multiple;
  }

  @Override
  public String toString() {
    return min + ".." + max + (step == 1 ? "" : " step " + step);
  }
}
