package org.apache.hadoop.mapreduce.task.reduce;

import io.hadoopaccel.mapreduce.preshuffle.PreshuffleCounter;
import io.hadoopaccel.mapreduce.preshuffle.PushProtocol;
import io.hadoopaccel.mapreduce.preshuffle.PushSink;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reducer's pushed segments, held per map attempt until the ApplicationMaster says which
 * attempt of the map SUCCEEDED. Only then, and only if that attempt pushed every one of its
 * spills, or a prefix of them and left the rest to be pulled, do its segments reach the merge;
 * everything any other attempt pushed is discarded.
 * Small segments go to memory through the merge manager's own reservation (so the shuffle's
 * memory bound holds) while held segments stay under an eighth of it; the rest go to local disk.
 * Held segments cannot be merged until their map succeeds, so they must not crowd out stock's
 * fetches: with large ones (23 MB spills) held in memory beside stock's fetches, a 300 MB
 * reduce heap ran out of memory on the xie-psp testbed.
 */
final class PushedOutputs<K, V> implements PushSink {
  private static final Logger LOG = LoggerFactory.getLogger(PushedOutputs.class);
  /** Names the temporary files of on-disk segments only. */
  private static final int FETCHER_ID = 0;

  private final class Pushed {
    final TreeMap<Integer, MapOutput<K, V>> segments = new TreeMap<>();
    int spills = -1;
    int firstLeft = -1; // the map left the spills from here on to be pulled
    int progress; // of the map's input, in thousandths, covered by the segments held

    /** How many spills from the first on are held without a gap. */
    int prefix() {
      int n = 0;
      while (segments.containsKey(n)) {
        n++;
      }
      return n;
    }

    boolean complete() {
      return spills >= 0 && segments.size() == spills && prefix() == spills;
    }

    /** Complete once the spills from {@link #prefix()} on are pulled. */
    boolean completedByPull() {
      return firstLeft >= 0 && segments.size() == prefix() && prefix() >= firstLeft;
    }
  }

  /** What the SUCCEEDED attempt of a map brought by push. */
  static final class Claim<K, V> {
    /** Spills 0 to {@code pullFrom - 1}, in order. */
    final List<MapOutput<K, V>> segments;
    final int spills;
    /** The first spill to pull as a leftover output; {@code spills} if none. */
    final int pullFrom;

    Claim(List<MapOutput<K, V>> segments, int spills, int pullFrom) {
      this.segments = segments;
      this.spills = spills;
      this.pullFrom = pullFrom;
    }
  }

  private final MergeManagerImpl<K, V> merger;
  private final JobConf conf;
  private final MapOutputFile mapOutputFile;
  private final Reporter reporter;
  private final ShuffleClientMetrics metrics;
  private final long heldMemoryCap;
  private final long heldSegmentMax;
  private final MapHost pushHost = new MapHost("preshuffle-push", "push:");

  // Guarded by this.
  private final Map<TaskAttemptID, Pushed> byAttempt = new HashMap<>();
  private final Set<TaskID> resolved = new HashSet<>();
  private final Set<TaskAttemptID> dead = new HashSet<>();
  private long heldInMemory;
  private boolean closed;
  private volatile Runnable progressListener = () -> { };

  PushedOutputs(MergeManagerImpl<K, V> merger, JobConf conf, MapOutputFile mapOutputFile,
      Reporter reporter, ShuffleClientMetrics metrics, long shuffleMemory) {
    this.merger = merger;
    this.conf = conf;
    this.mapOutputFile = mapOutputFile;
    this.reporter = reporter;
    this.metrics = metrics;
    this.heldMemoryCap = shuffleMemory / 8;
    this.heldSegmentMax = shuffleMemory / 32;
  }

  MapHost pushHost() {
    return pushHost;
  }

  /** Called, outside this object's lock, whenever {@link #pendingMaps()} may have grown. */
  void setProgressListener(Runnable listener) {
    this.progressListener = listener;
  }

  /**
   * How many maps' worth of output is held but not yet merged: per map, the share of its
   * input whose output its furthest live attempt has pushed (seed 003 §5.3).
   */
  synchronized float pendingMaps() {
    Map<TaskID, Integer> best = new HashMap<>();
    for (Map.Entry<TaskAttemptID, Pushed> e : byAttempt.entrySet()) {
      best.merge(e.getKey().getTaskID(), e.getValue().progress, Math::max);
    }
    long sum = 0;
    for (int p : best.values()) {
      sum += p;
    }
    return (float) sum / PushProtocol.WHOLE;
  }

  @Override
  public synchronized String refusal(TaskAttemptID map) {
    if (closed) {
      return "the reducer's shuffle is over";
    }
    if (dead.contains(map)) {
      return "the attempt failed or was killed";
    }
    if (resolved.contains(map.getTaskID())) {
      return "the map's output is already taken";
    }
    return null;
  }

