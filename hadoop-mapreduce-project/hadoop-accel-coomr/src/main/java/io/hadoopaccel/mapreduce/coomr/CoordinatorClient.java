package io.hadoopaccel.mapreduce.coomr;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * A task's side of the node coordinator's protocol (the native {@code coordinator_protocol.h}):
 * attach, ask for pool blocks before a spill, give them back, hand the map output over, detach;
 * and the NodeManager's shuffle's side ({@link #lookups}). Frames are a u32 body
 * length, then a u8 type and its fields, little-endian; one request, one reply. Every wait on
 * the coordinator is bounded by the timeout: a coordinator that dies or hangs fails the call,
 * never the task's progress.
 */
public final class CoordinatorClient implements Closeable {
  static final int MAX_FRAME = 4096;
  static final byte ATTACH = 1;
  static final byte ATTACHED = 2;
  static final byte REQUEST = 3;
  static final byte GRANTED = 4;
  static final byte RELEASE = 5;
  static final byte DETACH = 6;
  static final byte OK = 7;
  static final byte HANDOVER = 8;
  static final byte ERROR = 9;
  static final byte LOOKUP = 10;
  static final byte LOCATED = 11;
  static final int MAX_STRING = 1024;

  private final SocketChannel channel;
  private final Selector selector;
  private final long timeoutMs;
  private final int blockSize;
  private final long poolBlocks;
  private final Path dir;
  private final boolean servesOutputs;
  private boolean detached;

  private CoordinatorClient(SocketChannel channel, Selector selector, long timeoutMs,
      ByteBuffer attached) throws IOException {
    this.channel = channel;
    this.selector = selector;
    this.timeoutMs = timeoutMs;
    this.blockSize = attached.getInt();
    this.poolBlocks = attached.getLong();
    this.dir = Paths.get(string(attached));
    this.servesOutputs = attached.get() == 1;
  }

  /**
   * Attaches a task attempt to the coordinator listening on {@code socket}.
   *
   * @throws IOException if the coordinator cannot be reached in time or refuses the task
   */
  public static CoordinatorClient attach(Path socket, String job, String attempt, long timeoutMs)
      throws IOException {
    return connect(socket, timeoutMs, (ch, sel) -> {
      ByteBuffer req = frame(ATTACH);
      putString(req, job);
      putString(req, attempt);
      ByteBuffer reply = call(ch, sel, timeoutMs, req, ATTACHED);
      return new CoordinatorClient(ch, sel, timeoutMs, reply);
    });
  }

  /** Bytes per block of the pool. */
  public int blockSize() {
    return blockSize;
  }

  /** Blocks in the whole pool. */
  public long poolBlocks() {
    return poolBlocks;
  }

  /** The attempt's own dir in the pool (0700), where granted spills go. */
  public Path dir() {
    return dir;
  }

  /**
   * True if the node's shuffle asks the coordinator where map outputs are: a map may then leave
   * its output in the pool and {@link #handover} it.
   */
  public boolean servesOutputs() {
    return servesOutputs;
  }

  /**
   * Gives the map output ({@code file.out} and {@code file.out.index} in {@link #dir}) and the
   * blocks it holds to the coordinator, which writes them to these disk paths (stock's).
   */
  public void handover(String data, String index) throws IOException {
    ByteBuffer req = frame(HANDOVER);
    putString(req, data);
    putString(req, index);
    call(channel, selector, timeoutMs, req, OK);
  }

  /** Asks for room for {@code bytes}; returns the blocks granted, 0 when refused. */
  public long request(long bytes) throws IOException {
    ByteBuffer req = frame(REQUEST);
    req.putLong(bytes);
    return call(channel, selector, timeoutMs, req, GRANTED).getLong();
  }

  /** Gives blocks back (their data has left the pool). */
  public void release(long blocks) throws IOException {
    ByteBuffer req = frame(RELEASE);
    req.putLong(blocks);
    call(channel, selector, timeoutMs, req, OK);
  }

  /** Ends the attachment: the attempt's dir and whatever blocks it still holds go. */
  public void detach() throws IOException {
    if (!detached) {
      detached = true;
      call(channel, selector, timeoutMs, frame(DETACH), OK);
    }
  }

  @Override
  public void close() throws IOException {
    closeChannel(selector, channel);
  }

  private static void closeChannel(Selector selector, SocketChannel channel) throws IOException {
    try {
      selector.close();
    } finally {
      channel.close();
    }
  }

  /**
   * The NodeManager's shuffle's connection: while it is open, the coordinator tells maps that
   * their outputs may stay in the pool. One lookup at a time.
   */
  public static final class Lookups implements Closeable {
    private final SocketChannel channel;
    private final Selector selector;
    private final long timeoutMs;

    private Lookups(SocketChannel channel, Selector selector, long timeoutMs) {
      this.channel = channel;
      this.selector = selector;
      this.timeoutMs = timeoutMs;
    }

    /** Where the attempt's output is now: {data, index}, or null when the coordinator has none. */
    public synchronized String[] lookup(String job, String attempt) throws IOException {
      ByteBuffer req = frame(LOOKUP);
      putString(req, job);
      putString(req, attempt);
      ByteBuffer reply = call(channel, selector, timeoutMs, req, LOCATED);
      String data = string(reply);
      String index = string(reply);
      return data.isEmpty() ? null : new String[] {data, index};
    }

    @Override
    public void close() throws IOException {
      closeChannel(selector, channel);
    }
  }

  /** Opens the shuffle's connection (its first lookup registers it). */
  public static Lookups lookups(Path socket, long timeoutMs) throws IOException {
    return connect(socket, timeoutMs, (ch, sel) -> {
      Lookups l = new Lookups(ch, sel, timeoutMs);
      l.lookup("none", "none");
      return l;
    });
  }

  /** What to do on a new connection; it is closed if that fails. */
  private interface OnConnect<T> {
    T run(SocketChannel ch, Selector sel) throws IOException;
  }

  private static <T> T connect(Path socket, long timeoutMs, OnConnect<T> then)
      throws IOException {
    SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
    Selector sel = null;
    try {
      // Non-blocking, so that a coordinator whose listen backlog is full cannot hang us.
      ch.configureBlocking(false);
      sel = Selector.open();
      ch.register(sel, 0);
      long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
      if (!ch.connect(UnixDomainSocketAddress.of(socket))) {
        while (!ch.finishConnect()) {
          await(ch, sel, SelectionKey.OP_CONNECT, deadline);
        }
      }
      return then.run(ch, sel);
    } catch (IOException | RuntimeException e) {
      if (sel != null) {
        sel.close();
      }
      ch.close();
      throw e;
    }
  }

  private static ByteBuffer frame(byte type) {
    ByteBuffer b = ByteBuffer.allocate(MAX_FRAME + 4).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(0); // the body's length, set when sent
    b.put(type);
    return b;
  }

  private static void putString(ByteBuffer b, String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_STRING) {
      throw new IllegalArgumentException("name too long for the coordinator: " + s);
    }
    b.putShort((short) bytes.length);
    b.put(bytes);
  }

  private static String string(ByteBuffer b) {
    byte[] bytes = new byte[Short.toUnsignedInt(b.getShort())];
    b.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** Sends a request and reads its reply, which must be of type {@code expected}. */
  private static ByteBuffer call(SocketChannel ch, Selector sel, long timeoutMs, ByteBuffer req,
      byte expected) throws IOException {
    long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
    req.putInt(0, req.position() - 4).flip();
    while (req.hasRemaining()) {
      if (ch.write(req) == 0) {
        await(ch, sel, SelectionKey.OP_WRITE, deadline);
      }
    }
    ByteBuffer len = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
    readFully(ch, sel, len, deadline);
    int n = len.getInt(0);
    if (n <= 0 || n > MAX_FRAME) {
      throw new IOException("coordinator sent a frame of " + n + " bytes");
    }
    ByteBuffer body = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
    readFully(ch, sel, body, deadline);
    body.flip();
    byte type = body.get();
    if (type == ERROR) {
      throw new IOException("coordinator refused: " + string(body));
    }
    if (type != expected) {
      throw new IOException("coordinator answered type " + type + ", expected " + expected);
    }
    return body;
  }

  private static void readFully(SocketChannel ch, Selector sel, ByteBuffer b, long deadline)
      throws IOException {
    while (b.hasRemaining()) {
      int r = ch.read(b);
      if (r < 0) {
        throw new EOFException("coordinator closed the connection");
      }
      if (r == 0) {
        await(ch, sel, SelectionKey.OP_READ, deadline);
      }
    }
  }

  private static void await(SocketChannel ch, Selector sel, int op, long deadline)
      throws IOException {
    long leftMs = (deadline - System.nanoTime()) / 1_000_000L;
    if (leftMs <= 0) {
      throw new SocketTimeoutException("coordinator did not answer in time");
    }
    ch.keyFor(sel).interestOps(op);
    sel.select(leftMs);
    sel.selectedKeys().clear();
  }
}
