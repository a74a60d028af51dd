package io.hadoopaccel.mapreduce.preshuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.mapreduce.preshuffle.PushProtocol.Header;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.crypto.SecretKey;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The receiver's handshake: the job token is proven both ways before any data moves. */
class TestPushReceiver {
  private static final JobID JOB = new JobID("1700000000000", 7);
  private static final TaskAttemptID MAP = new TaskAttemptID(JOB.getJtIdentifier(),
      JOB.getId(), TaskType.MAP, 3, 0);
  private static final SecretKey KEY =
      JobTokenSecretManager.createSecretKey("job-token".getBytes(StandardCharsets.UTF_8));
  private static final SecretKey WRONG_KEY =
      JobTokenSecretManager.createSecretKey("guess".getBytes(StandardCharsets.UTF_8));

  /** Records what reached it. */
  private static final class RecordingSink implements PushSink {
    final List<String> received = new ArrayList<>();
    final List<String> refusedPeers = new ArrayList<>();
    String refusal;
    /** When set, every segment waits in receive() until it opens; entered counts arrivals. */
    volatile CountDownLatch gate;
    final CountDownLatch entered = new CountDownLatch(2);

    @Override
    public String refusal(TaskAttemptID map) {
      return refusal;
    }

    @Override
    public void receive(TaskAttemptID map, int spill, int progress,
        long rawLength, long partLength, InputStream in) throws IOException {
      if (gate != null) {
        entered.countDown();
        try {
          if (!gate.await(30, TimeUnit.SECONDS)) {
            throw new IOException("gate never opened");
          }
        } catch (InterruptedException e) {
          throw new IOException(e);
        }
      }
      byte[] b = new byte[(int) partLength];
      new DataInputStream(in).readFully(b);
      synchronized (this) {
        received.add(map + "/" + spill + "@" + progress + "/"
            + new String(b, StandardCharsets.UTF_8));
      }
    }

    @Override
    public synchronized boolean done(TaskAttemptID map, int spills) {
      return received.size() == spills;
    }

    @Override
    public boolean left(TaskAttemptID map, int spills, int firstLeft) {
      return false;
    }

    @Override
    public synchronized void refused(String peer, String why) {
      refusedPeers.add(why);
    }
  }

  private RecordingSink sink;
  private PushReceiver receiver;

  @BeforeEach
  void start() throws IOException {
    sink = new RecordingSink();
    receiver = new PushReceiver(JOB, 1, KEY, 2, 5_000, sink);
  }

  @AfterEach
  void stop() {
    receiver.close();
  }

  /** One push as a map sends it; returns the receiver's answers. */
  private byte[] push(SecretKey key, TaskAttemptID map, int partition, byte[] data)
      throws IOException {
    return push(key, map, partition, 375, data);
  }

  private byte[] push(SecretKey key, TaskAttemptID map, int partition, int progress,
      byte[] data) throws IOException {
    try (Socket s = new Socket("localhost", receiver.port())) {
      s.setSoTimeout(5_000);
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      DataInputStream in = new DataInputStream(s.getInputStream());
      String hash = new Header(PushProtocol.SEGMENT, map.toString(), partition, 0, progress,
          data.length, data.length).write(out, key);
      byte answer = in.readByte();
      if (answer != PushProtocol.ACCEPT) {
        return new byte[] {answer};
      }
      PushProtocol.verifyReply(in.readUTF(), hash, key); // the receiver knows the token too
      out.write(data);
      out.flush();
      return new byte[] {answer, in.readByte()};
    }
  }

  @Test
  void pushWithTheJobTokenIsStored() throws IOException {
    byte[] answers = push(KEY, MAP, 1, "segment".getBytes(StandardCharsets.UTF_8));
    assertEquals(PushProtocol.ACCEPT, answers[0]);
    assertEquals(PushProtocol.OK, answers[1]);
    assertEquals(List.of(MAP + "/0@375/segment"), sink.received);
  }