  @Override
  public void receive(TaskAttemptID map, int spill, int progress, long rawLength,
      long partLength, InputStream in) throws IOException {
    MapOutput<K, V> out = reserve(map, spill, rawLength);
    try {
      out.shuffle(pushHost, in, partLength, rawLength, metrics, reporter);
    } catch (IOException | RuntimeException e) {
      discard(out);
      throw e;
    }
    reporter.incrCounter(PreshuffleCounter.RECEIVED_BYTES, partLength);
    // One line per segment: the benchmark's timeline of bytes received per reducer.
    LOG.info("Received spill {} of {}: {} bytes ({} raw) {}", spill, map, partLength, rawLength,
        out.getDescription());
    MapOutput<K, V> replaced = null;
    boolean keep;
    synchronized (this) {
      keep = refusal(map) == null;
      if (keep) {
        Pushed p = byAttempt.computeIfAbsent(map, m -> new Pushed());
        replaced = p.segments.put(spill, out);
        // Spills arrive in order, each covering the input consumed before it was written.
        p.progress = Math.max(p.progress, progress);
      }
    }
    if (!keep) {
      discard(out);
    } else {
      progressListener.run();
    }
    if (replaced != null) {
      discard(replaced);
    }
  }

  /**
   * Where a pulled leftover spill of {@code map} goes: memory or local disk as a pushed
   * segment would, under a name of its own (stock would name every spill of the map alike).
   */
  MapOutput<K, V> reserveLeftover(TaskAttemptID map, int spill, long rawLength)
      throws IOException {
    return reserve(map, "_left" + spill, rawLength);
  }

  private MapOutput<K, V> reserve(TaskAttemptID map, int spill, long rawLength)
      throws IOException {
    return reserve(map, "_push" + spill, rawLength);
  }

  private MapOutput<K, V> reserve(TaskAttemptID map, String suffix, long rawLength)
      throws IOException {
    synchronized (this) {
      if (rawLength <= heldSegmentMax && heldInMemory + rawLength <= heldMemoryCap) {
        MapOutput<K, V> out = merger.reserve(map, rawLength, FETCHER_ID);
        if (out instanceof InMemoryMapOutput) {
          heldInMemory += rawLength;
          return out;
        }
        if (out != null) {
          out.abort(); // on disk under the map's own name: a segment needs a name of its own
        }
      }
    }
    Path path = mapOutputFile.getInputFileForWrite(map.getTaskID(), rawLength)
        .suffix("_" + map.getId() + suffix);
    return new OnDiskMapOutput<>(map, merger, rawLength, conf, FETCHER_ID, true,
        FileSystem.getLocal(conf).getRaw(), path);
  }

  @Override
  public synchronized boolean done(TaskAttemptID map, int spills) {
    Pushed p = byAttempt.computeIfAbsent(map, m -> new Pushed());
    p.spills = spills;
    return p.complete();
  }

  @Override
  public synchronized boolean left(TaskAttemptID map, int spills, int firstLeft) {
    Pushed p = byAttempt.computeIfAbsent(map, m -> new Pushed());
    p.spills = spills;
    if (spills > 0 && PushProtocol.leftover(map, spills - 1) != null) {
      p.firstLeft = firstLeft; // else no names for its leftovers: it is pulled whole
    }
    return p.complete() || p.completedByPull();
  }

  @Override
  public void refused(String peer, String why) {
    reporter.incrCounter(PreshuffleCounter.REFUSED_CONNECTIONS, 1);
  }

  /**
   * The map's SUCCEEDED attempt: its segments, in spill order, if it pushed all of them or a
   * prefix and left the rest to be pulled; otherwise null and the map is pulled whole. Either
   * way no other push of the map is taken. The caller releases (merges) or discards what
   * it takes.
   */
  Claim<K, V> claim(TaskAttemptID winner) {
    Claim<K, V> taken = null;
    List<Pushed> dropped = new ArrayList<>();
    synchronized (this) {
      resolved.add(winner.getTaskID());
      for (Iterator<Map.Entry<TaskAttemptID, Pushed>> it = byAttempt.entrySet().iterator();
          it.hasNext();) {
        Map.Entry<TaskAttemptID, Pushed> e = it.next();
        if (!e.getKey().getTaskID().equals(winner.getTaskID())) {
          continue;
        }
        it.remove();
        Pushed p = e.getValue();
        if (e.getKey().equals(winner) && (p.complete() || p.completedByPull())) {
          taken = new Claim<>(new ArrayList<>(p.segments.values()), p.spills, p.prefix());
        } else {
          dropped.add(e.getValue());
        }
      }
    }
    dropped.forEach(this::discard);
    return taken;
  }

  /** A failed, killed or obsolete attempt: what it pushed is dropped, and so are its pushes. */
  void kill(TaskAttemptID attempt) {
    Pushed p;
    synchronized (this) {
      dead.add(attempt);
      p = byAttempt.remove(attempt);
    }
    if (p != null) {
      discard(p);
    }
  }

  /** The shuffle is over or failed: nothing held is wanted any more. */
  void close() {
    List<Pushed> all;
    synchronized (this) {
      closed = true;
      all = new ArrayList<>(byAttempt.values());
      byAttempt.clear();
    }
    all.forEach(this::discard);
  }

  private void discard(Pushed p) {
    p.segments.values().forEach(this::discard);
  }

  void discard(MapOutput<K, V> out) {
    synchronized (this) {
      release(out);
    }
    reporter.incrCounter(PreshuffleCounter.DISCARDED_BYTES, out.getSize());
    out.abort();
  }

  /** A held segment leaves this object's memory cap: merged, or dropped. */
  synchronized void release(MapOutput<K, V> out) {
    if (out instanceof InMemoryMapOutput) {
      heldInMemory -= out.getSize();
    }
  }
}
