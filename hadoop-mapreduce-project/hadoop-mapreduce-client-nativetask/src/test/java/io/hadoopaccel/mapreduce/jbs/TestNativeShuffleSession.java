package io.hadoopaccel.mapreduce.jbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.mapred.JbsTestTaskStatus;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl;
import org.apache.hadoop.util.Progress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reduce's session against a fake NetMerger on a real Unix socket: HELLO/REGISTER, and the
 * merged stream when the NetMerger dies, stalls, or the reduce's thread is interrupted.
 */
class TestNativeShuffleSession {
  private static final byte[] SECRET = "job-secret".getBytes(StandardCharsets.UTF_8);
  private static final byte[] NONCE = new byte[16];

  static {
    for (int i = 0; i < 16; i++) {
      NONCE[i] = (byte) (i * 17);
    }
  }

  @TempDir
  Path dir;

  /**
   * Serves one connection: HELLO, reads REGISTER, answers status with the proof a NetMerger
   * holding {@code proofSecret} gives (none when null).
   */
  private CompletableFuture<ByteBuffer> fakeMerger(ServerSocketChannel server, int status,
      boolean silent) {
    return fakeMerger(server, status, silent, SECRET);
  }

  private CompletableFuture<ByteBuffer> fakeMerger(ServerSocketChannel server, int status,
      boolean silent, byte[] proofSecret) {
    return CompletableFuture.supplyAsync(() -> {
      try (SocketChannel c = server.accept()) {
        if (silent) {
          c.read(ByteBuffer.allocate(1)); // until the client gives up and closes
          return null;
        }
        c.write(ByteBuffer.wrap(TestReducerProtocol.frame(ReducerProtocol.HELLO, NONCE)));
        InputStream in = Channels.newInputStream(c);
        header = in.readNBytes(12);
        ByteBuffer body = ByteBuffer.wrap(in.readNBytes(ByteBuffer.wrap(header).getInt(8)));
        byte[] msg = "no".getBytes(StandardCharsets.UTF_8);
        byte[] proof = new byte[0];
        if (status == 0 && proofSecret != null) {
          byte[] clientNonce = new byte[16];
          body.get(body.limit() - 16, clientNonce);  // REGISTER ends with the reduce's nonce
          proof = ReducerProtocol.registeredMac(proofSecret, "job_1700000000000_0003", 2, NONCE,
              clientNonce);
        }
        ByteBuffer answer = ByteBuffer.allocate(6 + msg.length + proof.length);
        answer.putShort((short) status).putShort((short) msg.length).put(msg)
            .putShort((short) proof.length).put(proof);
        c.write(ByteBuffer.wrap(TestReducerProtocol.frame(ReducerProtocol.REGISTERED,
            answer.array())));
        return body;
      } catch (IOException e) {
        throw new RuntimeException(e);
      }
    });
  }

  private volatile byte[] header;

  /** The fake NetMerger's side of the handshake: HELLO, the reduce's REGISTER, REGISTERED 0. */
  private static InputStream register(SocketChannel c) throws IOException {
    c.write(ByteBuffer.wrap(TestReducerProtocol.frame(ReducerProtocol.HELLO, NONCE)));
    InputStream in = Channels.newInputStream(c);
    byte[] h = in.readNBytes(12);
    c.write(ByteBuffer.wrap(registeredOk(in.readNBytes(ByteBuffer.wrap(h).getInt(8)))));
    return in;
  }

  /** REGISTERED 0 with the proof a NetMerger holding SECRET gives for this REGISTER body. */
  private static byte[] registeredOk(byte[] register) throws IOException {
    byte[] clientNonce = new byte[16];
    ByteBuffer.wrap(register).get(register.length - 16, clientNonce);
    byte[] proof = ReducerProtocol.registeredMac(SECRET, "job_1700000000000_0003", 2, NONCE,
        clientNonce);
    ByteBuffer answer = ByteBuffer.allocate(6 + proof.length);
    answer.putShort((short) 0).putShort((short) 0).putShort((short) proof.length).put(proof);
    return TestReducerProtocol.frame(ReducerProtocol.REGISTERED, answer.array());
  }

