package io.hadoopaccel.hdfs.psp;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Objects;
import org.apache.hadoop.security.token.Token;

/**
 * One request to a prefetcher: preload (or release) a byte range of one block replica, with the
 * block token that lets its sender read that block. On the wire (after the connection's
 * {@link #MAGIC}): op, block pool, block id, generation stamp, offset, length, token.
 */
public final class PrefetchRequest {
  /** First int of every connection: protocol "PSP" version 1. */
  public static final int MAGIC = 0x50535001;
  /** Largest serialized block token accepted (real ones are a few hundred bytes). */
  static final int MAX_TOKEN_BYTES = 16 * 1024;
  /** Largest block pool id accepted ("BP-<random>-<ip>-<time>"). */
  static final int MAX_POOL_ID_CHARS = 256;

  /** What to do with the range. */
  public enum Op {
    /** Load the range into the page cache and hold it against the node's bound. */
    PREFETCH,
    /** The map that was to read the block has been placed: stop counting it. */
    RELEASE
  }

  public final Op op;
  public final String poolId;
  public final long blockId;
  public final long genStamp;
  public final long offset;
  public final long length;
  /** The block token, serialized by {@link Token#write}; empty when tokens are off. */
  final byte[] token;

  public PrefetchRequest(Op op, String poolId, long blockId, long genStamp, long offset,
      long length, Token<?> token) throws IOException {
    this(op, poolId, blockId, genStamp, offset, length, serialize(token));
  }

  PrefetchRequest(Op op, String poolId, long blockId, long genStamp, long offset, long length,
      byte[] token) {
    this.op = Objects.requireNonNull(op);
    this.poolId = Objects.requireNonNull(poolId);
    this.blockId = blockId;
    this.genStamp = genStamp;
    this.offset = offset;
    this.length = length;
    this.token = token;
  }

  /** This request as a release of the same range. */
  public PrefetchRequest toRelease() {
    return new PrefetchRequest(Op.RELEASE, poolId, blockId, genStamp, offset, length, token);
  }

  /** The block token, or null if the sender had none. */
  public Token<?> token() throws IOException {
    if (token.length == 0) {
      return null;
    }
    Token<?> t = new Token<>();
    t.readFields(new DataInputStream(new ByteArrayInputStream(token)));
    return t;
  }

  /** Identifies the replica on one node. */
  public String blockKey() {
    return poolId + ":" + blockId;
  }

  void write(DataOutputStream out) throws IOException {
    out.writeByte(op.ordinal());
    out.writeUTF(poolId);
    out.writeLong(blockId);
    out.writeLong(genStamp);
    out.writeLong(offset);
    out.writeLong(length);
    out.writeInt(token.length);
    out.write(token);
  }

  /** Reads one request; a malformed one is an IOException (the connection is then closed). */
  static PrefetchRequest read(DataInputStream in) throws IOException {
    int op = in.readUnsignedByte();
    if (op >= Op.values().length) {
      throw new IOException("unknown op " + op);
    }
    String pool = in.readUTF();
    if (pool.length() > MAX_POOL_ID_CHARS) {
      throw new IOException("block pool id too long");
    }
    long blockId = in.readLong();
    long genStamp = in.readLong();
    long offset = in.readLong();
    long length = in.readLong();
    if (offset < 0 || length < 0) {
      throw new IOException("negative range");
    }
    int tokenLen = in.readInt();
    if (tokenLen < 0 || tokenLen > MAX_TOKEN_BYTES) {
      throw new IOException("token of " + tokenLen + " bytes");
    }
    byte[] token = new byte[tokenLen];
    in.readFully(token);
    return new PrefetchRequest(Op.values()[op], pool, blockId, genStamp, offset, length, token);
  }

  private static byte[] serialize(Token<?> token) throws IOException {
    if (token == null) {
      return new byte[0];
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      token.write(out);
    }
    return bytes.toByteArray();
  }

  @Override
  public String toString() {
    return op + " " + blockKey() + "_" + genStamp + " [" + offset + "+" + length + ")";
  }
}
