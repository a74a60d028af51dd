package io.hadoopaccel.mapreduce.jbs;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.zip.CRC32;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The Java end of DESIGN.md §3 (reduce task ↔ NetMerger): 12-byte frame header (magic
 * {@code JBSM}, version u16 = 2, type u16, body length u32; big-endian), frame types 16..25,
 * strings as u16 length + bytes. Decoders bound every length before reading.
 */
public final class ReducerProtocol {
  public static final int MAGIC = 0x4A42534D;
  /** 2: REGISTER carries the reduce's nonce, REGISTERED the NetMerger's proof over it. */
  public static final int VERSION = 2;
  public static final int HEADER_SIZE = 12;

  public static final int HELLO = 16;
  public static final int REGISTER = 17;
  public static final int REGISTERED = 18;
  public static final int MAP_OUTPUT = 19;
  public static final int MAP_FETCHED = 20;
  public static final int FETCH_FAILED = 21;
  public static final int MERGE = 22;
  public static final int DATA = 23;
  public static final int END = 24;
  public static final int ERROR = 25;

  public static final int NONCE_LENGTH = 16;
  public static final int MAX_DATA_PAYLOAD = 256 * 1024;
  public static final int MAX_CONTROL_BODY = 2048;

  /** key_type values. */
  public static final int KEY_TEXT = 1;
  public static final int KEY_BYTES_WRITABLE = 2;
  public static final int KEY_INT = 3;
  public static final int KEY_LONG = 4;
  /** codec values. */
  public static final int CODEC_NONE = 0;
  public static final int CODEC_ZLIB = 1;
  /** Hadoop's SnappyCodec / Lz4Codec block framing; optional in a NetMerger build. */
  public static final int CODEC_SNAPPY = 2;
  public static final int CODEC_LZ4 = 3;
  /** REGISTERED status: key type or codec not supported by this NetMerger. */
  public static final int STATUS_UNSUPPORTED = 2;

  private ReducerProtocol() {}

  /** One received frame: its type and its body, {@code body[0..length)}. */
  public static final class Frame {
    public final int type;
    public final byte[] body;
    public final int length;

    public Frame(int type, byte[] body) {
      this(type, body, body.length);
    }

    public Frame(int type, byte[] body, int length) {
      this.type = type;
      this.body = body;
      this.length = length;
    }
  }

  /** END's statistics. */
  public static final class EndStats {
    public final long records;
    public final long streamBytes;
    public final long fetchedBytes;
    public final long mergePasses;
    public final long spilledBytes;

    EndStats(long records, long streamBytes, long fetchedBytes, long mergePasses,
        long spilledBytes) {
      this.records = records;
      this.streamBytes = streamBytes;
      this.fetchedBytes = fetchedBytes;
      this.mergePasses = mergePasses;
      this.spilledBytes = spilledBytes;
    }
  }

  // ------------------------------------------------------------------- encoding (C -> S)

  private static byte[] frame(int type, byte[] body) {
    ByteBuffer b = ByteBuffer.allocate(HEADER_SIZE + body.length);
    b.putInt(MAGIC).putShort((short) VERSION).putShort((short) type).putInt(body.length)
        .put(body);
    return b.array();
  }

  private static void putString(DataOutputStream out, byte[] s) throws IOException {
    if (s.length > 0xFFFF) {
      throw new IOException("string of " + s.length + " bytes does not fit a u16 length");
    }
    out.writeShort(s.length);
    out.write(s);
  }

  public static byte[] register(int partition, int numMaps, int keyType, int codec, String job,
      byte[] auth, byte[] clientNonce) throws IOException {
    if (clientNonce.length != NONCE_LENGTH) {
      throw new IOException("client nonce must be " + NONCE_LENGTH + " bytes");
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(partition);
    out.writeInt(numMaps);
    out.writeByte(keyType);
    out.writeByte(codec);
    out.writeShort(0);
    putString(out, job.getBytes(StandardCharsets.UTF_8));
    putString(out, auth);
    out.write(clientNonce);
    return frame(REGISTER, bytes.toByteArray());
  }

  public static byte[] mapOutput(int mapIndex, int port, String attempt, String host)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(mapIndex);
    out.writeShort(port);
    putString(out, attempt.getBytes(StandardCharsets.UTF_8));
    putString(out, host.getBytes(StandardCharsets.UTF_8));
    return frame(MAP_OUTPUT, bytes.toByteArray());
  }

  public static byte[] merge() {
    return frame(MERGE, new byte[0]);
  }

