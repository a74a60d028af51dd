package io.hadoopaccel.mapreduce.jbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.WritableUtils;
import org.junit.jupiter.api.Test;

/** The Java codec of DESIGN.md §3 and the merged-stream iterator. */
class TestReducerProtocol {

  static byte[] frame(int type, byte[] body) {
    ByteBuffer b = ByteBuffer.allocate(12 + body.length);
    b.putInt(0x4A42534D).putShort((short) 2).putShort((short) type).putInt(body.length).put(body);
    return b.array();
  }

  static byte[] dataFrame(byte[] payload, boolean corrupt) {
    CRC32 c = new CRC32();
    c.update(payload);
    ByteBuffer body = ByteBuffer.allocate(4 + payload.length);
    body.putInt((int) c.getValue() ^ (corrupt ? 1 : 0)).put(payload);
    return frame(ReducerProtocol.DATA, body.array());
  }

  static byte[] endFrame(long records, long streamBytes, long fetched, int passes, long spilled) {
    ByteBuffer b = ByteBuffer.allocate(36);
    b.putLong(records).putLong(streamBytes).putLong(fetched).putInt(passes).putLong(spilled);
    return frame(ReducerProtocol.END, b.array());
  }

  static byte[] errorFrame(int code, String msg) {
    byte[] m = msg.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(4 + m.length);
    b.putShort((short) code).putShort((short) m.length).put(m);
    return frame(ReducerProtocol.ERROR, b.array());
  }

  @Test
  void encodesRegisterMapOutputAndMergeByteForByte() throws IOException {
    byte[] auth = new byte[20];
    Arrays.fill(auth, (byte) 7);
    byte[] clientNonce = new byte[16];
    Arrays.fill(clientNonce, (byte) 9);
    byte[] reg = ReducerProtocol.register(3, 10, ReducerProtocol.KEY_TEXT,
        ReducerProtocol.CODEC_ZLIB, "job_1_0002", auth, clientNonce);
    ByteBuffer b = ByteBuffer.wrap(reg);
    assertEquals(0x4A42534D, b.getInt());
    assertEquals(2, b.getShort());
    assertEquals(17, b.getShort());
    assertEquals(reg.length - 12, b.getInt());
    assertEquals(3, b.getInt());
    assertEquals(10, b.getInt());
    assertEquals(1, b.get());
    assertEquals(1, b.get());
    assertEquals(0, b.getShort());
    assertEquals(10, b.getShort());
    byte[] job = new byte[10];
    b.get(job);
    assertEquals("job_1_0002", new String(job, StandardCharsets.US_ASCII));
    assertEquals(20, b.getShort());
    byte[] a = new byte[20];
    b.get(a);
    assertArrayEquals(auth, a);
    byte[] n = new byte[16];
    b.get(n);
    assertArrayEquals(clientNonce, n);
    assertFalse(b.hasRemaining());

    byte[] mo = ReducerProtocol.mapOutput(5, 13570, "attempt_1_0002_m_000005_1", "node7");
    b = ByteBuffer.wrap(mo);
    b.position(6);
    assertEquals(19, b.getShort());
    assertEquals(mo.length - 12, b.getInt());
    assertEquals(5, b.getInt());
    assertEquals(13570, b.getShort() & 0xFFFF);
    assertEquals(25, b.getShort());
    b.position(b.position() + 25);
    assertEquals(5, b.getShort());

    assertArrayEquals(frame(22, new byte[0]), ReducerProtocol.merge());
  }

  @Test
  void registerMacIsHmacSha1OverTheDesignString() throws Exception {
    byte[] secret = "s3cret".getBytes(StandardCharsets.UTF_8);
    byte[] nonce = new byte[16];
    for (int i = 0; i < 16; i++) {
      nonce[i] = (byte) (0xF0 + i);
    }
    Mac mac = Mac.getInstance("HmacSHA1");
    mac.init(new SecretKeySpec(secret, "HmacSHA1"));
    byte[] expected = mac.doFinal(("JBS1-REGISTER|job_1_0002|3|"
        + "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff").getBytes(StandardCharsets.UTF_8));
    assertArrayEquals(expected, ReducerProtocol.registerMac(secret, "job_1_0002", 3, nonce));
    assertEquals(20, expected.length);
  }

