package io.hadoopaccel.mapreduce.psp;

import io.hadoopaccel.common.conf.AccelConfiguration;
import io.hadoopaccel.hdfs.psp.PrefetchClient;
import io.hadoopaccel.hdfs.psp.PrefetchReply;
import io.hadoopaccel.hdfs.psp.PrefetchRequest;
import io.hadoopaccel.hdfs.psp.PspConfigKeys;
import java.io.IOException;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the planner's prefetches to the nodes' prefetchers from a few threads of its own, as the
 * AM's user (its block tokens). A block the predicted node has no replica of is loaded on a node
 * that has one, from whose memory the map's remote read is then served. A node whose prefetcher
 * did not answer is skipped for a while, so a dead prefetcher costs one timeout, not one per
 * map; nothing here ever blocks the allocator.
 *
 * @param <T> map (task attempt) id
 */
public final class PrefetchDispatcher<T> implements PspPlanner.Prefetcher<T>, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PrefetchDispatcher.class);
  /** Queued batches beyond this are dropped (counted unreachable): the AM's memory is bounded. */
  private static final int QUEUE = 4096;

  /** A map's prefetch requests. */
  public interface Requests<T> {
    List<InputBlock> of(T map) throws IOException;
  }

  /** Sends one node a batch (the prefetch protocol's client; tests pass a fake). */
  interface Transport {
    List<PrefetchReply> send(String host, List<PrefetchRequest> batch) throws IOException;
  }

  private final Transport transport;
  private final Requests<T> requests;
  private final UserGroupInformation ugi;
  private final long deadForMs;
  private final ThreadPoolExecutor pool;
  /** Per map, the blocks each node answered LOADED or RESIDENT (held until released). */
  private final Map<T, Map<String, List<InputBlock>>> sent = new ConcurrentHashMap<>();
  private final Map<String, Long> deadUntil = new ConcurrentHashMap<>();

  public PrefetchDispatcher(Configuration conf, Requests<T> requests, UserGroupInformation ugi) {
    this(new PrefetchClient(conf)::send, requests, ugi,
        AccelConfiguration.getInt(conf, PspConfigKeys.PREFETCH_TIMEOUT_MS),
        AccelConfiguration.getInt(conf, PspConfigKeys.CLIENT_THREADS));
  }

  PrefetchDispatcher(Transport transport, Requests<T> requests, UserGroupInformation ugi,
      int timeoutMs, int threads) {
    this.transport = transport;
    this.requests = requests;
    this.ugi = ugi;
    // A failed node is retried after ten timeouts.
    this.deadForMs = 10L * timeoutMs;
    this.pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(QUEUE), r -> {
          Thread t = new Thread(r, "psp-prefetch-client");
          t.setDaemon(true);
          return t;
        });
    pool.allowCoreThreadTimeOut(true);
  }

  @Override
  public void prefetch(T map, String host, Consumer<PspPlanner.Outcome> done) {
    try {
      pool.execute(() -> done.accept(send(map, host)));
    } catch (RejectedExecutionException e) {
      done.accept(new PspPlanner.Outcome(0, 0, 0, 0, true));
    }
  }

  /**
   * Loads {@code map}'s blocks for a run on {@code host}: each on {@code host} when it holds a
   * replica, else on a replica's node ({@link InputBlock#loadOn}), one batch per node.
   */
  PspPlanner.Outcome send(T map, String host) {
    List<InputBlock> blocks;
    try {
      blocks = ugi.doAs((PrivilegedExceptionAction<List<InputBlock>>) () -> requests.of(map));
    } catch (IOException e) {
      LOG.debug("PSP cannot list the input of {}: {}", map, e.toString());
      return new PspPlanner.Outcome(0, 0, 0, 1, false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new PspPlanner.Outcome(0, 0, 0, 0, true);
    }
    Map<String, List<InputBlock>> byNode = new LinkedHashMap<>();
    for (InputBlock b : blocks) {
      byNode.computeIfAbsent(b.loadOn(host), h -> new ArrayList<>()).add(b);
    }
    long bytes = 0;
    int loaded = 0;
    int held = 0;
    int refused = 0;
    int remote = 0;
    boolean unreachable = false;
    Map<String, List<InputBlock>> holding = new LinkedHashMap<>();
    for (Map.Entry<String, List<InputBlock>> e : byNode.entrySet()) {
      String node = e.getKey();
      List<InputBlock> batch = e.getValue();
      List<PrefetchRequest> requests = new ArrayList<>(batch.size());
      for (InputBlock b : batch) {
        requests.add(b.request);
      }
      List<PrefetchReply> replies = sendTo(node, requests);
      if (replies == null) {
        unreachable = true;
        continue;
      }
      for (int i = 0; i < replies.size(); i++) {
        PrefetchReply r = replies.get(i);
        switch (r.status) {
          case LOADED:
            loaded++;
            bytes += r.bytes;
            remote += node.equals(host) ? 0 : 1;
            holding.computeIfAbsent(node, h -> new ArrayList<>()).add(batch.get(i));
            break;
          case RESIDENT: // held, nothing read: released like a load
            holding.computeIfAbsent(node, h -> new ArrayList<>()).add(batch.get(i));
            held++;
            break;
          case ALREADY_HELD:
            held++;
            break;
          default:
            refused++;
        }
      }
    }
    sent.put(map, holding);
    return new PspPlanner.Outcome(bytes, loaded, held, refused, unreachable, remote);
  }

  /** One node's replies, or null when it did not answer (it is skipped for a while). */
  private List<PrefetchReply> sendTo(String node, List<PrefetchRequest> batch) {
    Long until = deadUntil.get(node);
    if (until != null && until > System.currentTimeMillis()) {
      return null;
    }
    try {
      List<PrefetchReply> replies = transport.send(node, batch);
      deadUntil.remove(node);
      return replies;
    } catch (IOException e) {
      if (deadUntil.put(node, System.currentTimeMillis() + deadForMs) == null) {
        LOG.info("PSP: no prefetcher answers on {} ({}); its maps read as stock", node,
            e.toString());
      }
      return null;
    }
  }

  @Override
  public long readOnLoadedNode(T map, String runHost) {
    long bytes = 0;
    for (Map.Entry<String, List<InputBlock>> e : sent.getOrDefault(map, Map.of()).entrySet()) {
      for (InputBlock b : e.getValue()) {
        if (b.readFrom(runHost).equals(e.getKey())) {
          bytes += b.request.length;
        }
      }
    }
    return bytes;
  }

  @Override
  public void release(T map, String host) {
    Map<String, List<InputBlock>> held = sent.remove(map);
    if (held == null) {
      return;
    }
    for (Map.Entry<String, List<InputBlock>> e : held.entrySet()) {
      List<PrefetchRequest> releases = new ArrayList<>(e.getValue().size());
      for (InputBlock b : e.getValue()) {
        releases.add(b.request.toRelease());
      }
      try {
        pool.execute(() -> {
          try {
            transport.send(e.getKey(), releases);
          } catch (IOException ex) {
            LOG.debug("PSP release on {} failed (its hold expires): {}", e.getKey(),
                ex.toString());
          }
        });
      } catch (RejectedExecutionException ex) {
        // the node's hold expires on its own
      }
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
