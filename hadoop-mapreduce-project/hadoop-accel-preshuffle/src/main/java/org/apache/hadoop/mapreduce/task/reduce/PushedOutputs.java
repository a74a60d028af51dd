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
 * spills, do its segments reach the merge; everything any other attempt pushed is discarded.
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
    int progress; // of the map's input, in thousandths, covered by the segments held

    boolean complete() {
      return spills >= 0 && segments.size() == spills
          && (spills == 0 || segments.lastKey() == spills - 1);
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

  private MapOutput<K, V> reserve(TaskAttemptID map, int spill, long rawLength)
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
        .suffix("_" + map.getId() + "_push" + spill);
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
  public void refused(String peer, String why) {
    reporter.incrCounter(PreshuffleCounter.REFUSED_CONNECTIONS, 1);
  }

  /**
   * The map's SUCCEEDED attempt: its segments, in spill order, if it pushed all of them;
   * otherwise null and the map is pulled. Either way no other push of the map is taken.
   */
  List<MapOutput<K, V>> claim(TaskAttemptID winner) {
    List<MapOutput<K, V>> taken = null;
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
        if (e.getKey().equals(winner) && e.getValue().complete()) {
          taken = new ArrayList<>(e.getValue().segments.values());
          for (MapOutput<K, V> out : taken) {
            release(out);
          }
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

  private void discard(MapOutput<K, V> out) {
    synchronized (this) {
      release(out);
    }
    reporter.incrCounter(PreshuffleCounter.DISCARDED_BYTES, out.getSize());
    out.abort();
  }

  private void release(MapOutput<K, V> out) {
    if (out instanceof InMemoryMapOutput) {
      heldInMemory -= out.getSize();
    }
  }
}
