package io.hadoopaccel.mapreduce.jbs;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Timer;
import java.util.TimerTask;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.ExceptionReporter;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl;
import org.apache.hadoop.util.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reduce's session with its node's NetMerger (DESIGN.md §3): HELLO/REGISTER, then a feeder
 * thread hands the map outputs upstream's scheduler knows of to the NetMerger (MAP_OUTPUT) and a
 * reader thread reports MAP_FETCHED / FETCH_FAILED back to the scheduler as stock fetchers do;
 * after MERGE the reader queues DATA frames for {@link MergedStreamIterator}.
 */
public final class NativeShuffleSession<K, V> implements ExceptionReporter,
    MergedStreamIterator.PayloadSource {
  private static final Logger LOG = LoggerFactory.getLogger(NativeShuffleSession.class);
  private static final int STREAM_FRAMES = 8;
  private static final Timer WATCHDOG = new Timer("jbs-session-watchdog", true);
  private static final java.security.SecureRandom NONCES = new java.security.SecureRandom();

  private final SocketChannel channel;
  private final InputStream in;
  private final Reporter reporter;
  private final int supplierPort;
  private final BlockingQueue<Object> stream = new ArrayBlockingQueue<>(STREAM_FRAMES);
  /** DATA bodies for the reader to reuse: enough for a full stream queue, the reader and us. */
  private final BlockingQueue<byte[]> freeBodies = new ArrayBlockingQueue<>(STREAM_FRAMES + 2);
  /** The body of the payload next() returned last; recycled on the following call. */
  private byte[] lentBody;
  private final Map<String, Pending> pending = new ConcurrentHashMap<>();

  private ShuffleSchedulerImpl<K, V> scheduler;
  private Thread feeder;
  private Thread reader;
  private volatile Throwable failure;
  private volatile boolean closed;
  private volatile boolean ended;
  private volatile long fetchedPartBytes;
  private ReducerProtocol.EndStats endStats;

  private static final class Pending {
    final TaskAttemptID id;
    final MapHost host;
    final long start;

    Pending(TaskAttemptID id, MapHost host, long start) {
      this.id = id;
      this.host = host;
      this.start = start;
    }
  }

  private NativeShuffleSession(SocketChannel channel, Reporter reporter, int supplierPort) {
    this.channel = channel;
    this.in = new BufferedInputStream(new ChannelInput(channel), 64 * 1024);
    this.reporter = reporter;
    this.supplierPort = supplierPort;
  }

  /** Reads a blocking channel without Channels.newInputStream (whose lock would block writes). */
  private static final class ChannelInput extends InputStream {
    private final SocketChannel ch;

    ChannelInput(SocketChannel ch) {
      this.ch = ch;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      return ch.read(ByteBuffer.wrap(b, off, len));
    }
  }

  /**
   * Connects and registers. Any IOException means the reduce can still fall back: the
   * message says why.
   */
  public static <K, V> NativeShuffleSession<K, V> open(String socketPath, int timeoutMs,
      String job, int partition, int numMaps, int keyType, int codec, byte[] secret,
      Reporter reporter, int supplierPort) throws IOException {
    Path path = Path.of(socketPath);
    if (!Files.exists(path)) {
      throw new IOException("no NetMerger socket at " + socketPath);
    }
    SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
    java.util.concurrent.atomic.AtomicBoolean fired = new java.util.concurrent.atomic.AtomicBoolean();
    TimerTask timeout = new TimerTask() {
      @Override
      public void run() {
        fired.set(true);
        try {
          ch.close();
        } catch (IOException e) {
          // closing is all we want
        }
      }
    };
    WATCHDOG.schedule(timeout, timeoutMs);
    NativeShuffleSession<K, V> s = new NativeShuffleSession<>(ch, reporter, supplierPort);
    try {
      ch.connect(UnixDomainSocketAddress.of(path));
      byte[] nonce = ReducerProtocol.hello(ReducerProtocol.read(s.in));
      byte[] mac = ReducerProtocol.registerMac(secret, job, partition, nonce);
      byte[] clientNonce = new byte[ReducerProtocol.NONCE_LENGTH];
      NONCES.nextBytes(clientNonce);
      s.send(ReducerProtocol.register(partition, numMaps, keyType, codec, job, mac,
          clientNonce));
      ReducerProtocol.Frame f = ReducerProtocol.read(s.in);
      if (f.type == ReducerProtocol.ERROR) {
        throw new IOException("NetMerger error " + ReducerProtocol.error(f));
      }
      ReducerProtocol.expect(f, ReducerProtocol.REGISTERED);
      ReducerProtocol.Body b = new ReducerProtocol.Body(f);
      int status = b.u16();
      String message = b.string();
      byte[] proof = b.bytes(b.u16());
      b.end();
      if (status != 0) {
        throw new IOException("NetMerger refused REGISTER (status " + status + "): " + message);
      }
      // Only a NetMerger that holds the job secret can answer for our nonce: a process that
      // took the socket path without it gets no records into this reduce.
      if (!java.security.MessageDigest.isEqual(proof,
          ReducerProtocol.registeredMac(secret, job, partition, nonce, clientNonce))) {
        throw new IOException("the process at " + socketPath + " did not prove it holds the job"
            + " secret (REGISTERED proof mismatch): not a NetMerger of this node");
      }
      timeout.cancel();
      if (fired.get()) {
        throw new IOException("NetMerger did not answer within " + timeoutMs + " ms");
      }
      return s;
    } catch (IOException | RuntimeException e) {
      timeout.cancel();
      s.closeChannel();
      if (fired.get()) {
        throw new IOException("NetMerger did not answer within " + timeoutMs + " ms", e);
      }
      throw e;
    }
  }

  private void send(byte[] frame) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(frame);
    synchronized (channel) {
      while (b.hasRemaining()) {
        channel.write(b);
      }
    }
  }

  /** Starts the feeder and the reader on {@code scheduler}, whose reporter must be this. */
  public void start(ShuffleSchedulerImpl<K, V> sched) {
    this.scheduler = sched;
    reader = new Thread(this::readLoop, "jbs-reader");
    reader.setDaemon(true);
    reader.start();
    feeder = new Thread(this::feedLoop, "jbs-feeder");
    feeder.setDaemon(true);
    feeder.start();
  }

  static String hostOnly(String hostAndPort) {
    int colon = hostAndPort.lastIndexOf(':');
    return colon > 0 ? hostAndPort.substring(0, colon) : hostAndPort;
  }

  private void feedLoop() {
    try {
      while (!closed) {
        MapHost host = scheduler.getHost();
        try {
          List<TaskAttemptID> maps = scheduler.getMapsForHost(host);
          String name = hostOnly(host.getHostName());
          for (TaskAttemptID id : maps) {
            pending.put(id.toString(), new Pending(id, host, Time.monotonicNow()));
            send(ReducerProtocol.mapOutput(id.getTaskID().getId(), supplierPort, id.toString(),
                name));
          }
        } finally {
          scheduler.freeHost(host);
        }
      }
    } catch (InterruptedException e) {
      // stopped
    } catch (Throwable t) {
      if (!closed) {
        reportException(t);
      }
    }
  }

  private void readLoop() {
    try {
      byte[] spare = null; // where the next DATA body goes; kept until a DATA frame takes it
      while (!closed) {
        if (spare == null) {
          spare = freeBodies.poll();
          if (spare == null) {
            spare = new byte[4 + ReducerProtocol.MAX_DATA_PAYLOAD];
          }
        }
        ReducerProtocol.Frame f = ReducerProtocol.read(in, spare);
        if (f.body == spare) {
          spare = null;
        }
        switch (f.type) {
          case ReducerProtocol.MAP_FETCHED:
            mapFetched(f);
            break;
          case ReducerProtocol.FETCH_FAILED:
            fetchFailed(f);
            break;
          case ReducerProtocol.DATA:
          case ReducerProtocol.ERROR:
            stream.put(f);
            break;
          case ReducerProtocol.END:
            stream.put(f);
            return;
          default:
            throw new ReducerProtocol.ProtocolException("unexpected frame type " + f.type);
        }
      }
    } catch (InterruptedException e) {
      // closed
    } catch (Throwable t) {
      if (!closed) {
        reportException(t);
      }
    }
  }

  private void mapFetched(ReducerProtocol.Frame f) throws IOException {
    ReducerProtocol.Body b = new ReducerProtocol.Body(f);
    long index = b.u32();
    long partLength = b.u64();
    String attempt = b.string();
    b.end();
    Pending p = pending.remove(attempt);
    if (p == null || p.id.getTaskID().getId() != index) {
      throw new ReducerProtocol.ProtocolException("MAP_FETCHED for unknown map " + index + " "
          + attempt);
    }
    fetchedPartBytes += partLength;
    scheduler.copySucceeded(p.id, p.host, partLength, p.start, Time.monotonicNow(),
        new NativeMapOutput<K, V>(p.id, partLength));
  }

  private void fetchFailed(ReducerProtocol.Frame f) throws IOException {
    ReducerProtocol.Body b = new ReducerProtocol.Body(f);
    long index = b.u32();
    boolean connectFailed = b.u8() != 0;
    String attempt = b.string();
    String message = b.string();
    b.end();
    Pending p = pending.remove(attempt);
    if (p == null || p.id.getTaskID().getId() != index) {
      throw new ReducerProtocol.ProtocolException("FETCH_FAILED for unknown map " + index + " "
          + attempt);
    }
    LOG.warn("NetMerger could not fetch {} from {}: {}", attempt, p.host.getHostName(), message);
    // As upstream's Fetcher: count the failure (the scheduler tells the AM when enough pile
    // up), then hand the map back so that it is asked for again (or replaced by a re-run).
    scheduler.copyFailed(p.id, p.host, !connectFailed, connectFailed);
    scheduler.putBackKnownMapOutput(p.host, p.id);
  }

  @Override
  public void reportException(Throwable t) {
    synchronized (this) {
      if (failure == null) {
        failure = t;
      }
    }
    stream.offer(t);
    ShuffleSchedulerImpl<K, V> s = scheduler;
    if (s != null) {
      synchronized (s) {
        s.notifyAll();
      }
    }
  }

  /** Throws the first failure of the feeder, the reader or the scheduler, if any. */
  public void checkFailed() throws IOException {
    Throwable t = failure;
    if (t != null) {
      throw t instanceof IOException ? (IOException) t
          : new IOException("JBS shuffle failed: " + t, t);
    }
  }

  /** Stops the feeder (the scheduler is done), sends MERGE and waits for the first output. */
  public MergedStreamIterator merge() throws IOException {
    stopFeeder();
    checkFailed();
    send(ReducerProtocol.merge());
    ByteBuffer first = next();
    return first == null ? MergedStreamIterator.ended(this)
        : new MergedStreamIterator(this, fetchedPartBytes, first);
  }

  private void stopFeeder() {
    Thread f = feeder;
    if (f != null) {
      f.interrupt();
      try {
        f.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public ByteBuffer next() throws IOException {
    if (lentBody != null) {
      freeBodies.offer(lentBody);
      lentBody = null;
    }
    if (ended) {
      return null;
    }
    Object o;
    try {
      // While the NetMerger merges (its socket open, the reader alive) the task is alive too.
      while ((o = stream.poll(1, java.util.concurrent.TimeUnit.SECONDS)) == null) {
        reporter.progress();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while reading the merged stream", e);
    }
    if (o instanceof Throwable) {
      Throwable t = (Throwable) o;
      throw t instanceof IOException ? new IOException("JBS merged stream: " + t.getMessage(), t)
          : new IOException("JBS merged stream failed", t);
    }
    ReducerProtocol.Frame f = (ReducerProtocol.Frame) o;
    switch (f.type) {
      case ReducerProtocol.DATA:
        ByteBuffer payload = ReducerProtocol.data(f);
        lentBody = f.body;
        return payload;
      case ReducerProtocol.END:
        endStats = ReducerProtocol.end(f);
        ended = true;
        reporter.incrCounter(JbsCounter.BYTES_FETCHED_NATIVELY, endStats.fetchedBytes);
        reporter.incrCounter(JbsCounter.MERGE_PASSES, endStats.mergePasses);
        reporter.incrCounter(JbsCounter.HIERARCHICAL_SPILL_BYTES, endStats.spilledBytes);
        LOG.info("NetMerger END: {} records, {} stream bytes, {} fetched bytes, {} merge"
            + " passes, {} bytes spilled", endStats.records, endStats.streamBytes,
            endStats.fetchedBytes, endStats.mergePasses, endStats.spilledBytes);
        return null;
      default:
        throw new IOException("NetMerger error " + ReducerProtocol.error(f));
    }
  }

  public ReducerProtocol.EndStats endStats() {
    return endStats;
  }

  private void closeChannel() {
    try {
      channel.close();
    } catch (IOException e) {
      LOG.debug("closing the NetMerger socket", e);
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    stopFeeder();
    closeChannel();
    Thread r = reader;
    if (r != null) {
      r.interrupt();
      try {
        r.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