  /** RegisterMac: HMAC-SHA1(secret, "JBS1-REGISTER|job|partition|nonce as lowercase hex"). */
  public static byte[] registerMac(byte[] secret, String job, int partition, byte[] nonce) {
    return hmacSha1(secret, "JBS1-REGISTER|" + job + "|" + Integer.toUnsignedString(partition)
        + "|" + hex(nonce));
  }

  /**
   * RegisteredMac, the NetMerger's proof in an OK REGISTERED: HMAC-SHA1(secret,
   * "JBS1-REGISTERED|job|partition|server nonce hex|client nonce hex").
   */
  public static byte[] registeredMac(byte[] secret, String job, int partition,
      byte[] serverNonce, byte[] clientNonce) {
    return hmacSha1(secret, "JBS1-REGISTERED|" + job + "|" + Integer.toUnsignedString(partition)
        + "|" + hex(serverNonce) + "|" + hex(clientNonce));
  }

  private static byte[] hmacSha1(byte[] secret, String msg) {
    try {
      Mac mac = Mac.getInstance("HmacSHA1");
      mac.init(new SecretKeySpec(secret, "HmacSHA1"));
      return mac.doFinal(msg.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA1 unavailable", e);
    }
  }

  public static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder(b.length * 2);
    for (byte x : b) {
      sb.append(Character.forDigit((x >> 4) & 0xF, 16)).append(Character.forDigit(x & 0xF, 16));
    }
    return sb.toString();
  }

  // ------------------------------------------------------------------- decoding (S -> C)

  private static void readFully(InputStream in, byte[] b, int off, int len, boolean atStart)
      throws IOException {
    int done = 0;
    while (done < len) {
      int n = in.read(b, off + done, len - done);
      if (n < 0) {
        if (atStart && done == 0) {
          throw new EOFException("NetMerger closed the connection");
        }
        throw new EOFException("NetMerger closed the connection inside a frame");
      }
      done += n;
    }
  }

  /** Reads one frame; checks magic, version, type range and the body bound of the type. */
  public static Frame read(InputStream in) throws IOException {
    return read(in, null);
  }

  /**
   * As {@link #read(InputStream)}, but a DATA body goes into {@code dataBuffer} when it fits
   * (then the frame holds that array), so a reader can recycle its buffers.
   */
  public static Frame read(InputStream in, byte[] dataBuffer) throws IOException {
    byte[] h = new byte[HEADER_SIZE];
    readFully(in, h, 0, HEADER_SIZE, true);
    ByteBuffer b = ByteBuffer.wrap(h);
    int magic = b.getInt();
    int version = b.getShort() & 0xFFFF;
    int type = b.getShort() & 0xFFFF;
    long len = b.getInt() & 0xFFFFFFFFL;
    if (magic != MAGIC) {
      throw new ProtocolException("bad frame magic 0x" + Integer.toHexString(magic));
    }
    if (version != VERSION) {
      throw new ProtocolException("unsupported protocol version " + version);
    }
    long max;
    switch (type) {
      case DATA:
        if (len < 4) {
          throw new ProtocolException("DATA frame of " + len + " bytes");
        }
        max = 4 + MAX_DATA_PAYLOAD;
        break;
      case MERGE:
        max = 0;
        break;
      case HELLO: case REGISTERED: case MAP_FETCHED: case FETCH_FAILED: case END: case ERROR:
        max = MAX_CONTROL_BODY;
        break;
      default:
        throw new ProtocolException("unexpected frame type " + type);
    }
    if (len > max) {
      throw new ProtocolException("frame type " + type + " of " + len + " bytes (max " + max
          + ")");
    }
    byte[] body = type == DATA && dataBuffer != null && dataBuffer.length >= len ? dataBuffer
        : new byte[(int) len];
    readFully(in, body, 0, (int) len, false);
    return new Frame(type, body, (int) len);
  }

  /** A malformed or unexpected frame. */
  public static final class ProtocolException extends IOException {
    private static final long serialVersionUID = 1L;

    public ProtocolException(String msg) {
      super(msg);
    }
  }

  /** Reads the fields of a body, refusing to run past it. */
  public static final class Body {
    private final ByteBuffer b;
    private final int type;

    public Body(Frame f) {
      this.b = ByteBuffer.wrap(f.body, 0, f.length);
      this.type = f.type;
    }

    private void need(int n) throws ProtocolException {
      if (b.remaining() < n) {
        throw new ProtocolException("frame type " + type + " is truncated");
      }
    }

    public int u8() throws ProtocolException {
      need(1);
      return b.get() & 0xFF;
    }

