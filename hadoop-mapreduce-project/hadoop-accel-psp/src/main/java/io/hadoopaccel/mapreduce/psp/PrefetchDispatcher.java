package io.hadoopaccel.mapreduce.psp;

import io.hadoopaccel.common.conf.AccelConfiguration;
import io.hadoopaccel.hdfs.psp.PrefetchClient;
import io.hadoopaccel.hdfs.psp.PrefetchReply;
import io.hadoopaccel.hdfs.psp.PrefetchRequest;
import io.hadoopaccel.hdfs.psp.PspConfigKeys;
import java.io.IOException;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
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
 * AM's user (its block tokens). A node whose prefetcher did not answer is skipped for a while,
 * so a dead prefetcher costs one timeout, not one per map; nothing here ever blocks the
 * allocator.
 *
 * @param <T> map (task attempt) id
 */
public final class PrefetchDispatcher<T> implements PspPlanner.Prefetcher<T>, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PrefetchDispatcher.class);
  /** Queued batches beyond this are dropped (counted unreachable): the AM's memory is bounded. */
  private static final int QUEUE = 4096;

  /** A map's prefetch requests. */
  public interface Requests<T> {
    List<PrefetchRequest> of(T map) throws IOException;
  }

  private final PrefetchClient client;
  private final Requests<T> requests;
  private final UserGroupInformation ugi;
  private final long deadForMs;
  private final ThreadPoolExecutor pool;
  private final Map<T, List<PrefetchRequest>> sent = new ConcurrentHashMap<>();
  private final Map<String, Long> deadUntil = new ConcurrentHashMap<>();

  public PrefetchDispatcher(Configuration conf, Requests<T> requests, UserGroupInformation ugi) {
    this.client = new PrefetchClient(conf);
    this.requests = requests;
    this.ugi = ugi;
    // A failed node is retried after ten timeouts.
    this.deadForMs = 10L * AccelConfiguration.getInt(conf, PspConfigKeys.PREFETCH_TIMEOUT_MS);
    int threads = AccelConfiguration.getInt(conf, PspConfigKeys.CLIENT_THREADS);
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

  private PspPlanner.Outcome send(T map, String host) {
    Long until = deadUntil.get(host);
    if (until != null && until > System.currentTimeMillis()) {
      return new PspPlanner.Outcome(0, 0, 0, 0, true);
    }
    try {
      List<PrefetchRequest> batch = ugi.doAs(
          (PrivilegedExceptionAction<List<PrefetchRequest>>) () -> requests.of(map));
      if (batch.isEmpty()) {
        return new PspPlanner.Outcome(0, 0, 0, 0, false);
      }
      List<PrefetchReply> replies = client.send(host, batch);
      long bytes = 0;
      int loaded = 0;
      int held = 0;
      int refused = 0;
      List<PrefetchRequest> holding = new ArrayList<>();
      for (int i = 0; i < replies.size(); i++) {
        PrefetchReply r = replies.get(i);
        switch (r.status) {
          case LOADED:
            loaded++;
            bytes += r.bytes;
            holding.add(batch.get(i));
            break;
          case ALREADY_HELD:
            held++;
            break;
          default:
            refused++;
        }
      }
      sent.put(map, holding);
      deadUntil.remove(host);
      return new PspPlanner.Outcome(bytes, loaded, held, refused, false);
    } catch (IOException e) {
      if (deadUntil.put(host, System.currentTimeMillis() + deadForMs) == null) {
        LOG.info("PSP: no prefetcher answers on {} ({}); its maps read as stock", host,
            e.toString());
      }
      return new PspPlanner.Outcome(0, 0, 0, 0, true);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new PspPlanner.Outcome(0, 0, 0, 0, true);
    }
  }

  @Override
  public void release(T map, String host) {
    List<PrefetchRequest> held = sent.remove(map);
    if (held == null || held.isEmpty()) {
      return;
    }
    List<PrefetchRequest> releases = new ArrayList<>(held.size());
    for (PrefetchRequest r : held) {
      releases.add(r.toRelease());
    }
    try {
      pool.execute(() -> {
        try {
          client.send(host, releases);
        } catch (IOException e) {
          LOG.debug("PSP release on {} failed (its hold expires): {}", host, e.toString());
        }
      });
    } catch (RejectedExecutionException e) {
      // the node's hold expires on its own
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
