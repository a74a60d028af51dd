package io.hadoopaccel.hdfs.psp;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/** A prefetcher's answer to one request: what happened and how many bytes it loaded. */
public final class PrefetchReply {
  /** Outcome of a request. */
  public enum Status {
    /** The range was read into the page cache. */
    LOADED,
    /** The range was already held for an earlier request. */
    ALREADY_HELD,
    /** A release was recorded. */
    RELEASED,
    /** The block token is missing, forged, expired or for another block: nothing was read. */
    REFUSED_TOKEN,
    /** This node holds no finalized replica of the block (or of that generation). */
    NO_REPLICA,
    /** The node's bound on preloaded bytes (or on concurrent loads) is reached. */
    FULL,
    /** Anything else (I/O error reading the replica). */
    FAILED,
    /** The range was wholly in the page cache already: held, and nothing was read. */
    RESIDENT
  }

  public final Status status;
  public final long bytes;

  public PrefetchReply(Status status, long bytes) {
    this.status = status;
    this.bytes = bytes;
  }

  void write(DataOutputStream out) throws IOException {
    out.writeByte(status.ordinal());
    out.writeLong(bytes);
  }

  static PrefetchReply read(DataInputStream in) throws IOException {
    int s = in.readUnsignedByte();
    if (s >= Status.values().length) {
      throw new IOException("unknown reply status " + s);
    }
    return new PrefetchReply(Status.values()[s], in.readLong());
  }

  @Override
  public String toString() {
    return status + " " + bytes;
  }
}
