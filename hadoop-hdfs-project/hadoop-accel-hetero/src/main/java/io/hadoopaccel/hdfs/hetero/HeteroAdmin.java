package io.hadoopaccel.hdfs.hetero;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSUtil;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.hdfs.tools.DFSAdmin;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/**
 * {@code hdfs hetero}: lists, edits, measures and checks the computing-ratio profiles that
 * heterogeneity-aware placement reads. Edits go to the profiles file
 * ({@code hadoop.accel.hetero.profiles.file}, relative to {@code $HADOOP_CONF_DIR}) with an
 * atomic rename; the NameNode picks them up within {@code hadoop.accel.hetero.profiles.reload.ms}.
 * The tool edits the file of the machine it runs on, so run it where the NameNode's
 * configuration directory is.
 *
 * <p>Exit codes: 0 done, 1 error (malformed profiles file, unknown profile, failed job...),
 * 2 usage (unknown command or option, malformed argument).
 */
public class HeteroAdmin extends Configured implements Tool {

  static final String USAGE = String.join("\n",
      "Usage: hdfs hetero [generic options] <command> [args]",
      "Computing-ratio profiles of heterogeneity-aware HDFS placement. Edits the profiles",
      "file named by hadoop.accel.hetero.profiles.file: a local path (relative to",
      "$HADOOP_CONF_DIR, on THIS machine: run it where the NameNode's configuration is) or a",
      "Hadoop FileSystem URI such as hdfs://NAMESERVICE/system/hetero-profiles.conf, which",
      "every NameNode of an HA pair reads. NameNodes re-read it within",
      "hadoop.accel.hetero.profiles.reload.ms, or at once on",
      "'hdfs hetero refresh' (every NameNode) or",
      "'hdfs dfsadmin -refresh NAMENODE_HOST:IPC_PORT hetero.profiles' (one).",
      "",
      "  list                          profiles, their ratios and shares, bound directories",
      "  show NAME                     ratio and share of each node of profile NAME",
      "  show -dir DIR                 DIR's replicas per DataNode against its profile's target",
      "  set NAME [-times] HOST=VALUE...",
      "                                create or replace profile NAME with these ratios; with",
      "                                -times the values are response times, normalised so the",
      "                                fastest node gets ratio 1",
      "  remove NAME                   delete profile NAME (no directory may be bound to it)",
      "  bind DIR NAME                 place new blocks of files under DIR by profile NAME",
      "  unbind DIR                    give DIR back to stock placement",
      "  profile NAME -sample FILE -mapper CLASS [-splits-per-node K] [-input-format CLASS]",
      "          [-skip-missing] [-wait SECONDS] [-dry-run] [-D key=value]...",
      "                                measure: run CLASS (a new-API Mapper) over the HDFS FILE",
      "                                on every live DataNode, ratio = median time / fastest",
      "  refresh                       make every NameNode of the configuration",
      "                                ('hdfs getconf -nnRpcAddresses') re-read the profiles now",
      "  derive NAME -job JOB_ID... [-save]",
      "                                derive ratios from finished jobs' map throughput per",
      "                                node and compare them with profile NAME if it exists",
      "",
      "A HOST is a host name, an IP address, or either with the DataNode transfer port.",
      "Exit codes: 0 ok, 1 error, 2 usage.");

  /** A usage error: printed with the usage, exit code 2. */
  static final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  private final PrintStream out;
  private final PrintStream err;

  public HeteroAdmin() {
    this(null, System.out, System.err);
  }

  public HeteroAdmin(Configuration conf, PrintStream out, PrintStream err) {
    super(conf);
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) throws Exception {
    // hdfs-site.xml too: the profiles file key may be set there, next to the placement policy.
    System.exit(ToolRunner.run(new HdfsConfiguration(), new HeteroAdmin(), args));
  }

