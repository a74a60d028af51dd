package io.hadoopaccel.hdfs.psp;

import io.hadoopaccel.common.conf.AccelConfiguration;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.token.SecretManager.InvalidToken;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's prefetcher: accepts {@link PrefetchRequest}s on a TCP port, checks each through
 * {@link ReplicaAccess} and preloads the replica's range into the page cache under the node's
 * bound ({@link HeldBytes}). Bounded everywhere: connections, request size, concurrent loads,
 * and every socket wait.
 */
public final class PrefetchServer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(PrefetchServer.class);

  private final ReplicaAccess access;
  private final HeldBytes held;
  private final int timeoutMs;
  private final Semaphore connections;
  private final Semaphore loads;
  private final ServerSocket socket;
  private final ExecutorService handlers;
  private final Thread acceptor;
  private final AtomicLong loadedBytes = new AtomicLong();
  private final AtomicLong refusedTokens = new AtomicLong();
  private final boolean lockHeld;
  private volatile boolean closed;

  /** Binds the configured address and port and starts accepting. */
  public PrefetchServer(Configuration conf, ReplicaAccess access) throws IOException {
    this.access = access;
    int port = AccelConfiguration.getInt(conf, PspConfigKeys.PREFETCH_PORT);
    String bind = AccelConfiguration.getString(conf, PspConfigKeys.PREFETCH_BIND_ADDRESS);
    this.held = new HeldBytes(AccelConfiguration.getBytes(conf, PspConfigKeys.PREFETCH_MAX_BYTES),
        AccelConfiguration.getInt(conf, PspConfigKeys.PREFETCH_HOLD_MS));
    this.timeoutMs = AccelConfiguration.getInt(conf, PspConfigKeys.PREFETCH_TIMEOUT_MS);
    this.lockHeld = AccelConfiguration.getBoolean(conf, PspConfigKeys.PREFETCH_LOCK);
    int maxConnections = AccelConfiguration.getInt(conf, PspConfigKeys.PREFETCH_MAX_CONNECTIONS);
    this.connections = new Semaphore(maxConnections);
    this.loads = new Semaphore(AccelConfiguration.getInt(conf, PspConfigKeys.PREFETCH_THREADS));
    this.socket = new ServerSocket();
    socket.setReuseAddress(true);
    socket.bind(new InetSocketAddress(bind, port), maxConnections);
    this.handlers = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "psp-prefetch-connection");
      t.setDaemon(true);
      return t;
    });
    this.acceptor = new Thread(this::acceptLoop, "psp-prefetch-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The bound port (useful when configured as 0). */
  public int getPort() {
    return socket.getLocalPort();
  }

  /** Bytes preloaded since start. */
  public long loadedBytes() {
    return loadedBytes.get();
  }

  /** Requests refused for their block token since start. */
  public long refusedTokens() {
    return refusedTokens.get();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket s;
      try {
        s = socket.accept();
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("PSP prefetcher stops accepting: {}", e.toString());
        }
        return;
      }
      Socket conn = s;
      if (!connections.tryAcquire()) {
        closeQuietly(conn); // over the bound: the AM counts it as unreachable and goes on
        continue;
      }
      try {
        handlers.execute(() -> {
          try {
            serve(conn);
          } finally {
            connections.release();
            closeQuietly(conn);
          }
        });
      } catch (RuntimeException e) { // rejected while closing
        connections.release();
        closeQuietly(conn);
      }
    }
  }

  private void serve(Socket s) {
    try {
      s.setSoTimeout(timeoutMs);
      s.setTcpNoDelay(true);
      DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
      DataOutputStream out =
          new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
      if (in.readInt() != PrefetchRequest.MAGIC) {
        return;
      }
      while (!closed) {
        PrefetchRequest r;
        try {
          r = PrefetchRequest.read(in);
        } catch (EOFException e) {
          return; // the client is done
        }
        handle(r).write(out);
        out.flush();
      }
    } catch (SocketException e) {
      LOG.debug("PSP connection from {} closed: {}", s.getRemoteSocketAddress(), e.toString());
    } catch (IOException e) {
      LOG.debug("PSP connection from {} dropped: {}", s.getRemoteSocketAddress(), e.toString());
    }
  }

  /** Checks, then loads; every outcome is a reply, never an exception. */
  PrefetchReply handle(PrefetchRequest r) {
    File file;
    try {
      // Checked for releases too: only a reader of the block may change its accounting.
      file = access.replicaFile(r);
    } catch (InvalidToken e) {
      refusedTokens.incrementAndGet();
      LOG.info("PSP refused {}: {}", r, e.getMessage());
      return new PrefetchReply(PrefetchReply.Status.REFUSED_TOKEN, 0);
    } catch (FileNotFoundException e) {
      return new PrefetchReply(PrefetchReply.Status.NO_REPLICA, 0);
    } catch (IOException | RuntimeException e) {
      LOG.debug("PSP cannot find {}: {}", r, e.toString());
      return new PrefetchReply(PrefetchReply.Status.NO_REPLICA, 0);
    }
    if (r.op == PrefetchRequest.Op.RELEASE) {
      return new PrefetchReply(PrefetchReply.Status.RELEASED, held.release(r.blockKey()));
    }
    long length = Math.max(0, Math.min(r.length, file.length() - r.offset));
    switch (held.admit(r.blockKey(), length, System.currentTimeMillis())) {
      case ALREADY_HELD:
        return new PrefetchReply(PrefetchReply.Status.ALREADY_HELD, 0);
      case FULL:
        return new PrefetchReply(PrefetchReply.Status.FULL, 0);
      default:
        break;
    }
    if (PageCache.isResident(file, r.offset, length)) {
      // A warm cache: reading the block through again would only spend the node's CPU (on the
      // warm pseudo cluster, the launch prefetches' rereads made Grep's maps 13 % slower).
      lockInMemory(r, file, length);
      return new PrefetchReply(PrefetchReply.Status.RESIDENT, 0);
    }
    boolean loading = false;
    try {
      loading = loads.tryAcquire(timeoutMs, TimeUnit.MILLISECONDS);
      if (!loading) {
        held.release(r.blockKey());
        return new PrefetchReply(PrefetchReply.Status.FULL, 0);
      }
      long n = PageCache.preload(file, r.offset, length);
      loadedBytes.addAndGet(n);
      lockInMemory(r, file, n);
      return new PrefetchReply(PrefetchReply.Status.LOADED, n);
    } catch (IOException e) {
      held.release(r.blockKey());
      LOG.warn("PSP could not preload {}: {}", r, e.toString());
      return new PrefetchReply(PrefetchReply.Status.FAILED, 0);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      held.release(r.blockKey());
      return new PrefetchReply(PrefetchReply.Status.FAILED, 0);
    } finally {
      if (loading) {
        loads.release();
      }
    }
  }

  /** Keeps a held block resident until it stops counting (if configured and possible). */
  private void lockInMemory(PrefetchRequest r, File file, long length) {
    if (!lockHeld) {
      return;
    }
    PageCache.Locked lock = PageCache.lock(file, r.offset, length);
    if (lock != null && !held.attach(r.blockKey(), lock)) {
      lock.close(); // released or expired meanwhile
    }
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(socket);
    handlers.shutdownNow();
    held.clear();
  }

  private static void closeQuietly(Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // nothing left to do
    }
  }
}
