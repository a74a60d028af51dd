package io.hadoopaccel.mapreduce.psp;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PSP's predictor (seed 003 section 4.2.4), free of YARN types so it can be tested alone. On
 * every allocator heartbeat it is told which maps run where and how far they are; for each node
 * it predicts when its running maps finish, which pending maps the node gets next (in the
 * allocator's own order, {@link MapOrder}) and when, and asks that node's prefetcher to load
 * their input as late as possible before that. When a map is placed it scores the prediction.
 * Thread-safe: the allocator thread and the prefetch callbacks share it.
 *
 * @param <T> map (task attempt) id
 */
public final class PspPlanner<T> {
  private static final Logger LOG = LoggerFactory.getLogger(PspPlanner.class);

  /** Loads a map's input on a node, asynchronously (never blocks the allocator). */
  public interface Prefetcher<T> {
    /** Asks {@code host} to preload {@code map}'s input; {@code done} gets the outcome. */
    void prefetch(T map, String host, Consumer<Outcome> done);

    /** {@code map} has been placed: {@code host} may stop holding its input. */
    void release(T map, String host);

    /**
     * Of the bytes loaded for {@code map}, those a run on {@code runHost} reads where they were
     * loaded (e.g. a remote read of a block whose only replica's node loaded it).
     */
    default long readOnLoadedNode(T map, String runHost) {
      return 0;
    }
  }

  /** Where job counters go. */
  public interface CounterSink {
    void add(PspCounter counter, long value);
  }

  /** What a prefetch request batch achieved. */
  public static final class Outcome {
    final long loadedBytes;
    final int loaded;
    /** Blocks already in the node's memory: held for an earlier request, or wholly cached. */
    final int alreadyHeld;
    final int refused;
    final boolean unreachable;
    /** Of {@code loaded}, those loaded on a replica's node other than the predicted one. */
    final int remote;

    public Outcome(long loadedBytes, int loaded, int alreadyHeld, int refused,
        boolean unreachable) {
      this(loadedBytes, loaded, alreadyHeld, refused, unreachable, 0);
    }

    public Outcome(long loadedBytes, int loaded, int alreadyHeld, int refused,
        boolean unreachable, int remote) {
      this.loadedBytes = loadedBytes;
      this.loaded = loaded;
      this.alreadyHeld = alreadyHeld;
      this.refused = refused;
      this.unreachable = unreachable;
      this.remote = remote;
    }

    boolean resident() {
      return loaded + alreadyHeld > 0;
    }
  }

  /** A running map as the allocator sees it. */
  public static final class Running {
    final long startMs;
    final float progress;

    public Running(long startMs, float progress) {
      this.startMs = startMs;
      this.progress = progress;
    }
  }

  private enum State { WAITING, SENT, LOADED, FAILED }

  private static final class Prediction {
    String host;
    long launchMs;
    State state = State.WAITING;
    long loadedBytes;
    /** Set when the map was placed: on another node, {@code runHost}, if {@code missed}. */
    boolean placed;
    boolean missed;
    String runHost;
    /** When the request went out and when its outcome came back (0: not yet). */
    long sentMs;
    long doneMs;

    Prediction(String host, long launchMs) {
      this.host = host;
      this.launchMs = launchMs;
    }
  }

  /** Settings of the predictor (keys: {@code hadoop.accel.psp.*}). */
  public static final class Settings {
    final long aheadBytes;
    final long leadMs;
    final long bytesPerSec;
    /** Most maps predicted ahead per running map (tiny splits). */
    final int maxMapsPerSlot;
    /** Load a map's input when it gets its container, if no prediction has loaded it there. */
    final boolean onLaunch;

    public Settings(long aheadBytes, long leadMs, long bytesPerSec, int maxMapsPerSlot,
        boolean onLaunch) {
      this.aheadBytes = aheadBytes;
      this.leadMs = leadMs;
      this.bytesPerSec = bytesPerSec;
      this.maxMapsPerSlot = maxMapsPerSlot;
      this.onLaunch = onLaunch;
    }
  }

  private final Settings settings;
  private final Prefetcher<T> prefetcher;
  private final ToLongFunction<T> bytesOf;
  private final CounterSink sink;
  /** The latest time a caller gave (allocator heartbeats): when a load's outcome arrived. */
  private long lastNowMs;
  /** Loads that took time, summed: the nodes' observed load rate under their real contention. */
  private long observedBytes;
  private long observedMs;
  private final MapOrder<T> order = new MapOrder<>();
  private final Map<T, Prediction> predictions = new HashMap<>();
  private final LaunchEstimate.MeanDuration mean = new LaunchEstimate.MeanDuration();
  /**
   * The same per node: on a heterogeneous cluster a node's maps take its own time, not the
   * job's (seed 003 section 4.2.5 profiles each node's block processing time offline; this is
   * that profile, learnt from the job's own maps).
   */
  private final Map<String, LaunchEstimate.MeanDuration> meanOn = new HashMap<>();
  /**
   * How much earlier than predicted the maps that launched early did, on average: added to the
   * lead, so the margin follows the predictor's own error on this job (a launch after its
   * prediction is never late, and does not count).
   */
  private final LaunchEstimate.MeanDuration early = new LaunchEstimate.MeanDuration();
  private final Map<PspCounter, Long> totals = new EnumMap<>(PspCounter.class);

  public PspPlanner(Settings settings, Prefetcher<T> prefetcher, ToLongFunction<T> bytesOf,
      CounterSink sink) {
    this.settings = settings;
    this.prefetcher = prefetcher;
    this.bytesOf = bytesOf;
    this.sink = sink;
  }

  /**
   * A new map request with replica hosts {@code hosts}: returns the one host to request it on
   * (see {@link MapOrder}), or null to leave it to the allocator (no hosts).
   */
  public synchronized String plan(T map, String[] hosts, List<String> racks) {
    String host = hosts.length == 0 ? null : order.chooseHost(hosts);
    order.add(map, host, racks);
    return host;
  }

  /** The map's request was withdrawn before it got a container. */
  public synchronized void withdraw(T map) {
    order.remove(map);
    Prediction p = predictions.remove(map);
    if (p != null && p.state != State.WAITING) {
      prefetcher.release(map, p.host);
    }
  }

  /** A map attempt ran to its end on {@code host}, {@code durationMs} after its container. */
  public synchronized void finished(String host, long durationMs) {
    mean.add(durationMs);
    meanOn.computeIfAbsent(host, h -> new LaunchEstimate.MeanDuration()).add(durationMs);
  }

  /** A map's duration on {@code host}: its own maps' mean once one finished, else the job's. */
  private long meanMsOn(String host) {
    LaunchEstimate.MeanDuration m = meanOn.get(host);
    long ms = m == null ? 0 : m.get();
    return ms > 0 ? ms : mean.get();
  }

  /**
   * {@code map} got a container on {@code host} at {@code nowMs}: score its prediction, and
   * (settings' {@code onLaunch}) load its input there now unless a request for that node has
   * gone out already. The container still has to start its JVM, which under a small CPU share
   * takes seconds: the load overlaps it. That covers the first wave, which nothing predicts,
   * and every miss or prediction not yet sent.
   */
  public synchronized void placed(T map, String host, long nowMs) {
    lastNowMs = Math.max(lastNowMs, nowMs);
    order.remove(map);
    Prediction p = predictions.remove(map);
    boolean requested = p != null && host.equals(p.host) && p.state != State.WAITING;
    if (settings.onLaunch && !requested) {
      Prediction launch = new Prediction(host, nowMs);
      launch.placed = true;
      launch.state = State.SENT;
      launch.sentMs = nowMs;
      count(PspCounter.LAUNCH_PREFETCHES, 1);
      prefetcher.prefetch(map, host, o -> outcome(map, launch, o));
    }
    if (p == null) {
      return;
    }
    p.placed = true;
    if (p.launchMs != LaunchEstimate.UNKNOWN) {
      count(PspCounter.LAUNCH_ERROR_MS, Math.abs(nowMs - p.launchMs));
      early.add(Math.max(0, p.launchMs - nowMs));
      count(PspCounter.LAUNCH_ERROR_SAMPLES, 1);
    }
    LOG.info("PSP {} on {}: {} (predicted {} {}; request sent {}, loaded {})",
        map, host, !host.equals(p.host) ? "miss" : p.state == State.LOADED ? "hit"
            : p.state == State.FAILED ? "refused" : "late",
        p.host, p.launchMs == LaunchEstimate.UNKNOWN ? "at an unknown time"
            : "to launch " + (p.launchMs - nowMs) + " ms from now",
        p.sentMs == 0 ? "never" : (nowMs - p.sentMs) + " ms before",
        p.doneMs == 0 ? "not yet" : (nowMs - p.doneMs) + " ms before");
    if (host.equals(p.host)) {
      if (p.state == State.LOADED) {
        count(PspCounter.HITS, 1);
      } else if (p.state != State.FAILED) {
        count(PspCounter.LATE_PREFETCHES, 1);
      }
    } else {
      p.missed = true;
      p.runHost = host;
      count(PspCounter.MISSES, 1);
      if (p.state == State.LOADED) {
        missed(map, p);
      }
    }
    if (p.state == State.LOADED) {
      prefetcher.release(map, p.host);
    }
  }

  /**
   * One prediction round: {@code running} maps per host; {@code rackOf} resolves a host's
   * rack as the allocator does. The hosts' slots are replayed in the order they are predicted
   * to free, each taking the next map as the stock allocator would hand it (its node-local
   * maps, then its rack's, then any), so a host that runs out of local maps is predicted the
   * rack's head map that it will really be given, and the map's own host is not.
   */
  public synchronized void tick(long nowMs, Map<String, List<Running>> running,
      Function<String, String> rackOf) {
    lastNowMs = Math.max(lastNowMs, nowMs);
    PriorityQueue<Slots> queue = new PriorityQueue<>(
        Comparator.comparingLong(Slots::nextFree).thenComparing(q -> q.host));
    for (Map.Entry<String, List<Running>> e : running.entrySet()) {
      if (!e.getValue().isEmpty()) {
        queue.add(new Slots(e.getKey(), rackOf.apply(e.getKey()), e.getValue(), nowMs,
            meanMsOn(e.getKey())));
      }
    }
    Set<T> taken = new HashSet<>();
    while (!queue.isEmpty()) {
      Slots q = queue.poll();
      if (q.taken >= q.slots() && q.bytesAhead >= q.slots() * settings.aheadBytes
          || q.taken >= q.slots() * settings.maxMapsPerSlot) {
        continue; // one map per slot, more while their input is below the bytes ahead
      }
      List<T> next = order.next(q.host, q.rack, 1, m -> taken.contains(m) || sentElsewhere(m,
          q.host));
      if (next.isEmpty()) {
        continue;
      }
      T m = next.get(0);
      taken.add(m);
      long launch = q.nextFree();
      long bytes = bytesOf.applyAsLong(m);
      q.taken++;
      q.bytesAhead += bytes;
      if (!loadedOn(m, q.host)) {
        q.bytesToLoad += bytes;
      }
      predict(m, q.host, launch, q.bytesToLoad, nowMs, q.host.equals(order.hostOf(m)));
      queue.add(q);
    }
  }

  private boolean loadedOn(T m, String host) {
    Prediction p = predictions.get(m);
    return p != null && p.state == State.LOADED && p.host.equals(host);
  }

  /** A map whose prefetch already went to another host keeps that prediction. */
  private boolean sentElsewhere(T m, String host) {
    Prediction p = predictions.get(m);
    return p != null && p.state != State.WAITING && !p.host.equals(host);
  }

  /**
   * Records that {@code m} runs next on {@code host} at {@code launch} and sends the prefetch
   * once it is due. A map planned on another node ({@code local} false) is {@code host}'s only
   * if {@code host} frees a slot first; while that time is unknown the guess is not sent (a
   * sent prediction is final), so early rounds, before any map reports progress, do not lock
   * in rack-local guesses. (Measured: in xie-psp every round of the first wave was such a guess;
   * 14 of 20 predictions missed.) {@code loadBytes} is what the node has to read before this
   * map's input is resident: its own input and that of every map predicted ahead of it there
   * and not loaded yet, since the node's loads share its disk. (Timed on each map's own bytes,
   * 10 of 18 predictions in xie-psp were late: a node's two slots free about together, so both
   * its predictions went out at once, each timed as if it had the disk alone.)
   */
  private void predict(T m, String host, long launch, long loadBytes, long nowMs,
      boolean local) {
    Prediction p = predictions.get(m);
    if (p == null) {
      p = new Prediction(host, launch);
      predictions.put(m, p);
      count(PspCounter.PREDICTIONS, 1);
    } else if (p.state == State.WAITING) {
      p.host = host; // refined until the request goes out
      p.launchMs = launch;
    } else {
      return;
    }
    if (!local && launch == LaunchEstimate.UNKNOWN) {
      return;
    }
    if (nowMs >= LaunchEstimate.prefetchStart(
        launch, loadBytes, loadRate(), settings.leadMs + early.get(), nowMs)) {
      p.state = State.SENT;
      p.sentMs = nowMs;
      Prediction sent = p;
      prefetcher.prefetch(m, host, o -> outcome(m, sent, o));
    }
  }

  /**
   * The read rate requests are timed with: the configured one, or the rate loads have been
   * observed to reach (request to outcome, at heartbeat resolution) if lower. A node's loads
   * share its disk with each other and with its running maps' reads: in xie-psp (5.5 MB/s
   * disks, timed at 5 MB/s) most third-wave requests, sent 15-21 s before their map launched,
   * had not finished loading their 64 MB by then.
   */
  private long loadRate() {
    if (observedMs == 0) {
      return settings.bytesPerSec;
    }
    return Math.max(1, Math.min(settings.bytesPerSec, observedBytes * 1000 / observedMs));
  }

  /** One host's slots in a round: when each frees, and what has been predicted onto them. */
  private static final class Slots {
    final String host;
    final String rack;
    /** Sorted; UNKNOWN (-1) first: those slots may free any moment. */
    final List<Long> finishes = new ArrayList<>();
    /** How long a map takes on this host (0: unknown). */
    final long meanMs;
    int taken;
    long bytesAhead;
    /** Of {@code bytesAhead}, those not loaded yet: the node's disk reads them in turn. */
    long bytesToLoad;

    Slots(String host, String rack, List<Running> running, long nowMs, long meanMs) {
      this.host = host;
      this.rack = rack;
      this.meanMs = meanMs;
      for (Running r : running) {
        finishes.add(LaunchEstimate.finish(r.startMs, nowMs, r.progress, meanMs));
      }
      Collections.sort(finishes);
    }

    int slots() {
      return finishes.size();
    }

    /** When the slot for the next map frees: the k-th map ahead of a slot, k - 1 means on. */
    long nextFree() {
      long slotFree = finishes.get(taken % slots());
      return taken < slots() || slotFree == LaunchEstimate.UNKNOWN || meanMs == 0
          ? slotFree : slotFree + meanMs * (taken / slots());
    }
  }

  private synchronized void outcome(T map, Prediction p, Outcome o) {
    count(PspCounter.PREFETCHES, o.loaded);
    count(PspCounter.REMOTE_PREFETCHES, o.remote);
    count(PspCounter.PREFETCHED_BYTES, o.loadedBytes);
    count(PspCounter.PREFETCH_REFUSED, o.refused);
    count(PspCounter.PREFETCHER_UNREACHABLE, o.unreachable ? 1 : 0);
    p.loadedBytes = o.loadedBytes;
    p.state = o.resident() ? State.LOADED : State.FAILED;
    p.doneMs = lastNowMs;
    if (o.loadedBytes > 0 && p.sentMs > 0 && p.doneMs > p.sentMs) {
      observedBytes += o.loadedBytes;
      observedMs += p.doneMs - p.sentMs;
    }
    if (p.placed && p.state == State.LOADED) {
      if (p.missed) { // placed on another node while loading
        missed(map, p);
      }
      prefetcher.release(map, p.host);
    }
  }

  /** Scores a loaded prediction whose map went to another node: what it still reads, wasted. */
  private void missed(T map, Prediction p) {
    long read = Math.min(p.loadedBytes, prefetcher.readOnLoadedNode(map, p.runHost));
    if (read > 0) {
      count(PspCounter.MISSES_READING_PREFETCHED, 1);
    }
    count(PspCounter.WASTED_PREFETCH_BYTES, p.loadedBytes - read);
  }

  private void count(PspCounter c, long v) {
    if (v != 0) {
      totals.merge(c, v, Long::sum);
      sink.add(c, v);
    }
  }

  /** Totals so far (the job's summary line). */
  public synchronized Map<PspCounter, Long> totals() {
    return new EnumMap<>(totals);
  }

  /** One line: predictions, hits, late, misses, wasted bytes, mean launch error. */
  public synchronized String summary() {
    long samples = totals.getOrDefault(PspCounter.LAUNCH_ERROR_SAMPLES, 0L);
    long err = totals.getOrDefault(PspCounter.LAUNCH_ERROR_MS, 0L);
    return "PSP summary: predictions=" + get(PspCounter.PREDICTIONS)
        + " hits=" + get(PspCounter.HITS)
        + " late=" + get(PspCounter.LATE_PREFETCHES)
        + " misses=" + get(PspCounter.MISSES)
        + " launchPrefetches=" + get(PspCounter.LAUNCH_PREFETCHES)
        + " prefetchedBytes=" + get(PspCounter.PREFETCHED_BYTES)
        + " wastedBytes=" + get(PspCounter.WASTED_PREFETCH_BYTES)
        + " refused=" + get(PspCounter.PREFETCH_REFUSED)
        + " unreachable=" + get(PspCounter.PREFETCHER_UNREACHABLE)
        + " meanLaunchErrorMs=" + (samples == 0 ? "n/a" : Long.toString(err / samples));
  }

  private long get(PspCounter c) {
    return totals.getOrDefault(c, 0L);
  }
}
