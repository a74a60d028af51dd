package io.hadoopaccel.workloads.util;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.util.StringUtils;

/**
 * Minimal command-line parser for the workload tools (generic -D/-conf/-fs options are removed
 * earlier by ToolRunner's GenericOptionsParser). Options are declared first, then parsed:
 * flags take no value, options take exactly one; everything else is positional; "--" ends
 * option parsing (e.g. for a regex that starts with '-').
 */
public final class Args {
  /** A usage error: the tool prints its usage and exits with status 2. */
  public static final class UsageException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
      super(message);
    }
  }

  private final Set<String> flagNames = new HashSet<>();
  private final Set<String> optionNames = new HashSet<>();
  private final Set<String> flags = new HashSet<>();
  private final Map<String, String> options = new HashMap<>();
  private final List<String> positional = new ArrayList<>();

  public Args flag(String... names) {
    Collections.addAll(flagNames, names);
    return this;
  }

  public Args option(String... names) {
    Collections.addAll(optionNames, names);
    return this;
  }

  public Args parse(String[] args) {
    boolean optionsEnded = false;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (optionsEnded || !a.startsWith("-") || a.length() == 1) {
        positional.add(a);
      } else if (a.equals("--")) {
        optionsEnded = true;
      } else if (flagNames.contains(a)) {
        flags.add(a);
      } else if (optionNames.contains(a)) {
        if (i + 1 >= args.length) {
          throw new UsageException("option " + a + " needs a value");
        }
        options.put(a, args[++i]);
      } else {
        throw new UsageException("unknown option " + a);
      }
    }
    return this;
  }

  public boolean has(String name) {
    return flags.contains(name) || options.containsKey(name);
  }

  public String get(String name, String dflt) {
    return options.getOrDefault(name, dflt);
  }

  public long getLong(String name, long dflt) {
    String v = options.get(name);
    if (v == null) {
      return dflt;
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new UsageException(name + " needs an integer, got '" + v + "'");
    }
  }

  public int getInt(String name, int dflt) {
    long v = getLong(name, dflt);
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw new UsageException(name + " out of range: " + v);
    }
    return (int) v;
  }

  public double getDouble(String name, double dflt) {
    String v = options.get(name);
    if (v == null) {
      return dflt;
    }
    try {
      return Double.parseDouble(v.trim());
    } catch (NumberFormatException e) {
      throw new UsageException(name + " needs a number, got '" + v + "'");
    }
  }

  /** A byte size with an optional binary suffix: 512, 64k, 1m, 10g (k = 1024). */
  public long getSize(String name, long dflt) {
    String v = options.get(name);
    if (v == null) {
      return dflt;
    }
    return parseSize(name, v);
  }

  public static long parseSize(String name, String v) {
    try {
      return StringUtils.TraditionalBinaryPrefix.string2long(v.trim());
    } catch (IllegalArgumentException e) {
      throw new UsageException(name + " needs a size such as 4k, 1m, 10g; got '" + v + "'");
    }
  }

  public List<String> positional() {
    return positional;
  }

  public static void require(boolean condition, String message) {
    if (!condition) {
      throw new UsageException(message);
    }
  }
}
