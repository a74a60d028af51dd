package io.hadoopaccel.hdfs.hetero;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * An immutable set of computing-ratio profiles and the HDFS directories bound to them.
 *
 * <p>A profile holds, for one MapReduce application, each node's computing ratio: its response
 * time on the same sample normalised to the fastest node's (seed 003 section 3.3.1). Ratio 1 is
 * the fastest; a node of ratio r should hold 1/r as many blocks as the fastest. The text form,
 * one statement a line ({@code #} starts a comment):
 *
 * <pre>
 * profile grep
 * node node1 1
 * node node2 2
 * node node3 3.3
 * bind /data/grep grep
 * </pre>
 *
 * A node is named by host name, IP address, or either with the DataNode's transfer port
 * ({@code host:port}, for several DataNodes on one host). Files under a bound directory (the
 * longest bound prefix wins) are placed and balanced by its profile; other files are left to
 * stock HDFS.
 */
public final class HeteroProfiles {

  /** One application's computing ratios, by node name. */
  public static final class Profile {
    private final String name;
    private final Map<String, Double> ratios;

    Profile(String name, Map<String, Double> ratios) {
      this.name = name;
      this.ratios = Collections.unmodifiableMap(new LinkedHashMap<>(ratios));
    }

    public String name() {
      return name;
    }

    /** Node name to computing ratio, in the order they were declared. */
    public Map<String, Double> ratios() {
      return ratios;
    }

    /** The ratio of the first of {@code names} the profile knows, or NaN if it knows none. */
    public double ratioOf(String... names) {
      for (String n : names) {
        Double r = n == null ? null : ratios.get(n);
        if (r != null) {
          return r;
        }
      }
      return Double.NaN;
    }
  }

  /** Thrown for a malformed profile text; the message names the source and line. */
  public static final class MalformedProfileException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    MalformedProfileException(String source, int line, String message) {
      super(source + ":" + line + ": " + message);
    }
  }

  public static final HeteroProfiles EMPTY =
      new HeteroProfiles(Collections.emptyMap(), Collections.emptyMap());

  private final Map<String, Profile> profiles;
  /** Bound directory (no trailing slash, except "/") to profile name, sorted by path. */
  private final Map<String, String> bindings;

  private HeteroProfiles(Map<String, Profile> profiles, Map<String, String> bindings) {
    this.profiles = Collections.unmodifiableMap(new TreeMap<>(profiles));
    this.bindings = Collections.unmodifiableMap(new TreeMap<>(bindings));
  }

  public Map<String, Profile> profiles() {
    return profiles;
  }

  /** Bound directory to profile name. */
  public Map<String, String> bindings() {
    return bindings;
  }

  public Profile profile(String name) {
    return profiles.get(name);
  }

  /**
   * The bound directory that governs {@code path} (the longest bound ancestor or the path
   * itself), or null when none does.
   */
  public String boundDirectoryOf(String path) {
    if (bindings.isEmpty() || path == null) {
      return null;
    }
    String p = normalize(path);
    while (true) {
      if (bindings.containsKey(p)) {
        return p;
      }
      if (p.equals("/")) {
        return null;
      }
      int slash = p.lastIndexOf('/');
      p = slash <= 0 ? "/" : p.substring(0, slash);
    }
  }

  /** The profile that governs {@code path}, or null. */
  public Profile profileOf(String path) {
    String dir = boundDirectoryOf(path);
    return dir == null ? null : profiles.get(bindings.get(dir));
  }

  /** A copy with {@code profile} added or replaced. */
  public HeteroProfiles withProfile(String name, Map<String, Double> ratios) {
    checkName(name);
    if (ratios.isEmpty()) {
      throw new IllegalArgumentException("profile " + name + " has no node");
    }
    for (Map.Entry<String, Double> e : ratios.entrySet()) {
      checkNode(e.getKey());
      checkRatio(e.getKey(), e.getValue());
    }
    Map<String, Profile> p = new TreeMap<>(profiles);
    p.put(name, new Profile(name, ratios));
    return new HeteroProfiles(p, bindings);
  }

  /** A copy without the profile; refused while a directory is bound to it. */
  public HeteroProfiles withoutProfile(String name) {
    if (!profiles.containsKey(name)) {
      throw new IllegalArgumentException("no profile named " + name);
    }
    for (Map.Entry<String, String> b : bindings.entrySet()) {
      if (b.getValue().equals(name)) {
        throw new IllegalArgumentException(
            "profile " + name + " is still bound to " + b.getKey() + ": unbind it first");
      }
    }
    Map<String, Profile> p = new TreeMap<>(profiles);
    p.remove(name);
    return new HeteroProfiles(p, bindings);
  }

  /** A copy with {@code dir} bound to the existing profile {@code name}. */
  public HeteroProfiles withBinding(String dir, String name) {
    checkDir(dir);
    if (!profiles.containsKey(name)) {
      throw new IllegalArgumentException("no profile named " + name);
    }
    Map<String, String> b = new TreeMap<>(bindings);
    b.put(normalize(dir), name);
    return new HeteroProfiles(profiles, b);
  }

  /** A copy with {@code dir} unbound. */
  public HeteroProfiles withoutBinding(String dir) {
    String d = normalize(dir);
    if (!bindings.containsKey(d)) {
      throw new IllegalArgumentException(dir + " is not bound to a profile");
    }
    Map<String, String> b = new TreeMap<>(bindings);
    b.remove(d);
    return new HeteroProfiles(profiles, b);
  }

  /** Parses the text form; {@code source} names it in error messages. */
  public static HeteroProfiles parse(String source, Reader in) throws IOException {
    Map<String, Map<String, Double>> profs = new LinkedHashMap<>();
    Map<String, String> binds = new LinkedHashMap<>();
    Map<String, Integer> bindLines = new LinkedHashMap<>();
    BufferedReader r = new BufferedReader(in);
    String current = null;
    int lineNo = 0;
    for (String line; (line = r.readLine()) != null; ) {
      lineNo++;
      int hash = line.indexOf('#');
      String[] w = (hash >= 0 ? line.substring(0, hash) : line).trim().split("\\s+");
      if (w.length == 1 && w[0].isEmpty()) {
        continue;
      }
      try {
        switch (w[0]) {
          case "profile":
            expectWords(w, 2, "profile NAME");
            checkName(w[1]);
            if (profs.containsKey(w[1])) {
              throw new IllegalArgumentException("profile " + w[1] + " is declared twice");
            }
            current = w[1];
            profs.put(current, new LinkedHashMap<>());
            break;
          case "node":
            expectWords(w, 3, "node HOST RATIO");
            if (current == null) {
              throw new IllegalArgumentException("node before any profile");
            }
            checkNode(w[1]);
            double ratio = parseRatio(w[1], w[2]);
            if (profs.get(current).put(w[1], ratio) != null) {
              throw new IllegalArgumentException(
                  "node " + w[1] + " appears twice in profile " + current);
            }
            break;
          case "bind":
            expectWords(w, 3, "bind DIRECTORY PROFILE");
            checkDir(w[1]);
            String dir = normalize(w[1]);
            if (binds.containsKey(dir)) {
              throw new IllegalArgumentException(dir + " is bound twice");
            }
            binds.put(dir, w[2]);
            bindLines.put(dir, lineNo);
            break;
          default:
            throw new IllegalArgumentException(
                "unknown statement '" + w[0] + "' (expected profile, node or bind)");
        }
      } catch (IllegalArgumentException e) {
        throw new MalformedProfileException(source, lineNo, e.getMessage());
      }
    }
    Map<String, Profile> done = new LinkedHashMap<>();
    for (Map.Entry<String, Map<String, Double>> e : profs.entrySet()) {
      if (e.getValue().isEmpty()) {
        throw new MalformedProfileException(source, lineNo, "profile " + e.getKey() + " has no node");
      }
      done.put(e.getKey(), new Profile(e.getKey(), e.getValue()));
    }
    for (Map.Entry<String, String> b : binds.entrySet()) {
      if (!done.containsKey(b.getValue())) {
        throw new MalformedProfileException(source, bindLines.get(b.getKey()),
            b.getKey() + " is bound to unknown profile " + b.getValue());
      }
    }
    return new HeteroProfiles(done, binds);
  }

  /** The text form; {@link #parse} of it gives an equal set. */
  public String format() {
    StringBuilder sb = new StringBuilder();
    sb.append("# Computing-ratio profiles (hadoop-accel-hetero): response time on the same sample,\n")
        .append("# normalised to the fastest node (ratio 1). Edit with 'hdfs hetero'.\n");
    for (Profile p : profiles.values()) {
      sb.append("profile ").append(p.name()).append('\n');
      for (Map.Entry<String, Double> e : p.ratios().entrySet()) {
        sb.append("node ").append(e.getKey()).append(' ')
            .append(formatRatio(e.getValue())).append('\n');
      }
    }
    for (Map.Entry<String, String> b : bindings.entrySet()) {
      sb.append("bind ").append(b.getKey()).append(' ').append(b.getValue()).append('\n');
    }
    return sb.toString();
  }

  static String formatRatio(double r) {
    String s = String.format(Locale.ROOT, "%.3f", r);
    s = s.replaceAll("0+$", "");
    return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
  }

  /** Canonical form of a directory: no trailing slash except for the root. */
  static String normalize(String dir) {
    String d = dir;
    while (d.length() > 1 && d.endsWith("/")) {
      d = d.substring(0, d.length() - 1);
    }
    return d;
  }

  private static void expectWords(String[] w, int n, String form) {
    if (w.length != n) {
      throw new IllegalArgumentException("expected '" + form + "'");
    }
  }

  private static void checkName(String name) {
    if (!name.matches("[A-Za-z0-9_.-]+")) {
      throw new IllegalArgumentException(
          "profile name '" + name + "' may only use letters, digits, '_', '.' and '-'");
    }
  }

  private static void checkNode(String node) {
    if (!node.matches("[A-Za-z0-9_.:\\[\\]-]+")) {
      throw new IllegalArgumentException("'" + node + "' is not a host name or address");
    }
  }

  private static void checkDir(String dir) {
    if (!dir.startsWith("/") || dir.contains("//") || dir.matches(".*(^|/)\\.\\.?(/|$).*")) {
      throw new IllegalArgumentException("'" + dir + "' is not an absolute, normalised HDFS path");
    }
  }

  private static double parseRatio(String node, String text) {
    double r;
    try {
      r = Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("ratio '" + text + "' of node " + node + " is not a number");
    }
    checkRatio(node, r);
    return r;
  }

  private static void checkRatio(String node, double r) {
    if (!(r > 0) || Double.isInfinite(r)) {
      throw new IllegalArgumentException(
          "ratio " + r + " of node " + node + " must be a positive, finite number");
    }
  }

  /** Bound directories, longest first (for callers that scan them). */
  public List<String> boundDirectories() {
    List<String> dirs = new ArrayList<>(bindings.keySet());
    dirs.sort((a, b) -> b.length() - a.length());
    return dirs;
  }
}