    public int u16() throws ProtocolException {
      need(2);
      return b.getShort() & 0xFFFF;
    }

    public long u32() throws ProtocolException {
      need(4);
      return b.getInt() & 0xFFFFFFFFL;
    }

    public long u64() throws ProtocolException {
      need(8);
      long v = b.getLong();
      if (v < 0) {
        throw new ProtocolException("frame type " + type + ": u64 value beyond 2^63");
      }
      return v;
    }

    public byte[] bytes(int n) throws ProtocolException {
      need(n);
      byte[] out = new byte[n];
      b.get(out);
      return out;
    }

    public String string() throws ProtocolException {
      int n = u16();
      return new String(bytes(n), StandardCharsets.UTF_8);
    }

    /** The body must have been consumed exactly. */
    public void end() throws ProtocolException {
      if (b.hasRemaining()) {
        throw new ProtocolException("frame type " + type + " has " + b.remaining()
            + " bytes left over");
      }
    }
  }

  public static byte[] hello(Frame f) throws ProtocolException {
    expect(f, HELLO);
    Body b = new Body(f);
    byte[] nonce = b.bytes(NONCE_LENGTH);
    b.end();
    return nonce;
  }

  /** REGISTERED: status (0 = accepted), a message and the NetMerger's proof (registeredMac). */
  public static final class Registered {
    public final int status;
    public final String message;
    public final byte[] proof;

    Registered(int status, String message, byte[] proof) {
      this.status = status;
      this.message = message;
      this.proof = proof;
    }
  }

  public static Registered registered(Frame f) throws ProtocolException {
    expect(f, REGISTERED);
    Body b = new Body(f);
    int status = b.u16();
    String message = b.string();
    Registered r = new Registered(status, message, b.bytes(b.u16()));
    b.end();
    return r;
  }

  /** MAP_FETCHED: the map's index, its partition's on-disk length, its attempt id. */
  public static final class MapFetched {
    public final long index;
    public final long partLength;
    public final String attempt;

    MapFetched(long index, long partLength, String attempt) {
      this.index = index;
      this.partLength = partLength;
      this.attempt = attempt;
    }
  }

  public static MapFetched mapFetched(Frame f) throws ProtocolException {
    expect(f, MAP_FETCHED);
    Body b = new Body(f);
    MapFetched m = new MapFetched(b.u32(), b.u64(), b.string());
    b.end();
    return m;
  }

  /** FETCH_FAILED: the map's index, whether connecting failed, its attempt id, why. */
  public static final class FetchFailed {
    public final long index;
    public final boolean connectFailed;
    public final String attempt;
    public final String message;

    FetchFailed(long index, boolean connectFailed, String attempt, String message) {
      this.index = index;
      this.connectFailed = connectFailed;
      this.attempt = attempt;
      this.message = message;
    }
  }

  public static FetchFailed fetchFailed(Frame f) throws ProtocolException {
    expect(f, FETCH_FAILED);
    Body b = new Body(f);
    FetchFailed m = new FetchFailed(b.u32(), b.u8() != 0, b.string(), b.string());
    b.end();
    return m;
  }

  /** The payload of a DATA frame after checking its CRC-32 (a view of the frame's array). */
  public static ByteBuffer data(Frame f) throws IOException {
    expect(f, DATA);
    ByteBuffer b = ByteBuffer.wrap(f.body, 0, f.length);
    long crc = b.getInt() & 0xFFFFFFFFL;
    CRC32 c = new CRC32();
    c.update(f.body, 4, f.length - 4);
    if (c.getValue() != crc) {
      throw new IOException("DATA frame CRC-32 mismatch (frame says 0x" + Long.toHexString(crc)
          + ", payload has 0x" + Long.toHexString(c.getValue()) + ")");
    }
    return b.slice();
  }

  public static EndStats end(Frame f) throws ProtocolException {
    expect(f, END);
    Body b = new Body(f);
    EndStats s = new EndStats(b.u64(), b.u64(), b.u64(), b.u32(), b.u64());
    b.end();
    return s;
  }

  /** The text of an ERROR frame ("code N: message"). */
  public static String error(Frame f) throws ProtocolException {
    expect(f, ERROR);
    Body b = new Body(f);
    int code = b.u16();
    String msg = b.string();
    b.end();
    return "code " + code + ": " + msg;
  }

  public static void expect(Frame f, int type) throws ProtocolException {
    if (f.type != type) {
      throw new ProtocolException("expected frame type " + type + ", got " + f.type);
    }
  }
}
