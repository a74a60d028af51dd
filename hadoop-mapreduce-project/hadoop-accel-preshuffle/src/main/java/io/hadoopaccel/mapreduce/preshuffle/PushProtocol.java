package io.hadoopaccel.mapreduce.preshuffle;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import javax.crypto.SecretKey;
import org.apache.hadoop.mapred.TaskID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;

/**
 * One push on the wire: a map opens a connection to a reducer's receiver per message.
 *
 * <pre>
 * map    -&gt; reduce: int MAGIC, byte kind, UTF mapAttempt, int partition, int spill,
 *                   int progress, long rawLength, long partLength, UTF hash
 * reduce -&gt; map:    byte ACCEPT, UTF replyHash  |  byte REFUSE, UTF reason  |  byte AUTH_FAILED
 * map    -&gt; reduce: (SEGMENT only) partLength bytes: the spill's IFile segment for partition
 * reduce -&gt; map:    byte OK or FAILED (SEGMENT: stored; DONE: the reducer holds every segment;
 *                   LEFT: the reducer holds a prefix of the spills and will pull the rest)
 * </pre>
 *
 * For DONE and LEFT, {@code spill} is the map's number of spills. LEFT says that the spills
 * from {@code rawLength} on were not all pushed and can be pulled, one leftover output per
 * spill ({@link #leftover}), from the map's node as stock pulls a map output. For SEGMENT,
 * {@code progress} is the share of its input (in thousandths) the map had consumed when the
 * spill was written: the reducer's progress counts pushed data by it (seed 003 §5.3). The hash is the job token's HMAC of
 * every header field, and the reply hash the HMAC of that hash: each side proves the token as
 * stock's fetch and its reply hash do.
 */
public final class PushProtocol {
  public static final int MAGIC = 0x50534832; // "PSH2"
  /** {@code progress} of a whole map input. */
  public static final int WHOLE = 1000;
  public static final byte SEGMENT = 1;
  public static final byte DONE = 2;
  public static final byte LEFT = 3;

  public static final byte ACCEPT = 0;
  public static final byte REFUSE = 1;
  public static final byte AUTH_FAILED = 2;

  public static final byte OK = 0;
  public static final byte FAILED = 1;

  /**
   * Leftover outputs are named like attempts of the map, numbered from here: the attempt's own
   * number times {@link #LEFTOVER_SPILLS}, plus the spill.
   */
  static final int LEFTOVER_BASE = 1_000_000_000;
  static final int LEFTOVER_SPILLS = 10_000;

  /** The longest attempt id a receiver reads before authenticating (ids are ~40 chars). */
  static final int MAX_ID_CHARS = 256;

  private PushProtocol() {}

  /** A push's header. */
  public static final class Header {
    public final byte kind;
    public final String mapAttempt;
    public final int partition;
    public final int spill;
    public final int progress;
    public final long rawLength;
    public final long partLength;
    private String hash; // as read, to reply to

    public Header(byte kind, String mapAttempt, int partition, int spill, int progress,
        long rawLength, long partLength) {
      this.kind = kind;
      this.mapAttempt = mapAttempt;
      this.partition = partition;
      this.spill = spill;
      this.progress = progress;
      this.rawLength = rawLength;
      this.partLength = partLength;
    }

    String message() {
      return "preshuffle/" + kind + "/" + mapAttempt + "/" + partition + "/" + spill + "/"
          + progress + "/" + rawLength + "/" + partLength;
    }

    /** Writes the header and its hash; returns the hash the reply must be the HMAC of. */
    public String write(DataOutputStream out, SecretKey key) throws IOException {
      String hash = SecureShuffleUtils.hashFromString(message(), key);
      out.writeInt(MAGIC);
      out.writeByte(kind);
      out.writeUTF(mapAttempt);
      out.writeInt(partition);
      out.writeInt(spill);
      out.writeInt(progress);
      out.writeLong(rawLength);
      out.writeLong(partLength);
      out.writeUTF(hash);
      out.flush();
      return hash;
    }

    /**
     * Reads a header and checks its hash. Throws {@link AuthenticationException} for a bad
     * magic, malformed fields or a hash that does not prove the token, before anything else.
     */
    public static Header read(DataInputStream in, SecretKey key) throws IOException {
      if (in.readInt() != MAGIC) {
        throw new AuthenticationException("not a preshuffle push");
      }
      byte kind = in.readByte();
      String attempt = in.readUTF();
      Header h = new Header(kind, attempt, in.readInt(), in.readInt(), in.readInt(),
          in.readLong(), in.readLong());
      String hash = in.readUTF();
      if ((kind != SEGMENT && kind != DONE && kind != LEFT) || attempt.length() > MAX_ID_CHARS
          || h.spill < 0 || h.progress < 0 || h.progress > WHOLE || h.rawLength < 0
          || h.partLength < 0 || (kind == LEFT && h.rawLength > h.spill)) {
        throw new AuthenticationException("malformed push header");
      }
      try {
        SecureShuffleUtils.verifyReply(hash, h.message(), key);
      } catch (IOException e) {
        throw new AuthenticationException("push hash does not prove the job token");
      }
      h.hash = hash;
      return h;
    }

    /** The reply proving the receiver holds the token too. */
    public String replyHash(SecretKey key) {
      return SecureShuffleUtils.generateHash(hash.getBytes(StandardCharsets.UTF_8), key);
    }
  }

  /**
   * The name under which spill {@code spill} of {@code map} is left for its reducers to pull
   * (an attempt id no ApplicationMaster hands out), or null if the numbers do not fit. Ids are
   * {@code mapred} ones, as completion events and parsed shuffle headers carry (the two
   * classes' ids never equal each other).
   */
  public static TaskAttemptID leftover(TaskAttemptID map, int spill) {
    if (map.getId() >= (Integer.MAX_VALUE - LEFTOVER_BASE) / LEFTOVER_SPILLS - 1
        || spill >= LEFTOVER_SPILLS || isLeftover(map)) {
      return null;
    }
    return new org.apache.hadoop.mapred.TaskAttemptID(TaskID.downgrade(map.getTaskID()),
        LEFTOVER_BASE + map.getId() * LEFTOVER_SPILLS + spill);
  }

  public static boolean isLeftover(TaskAttemptID id) {
    return id.getId() >= LEFTOVER_BASE;
  }

  /** The map attempt a leftover output belongs to (a {@code mapred} id). */
  public static TaskAttemptID leftoverOf(TaskAttemptID leftover) {
    return new org.apache.hadoop.mapred.TaskAttemptID(TaskID.downgrade(leftover.getTaskID()),
        (leftover.getId() - LEFTOVER_BASE) / LEFTOVER_SPILLS);
  }

  /** The spill a leftover output holds. */
  public static int leftoverSpill(TaskAttemptID leftover) {
    return (leftover.getId() - LEFTOVER_BASE) % LEFTOVER_SPILLS;
  }

  /** Throws unless {@code reply} is the HMAC of {@code hash}: the receiver knows the token. */
  public static void verifyReply(String reply, String hash, SecretKey key) throws IOException {
    try {
      SecureShuffleUtils.verifyReply(reply, hash, key);
    } catch (IOException e) {
      throw new AuthenticationException("receiver's reply does not prove the job token");
    }
  }

  /** A peer that did not prove the job token, or spoke something else. */
  public static final class AuthenticationException extends IOException {
    private static final long serialVersionUID = 1L;

    public AuthenticationException(String message) {
      super(message);
    }
  }
}