  @Test
  void registeredMacIsHmacSha1OverBothNonces() throws Exception {
    byte[] secret = "s3cret".getBytes(StandardCharsets.UTF_8);
    byte[] server = new byte[16];
    byte[] client = new byte[16];
    for (int i = 0; i < 16; i++) {
      server[i] = (byte) (0xF0 + i);
      client[i] = (byte) i;
    }
    Mac mac = Mac.getInstance("HmacSHA1");
    mac.init(new SecretKeySpec(secret, "HmacSHA1"));
    byte[] expected = mac.doFinal(("JBS1-REGISTERED|job_1_0002|3|"
        + "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff|000102030405060708090a0b0c0d0e0f")
        .getBytes(StandardCharsets.UTF_8));
    assertArrayEquals(expected,
        ReducerProtocol.registeredMac(secret, "job_1_0002", 3, server, client));
  }

  @Test
  void decodesFramesAndRefusesBadHeaders() throws IOException {
    byte[] nonce = new byte[16];
    nonce[3] = 9;
    assertArrayEquals(nonce, ReducerProtocol.hello(ReducerProtocol.read(
        new ByteArrayInputStream(frame(16, nonce)))));
    ReducerProtocol.EndStats s = ReducerProtocol.end(ReducerProtocol.read(
        new ByteArrayInputStream(endFrame(4, 50, 60, 2, 70))));
    assertEquals(4, s.records);
    assertEquals(50, s.streamBytes);
    assertEquals(60, s.fetchedBytes);
    assertEquals(2, s.mergePasses);
    assertEquals(70, s.spilledBytes);
    assertEquals("code 3: lost", ReducerProtocol.error(ReducerProtocol.read(
        new ByteArrayInputStream(errorFrame(3, "lost")))));

    byte[] bad = frame(16, nonce);
    bad[0] = 'X';
    assertThrows(ReducerProtocol.ProtocolException.class,
        () -> ReducerProtocol.read(new ByteArrayInputStream(bad)));
    byte[] badVersion = frame(16, nonce);
    badVersion[5] = 3;
    assertThrows(ReducerProtocol.ProtocolException.class,
        () -> ReducerProtocol.read(new ByteArrayInputStream(badVersion)));
    // A control frame longer than its bound, a type the reduce never receives.
    assertThrows(ReducerProtocol.ProtocolException.class, () -> ReducerProtocol.read(
        new ByteArrayInputStream(frame(18, new byte[4096]))));
    assertThrows(ReducerProtocol.ProtocolException.class, () -> ReducerProtocol.read(
        new ByteArrayInputStream(frame(17, new byte[4]))));
    // HELLO with a short nonce; END with bytes left over; truncated body.
    assertThrows(ReducerProtocol.ProtocolException.class, () -> ReducerProtocol.hello(
        ReducerProtocol.read(new ByteArrayInputStream(frame(16, new byte[15])))));
    assertThrows(ReducerProtocol.ProtocolException.class, () -> ReducerProtocol.end(
        ReducerProtocol.read(new ByteArrayInputStream(frame(24, new byte[37])))));
    byte[] cut = Arrays.copyOf(frame(16, nonce), 20);
    assertThrows(java.io.EOFException.class,
        () -> ReducerProtocol.read(new ByteArrayInputStream(cut)));
  }

  // ------------------------------------------------------------------------- iterator

  /**
   * A PayloadSource over prepared frames. Like the session, which recycles DATA bodies, it
   * overwrites the previous payload on each call, so an iterator still reading a released
   * payload returns wrong records.
   */
  static final class FrameSource implements MergedStreamIterator.PayloadSource {
    final Deque<byte[]> frames;
    boolean closed;
    ByteBuffer lent;

    FrameSource(List<byte[]> frames) {
      this.frames = new ArrayDeque<>(frames);
    }

