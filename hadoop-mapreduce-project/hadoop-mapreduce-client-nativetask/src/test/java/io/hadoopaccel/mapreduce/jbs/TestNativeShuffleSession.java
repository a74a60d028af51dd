package io.hadoopaccel.mapreduce.jbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.mapred.Reporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HELLO/REGISTER of a reduce against a fake NetMerger on a real Unix socket. */
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

  private ServerSocketChannel listen() throws IOException {
    ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    s.bind(UnixDomainSocketAddress.of(dir.resolve("m.sock")));
    return s;
  }

  private NativeShuffleSession<Object, Object> open(int timeoutMs) throws IOException {
    return NativeShuffleSession.open(dir.resolve("m.sock").toString(), timeoutMs,
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
}
