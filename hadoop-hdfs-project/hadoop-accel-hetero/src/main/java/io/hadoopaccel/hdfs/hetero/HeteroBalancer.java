package io.hadoopaccel.hdfs.hetero;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayDeque;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.conf.Configured;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlocks;
import org.apache.hadoop.hdfs.server.balancer.ExitStatus;
import org.apache.hadoop.hdfs.server.balancer.NameNodeConnector;
import org.apache.hadoop.util.StringUtils;
import org.apache.hadoop.util.Time;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code hdfs hetero-balancer}: redistributes the blocks of directories bound to computing-ratio
 * profiles so that each DataNode holds its speed share of them (seed 003, Table 3.1).
 *
 * <p>Each iteration reads the layout from the NameNode, plans moves ({@link RedistributionPlan}),
 * runs them with at most {@code -concurrency} moves per DataNode, and waits until the NameNode
 * shows them. It stops when converged, when no move is possible, or after
 * {@code -max-iterations}. Nothing is kept between runs: a rerun after an interrupt plans from
 * the layout as it then is, which is what makes it resumable. It takes the stock Balancer's lock
 * file ({@value #LOCK_PATH}), so it never runs at the same time as {@code hdfs balancer}.
 */
public class HeteroBalancer extends Configured implements Tool {
  private static final Logger LOG = LoggerFactory.getLogger(HeteroBalancer.class);

  static final String LOCK_PATH = "/system/balancer.id";
  static final String USAGE = "Usage: hdfs hetero-balancer"
      + " [-profile NAME | -dir DIR]... [-threshold PCT] [-bandwidth BYTES_PER_SEC]"
      + " [-concurrency N] [-max-iterations N] [-dry-run]\n"
      + "  -profile NAME      balance the directories bound to this profile (repeatable)\n"
      + "  -dir DIR           balance this directory (bound, under a bound one, or above bound ones)\n"
      + "                     (neither: every bound directory; each directory is balanced on its own)\n"
      + "  -threshold PCT     a node within PCT% of its target is balanced (default 10)\n"
      + "  -bandwidth B       set every DataNode's balancer bandwidth (bytes/s) before moving\n"
      + "  -concurrency N     moves in flight per DataNode (default 5)\n"
      + "  -max-iterations N  stop after N plan-and-move rounds (default 20)\n"
      + "  -dry-run           print the first round's plan and move nothing";

  /** A round plans at most this many bytes and moves (the stock Balancer's default size). */
  static final long MAX_BYTES_PER_ROUND = 10L << 30;
  static final int MAX_MOVES_PER_ROUND = 10_000;
  /** Rounds in a row in which no move succeeded before giving up. */
  static final int MAX_IDLE_ROUNDS = 3;
  private static final long SETTLE_POLL_MS = 500;
  /**
   * A target reports a received replica at once; if the NameNode still does not list it after
   * this long, it removed that copy instead of the source (e.g. a full block report overtook the
   * delete hint) and waiting longer is pointless: the next round re-plans the block.
   */
  private static final long TARGET_REPORT_MS = 5_000;

  /** Called after each move, succeeded or not, from the thread that ran it. */
  public interface MoveListener {
    void moveFinished(RedistributionPlan.Move move, boolean succeeded);
  }

  /** The command-line options. */
  static final class Options {
    final Set<String> profiles = new LinkedHashSet<>();
    final Set<String> dirs = new LinkedHashSet<>();
    double threshold = 10;
    long bandwidth = 0;
    int concurrency = 5;
    int maxIterations = 20;
    boolean dryRun;

    static Options parse(String[] args) {
      Options o = new Options();
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "-profile":
            o.profiles.add(value(args, ++i, a));
            break;
          case "-dir":
            String d = value(args, ++i, a);
            if (!d.startsWith("/")) {
              throw new IllegalArgumentException("-dir needs an absolute path: " + d);
            }
            o.dirs.add(HeteroProfiles.normalize(d));
            break;
          case "-threshold":
            o.threshold = number(args, ++i, a, 0, 100);
            break;
          case "-bandwidth":
            o.bandwidth = (long) number(args, ++i, a, 1, Long.MAX_VALUE);
            break;
          case "-concurrency":
            o.concurrency = (int) number(args, ++i, a, 1, 1000);
            break;
          case "-max-iterations":
            o.maxIterations = (int) number(args, ++i, a, 1, Integer.MAX_VALUE);
            break;
          case "-dry-run":
            o.dryRun = true;
            break;
          default:
            throw new IllegalArgumentException("unknown option " + a);
        }
      }
      return o;
    }

    private static String value(String[] args, int i, String opt) {
      if (i >= args.length) {
        throw new IllegalArgumentException(opt + " needs a value");
      }
      return args[i];
    }

    private static double number(String[] args, int i, String opt, double min, double max) {
      String v = value(args, i, opt);
      double d;
      try {
        d = Double.parseDouble(v);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(opt + " needs a number: " + v);
      }
      if (!(d >= min && d <= max)) {
        throw new IllegalArgumentException(opt + " must be in [" + (long) min + ", "
            + (max == Long.MAX_VALUE ? "inf" : String.valueOf((long) max)) + "]: " + v);
      }
      return d;
    }
  }

  private final PrintStream out;
  private volatile MoveListener listener;
  private long settleTimeoutMs = 60_000;

  public HeteroBalancer() {
    this(System.out);
  }

  public HeteroBalancer(PrintStream out) {
    this.out = out;
  }

  public void setMoveListener(MoveListener listener) {
    this.listener = listener;
  }

  /** How long a round waits for the NameNode to show its moves (default one minute). */
  public void setSettleTimeoutMs(long ms) {
    this.settleTimeoutMs = ms;
  }

  @Override
  public int run(String[] args) throws Exception {
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("hetero-balancer: " + e.getMessage());
      System.err.println(USAGE);
      return ExitStatus.ILLEGAL_ARGUMENTS.getExitCode();
    }
    Configuration conf = getConf();
    HeteroProfiles profiles;
    try {
      profiles = ProfileFile.readOnce(ProfileStore.of(conf));
    } catch (IllegalArgumentException e) {
      System.err.println("hetero-balancer: " + e.getMessage());
      return ExitStatus.ILLEGAL_ARGUMENTS.getExitCode();
    }
    Map<String, String> groups;
    try {
      groups = groups(profiles, o);
    } catch (IllegalArgumentException e) {
      System.err.println("hetero-balancer: " + e.getMessage());
      return ExitStatus.ILLEGAL_ARGUMENTS.getExitCode();
    }
    if (groups.isEmpty()) {
      System.err.println("hetero-balancer: no bound directory matches "
          + (o.profiles.isEmpty() && o.dirs.isEmpty() ? "(no directory is bound to a profile)"
              : "-profile " + o.profiles + " -dir " + o.dirs)
          + " in " + ProfileStore.of(conf));
      return ExitStatus.ILLEGAL_ARGUMENTS.getExitCode();
    }
    URI nn = FileSystem.getDefaultUri(conf);
    if (o.dryRun) {
      // Reading only: no lock, no block keys.
      FileSystem fs = FileSystem.get(nn, conf);
      if (!(fs instanceof DistributedFileSystem)) {
        System.err.println("hetero-balancer: " + nn + " is not HDFS");
        return ExitStatus.ILLEGAL_ARGUMENTS.getExitCode();
      }
      return loop(o, profiles, groups, (DistributedFileSystem) fs, null).getExitCode();
    }
    NameNodeConnector nnc;
    try {
      nnc = new NameNodeConnector(getClass().getSimpleName(), nn, new Path(LOCK_PATH), null,
          conf, NameNodeConnector.DEFAULT_MAX_IDLE_ITERATIONS);
    } catch (IOException e) {
      if (String.valueOf(e.getMessage()).contains("is running")) {
        System.err.println("hetero-balancer: another balancer (hdfs balancer, mover or "
            + "hetero-balancer) holds " + LOCK_PATH + "; try again when it has finished");
        return ExitStatus.ALREADY_RUNNING.getExitCode();
      }
      throw e;
    }
    try {
      nnc.getKeyManager().startBlockKeyUpdater();
      if (o.bandwidth > 0) {
        nnc.getDistributedFileSystem().setBalancerBandwidth(o.bandwidth);
        out.println("Balancer bandwidth of every DataNode set to "
            + StringUtils.byteDesc(o.bandwidth) + "/s");
      }
      return loop(o, profiles, groups, nnc.getDistributedFileSystem(),
          new ReplicaMover(conf, nnc)).getExitCode();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      out.println("interrupted: rerun to continue from the current layout");
      return ExitStatus.INTERRUPTED.getExitCode();
    } finally {
      nnc.close();
    }
  }

  /**
   * The directories to balance, each with its profile. Each is balanced on its own, as
   * placement spreads each bound directory on its own: a job reads one directory, so one
   * directory's skew is not made up by another's. Files of a nested directory bound to another
   * profile are left to that binding ({@link #readLayout}).
   */
  static Map<String, String> groups(HeteroProfiles profiles, Options o) {
    for (String p : o.profiles) {
      if (profiles.profile(p) == null) {
        throw new IllegalArgumentException("no profile named " + p);
      }
    }
    boolean all = o.profiles.isEmpty() && o.dirs.isEmpty();
    Map<String, String> chosen = new LinkedHashMap<>();
    for (Map.Entry<String, String> b : profiles.bindings().entrySet()) {
      boolean below = false;
      for (String d : o.dirs) {
        below |= isUnder(b.getKey(), d);
      }
      if (all || below || o.profiles.contains(b.getValue())) {
        chosen.put(b.getKey(), b.getValue());
      }
    }
    for (String d : o.dirs) {
      String bound = profiles.boundDirectoryOf(d);
      if (bound != null) {
        chosen.putIfAbsent(d, profiles.bindings().get(bound)); // -dir inside a bound directory
      }
    }
    // A directory whose files an ancestor already covers (same governing binding) goes.
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : chosen.entrySet()) {
      String governing = profiles.boundDirectoryOf(e.getKey());
      boolean covered = false;
      for (String other : chosen.keySet()) {
        covered |= !other.equals(e.getKey()) && isUnder(e.getKey(), other)
            && governing.equals(profiles.boundDirectoryOf(other));
      }
      if (!covered) {
        out.put(e.getKey(), e.getValue());
      }
    }
    return out;
  }

  /** True when {@code path} is {@code dir} or below it. */
  static boolean isUnder(String path, String dir) {
    return path.equals(dir) || dir.equals("/") || path.startsWith(dir + "/");
  }

  private ExitStatus loop(Options o, HeteroProfiles profiles, Map<String, String> groups,
      DistributedFileSystem fs, ReplicaMover mover) throws IOException, InterruptedException {
    int idle = 0;
    for (int round = 1; round <= o.maxIterations; round++) {
      List<DatanodeInfo> live = new ArrayList<>();
      for (DatanodeInfo dn : fs.getDataNodeStats(DatanodeReportType.LIVE)) {
        if (dn.isInService()) {
          live.add(dn);
        }
      }
      boolean converged = true;
      List<RedistributionPlan.Move> moves = new ArrayList<>();
      long bytesLeft = 0;
      for (Map.Entry<String, String> g : groups.entrySet()) {
        BlockLayout layout = readLayout(fs, profiles, g.getKey());
        RedistributionPlan plan = RedistributionPlan.compute(layout, live,
            profiles.profile(g.getValue()), o.threshold, MAX_BYTES_PER_ROUND, MAX_MOVES_PER_ROUND);
        bytesLeft += plan.bytesLeft();
        out.println(ProgressLine.balancerPlan(Instant.now(), round, g.getKey(), g.getValue(),
            layout.files(), layout.totalBytes(), layout.totalReplicaBytes(), plan.bytesLeft(),
            layout.skippedFiles().size()));
        out.print(plan.describe());
        if (o.dryRun) {
          for (RedistributionPlan.Move m : plan.moves()) {
            out.println("  move " + m);
          }
        }
        converged &= plan.isConverged();
        moves.addAll(plan.moves());
      }
      if (converged) {
        out.println("converged: every DataNode is within the threshold of its target");
        return ExitStatus.SUCCESS;
      }
      if (moves.isEmpty()) {
        out.println("no move possible: the remaining imbalance cannot be reduced without "
            + "overshooting, breaking rack fault tolerance or doubling a replica on a node");
        return ExitStatus.NO_MOVE_BLOCK;
      }
      if (o.dryRun) {
        out.println("dry run: nothing was moved");
        return ExitStatus.SUCCESS;
      }
      List<RedistributionPlan.Move> done = execute(moves, mover, o.concurrency);
      long bytes = 0;
      for (RedistributionPlan.Move m : done) {
        bytes += m.bytes();
      }
      out.println(ProgressLine.balancerRound(Instant.now(), round, done.size(), moves.size(),
          bytes, bytesLeft));
      if (done.isEmpty()) {
        if (++idle >= MAX_IDLE_ROUNDS) {
          out.println("no move succeeded in " + idle + " rounds: giving up (see the log)");
          return ExitStatus.NO_MOVE_PROGRESS;
        }
      } else {
        idle = 0;
        awaitNameNode(fs, done);
      }
    }
    out.println("not converged after " + o.maxIterations + " round(s): rerun to continue");
    return ExitStatus.IN_PROGRESS;
  }

  /** The layout of {@code dir}, without files a nested binding governs. */
  static BlockLayout readLayout(DistributedFileSystem fs, HeteroProfiles profiles, String dir)
      throws IOException {
    String governing = profiles.boundDirectoryOf(dir);
    BlockLayout all = BlockLayout.read(fs, List.of(dir));
    List<BlockLayout.FileBlock> mine = new ArrayList<>();
    Set<String> files = new LinkedHashSet<>();
    for (BlockLayout.FileBlock b : all.blocks()) {
      if (governing.equals(profiles.boundDirectoryOf(b.path()))) {
        mine.add(b);
        files.add(b.path());
      }
    }
    if (mine.size() == all.blocks().size()) {
      return all;
    }
    return new BlockLayout(all.dirs(), mine, files.size(), all.skippedFiles());
  }

  /**
   * Runs the moves, at most {@code perNode} at a time on any DataNode as source or target.
   * Returns those that succeeded; a failure is logged and left to the next round.
   */
  private List<RedistributionPlan.Move> execute(List<RedistributionPlan.Move> moves,
      ReplicaMover mover, int perNode) throws InterruptedException {
    Set<String> nodes = new LinkedHashSet<>();
    for (RedistributionPlan.Move m : moves) {
      nodes.add(m.source().getDatanodeUuid());
      nodes.add(m.target().getDatanodeUuid());
    }
    int threads = (int) Math.min(64, Math.min(moves.size(), (long) perNode * nodes.size()));
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "hetero-balancer-mover");
      t.setDaemon(true);
      return t;
    });
    List<RedistributionPlan.Move> done = new ArrayList<>();
    Map<String, Integer> busy = new HashMap<>();
    Deque<RedistributionPlan.Move> pending = new ArrayDeque<>(moves);
    AtomicInteger inFlight = new AtomicInteger();
    Object lock = new Object();
    try {
      synchronized (lock) {
        while (!pending.isEmpty() || inFlight.get() > 0) {
          for (Iterator<RedistributionPlan.Move> it = pending.iterator(); it.hasNext(); ) {
            RedistributionPlan.Move m = it.next();
            String s = m.source().getDatanodeUuid();
            String t = m.target().getDatanodeUuid();
            if (busy.getOrDefault(s, 0) >= perNode || busy.getOrDefault(t, 0) >= perNode) {
              continue;
            }
            it.remove();
            busy.merge(s, 1, Integer::sum);
            busy.merge(t, 1, Integer::sum);
            inFlight.incrementAndGet();
            pool.execute(() -> {
              boolean ok = false;
              try {
                LOG.debug("Moving {}", m);
                mover.move(m);
                ok = true;
                LOG.info("Moved {}", m);
              } catch (IOException | RuntimeException e) {
                LOG.warn("Failed to move {}: {}", m, e.toString());
              } finally {
                MoveListener l = listener;
                if (l != null) {
                  try {
                    l.moveFinished(m, ok);
                  } catch (RuntimeException e) {
                    LOG.warn("Move listener failed", e);
                  }
                }
                synchronized (lock) {
                  if (ok) {
                    done.add(m);
                  }
                  busy.merge(s, -1, Integer::sum);
                  busy.merge(t, -1, Integer::sum);
                  inFlight.decrementAndGet();
                  lock.notifyAll();
                }
              }
            });
          }
          lock.wait();
        }
      }
    } finally {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
    return done;
  }

  /**
   * Waits until the NameNode lists each moved replica at its target and no longer at its
   * source (the source copy is deleted asynchronously, after a DataNode heartbeat), so the
   * next round does not plan from a stale layout. Gives up after the settle timeout: the next
   * round then simply sees what the NameNode shows.
   */
  private void awaitNameNode(DistributedFileSystem fs, List<RedistributionPlan.Move> moves)
      throws IOException, InterruptedException {
    long start = Time.monotonicNow();
    long deadline = start + settleTimeoutMs;
    List<RedistributionPlan.Move> left = new ArrayList<>(moves);
    while (true) {
      Map<String, List<RedistributionPlan.Move>> byPath = new LinkedHashMap<>();
      for (RedistributionPlan.Move m : left) {
        byPath.computeIfAbsent(m.block().path(), k -> new ArrayList<>()).add(m);
      }
      left.clear();
      for (Map.Entry<String, List<RedistributionPlan.Move>> e : byPath.entrySet()) {
        LocatedBlocks lbs;
        try {
          lbs = fs.getClient().getLocatedBlocks(e.getKey(), 0, Long.MAX_VALUE);
        } catch (FileNotFoundException gone) {
          continue;
        }
        if (lbs == null) {
          continue;
        }
        for (RedistributionPlan.Move m : e.getValue()) {
          if (!settled(lbs, m, Time.monotonicNow() - start > TARGET_REPORT_MS)) {
            left.add(m);
          }
        }
      }
      if (left.isEmpty()) {
        return;
      }
      if (Time.monotonicNow() >= deadline) {
        LOG.warn("The NameNode does not yet show {} of the moved replica(s) where they went "
            + "(e.g. {}); the next round plans from what it shows", left.size(), left.get(0));
        return;
      }
      Thread.sleep(SETTLE_POLL_MS);
    }
  }

  private static boolean settled(LocatedBlocks lbs, RedistributionPlan.Move m,
      boolean targetHadTimeToReport) {
    for (LocatedBlock lb : lbs.getLocatedBlocks()) {
      if (lb.getBlock().getBlockId() == m.block().block().getBlockId()) {
        boolean atTarget = false;
        boolean atSource = false;
        for (DatanodeInfo dn : lb.getLocations()) {
          atTarget |= dn.getDatanodeUuid().equals(m.target().getDatanodeUuid());
          atSource |= dn.getDatanodeUuid().equals(m.source().getDatanodeUuid());
        }
        return atTarget ? !atSource : targetHadTimeToReport;
      }
    }
    return true; // the block is gone (file truncated or rewritten)
  }

  public static void main(String[] args) throws Exception {
    System.exit(ToolRunner.run(new HdfsConfiguration(), new HeteroBalancer(), args));
  }
}