    @Override
    public ByteBuffer next() throws IOException {
      if (lent != null) {
        Arrays.fill(lent.array(), (byte) 0x5A);
        lent = null;
      }
      if (frames.isEmpty()) {
        throw new java.io.EOFException("NetMerger closed the connection");
      }
      ReducerProtocol.Frame f = ReducerProtocol.read(new ByteArrayInputStream(frames.poll()));
      switch (f.type) {
        case ReducerProtocol.DATA:
          lent = ReducerProtocol.data(f);
          return lent;
        case ReducerProtocol.END:
          ReducerProtocol.end(f);
          return null;
        default:
          throw new IOException("NetMerger error " + ReducerProtocol.error(f));
      }
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /** Records in Hadoop's raw layout; keys and values of varied sizes incl. empty and large. */
  static List<byte[][]> records(Random r, int n) {
    List<byte[][]> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int kl = r.nextInt(10) == 0 ? 0 : r.nextInt(r.nextInt(20) == 0 ? 70_000 : 40);
      int vl = r.nextInt(10) == 0 ? 0 : r.nextInt(r.nextInt(20) == 0 ? 300_000 : 200);
      byte[] k = new byte[kl];
      byte[] v = new byte[vl];
      r.nextBytes(k);
      r.nextBytes(v);
      out.add(new byte[][] {k, v});
    }
    return out;
  }

  static byte[] stream(List<byte[][]> recs) throws IOException {
    DataOutputBuffer out = new DataOutputBuffer();
    for (byte[][] kv : recs) {
      WritableUtils.writeVInt(out, kv[0].length);
      WritableUtils.writeVInt(out, kv[1].length);
      out.write(kv[0]);
      out.write(kv[1]);
    }
    return Arrays.copyOf(out.getData(), out.getLength());
  }

  /** Cuts the stream into DATA frames of random sizes (1 B .. 256 KiB). */
  static List<byte[]> cut(Random r, byte[] s, int maxFrame) {
    List<byte[]> frames = new ArrayList<>();
    for (int off = 0; off < s.length; ) {
      int n = Math.min(s.length - off, 1 + r.nextInt(r.nextBoolean() ? 7 : maxFrame));
      frames.add(dataFrame(Arrays.copyOfRange(s, off, off + n), false));
      off += n;
    }
    return frames;
  }

  static byte[] bytes(DataInputBuffer b) {
    return Arrays.copyOfRange(b.getData(), b.getPosition(), b.getLength());
  }

  @Test
  void recordsStraddlingFramesComeOutWhole() throws IOException {
    for (long seed = 1; seed <= 20; seed++) {
      Random r = new Random(seed);
      List<byte[][]> recs = records(r, 300);
      byte[] s = stream(recs);
      List<byte[]> frames = cut(r, s, seed % 2 == 0 ? 256 * 1024 : 300);
      frames.add(endFrame(recs.size(), s.length, s.length, 1, 0));
      FrameSource src = new FrameSource(frames);
      MergedStreamIterator it = new MergedStreamIterator(src, s.length, null);
      for (byte[][] kv : recs) {
        assertTrue(it.next());
        assertArrayEquals(kv[0], bytes(it.getKey()), "seed " + seed);
        assertArrayEquals(kv[1], bytes(it.getValue()), "seed " + seed);
      }
      assertFalse(it.next());
      assertFalse(it.next());
      assertEquals(1f, it.getProgress().getProgress());
      assertEquals(recs.size(), it.records());
      it.close();
      assertTrue(src.closed);
    }
  }

  @Test
  void emptyStreamEndsAtOnce() throws IOException {
    MergedStreamIterator it = new MergedStreamIterator(
        new FrameSource(List.of(endFrame(0, 0, 0, 1, 0))), 0, null);
    assertFalse(it.next());
    assertFalse(MergedStreamIterator.ended(new FrameSource(List.of())).next());
  }

  @Test
  void crcMismatchIsAnIOException() throws IOException {
    Random r = new Random(5);
    byte[] s = stream(records(r, 50));
    List<byte[]> frames = new ArrayList<>(cut(r, s, 100));
    int bad = frames.size() / 2;
    byte[] f = frames.get(bad);
    ByteBuffer body = ByteBuffer.wrap(f, 16, f.length - 16);
    frames.set(bad, dataFrame(Arrays.copyOfRange(body.array(), 16, f.length), true));
    frames.add(endFrame(50, s.length, s.length, 1, 0));
    MergedStreamIterator it = new MergedStreamIterator(new FrameSource(frames), 0, null);
    IOException e = assertThrows(IOException.class, () -> {
      while (it.next()) {
        // drain
      }
    });
    assertTrue(e.getMessage().contains("CRC"), e.getMessage());
  }