  @Override
  public int run(String[] args) {
    try {
      if (args.length == 0) {
        throw new UsageException("no command");
      }
      List<String> rest = new ArrayList<>(Arrays.asList(args).subList(1, args.length));
      switch (args[0]) {
        case "list":
          noMore(rest);
          return list();
        case "show":
          return show(rest);
        case "set":
          return set(rest);
        case "remove":
          return remove(exactly(rest, 1, "remove NAME").get(0));
        case "bind":
          List<String> b = exactly(rest, 2, "bind DIR NAME");
          return bind(b.get(0), b.get(1));
        case "unbind":
          return unbind(exactly(rest, 1, "unbind DIR").get(0));
        case "profile":
          return profile(rest);
        case "derive":
          return derive(rest);
        case "refresh":
          noMore(rest);
          return refreshAll();
        case "-h":
        case "-help":
        case "--help":
        case "help":
          out.println(USAGE);
          return 0;
        default:
          throw new UsageException("unknown command '" + args[0] + "'");
      }
    } catch (UsageException e) {
      err.println("hetero: " + e.getMessage());
      err.println(USAGE);
      return 2;
    } catch (HeteroProfiles.MalformedProfileException e) {
      err.println("hetero: malformed profiles file: " + e.getMessage());
      return 1;
    } catch (Exception e) {
      err.println("hetero: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
      return 1;
    }
  }

  // ---- refresh ----

  /**
   * Sends the profiles refresh to every NameNode the configuration names (each nameservice's
   * every NameNode, as {@code hdfs getconf -nnRpcAddresses} lists them), one line each.
   */
  private int refreshAll() throws IOException {
    List<String> addresses = new ArrayList<>();
    for (Map<String, InetSocketAddress> ns
        : DFSUtil.getNNServiceRpcAddressesForCluster(getConf()).values()) {
      for (InetSocketAddress a : ns.values()) {
        addresses.add(NetUtils.getHostPortString(a));
      }
    }
    if (addresses.isEmpty()) {
      err.println("hetero: no NameNode in the configuration (fs.defaultFS, dfs.nameservices)");
      return 1;
    }
    int failed = 0;
    for (String nn : addresses) {
      out.println("refresh " + nn + ":");
      int rc;
      try {
        rc = new DFSAdmin(getConf()).run(
            new String[] {"-refresh", nn, HeteroPlacement.REFRESH_IDENTIFIER});
      } catch (Exception e) {
        err.println("hetero: refresh " + nn + ": " + e);
        rc = 1;
      }
      if (rc != 0) {
        failed++;
      }
    }
    out.println("refreshed " + (addresses.size() - failed) + " of " + addresses.size()
        + " NameNode(s)");
    return failed == 0 ? 0 : 1;
  }

  // ---- list / show ----

  private int list() throws IOException {
    ProfileStore file = file();
    HeteroProfiles p = read(file);
    out.printf("Profiles file %s: %d profile(s), %d bound director%s%n", file,
        p.profiles().size(), p.bindings().size(), p.bindings().size() == 1 ? "y" : "ies");
    for (HeteroProfiles.Profile prof : p.profiles().values()) {
      printProfile(p, prof);
    }
    if (!p.bindings().isEmpty()) {
      out.println("Bindings:");
      p.bindings().forEach((dir, name) -> out.printf("  %s -> %s%n", dir, name));
    }
    out.println("Shares are among each profile's own nodes; the NameNode divides blocks among "
        + "the live DataNodes, a node missing from the profile counting as ratio 1.");
    return 0;
  }

  private void printProfile(HeteroProfiles p, HeteroProfiles.Profile prof) {
    List<String> dirs = new ArrayList<>();
    p.bindings().forEach((dir, name) -> {
      if (name.equals(prof.name())) {
        dirs.add(dir);
      }
    });
    out.printf("profile %s (%d node(s)%s)%n", prof.name(), prof.ratios().size(),
        dirs.isEmpty() ? ", not bound" : ", bound to " + String.join(", ", dirs));
    int width = 4;
    for (String n : prof.ratios().keySet()) {
      width = Math.max(width, n.length());
    }
    Map<String, Double> shares = NodeWeights.sharesOf(prof.ratios());
    out.printf("  %-" + width + "s  %8s  %7s%n", "node", "ratio", "share");
    for (Map.Entry<String, Double> e : prof.ratios().entrySet()) {
      out.printf(Locale.ROOT, "  %-" + width + "s  %8s  %6.1f%%%n", e.getKey(),
          HeteroProfiles.formatRatio(e.getValue()), 100 * shares.get(e.getKey()));
    }
  }

  private int show(List<String> args) throws Exception {
    if (!args.isEmpty() && args.get(0).equals("-dir")) {
      return showDir(exactly(args.subList(1, args.size()), 1, "show -dir DIR").get(0));
    }
    String name = exactly(args, 1, "show NAME").get(0);
    HeteroProfiles p = read(file());
    HeteroProfiles.Profile prof = p.profile(name);
    if (prof == null) {
      throw new IllegalArgumentException(noProfile(p, name));
    }
    printProfile(p, prof);
    return 0;
  }

  private int showDir(String dirArg) throws Exception {
    if (!dirArg.startsWith("/")) {
      throw new UsageException("DIR must be an absolute HDFS path: '" + dirArg + "'");
    }
    HeteroProfiles p = read(file());
    String boundDir = p.boundDirectoryOf(dirArg);
    HeteroProfiles.Profile prof = boundDir == null ? null : p.profile(p.bindings().get(boundDir));
    DistributedFileSystem dfs = dfs();
    DirectoryShares s = DirectoryShares.of(dfs, new org.apache.hadoop.fs.Path(dirArg), prof);
    out.printf("%s: %d file(s), %d block(s), %d replica(s), %d bytes; %s%n", dirArg, s.files(),
        s.blocks(), s.replicas(), s.bytes(), prof == null
            ? "not bound to a profile (stock placement)"
            : "profile " + prof.name() + (boundDir.equals(HeteroProfiles.normalize(dirArg))
                ? "" : " (bound at " + boundDir + ")"));
    int width = 8;
    for (DirectoryShares.Node n : s.nodes().values()) {
      width = Math.max(width, n.host().length() + n.address().length() + 3);
    }
    out.printf("  %-" + width + "s  %6s  %8s  %12s  %7s  %7s  %8s%n", "datanode", "ratio",
        "replicas", "bytes", "actual", "target", "target#");
    Map<String, Double> actual = s.actualShares();
    for (DirectoryShares.Node n : s.nodes().values()) {
      String name = n.host() + " (" + n.address() + ")";
      String ratio = Double.isNaN(n.ratio()) ? "-" : HeteroProfiles.formatRatio(n.ratio());
      String target = Double.isNaN(n.target()) ? "-"
          : String.format(Locale.ROOT, "%.1f%%", 100 * n.target());
      String targetCount = Double.isNaN(n.target()) ? "-"
          : String.format(Locale.ROOT, "%.0f", n.target() * s.replicas());
      out.printf(Locale.ROOT, "  %-" + width + "s  %6s  %8d  %12d  %6.1f%%  %7s  %8s%s%n", name,
          ratio, n.replicas(), n.bytes(), 100 * actual.get(n.address()), target, targetCount,
          n.live() ? "" : "  (not live)");
    }
    if (!s.skippedFiles().isEmpty()) {
      out.printf("Not counted (open for writing or erasure-coded): %d file(s), e.g. %s%n",
          s.skippedFiles().size(), s.skippedFiles().get(0));
    }
    for (String u : s.unknownToProfile()) {
      err.printf("WARNING: profile %s has no ratio for DataNode %s: it counts as ratio 1%n",
          prof.name(), u);
    }
    return 0;
  }

  // ---- edits ----

  private int set(List<String> args) throws Exception {
    List<String> rest = new ArrayList<>(args);
    boolean times = rest.remove("-times");
    if (rest.size() < 2 || rest.get(0).startsWith("-")) {
      throw new UsageException("expected 'set NAME [-times] HOST=VALUE...'");
    }
    String name = rest.get(0);
    Map<String, Double> values = new LinkedHashMap<>();
    for (String a : rest.subList(1, rest.size())) {
      int eq = a.lastIndexOf('=');
      if (eq <= 0 || eq == a.length() - 1) {
        throw new UsageException("argument '" + a + "' is not HOST=VALUE");
      }
      String host = a.substring(0, eq);
      double v;
      try {
        v = Double.parseDouble(a.substring(eq + 1));
      } catch (NumberFormatException e) {
        throw new UsageException("argument '" + a + "': '" + a.substring(eq + 1)
            + "' is not a number");
      }
      if (!(v > 0) || Double.isInfinite(v)) {
        throw new UsageException("argument '" + a + "': the ratio must be positive and finite");
      }
      if (values.put(host, v) != null) {
        throw new UsageException("argument '" + a + "': node " + host + " given twice");
      }
    }
    Map<String, Double> ratios = times ? normalise(values) : values;
    ProfileStore file = file();
    HeteroProfiles p = read(file);
    boolean existed = p.profile(name) != null;
    HeteroProfiles next;
    try {
      next = p.withProfile(name, ratios);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    if (times) {
      out.println("Response times normalised to the fastest node (ratio 1).");
    } else if (Collections.min(ratios.values()) != 1.0) {
      out.println("NOTE: no node has ratio 1 (the fastest); nodes missing from the profile "
          + "count as ratio 1. Use -times to give response times instead of ratios.");
    }
    write(file, next);
    out.printf("%s profile %s in %s%n", existed ? "Replaced" : "Created", name, file);
    printProfile(next, next.profile(name));
    return 0;
  }

  /** Each value over the smallest, rounded as the file keeps it. */
  static Map<String, Double> normalise(Map<String, Double> values) {
    double min = Collections.min(values.values());
    Map<String, Double> r = new LinkedHashMap<>();
    values.forEach((k, v) -> r.put(k, ComputingRatios.round(v / min)));
    return r;
  }

  private int remove(String name) throws IOException {
    ProfileStore file = file();
    HeteroProfiles p = read(file);
    if (p.profile(name) == null) {
      throw new IllegalArgumentException(noProfile(p, name));
    }
    write(file, p.withoutProfile(name));
    out.printf("Removed profile %s from %s%n", name, file);
    return 0;
  }

  private int bind(String dir, String name) throws Exception {
    ProfileStore file = file();
    HeteroProfiles p = read(file);
    if (p.profile(name) == null) {
      throw new IllegalArgumentException(noProfile(p, name));
    }
    HeteroProfiles next;
    try {
      next = p.withBinding(dir, name);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    String d = HeteroProfiles.normalize(dir);
    String before = p.bindings().get(d);
    write(file, next);
    out.printf("Bound %s to profile %s%s in %s%n", d, name,
        before == null || before.equals(name) ? "" : " (was " + before + ")", file);
    out.println("New blocks of files under it are placed by the profile; existing blocks stay "
        + "where they are until the hetero balancer moves them.");
    return 0;
  }

  private int unbind(String dir) throws IOException {
    ProfileStore file = file();
    HeteroProfiles p = read(file);
    write(file, p.withoutBinding(dir));
    out.printf("Unbound %s in %s: stock placement from now on%n",
        HeteroProfiles.normalize(dir), file);
    return 0;
  }

  // ---- measuring ----

  private int profile(List<String> args) throws Exception {
    Options o = new Options(args, "profile NAME -sample FILE -mapper CLASS ...");
    String name = o.positional("NAME");
    String sample = o.value("-sample");
    String mapperName = o.value("-mapper");
    int k = o.intValue("-splits-per-node", 2, 1);
    String inputFormat = o.optional("-input-format");
    boolean skipMissing = o.flag("-skip-missing");
    int waitSeconds = o.intValue("-wait", 600, 1);
    boolean dryRun = o.flag("-dry-run");
    Configuration conf = new Configuration(getConf());
    o.defines(conf);
    o.done();
    checkName(name);
    ProfileStore file = file();
    HeteroProfiles before = read(file); // fail on a malformed file before the job, not after

    Class<? extends Mapper> mapper = loadClass(conf, mapperName, Mapper.class, "-mapper");
    ActiveProfiler profiler = new ActiveProfiler(conf, out).splitsPerNode(k)
        .skipMissing(skipMissing).replicationWaitMs(waitSeconds * 1000L);
    if (inputFormat != null) {
      profiler.inputFormat(loadClass(conf, inputFormat, FileInputFormat.class, "-input-format"));
    }
    ActiveProfiler.Result r = profiler.run(new org.apache.hadoop.fs.Path(sample), mapper, name);
    out.printf("Measured profile %s (job %s, %d of %d maps data-local):%n", name, r.jobId(),
        r.dataLocalMaps(), r.launchedMaps());
    int width = 4;
    for (String h : r.ratios().keySet()) {
      width = Math.max(width, h.length());
    }
    out.printf("  %-" + width + "s  %8s  %10s  %s%n", "node", "ratio", "median ms", "attempts");
    for (Map.Entry<String, Double> e : r.ratios().entrySet()) {
      List<Long> t = r.times().get(e.getKey());
      out.printf(Locale.ROOT, "  %-" + width + "s  %8s  %10.0f  %d%n", e.getKey(),
          HeteroProfiles.formatRatio(e.getValue()), ComputingRatios.median(t), t.size());
    }
    return save(file, before, name, r.ratios(), !dryRun, "-dry-run");
  }

  private int derive(List<String> args) throws Exception {
    Options o = new Options(args, "derive NAME -job JOB_ID... [-save]");
    String name = o.positional("NAME");
    List<String> jobs = o.values("-job");
    boolean saveIt = o.flag("-save");
    o.done();
    checkName(name);
    if (jobs.isEmpty()) {
      throw new UsageException("derive needs at least one -job JOB_ID");
    }
    ProfileStore file = file();
    HeteroProfiles before = read(file);
    List<ComputingRatios.Observation> obs;
    try {
      obs = new PassiveDeriver(getConf(), out).observe(jobs);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    Map<String, Double> derived = ComputingRatios.fromThroughputs(obs);
    Map<String, Double> tput = ComputingRatios.throughputs(obs);
    Map<String, Integer> count = new TreeMap<>();
    for (ComputingRatios.Observation ob : obs) {
      if (ob.bytes() > 0) {
        count.merge(ob.host(), 1, Integer::sum);
      }
    }
    HeteroProfiles.Profile existing = before.profile(name);
    int width = 4;
    for (String h : derived.keySet()) {
      width = Math.max(width, h.length());
    }
    out.printf("Derived profile %s from %d job(s):%n", name, jobs.size());
    out.printf("  %-" + width + "s  %8s  %10s  %8s%s%n", "node", "derived", "MB/s", "attempts",
        existing == null ? "" : String.format("  %8s  %8s", "profile", "rel.diff"));
    for (Map.Entry<String, Double> e : derived.entrySet()) {
      String cmp = "";
      if (existing != null) {
        double ref = existing.ratioOf(e.getKey());
        cmp = Double.isNaN(ref) ? String.format("  %8s  %8s", "-", "-")
            : String.format(Locale.ROOT, "  %8s  %7.1f%%", HeteroProfiles.formatRatio(ref),
                100 * ComputingRatios.relativeDifference(ref, e.getValue()));
      }
      out.printf(Locale.ROOT, "  %-" + width + "s  %8s  %10.2f  %8d%s%n", e.getKey(),
          HeteroProfiles.formatRatio(e.getValue()), tput.get(e.getKey()) / 1e6,
          count.get(e.getKey()), cmp);
    }
    if (existing != null) {
      ComputingRatios.Agreement a = ComputingRatios.agreement(existing.ratios(), derived);
      if (a.common().isEmpty()) {
        out.printf("Agreement with profile %s: no node in common%n", name);
      } else {
        out.printf(Locale.ROOT, "Agreement with profile %s on %d node(s): max relative "
            + "difference %.1f%%, mean %.1f%%%n", name, a.common().size(),
            100 * a.maxRelativeDifference(), 100 * a.meanRelativeDifference());
      }
      if (!a.onlyReference().isEmpty()) {
        out.println("  only in profile " + name + ": " + String.join(", ", a.onlyReference()));
      }
      if (!a.onlyOther().isEmpty()) {
        out.println("  only derived: " + String.join(", ", a.onlyOther()));
      }
    }
    return save(file, before, name, derived, saveIt, "no -save");
  }

  private int save(ProfileStore file, HeteroProfiles before, String name, Map<String, Double> ratios,
      boolean really, String why) throws IOException {
    if (!really) {
      out.printf("Not saved (%s): %s%n", why, before.profile(name) == null
          ? "no profile " + name + " was written" : "profile " + name + " left as it is");
      return 0;
    }
    // Re-read: another edit may have happened while the job ran.
    HeteroProfiles now = read(file);
    write(file, now.withProfile(name, ratios));
    out.printf("Saved profile %s in %s%n", name, file);
    return 0;
  }

  // ---- helpers ----

  private ProfileStore file() {
    return ProfileStore.of(getConf());
  }

  private static HeteroProfiles read(ProfileStore file) {
    return ProfileFile.readOnce(file);
  }

  private static void write(ProfileStore file, HeteroProfiles p) throws IOException {
    file.write(p);
  }

  private DistributedFileSystem dfs() throws IOException {
    FileSystem fs = FileSystem.get(getConf());
    if (!(fs instanceof DistributedFileSystem)) {
      throw new IOException("the default file system " + fs.getUri() + " is not HDFS");
    }
    return (DistributedFileSystem) fs;
  }

  private static String noProfile(HeteroProfiles p, String name) {
    return "no profile named " + name + (p.profiles().isEmpty() ? " (there are none)"
        : " (profiles: " + String.join(", ", p.profiles().keySet()) + ")");
  }

  private static void checkName(String name) throws UsageException {
    if (!name.matches("[A-Za-z0-9_.-]+")) {
      throw new UsageException("profile name '" + name
          + "' may only use letters, digits, '_', '.' and '-'");
    }
  }

  private static <T> Class<? extends T> loadClass(Configuration conf, String name, Class<T> base,
      String option) throws UsageException {
    Class<?> c;
    try {
      c = conf.getClassByName(name);
    } catch (ClassNotFoundException e) {
      throw new UsageException(option + " " + name + ": class not found (add its jar with "
          + "-libjars before the command, or to HADOOP_CLASSPATH)");
    }
    if (!base.isAssignableFrom(c)) {
      throw new UsageException(option + " " + name + " is not a " + base.getName());
    }
    return c.asSubclass(base);
  }

  private static List<String> exactly(List<String> args, int n, String form)
      throws UsageException {
    if (args.size() != n) {
      throw new UsageException("expected '" + form + "'");
    }
    for (String a : args) {
      if (a.startsWith("-") && a.length() > 1) {
        throw new UsageException("unknown option '" + a + "' (expected '" + form + "')");
      }
    }
    return args;
  }

  private static void noMore(List<String> args) throws UsageException {
    if (!args.isEmpty()) {
      throw new UsageException("unexpected argument '" + args.get(0) + "'");
    }
  }

  /** Options of profile/derive: -opt value, repeatable -job ids, -D k=v, flags, positionals. */
  private static final class Options {
    private final String form;
    private final List<String> positional = new ArrayList<>();
    private final Map<String, List<String>> values = new LinkedHashMap<>();
    private final List<String> flags = new ArrayList<>();

    Options(List<String> args, String form) throws UsageException {
      this.form = form;
      for (int i = 0; i < args.size(); i++) {
        String a = args.get(i);
        if (a.equals("-skip-missing") || a.equals("-dry-run") || a.equals("-save")) {
          flags.add(a);
        } else if (a.equals("-job")) {
          // -job ID [ID...]: every following non-option.
          List<String> ids = values.computeIfAbsent(a, x -> new ArrayList<>());
          int before = ids.size();
          while (i + 1 < args.size() && !args.get(i + 1).startsWith("-")) {
            ids.add(args.get(++i));
          }
          if (ids.size() == before) {
            throw new UsageException("-job needs a JOB_ID");
          }
        } else if (a.startsWith("-D") && a.length() > 2) {
          values.computeIfAbsent("-D", x -> new ArrayList<>()).add(a.substring(2));
        } else if (a.startsWith("-") && a.length() > 1) {
          if (i + 1 >= args.size()) {
            throw new UsageException(a + " needs a value");
          }
          values.computeIfAbsent(a, x -> new ArrayList<>()).add(args.get(++i));
        } else {
          positional.add(a);
        }
      }
    }

    String positional(String what) throws UsageException {
      if (positional.isEmpty()) {
        throw new UsageException("missing " + what + " (expected '" + form + "')");
      }
      return positional.remove(0);
    }

    String optional(String opt) throws UsageException {
      List<String> v = values.remove(opt);
      if (v == null) {
        return null;
      }
      if (v.size() > 1) {
        throw new UsageException(opt + " given twice");
      }
      return v.get(0);
    }

    String value(String opt) throws UsageException {
      String v = optional(opt);
      if (v == null) {
        throw new UsageException("missing " + opt + " (expected '" + form + "')");
      }
      return v;
    }

    List<String> values(String opt) {
      List<String> v = values.remove(opt);
      return v == null ? Collections.emptyList() : v;
    }

    int intValue(String opt, int dflt, int min) throws UsageException {
      String v = optional(opt);
      if (v == null) {
        return dflt;
      }
      try {
        int n = Integer.parseInt(v);
        if (n >= min) {
          return n;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new UsageException(opt + " " + v + ": expected an integer >= " + min);
    }

    boolean flag(String f) {
      return flags.remove(f);
    }

    void defines(Configuration conf) throws UsageException {
      for (String d : values("-D")) {
        int eq = d.indexOf('=');
        if (eq <= 0) {
          throw new UsageException("-D" + d + ": expected -D key=value");
        }
        conf.set(d.substring(0, eq), d.substring(eq + 1));
      }
    }

    void done() throws UsageException {
      if (!positional.isEmpty()) {
        throw new UsageException("unexpected argument '" + positional.get(0) + "' (expected '"
            + form + "')");
      }
      if (!values.isEmpty()) {
        throw new UsageException("unknown option '" + values.keySet().iterator().next()
            + "' (expected '" + form + "')");
      }
      if (!flags.isEmpty()) {
        throw new UsageException("option '" + flags.get(0) + "' does not apply to '" + form
            + "'");
      }
    }
  }
}