  private ServerSocketChannel listen() throws IOException {
    ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    s.bind(UnixDomainSocketAddress.of(dir.resolve("m.sock")));
    return s;
  }

  private NativeShuffleSession<Object, Object> open(int timeoutMs) throws IOException {
    return open(timeoutMs, 600_000);
  }

  private NativeShuffleSession<Object, Object> open(int timeoutMs, long readTimeoutMs)
      throws IOException {
    return NativeShuffleSession.open(dir.resolve("m.sock").toString(), timeoutMs, readTimeoutMs,
        "job_1700000000000_0003", 2, 9, ReducerProtocol.KEY_TEXT, ReducerProtocol.CODEC_NONE,
        SECRET, Reporter.NULL, 13570);
  }

  @Test
  void registersWithTheMacOverTheNonce() throws Exception {
    try (ServerSocketChannel server = listen()) {
      CompletableFuture<ByteBuffer> seen = fakeMerger(server, 0, false);
      NativeShuffleSession<Object, Object> s = open(5000);
      s.close();
      ByteBuffer reg = seen.get(10, TimeUnit.SECONDS);
      assertEquals(ReducerProtocol.REGISTER, ByteBuffer.wrap(header).getShort(6));
      assertEquals(2, reg.getInt());
      assertEquals(9, reg.getInt());
      assertEquals(ReducerProtocol.KEY_TEXT, reg.get());
      assertEquals(ReducerProtocol.CODEC_NONE, reg.get());
      assertEquals(0, reg.getShort());
      byte[] job = new byte[reg.getShort()];
      reg.get(job);
      assertEquals("job_1700000000000_0003", new String(job, StandardCharsets.UTF_8));
      byte[] auth = new byte[reg.getShort()];
      reg.get(auth);
      assertArrayEquals(ReducerProtocol.registerMac(SECRET, "job_1700000000000_0003", 2, NONCE),
          auth);
      assertEquals(16, reg.remaining());  // the reduce's fresh nonce for the NetMerger's proof
    }
  }

  /** A process on the socket that lacks the job secret cannot feed this reduce. */
  @Test
  void aNetMergerWithoutTheJobSecretIsRejected() throws Exception {
    try (ServerSocketChannel server = listen()) {
      fakeMerger(server, 0, false, null);  // says OK, proves nothing
      IOException e = assertThrows(IOException.class, () -> open(5000));
      assertTrue(e.getMessage().contains("did not prove it holds the job secret"),
          e.getMessage());
      fakeMerger(server, 0, false, "another job's secret".getBytes(StandardCharsets.UTF_8));
      e = assertThrows(IOException.class, () -> open(5000));
      assertTrue(e.getMessage().contains("did not prove it holds the job secret"),
          e.getMessage());
    }
  }

  @Test
  void refusalMissingSocketAndSilenceAreIOExceptions() throws Exception {
    IOException e = assertThrows(IOException.class, () -> open(5000));
    assertTrue(e.getMessage().contains("no NetMerger socket"), e.getMessage());
    try (ServerSocketChannel server = listen()) {
      fakeMerger(server, 1, false);
      e = assertThrows(IOException.class, () -> open(5000));
      assertTrue(e.getMessage().contains("refused REGISTER (status 1)"), e.getMessage());

      fakeMerger(server, 0, true);
      e = assertThrows(IOException.class, () -> open(300));
      assertTrue(e.getMessage().contains("did not answer within 300 ms"), e.getMessage());
    }
  }

  /** What the fake NetMerger does after REGISTERED 0 and MERGE. */
  private interface Script {
    void run(SocketChannel c, InputStream in) throws Exception;
  }