  @Test
  void errorEofAndTruncatedRecordsAreIOExceptions() throws IOException {
    Random r = new Random(6);
    byte[] s = stream(records(r, 20));
    List<byte[]> withError = new ArrayList<>(cut(r, Arrays.copyOf(s, s.length / 2), 50));
    withError.add(errorFrame(2, "segment CRC"));
    IOException e = assertThrows(IOException.class,
        () -> drain(new MergedStreamIterator(new FrameSource(withError), 0, null)));
    assertTrue(e.getMessage().contains("segment CRC"), e.getMessage());

    List<byte[]> eof = cut(r, s, 50); // no END
    assertThrows(java.io.EOFException.class,
        () -> drain(new MergedStreamIterator(new FrameSource(eof), 0, null)));

    List<byte[]> truncated = new ArrayList<>(cut(r, Arrays.copyOf(s, s.length - 1), 50));
    truncated.add(endFrame(20, s.length - 1, 0, 1, 0));
    e = assertThrows(IOException.class,
        () -> drain(new MergedStreamIterator(new FrameSource(truncated), 0, null)));
    assertTrue(e.getMessage().contains("inside a record"), e.getMessage());
  }

  private static void drain(MergedStreamIterator it) throws IOException {
    while (it.next()) {
      // drain
    }
  }

  @Test
  void negativeLengthsAreRefused() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(b);
    WritableUtils.writeVInt(out, -5);
    WritableUtils.writeVInt(out, 1);
    out.write(1);
    MergedStreamIterator it = new MergedStreamIterator(new FrameSource(List.of(
        dataFrame(b.toByteArray(), false), endFrame(1, 3, 3, 1, 0))), 0, null);
    assertThrows(IOException.class, it::next);
  }

  /** two legal-looking lengths whose int sum wraps must not reach an array. */
  @Test
  void lengthsWhoseSumOverflowsAnIntAreAnIOException() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(b);
    WritableUtils.writeVInt(out, Integer.MAX_VALUE - 64);
    WritableUtils.writeVInt(out, Integer.MAX_VALUE - 64);
    out.write(new byte[16]);
    MergedStreamIterator it = new MergedStreamIterator(new FrameSource(List.of(
        dataFrame(b.toByteArray(), false), endFrame(1, 26, 26, 1, 0))), 0, null);
    IOException e = assertThrows(IOException.class, it::next);
    assertTrue(e.getMessage().contains("record of"), e.getMessage());
  }

  @Test
  void dataBodiesGoIntoTheReadersBufferWhenTheyFit() throws IOException {
    byte[] spare = new byte[4 + 100];
    byte[] data = dataFrame(new byte[] {1, 2, 3}, false);
    ReducerProtocol.Frame f = ReducerProtocol.read(new ByteArrayInputStream(data), spare);
    assertTrue(f.body == spare);
    assertEquals(7, f.length);
    ByteBuffer p = ReducerProtocol.data(f);
    assertEquals(3, p.remaining());
    assertEquals(2, p.get(1));

    // A control frame, or a DATA body larger than the buffer, gets its own array.
    f = ReducerProtocol.read(new ByteArrayInputStream(endFrame(1, 2, 3, 1, 0)), spare);
    assertTrue(f.body != spare);
    assertEquals(1, ReducerProtocol.end(f).records);
    f = ReducerProtocol.read(new ByteArrayInputStream(dataFrame(new byte[200], false)), spare);
    assertTrue(f.body != spare);
    assertEquals(200, ReducerProtocol.data(f).remaining());
  }

  @Test
  void recordsInsideOnePayloadAreReadInPlace() throws IOException {
    List<byte[][]> recs = records(new Random(7), 50);
    byte[] s = stream(recs);
    ByteBuffer payload = ByteBuffer.wrap(s);
    MergedStreamIterator it = new MergedStreamIterator(new MergedStreamIterator.PayloadSource() {
      @Override
      public ByteBuffer next() {
        return null;
      }

      @Override
      public void close() {
      }
    }, s.length, payload);
    for (byte[][] kv : recs) {
      assertTrue(it.next());
      assertTrue(it.getKey().getData() == s, "the key was copied");
      assertArrayEquals(kv[1], bytes(it.getValue()));
    }
    assertFalse(it.next());
  }
}
