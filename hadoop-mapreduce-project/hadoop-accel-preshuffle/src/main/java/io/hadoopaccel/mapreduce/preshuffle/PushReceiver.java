package io.hadoopaccel.mapreduce.preshuffle;

import io.hadoopaccel.mapreduce.preshuffle.PushProtocol.AuthenticationException;
import io.hadoopaccel.mapreduce.preshuffle.PushProtocol.Header;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.crypto.SecretKey;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reducer's push endpoint: a listening socket, at most {@code 4 * threads} connections taken
 * from it at once (the rest wait unauthenticated in the kernel's listen queue, bounded, until
 * the pushing map's timeout), and at most {@code threads} of them storing segment data. Done
 * and LEFT markers never wait for a segment to finish: with the data threads busy receiving
 * slow pushes, they queued behind them past the map's timeout (12 of 32 map outputs pulled
 * whole on the shuffle-bound xie-psp variant). Every connection proves the job token before
 * any data is read, and every read and write is bounded by the socket timeout.
 */
public final class PushReceiver implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(PushReceiver.class);
  private static final int BACKLOG = 64;
  private static final int CONNECTIONS_PER_THREAD = 4;

  private final ServerSocket server;
  private final ExecutorService workers;
  /** Connections taken from the listen queue: headers being read, markers, segments. */
  private final Semaphore slots;
  /** Connections storing segment data. */
  private final Semaphore dataSlots;
  private final Thread acceptor;
  private final JobID job;
  private final int partition;
  private final SecretKey key;
  private final int timeoutMs;
  private final PushSink sink;
  private volatile boolean closed;

  public PushReceiver(JobID job, int partition, SecretKey key, int threads, int timeoutMs,
      PushSink sink) throws IOException {
    this.job = job;
    this.partition = partition;
    this.key = key;
    this.timeoutMs = timeoutMs;
    this.sink = sink;
    this.server = new ServerSocket();
    server.bind(new InetSocketAddress(0), BACKLOG);
    this.slots = new Semaphore(CONNECTIONS_PER_THREAD * threads);
    this.dataSlots = new Semaphore(threads, true);
    this.workers = Executors.newFixedThreadPool(CONNECTIONS_PER_THREAD * threads, r -> {
      Thread t = new Thread(r, "preshuffle-receiver");
      t.setDaemon(true);
      return t;
    });
    this.acceptor = new Thread(this::acceptLoop, "preshuffle-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public int port() {
    return server.getLocalPort();
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        slots.acquire();
        Socket s;
        try {
          s = server.accept();
        } catch (IOException e) {
          slots.release();
          if (!closed) {
            LOG.warn("Preshuffle receiver stopped accepting: {}", e.toString());
          }
          return;
        }
        workers.execute(() -> {
          try (Socket socket = s) {
            serve(socket);
          } catch (IOException e) {
            LOG.info("Push from {} ended: {}", s.getRemoteSocketAddress(), e.toString());
          } finally {
            slots.release();
          }
        });
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void serve(Socket socket) throws IOException {
    socket.setSoTimeout(timeoutMs);
    DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
    DataOutputStream out =
        new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    String peer = String.valueOf(socket.getRemoteSocketAddress());
    Header h;
    TaskAttemptID map;
    try {
      h = Header.read(in, key);
      map = TaskAttemptID.forName(h.mapAttempt);
      // By name: mapred's and mapreduce's JobID never equal each other.
      if (map == null || !job.toString().equals(map.getJobID().toString())
          || h.partition != partition) {
        throw new AuthenticationException("push for another job or partition: " + h.mapAttempt
            + " -> " + h.partition);
      }
    } catch (AuthenticationException | IllegalArgumentException e) {
      sink.refused(peer, e.getMessage());
      LOG.warn("Refused push from {}: {}", peer, e.getMessage());
      out.writeByte(PushProtocol.AUTH_FAILED);
      out.flush();
      return;
    }
    String refusal = sink.refusal(map);
    if (refusal != null) {
      out.writeByte(PushProtocol.REFUSE);
      out.writeUTF(refusal);
      out.flush();
      return;
    }
    boolean segment = h.kind == PushProtocol.SEGMENT;
    // A segment waits for a data thread before it is accepted, bounded by the map's read
    // timeout (past it the map stops pushing here and leaves the rest to be pulled).
    try {
      if (segment && !dataSlots.tryAcquire(timeoutMs, TimeUnit.MILLISECONDS)) {
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    try {
      out.writeByte(PushProtocol.ACCEPT);
      out.writeUTF(h.replyHash(key));
      out.flush();
      if (segment) {
        // The sink reads exactly partLength bytes (stock's IFileInputStream, checksum verified).
        sink.receive(map, h.spill, h.progress, h.rawLength, h.partLength, in);
      }
    } finally {
      if (segment) {
        dataSlots.release();
      }
    }
    boolean ok;
    if (segment) {
      ok = true;
    } else if (h.kind == PushProtocol.DONE) {
      ok = sink.done(map, h.spill);
    } else {
      ok = sink.left(map, h.spill, (int) h.rawLength);
    }
    out.writeByte(ok ? PushProtocol.OK : PushProtocol.FAILED);
    out.flush();
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      LOG.debug("closing the receiver socket", e);
    }
    acceptor.interrupt();
    workers.shutdownNow();
    try {
      if (!workers.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS)) {
        LOG.warn("Preshuffle receiver threads still busy after {} ms", timeoutMs);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