  /** Serves one reduce: HELLO, REGISTER (answered 0), waits for MERGE, then runs the script. */
  private CompletableFuture<Void> scriptedMerger(ServerSocketChannel server, Script script) {
    return CompletableFuture.runAsync(() -> {
      try (SocketChannel c = server.accept()) {
        InputStream in = register(c);
        byte[] merge = in.readNBytes(12);
        assertEquals(ReducerProtocol.MERGE, ByteBuffer.wrap(merge).getShort(6));
        script.run(c, in);
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
  }

  private static void writeAll(SocketChannel c, byte[] frame) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(frame);
    while (b.hasRemaining()) {
      c.write(b);
    }
  }

  /** n records, each alone in one DATA frame of about 1 KiB. */
  private static List<byte[]> recordFrames(int n) throws IOException {
    Random r = new Random(n);
    List<byte[]> frames = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      byte[] value = new byte[1000];
      r.nextBytes(value);
      byte[] rec = TestReducerProtocol.stream(java.util.Collections.singletonList(new byte[][] {
          String.format("k%04d", i).getBytes(StandardCharsets.UTF_8), value}));
      frames.add(TestReducerProtocol.dataFrame(rec, false));
    }
    return frames;
  }

  /** Reads records until the stream throws; returns how many came before. */
  private static int readUntilFailure(MergedStreamIterator it, long perRecordDelayMs,
      List<IOException> failure) throws InterruptedException {
    int n = 0;
    try {
      while (it.next()) {
        assertEquals(String.format("k%04d", n), new String(TestReducerProtocol.bytes(
            it.getKey()), StandardCharsets.UTF_8));
        n++;
        if (perRecordDelayMs > 0) {
          Thread.sleep(perRecordDelayMs); // a slow reducer, not synchronisation
        }
      }
    } catch (IOException e) {
      failure.add(e);
    }
    return n;
  }

  /**
   * As first reproduced: the NetMerger sends 20 frames and dies while a slow reducer
   * still has a full queue of them. Before the fix the reader's failure was dropped (offer on a
   * full queue) and next() waited forever; now the 20 records come, then an IOException.
   */
  @Test
  void aNetMergerThatDiesAfterFramesFailsTheSlowConsumerInsteadOfHanging() throws Exception {
    List<byte[]> frames = recordFrames(20);
    CountDownLatch died = new CountDownLatch(1);
    try (ServerSocketChannel server = listen()) {
      CompletableFuture<Void> merger = scriptedMerger(server, (c, in) -> {
        for (byte[] f : frames) {
          writeAll(c, f);
        }
        c.close(); // as kill -9: the socket closes without END
        died.countDown();
      });
      assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
        NativeShuffleSession<Object, Object> s = open(5000);
        try {
          MergedStreamIterator it = s.merge();
          assertTrue(died.await(10, TimeUnit.SECONDS));
          List<IOException> failure = new ArrayList<>();
          assertEquals(20, readUntilFailure(it, 20, failure));
          assertEquals(1, failure.size(), "the stream ended without END but no IOException");
          assertTrue(failure.get(0).getMessage().contains("NetMerger closed the connection"),
              failure.get(0).getMessage());
        } finally {
          s.close();
        }
      });
      merger.get(10, TimeUnit.SECONDS);
    }
  }

  /** A live NetMerger that stops sending mid-stream fails the reduce within the read timeout. */
  @Test
  void aStalledNetMergerFailsTheStreamWithinTheReadTimeout() throws Exception {
    List<byte[]> frames = recordFrames(3);
    try (ServerSocketChannel server = listen()) {
      CompletableFuture<Void> merger = scriptedMerger(server, (c, in) -> {
        for (byte[] f : frames) {
          writeAll(c, f);
        }
        in.read(); // stalls, socket open, until the reduce gives up and closes it
      });
      assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
        NativeShuffleSession<Object, Object> s = open(5000, 700);
        try {
          MergedStreamIterator it = s.merge();
          long t0 = System.nanoTime();
          List<IOException> failure = new ArrayList<>();
          assertEquals(3, readUntilFailure(it, 0, failure));
          long waitedMs = (System.nanoTime() - t0) / 1_000_000;
          assertEquals(1, failure.size());
          String m = failure.get(0).getMessage();
          assertTrue(m.contains("sent nothing for") && m.contains("reducer.read.timeout.ms"), m);
          assertTrue(waitedMs >= 700, "failed after " + waitedMs + " ms, before the timeout");
        } finally {
          s.close();
        }
      });
      merger.get(10, TimeUnit.SECONDS); // the reduce closed the socket: the stall ended
    }
  }

  /**
   * an interrupt aimed at upstream's threads must not close JBS's socket. The
   * calling thread is interrupted before open(), before merge() and before every record; the
   * session must deliver the whole stream and END, and leave the interrupt for the caller.
   */
  @Test
  void interruptsOfTheCallingThreadDoNotEndTheSession() throws Exception {
    List<byte[]> frames = recordFrames(12);
    CountDownLatch consumed = new CountDownLatch(1);
    try (ServerSocketChannel server = listen()) {
      CompletableFuture<Void> merger = scriptedMerger(server, (c, in) -> {
        writeAll(c, frames.get(0));
        // The rest only once the reduce, interrupted, consumed the first record: the reduce
        // waits for the socket with its interrupt flag set.
        assertTrue(consumed.await(10, TimeUnit.SECONDS));
        for (byte[] f : frames.subList(1, frames.size())) {
          writeAll(c, f);
        }
        writeAll(c, TestReducerProtocol.endFrame(12, 0, 777, 1, 0));
        in.read(); // until the reduce closes
      });
      assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
        Thread.currentThread().interrupt();
        NativeShuffleSession<Object, Object> s = open(5000);
        try {
          assertTrue(Thread.interrupted(), "open() swallowed the caller's interrupt");
          Thread.currentThread().interrupt();
          MergedStreamIterator it = s.merge();
          int n = 0;
          while (true) {
            Thread.currentThread().interrupt();
            boolean more = it.next();
            assertTrue(Thread.interrupted(), "next() swallowed the caller's interrupt");
            if (!more) {
              break;
            }
            assertEquals(String.format("k%04d", n), new String(TestReducerProtocol.bytes(
                it.getKey()), StandardCharsets.UTF_8));
            n++;
            consumed.countDown();
          }
          assertEquals(12, n);
          assertEquals(777, s.endStats().fetchedBytes);
        } finally {
          Thread.interrupted();
          s.close();
        }
      });
      merger.get(10, TimeUnit.SECONDS);
    }
  }

  // ---------------------------------------------------------------------------------------
  // The fetch phase, with upstream's scheduler

  private static final String ATTEMPT = "attempt_1700000000000_0003_m_000000_0";

  private static ShuffleSchedulerImpl<Object, Object> scheduler(NativeShuffleSession<Object,
      Object> s, org.apache.hadoop.mapred.Counters.Counter failedShuffles) {
    JobConf conf = new JobConf(false);
    conf.setNumMapTasks(1);
    org.apache.hadoop.mapred.Counters counters = new org.apache.hadoop.mapred.Counters();
    ShuffleSchedulerImpl<Object, Object> sched = new ShuffleSchedulerImpl<>(conf,
        JbsTestTaskStatus.reduce(), TaskAttemptID.forName(
            "attempt_1700000000000_0003_r_000002_0"), s, new Progress(),
        counters.findCounter("t", "shuffled"), counters.findCounter("t", "bytes"),
        failedShuffles);
    sched.addKnownMapOutput("host1:13562", "http://host1:13562/mapOutput",
        TaskAttemptID.forName(ATTEMPT));
    return sched;
  }

  /** Reads the reduce's MAP_OUTPUT; answers FETCH_FAILED (or nothing), then waits for EOF. */
  private CompletableFuture<Void> fetchPhaseMerger(ServerSocketChannel server,
      Integer connectFailed) {
    return CompletableFuture.runAsync(() -> {
      try (SocketChannel c = server.accept()) {
        InputStream in = register(c);
        byte[] h = in.readNBytes(12);
        assertEquals(ReducerProtocol.MAP_OUTPUT, ByteBuffer.wrap(h).getShort(6));
        in.readNBytes(ByteBuffer.wrap(h).getInt(8));
        if (connectFailed != null) {
          byte[] a = ATTEMPT.getBytes(StandardCharsets.UTF_8);
          byte[] m = "connect to host1:13570: Connection refused".getBytes(
              StandardCharsets.UTF_8);
          ByteBuffer b = ByteBuffer.allocate(4 + 1 + 2 + a.length + 2 + m.length);
          b.putInt(0).put(connectFailed.byteValue()).putShort((short) a.length).put(a)
              .putShort((short) m.length).put(m);
          writeAll(c, TestReducerProtocol.frame(ReducerProtocol.FETCH_FAILED, b.array()));
        }
        in.read(); // until the reduce closes
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
  }

  /** Polls checkFailed() (as JbsShuffle's loop does) until it throws; bounded. */
  private static IOException awaitFailure(NativeShuffleSession<Object, Object> s)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      try {
        s.checkFailed();
      } catch (IOException e) {
        return e;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the session never failed");
  }

  /**
   * a supplier that refuses connections (a node whose daemon would not start)
   * is not a fetch failure for the AM (those re-run maps that stock shuffle could serve): the
   * session fails, so the reduce runs stock shuffle. Any other FETCH_FAILED is reported.
   */
  @Test
  void anUnreachableSupplierFailsTheSessionWithoutAFetchFailure() throws Exception {
    for (int connectFailed : new int[] {1, 0}) {
      java.nio.file.Files.deleteIfExists(dir.resolve("m.sock"));
      try (ServerSocketChannel server = listen()) {
        CompletableFuture<Void> merger = fetchPhaseMerger(server, connectFailed);
        NativeShuffleSession<Object, Object> s = open(5000);
        org.apache.hadoop.mapred.Counters.Counter failed =
            new org.apache.hadoop.mapred.Counters().findCounter("t", "failed");
        ShuffleSchedulerImpl<Object, Object> sched = scheduler(s, failed);
        try {
          s.start(sched);
          if (connectFailed == 1) {
            IOException e = awaitFailure(s);
            assertTrue(e.getMessage().contains("MOFSupplier on host1:13570 cannot be reached"),
                e.getMessage());
            assertEquals(0, failed.getValue(), "reported as a fetch failure");
          } else {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (failed.getValue() == 0 && System.nanoTime() < deadline) {
              Thread.sleep(20);
            }
            assertEquals(1, failed.getValue());
            try {
              s.checkFailed();
            } catch (IOException e) {
              // Upstream's scheduler may give up on a 1-map job at once; the session did not.
              assertTrue(!e.getMessage().contains("cannot be reached"), e.getMessage());
            }
          }
        } finally {
          s.close();
          sched.close();
        }
        merger.get(10, TimeUnit.SECONDS);
      }
    }
  }

  /** A NetMerger that never answers a MAP_OUTPUT fails the session within the read timeout. */
  @Test
  void aNetMergerSilentOnAMapOutputFailsTheSessionWithinTheReadTimeout() throws Exception {
    try (ServerSocketChannel server = listen()) {
      CompletableFuture<Void> merger = fetchPhaseMerger(server, null);
      NativeShuffleSession<Object, Object> s = open(5000, 500);
      org.apache.hadoop.mapred.Counters.Counter failed =
          new org.apache.hadoop.mapred.Counters().findCounter("t", "failed");
      ShuffleSchedulerImpl<Object, Object> sched = scheduler(s, failed);
      try {
        long t0 = System.nanoTime();
        s.start(sched);
        IOException e = awaitFailure(s);
        assertTrue(e.getMessage().contains("while 1 map outputs were outstanding"),
            e.getMessage());
        assertTrue((System.nanoTime() - t0) / 1_000_000 >= 500);
      } finally {
        s.close();
        sched.close();
      }
      merger.get(10, TimeUnit.SECONDS);
    }
  }
}