  @Test
  void aMarkerIsAnsweredWhileEveryDataThreadIsBusy() throws Exception {
    sink.gate = new CountDownLatch(1);
    ExecutorService maps = Executors.newFixedThreadPool(2);
    try {
      List<Future<byte[]>> segments = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        segments.add(maps.submit(() -> push(KEY, MAP, 1, new byte[] {'x'})));
      }
      assertTrue(sink.entered.await(30, TimeUnit.SECONDS), "both data threads busy");
      // Both of the receiver's 2 data threads hold a segment; a done marker still gets in.
      try (Socket s = new Socket("localhost", receiver.port())) {
        s.setSoTimeout(5_000);
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        DataInputStream in = new DataInputStream(s.getInputStream());
        String hash = new Header(PushProtocol.DONE, MAP.toString(), 1, 2, PushProtocol.WHOLE,
            0, 0).write(out, KEY);
        assertEquals(PushProtocol.ACCEPT, in.readByte());
        PushProtocol.verifyReply(in.readUTF(), hash, KEY);
        assertEquals(PushProtocol.FAILED, in.readByte(), "the two segments are not stored yet");
      }
      sink.gate.countDown();
      for (Future<byte[]> f : segments) {
        assertEquals(PushProtocol.OK, f.get(30, TimeUnit.SECONDS)[1]);
      }
    } finally {
      sink.gate.countDown();
      maps.shutdownNow();
    }
  }

  @Test
  void pushWithAWrongTokenIsRefusedBeforeAnyData() throws IOException {
    byte[] answers = push(WRONG_KEY, MAP, 1, "forged".getBytes(StandardCharsets.UTF_8));
    assertEquals(1, answers.length);
    assertEquals(PushProtocol.AUTH_FAILED, answers[0]);
    assertEquals(List.of(), sink.received);
    assertEquals(List.of("push hash does not prove the job token"), sink.refusedPeers);
  }

  @Test
  void aHeaderOutOfRangeIsRefusedEvenWithTheToken() throws IOException {
    assertEquals(PushProtocol.AUTH_FAILED,
        push(KEY, MAP, 1, PushProtocol.WHOLE + 1, new byte[1])[0]);
    assertEquals(List.of(), sink.received);
    assertEquals(List.of("malformed push header"), sink.refusedPeers);
  }

  @Test
  void pushForAnotherJobOrPartitionIsRefused() throws IOException {
    TaskAttemptID otherJob = new TaskAttemptID("1700000000000", 8, TaskType.MAP, 3, 0);
    assertEquals(PushProtocol.AUTH_FAILED, push(KEY, otherJob, 1, new byte[1])[0]);
    assertEquals(PushProtocol.AUTH_FAILED, push(KEY, MAP, 2, new byte[1])[0]);
    assertEquals(List.of(), sink.received);
    assertEquals(2, sink.refusedPeers.size());
  }

  @Test
  void anUnwantedAttemptIsRefusedWithItsReason() throws IOException {
    sink.refusal = "the map's output is already taken";
    assertEquals(PushProtocol.REFUSE, push(KEY, MAP, 1, new byte[1])[0]);
    assertEquals(List.of(), sink.received);
  }

  @Test
  void aReceiverWithoutTheTokenCannotProveIt() throws IOException {
    receiver.close();
    receiver = new PushReceiver(JOB, 1, WRONG_KEY, 2, 5_000, sink);
    // The receiver refuses the map's hash; a receiver that skipped the check would still be
    // caught by the map, which verifies the reply hash.
    assertEquals(PushProtocol.AUTH_FAILED, push(KEY, MAP, 1, new byte[1])[0]);
    ByteArrayOutputStream ignored = new ByteArrayOutputStream();
    String hash = new Header(PushProtocol.SEGMENT, MAP.toString(), 1, 0, 0, 1, 1)
        .write(new DataOutputStream(ignored), KEY);
    String forgedReply = new Header(PushProtocol.SEGMENT, MAP.toString(), 1, 0, 0, 1, 1)
        .write(new DataOutputStream(ignored), WRONG_KEY);
    assertThrows(PushProtocol.AuthenticationException.class,
        () -> PushProtocol.verifyReply(forgedReply, hash, KEY));
  }
}
