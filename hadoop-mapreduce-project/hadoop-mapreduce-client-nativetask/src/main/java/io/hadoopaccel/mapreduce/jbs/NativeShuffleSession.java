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
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
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
 *
 * <p>Two rules keep a reduce from hanging or falling back at random:
 * <ul>
 *   <li>Only the session's own reader and writer threads touch the socket, and nothing
 *       interrupts them (close() closes the channel instead). An NIO channel closes when a
 *       thread blocked in it is interrupted, so socket I/O on the task's thread or on a thread
 *       that gets interrupted would lose the session to interrupts meant for upstream.</li>
 *   <li>Every wait on the NetMerger has a bound: the handshake {@code connect.timeout.ms}; a
 *       NetMerger that sends nothing for {@code reducer.read.timeout.ms} while the reduce waits
 *       for it (map outputs outstanding, or the merged stream asked for) fails the session; a
 *       dead reader (EOF, error) is seen by the consumer as soon as the frames it queued before
 *       are consumed. Progress is reported only while the NetMerger is within that bound, so
 *       the task timeout stays a second line of defence.</li>
 * </ul>
 */
public final class NativeShuffleSession<K, V> implements ExceptionReporter,
    MergedStreamIterator.PayloadSource {
  private static final Logger LOG = LoggerFactory.getLogger(NativeShuffleSession.class);
  private static final int STREAM_FRAMES = 8;
  /** How often a waiting consumer or a reader facing a full queue looks at the session. */
  private static final long POLL_MS = 200;
  private static final long JOIN_MS = 5_000;
  private static final byte[] STOP_WRITER = new byte[0];
  private static final java.security.SecureRandom NONCES = new java.security.SecureRandom();

  private final SocketChannel channel;
  private final InputStream in;
  private final Reporter reporter;
  private final int supplierPort;
  private final long readTimeoutMs;
  private final BlockingQueue<ReducerProtocol.Frame> stream =
      new ArrayBlockingQueue<>(STREAM_FRAMES);
  /** Frames for the writer thread, in order. */
  private final BlockingQueue<byte[]> outbox = new LinkedBlockingQueue<>();
  /** DATA bodies for the reader to reuse: enough for a full stream queue, the reader and us. */
  private final BlockingQueue<byte[]> freeBodies = new ArrayBlockingQueue<>(STREAM_FRAMES + 2);
  /** The body of the payload next() returned last; recycled on the following call. */
  private byte[] lentBody;
  private final Map<String, Pending> pending = new ConcurrentHashMap<>();
  /** Counted down once the scheduler is set (the reader needs it for MAP_FETCHED). */
  private final CountDownLatch started = new CountDownLatch(1);

  private volatile ShuffleSchedulerImpl<K, V> scheduler;
  private Thread feeder;
  /** Handshake, then every frame the NetMerger sends. */
  private Thread reader;
  /** Every frame the reduce sends (from the outbox). */
  private final Thread writer;
  private volatile Throwable failure;
  private volatile boolean closed;
  private boolean ended;
  private volatile long fetchedPartBytes;
  private ReducerProtocol.EndStats endStats;
  /**
   * Monotonic ms when the NetMerger last did something the reduce waited for, or when the reduce
   * began to wait: a frame arrived, the reader got room in a full queue, the first map output
   * was handed over after none was outstanding, MERGE was sent.
   */
  private volatile long lastHeardMs;
  /** Counted down when the handshake is over (done, or failed into {@link #failure}). */
  private final CountDownLatch registered = new CountDownLatch(1);
  private volatile Throwable handshakeFailure;

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

  private NativeShuffleSession(SocketChannel channel, Reporter reporter, int supplierPort,
      long readTimeoutMs, int partition) {
    this.channel = channel;
    this.in = new BufferedInputStream(new ChannelInput(channel), 64 * 1024);
    this.reporter = reporter;
    this.supplierPort = supplierPort;
    this.readTimeoutMs = readTimeoutMs;
    this.lastHeardMs = Time.monotonicNow();
    this.writer = new Thread(this::writeLoop, "jbs-writer-r" + partition);
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
   * Connects and registers (on the session's own threads; the caller only waits, at most
   * {@code timeoutMs}, and interrupts of the caller do not disturb it). Any IOException means
   * the reduce can still fall back: the message says why.
   *
   * @param readTimeoutMs longest the NetMerger may stay silent while the reduce waits for it
   */
  public static <K, V> NativeShuffleSession<K, V> open(String socketPath, int timeoutMs,
      long readTimeoutMs, String job, int partition, int numMaps, int keyType, int codec,
      byte[] secret, Reporter reporter, int supplierPort) throws IOException {
    Path path = Path.of(socketPath);
    if (!Files.exists(path)) {
      throw new IOException("no NetMerger socket at " + socketPath);
    }
    SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
    NativeShuffleSession<K, V> s = new NativeShuffleSession<>(ch, reporter, supplierPort,
        readTimeoutMs, partition);
    s.reader = new Thread(() -> s.run(path, job, partition, numMaps, keyType, codec, secret),
        "jbs-reader-r" + partition);
    s.reader.setDaemon(true);
    s.writer.setDaemon(true);
    s.writer.start();
    s.reader.start();
    boolean done = awaitUninterruptibly(s.registered, timeoutMs);
    Throwable t = s.handshakeFailure;
    if (!done || t != null) {
      s.close();
      if (!done) {
        throw new IOException("NetMerger did not answer within " + timeoutMs + " ms");
      }
      throw t instanceof IOException ? (IOException) t
          : new IOException("JBS handshake failed: " + t, t);
    }
    return s;
  }

  /** Waits for the latch, at most ms; an interrupt is kept for the caller, not acted on. */
  private static boolean awaitUninterruptibly(CountDownLatch latch, long ms) {
    boolean interrupted = false;
    long deadline = Time.monotonicNow() + ms;
    try {
      while (true) {
        long left = deadline - Time.monotonicNow();
        try {
          return latch.await(Math.max(0, left), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The reader thread: handshake, then frames until END, EOF or close. */
  private void run(Path path, String job, int partition, int numMaps, int keyType, int codec,
      byte[] secret) {
    try {
      channel.connect(UnixDomainSocketAddress.of(path));
      byte[] nonce = ReducerProtocol.hello(ReducerProtocol.read(in));
      byte[] mac = ReducerProtocol.registerMac(secret, job, partition, nonce);
      byte[] clientNonce = new byte[ReducerProtocol.NONCE_LENGTH];
      NONCES.nextBytes(clientNonce);
      send(ReducerProtocol.register(partition, numMaps, keyType, codec, job, mac, clientNonce));
      ReducerProtocol.Frame f = ReducerProtocol.read(in);
      if (f.type == ReducerProtocol.ERROR) {
        throw new IOException("NetMerger error " + ReducerProtocol.error(f));
      }
      ReducerProtocol.Registered r = ReducerProtocol.registered(f);
      if (r.status == ReducerProtocol.STATUS_UNSUPPORTED
          && codec > ReducerProtocol.CODEC_ZLIB) {
        // The key type was checked before REGISTER; so the build lacks this codec's library.
        throw new CodecNotBuiltException("the NetMerger was built without this codec: "
            + r.message);
      }
      if (r.status != 0) {
        throw new IOException("NetMerger refused REGISTER (status " + r.status + "): "
            + r.message);
      }
      // Only a NetMerger that holds the job secret can answer for our nonce: a process that
      // took the socket path without it gets no records into this reduce.
      if (!java.security.MessageDigest.isEqual(r.proof,
          ReducerProtocol.registeredMac(secret, job, partition, nonce, clientNonce))) {
        throw new IOException("the process at " + path + " did not prove it holds the job"
            + " secret (REGISTERED proof mismatch): not a NetMerger of this node");
      }
    } catch (Throwable t) {
      handshakeFailure = t;
      registered.countDown();
      return;
    }
    registered.countDown();
    readLoop();
  }

  /** Queues a frame for the writer thread (never blocks, never touches the socket). */
  private void send(byte[] frame) {
    outbox.add(frame);
  }

  private void writeLoop() {
    try {
      while (true) {
        byte[] frame = outbox.take();
        if (frame == STOP_WRITER) {
          return;
        }
        ByteBuffer b = ByteBuffer.wrap(frame);
        while (b.hasRemaining()) {
          channel.write(b);
        }
      }
    } catch (Throwable t) {
      // Nobody interrupts this thread; an exception is a broken socket (or close()).
      if (!closed) {
        reportException(t);
      }
    }
  }

  /** Starts the feeder and the reader's post-handshake work on {@code sched}. */
  public void start(ShuffleSchedulerImpl<K, V> sched) {
    this.scheduler = sched;
    started.countDown();
    feeder = new Thread(this::feedLoop, "jbs-feeder");
    feeder.setDaemon(true);
    feeder.start();
  }

  static String hostOnly(String hostAndPort) {
    int colon = hostAndPort.lastIndexOf(':');
    return colon > 0 ? hostAndPort.substring(0, colon) : hostAndPort;
  }

  /** Takes hosts from the scheduler; only queues frames, so interrupting it is harmless. */
  private void feedLoop() {
    try {
      while (!closed) {
        MapHost host = scheduler.getHost();
        try {
          List<TaskAttemptID> maps = scheduler.getMapsForHost(host);
          String name = hostOnly(host.getHostName());
          for (TaskAttemptID id : maps) {
            if (pending.isEmpty()) {
              lastHeardMs = Time.monotonicNow(); // the reduce starts waiting now
            }
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
        lastHeardMs = Time.monotonicNow();
        if (f.body == spare) {
          spare = null;
        }
        switch (f.type) {
          case ReducerProtocol.MAP_FETCHED:
            awaitStarted();
            mapFetched(f);
            break;
          case ReducerProtocol.FETCH_FAILED:
            awaitStarted();
            fetchFailed(f);
            break;
          case ReducerProtocol.DATA:
          case ReducerProtocol.ERROR:
            if (!enqueue(f)) {
              return;
            }
            break;
          case ReducerProtocol.END:
            enqueue(f);
            return;
          default:
            throw new ReducerProtocol.ProtocolException("unexpected frame type " + f.type);
        }
      }
    } catch (Throwable t) {
      if (!closed) {
        reportException(t);
      }
    }
  }

  /** The scheduler is set before the first MAP_OUTPUT goes out; this only orders memory. */
  private void awaitStarted() throws IOException {
    if (!awaitUninterruptibly(started, JOIN_MS)) {
      throw new ReducerProtocol.ProtocolException("map output answer before any MAP_OUTPUT");
    }
  }

  /** Puts a frame for the consumer, waiting while it is slow; false once the session is over. */
  private boolean enqueue(ReducerProtocol.Frame f) {
    boolean waited = false;
    while (!closed) {
      try {
        if (stream.offer(f, POLL_MS, TimeUnit.MILLISECONDS)) {
          if (waited) {
            lastHeardMs = Time.monotonicNow(); // the silence clock starts with the next read
          }
          return true;
        }
        waited = true;
      } catch (InterruptedException e) {
        // Nobody should interrupt this thread; close() ends it through `closed`.
      }
    }
    return false;
  }

  private void mapFetched(ReducerProtocol.Frame f) throws IOException {
    ReducerProtocol.MapFetched m = ReducerProtocol.mapFetched(f);
    long index = m.index;
    long partLength = m.partLength;
    String attempt = m.attempt;
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
    ReducerProtocol.FetchFailed m = ReducerProtocol.fetchFailed(f);
    long index = m.index;
    boolean connectFailed = m.connectFailed;
    String attempt = m.attempt;
    String message = m.message;
    Pending p = pending.remove(attempt);
    if (p == null || p.id.getTaskID().getId() != index) {
      throw new ReducerProtocol.ProtocolException("FETCH_FAILED for unknown map " + index + " "
          + attempt);
    }
    if (connectFailed) {
      // The node's MOFSupplier refuses connections (after the NetMerger's retries): the node
      // cannot serve natively, e.g. its daemon would not start. That says nothing about the map
      // output, which its stock ShuffleHandler may well serve: no fetch failure for the AM
      // (those re-run maps); the session fails and, before the first record, the reduce runs
      // stock shuffle.
      throw new SupplierUnreachableException("the MOFSupplier on " + hostOnly(p.host.getHostName()) + ":"
          + supplierPort + " cannot be reached"
          + " (" + message + "); its map outputs are left to stock shuffle");
    }
    LOG.warn("NetMerger could not fetch {} from {}: {}", attempt, p.host.getHostName(), message);
    // As upstream's Fetcher: count the failure (the scheduler tells the AM when enough pile
    // up), then hand the map back so that it is asked for again (or replaced by a re-run).
    scheduler.copyFailed(p.id, p.host, !connectFailed, connectFailed);
    scheduler.putBackKnownMapOutput(p.host, p.id);
  }

  /** Keeps the first failure; the consumer and the scheduler loop see it on their next look. */
  @Override
  public void reportException(Throwable t) {
    synchronized (this) {
      if (failure == null) {
        failure = t;
      }
    }
    ShuffleSchedulerImpl<K, V> s = scheduler;
    if (s != null) {
      synchronized (s) {
        s.notifyAll();
      }
    }
  }

  /**
   * Throws the first failure of the session's threads or the scheduler, if any, or fails the
   * session if the NetMerger has been silent too long while map outputs are outstanding.
   */
  public void checkFailed() throws IOException {
    if (!pending.isEmpty()) {
      checkSilence("while " + pending.size() + " map outputs were outstanding");
    }
    Throwable t = failure;
    if (t != null) {
      throw asIOException(t);
    }
  }

  private static IOException asIOException(Throwable t) {
    return t instanceof IOException ? (IOException) t
        : new IOException("JBS shuffle failed: " + t, t);
  }

  /** Fails the session (and closes its socket) once the NetMerger is silent beyond the bound. */
  private void checkSilence(String when) {
    long silent = Time.monotonicNow() - lastHeardMs;
    if (silent > readTimeoutMs && failure == null) {
      reportException(new IOException("the NetMerger sent nothing for " + silent + " ms "
          + when + " (hadoop.accel.jbs.reducer.read.timeout.ms = " + readTimeoutMs + ")"));
      closeChannel();
    }
  }

  /** Stops the feeder (the scheduler is done), sends MERGE and waits for the first output. */
  public MergedStreamIterator merge() throws IOException {
    stopFeeder();
    checkFailed();
    lastHeardMs = Time.monotonicNow();
    send(ReducerProtocol.merge());
    ByteBuffer first = next();
    return first == null ? MergedStreamIterator.ended(this)
        : new MergedStreamIterator(this, fetchedPartBytes, first);
  }

  /** The feeder only waits on the scheduler and queues frames: an interrupt stops it safely. */
  private void stopFeeder() {
    Thread f = feeder;
    if (f != null) {
      f.interrupt();
      join(f);
    }
  }

  private static void join(Thread t) {
    if (t == null) {
      return;
    }
    boolean interrupted = false;
    long deadline = Time.monotonicNow() + JOIN_MS;
    try {
      while (t.isAlive() && Time.monotonicNow() < deadline) {
        try {
          t.join(Math.max(1, deadline - Time.monotonicNow()));
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * The next payload of the merged stream. Frames queued before the reader stopped are
   * delivered first; then its failure is thrown. Interrupts of the calling thread are kept for
   * it but do not end the wait (which the read timeout bounds).
   */
  @Override
  public ByteBuffer next() throws IOException {
    if (lentBody != null) {
      freeBodies.offer(lentBody);
      lentBody = null;
    }
    if (ended) {
      return null;
    }
    ReducerProtocol.Frame f = null;
    boolean interrupted = false;
    long lastProgress = Time.monotonicNow();
    try {
      while (f == null) {
        try {
          f = stream.poll(POLL_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
          continue;
        }
        if (f != null) {
          break;
        }
        if (stream.isEmpty()) {
          Throwable t = failure;
          if (t != null) {
            throw new IOException("JBS merged stream: " + describe(t), t);
          }
          if (closed) {
            throw new IOException("JBS session closed");
          }
          checkSilence("while the reduce waited for the merged stream");
        }
        // Alive as long as the NetMerger is within its bound (checkSilence fails it beyond).
        long now = Time.monotonicNow();
        if (now - lastProgress >= 1000) {
          reporter.progress();
          lastProgress = now;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
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

  private static String describe(Throwable t) {
    return t.getMessage() == null ? t.toString() : t.getMessage();
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

  /** Ends the session: no interrupts of the I/O threads, the closed socket wakes them. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    stopFeeder();
    outbox.add(STOP_WRITER);
    closeChannel();
    join(writer);
    join(reader);
  }
}
