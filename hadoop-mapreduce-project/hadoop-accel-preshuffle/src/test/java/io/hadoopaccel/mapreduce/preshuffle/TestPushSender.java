package io.hadoopaccel.mapreduce.preshuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.crypto.SecretKey;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapred.SpillRecord;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sender against real receivers: order per reducer, several at once, and leftovers. */
class TestPushSender {
  private static final JobID JOB = new JobID("1700000000000", 9);
  private static final TaskAttemptID MAP =
      new TaskAttemptID(JOB.getJtIdentifier(), JOB.getId(), TaskType.MAP, 0, 0);
  private static final SecretKey KEY =
      JobTokenSecretManager.createSecretKey("job-token".getBytes(StandardCharsets.UTF_8));
  private static final int REDUCES = 3;

  @TempDir
  Path tmp;
  private final List<PushReceiver> receivers = new ArrayList<>();

  /** A reducer's sink; every receive first meets the other reducers' at a barrier. */
  private static final class MeetingSink implements PushSink {
    final List<String> received = new ArrayList<>();
    final CyclicBarrier barrier;
    final AtomicBoolean met;

    MeetingSink(CyclicBarrier barrier, AtomicBoolean met) {
      this.barrier = barrier;
      this.met = met;
    }

    @Override
    public String refusal(TaskAttemptID map) {
      return null;
    }

    @Override
    public void receive(TaskAttemptID map, int spill, int progress, long rawLength,
        long partLength, InputStream in) throws IOException {
      try {
        barrier.await(2, TimeUnit.SECONDS); // only pushes in flight to all reducers meet
        met.set(true);
      } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
        // pushed one after the other: go on, the test sees met == false
      }
      byte[] b = new byte[(int) partLength];
      new DataInputStream(in).readFully(b);
      synchronized (this) {
        received.add(spill + ":" + new String(b, StandardCharsets.UTF_8));
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
    public void refused(String peer, String why) {}
  }

  /** A reducer's sink that cannot store one spill of every map; records the rest. */
  private static final class FailingSink implements PushSink {
    final List<String> got = new ArrayList<>();
    final int failSpill;

    FailingSink(int failSpill) {
      this.failSpill = failSpill;
    }

    @Override
    public String refusal(TaskAttemptID map) {
      return null;
    }

    @Override
    public synchronized void receive(TaskAttemptID map, int spill, int progress,
        long rawLength, long partLength, InputStream in) throws IOException {
      new DataInputStream(in).readFully(new byte[(int) partLength]);
      if (spill == failSpill) {
        throw new IOException("disk full");
      }
      got.add("spill " + spill);
    }

    @Override
    public synchronized boolean done(TaskAttemptID map, int spills) {
      got.add("done " + spills);
      return got.size() == spills + 1;
    }

    @Override
    public synchronized boolean left(TaskAttemptID map, int spills, int firstLeft) {
      got.add("left " + spills + " from " + firstLeft);
      return true;
    }

    @Override
    public void refused(String peer, String why) {}
  }

  @AfterEach
  void stop() {
    receivers.forEach(PushReceiver::close);
  }

  /** Writes spill {@code n}: one segment per reducer, "s<n>r<r>", and its index. */
  private Path[] spill(JobConf conf, int n) throws IOException {
    Path data = tmp.resolve("spill" + n + ".out");
    SpillRecord index = new SpillRecord(REDUCES);
    StringBuilder all = new StringBuilder();
    for (int r = 0; r < REDUCES; r++) {
      String seg = "s" + n + "r" + r;
      index.putIndex(new IndexRecord(all.length(), seg.length(), seg.length()), r);
      all.append(seg);
    }
    Files.write(data, all.toString().getBytes(StandardCharsets.UTF_8));
    Path indexFile = tmp.resolve("spill" + n + ".out.index");
    index.writeToFile(new org.apache.hadoop.fs.Path(indexFile.toUri()), conf);
    return new Path[] {data, indexFile};
  }

  private JobConf jobConf() {
    JobConf conf = new JobConf(false);
    conf.setNumReduceTasks(REDUCES);
    conf.set(MRJobConfig.MAPREDUCE_JOB_DIR, tmp.resolve("jobdir").toUri().toString());
    return conf;
  }

  private List<MeetingSink> pushTwoSpills(int streams) throws Exception {
    JobConf conf = jobConf();
    ReducerRegistry registry = new ReducerRegistry(conf);
    CyclicBarrier barrier = new CyclicBarrier(REDUCES);
    AtomicBoolean met = new AtomicBoolean();
    List<MeetingSink> sinks = new ArrayList<>();
    for (int r = 0; r < REDUCES; r++) {
      MeetingSink sink = new MeetingSink(barrier, met);
      PushReceiver receiver = new PushReceiver(JOB, r, KEY, 2, 5_000, sink);
      receivers.add(receiver);
      sinks.add(sink);
      registry.register(r, 0, "localhost", receiver.port());
    }
    PushSender sender = new PushSender(MAP, conf, KEY, Reporter.NULL, registry, () -> 500,
        5_000, 10, 20_000, streams);
    for (int n = 0; n < 2; n++) {
      Path[] files = spill(conf, n);
      sender.spillWritten(n, new org.apache.hadoop.fs.Path(files[0].toUri()),
          new org.apache.hadoop.fs.Path(files[1].toUri()));
    }
    sender.outputFinal();
    sender.close(); // waits (bounded) for every push and done marker
    sinks.forEach(s -> s.received.add(met.get() ? "met" : "alone"));
    return sinks;
  }

  @Test
  void aReducerThatCouldNotStoreASpillPullsOnlyTheSpillsFromThatOne() throws Exception {
    JobConf conf = jobConf();
    ReducerRegistry registry = new ReducerRegistry(conf);
    List<FailingSink> sinks = new ArrayList<>();
    for (int r = 0; r < REDUCES; r++) {
      FailingSink sink = new FailingSink(r == 1 ? 1 : -1);
      PushReceiver receiver = new PushReceiver(JOB, r, KEY, 2, 5_000, sink);
      receivers.add(receiver);
      sinks.add(sink);
      registry.register(r, 0, "localhost", receiver.port());
    }
    PushSender sender = new PushSender(MAP, conf, KEY, Reporter.NULL, registry, () -> 500,
        5_000, 10, 20_000, 2);
    for (int n = 0; n < 3; n++) {
      Path[] files = spill(conf, n);
      sender.spillWritten(n, new org.apache.hadoop.fs.Path(files[0].toUri()),
          new org.apache.hadoop.fs.Path(files[1].toUri()));
    }
    sender.outputFinal();
    sender.close();
    assertEquals(List.of("spill 0", "spill 1", "spill 2", "done 3"), sinks.get(0).got);
    assertEquals(List.of("spill 0", "left 3 from 1"), sinks.get(1).got);
    assertEquals(sinks.get(0).got, sinks.get(2).got);
    // Spills 1 and 2 of partition 1 wait where stock's handler serves map outputs.
    assertFalse(Files.exists(tmp.resolve("output").resolve(PushProtocol.leftover(MAP, 0)
        .toString())));
    for (int n = 1; n < 3; n++) {
      Path out = tmp.resolve("output").resolve(PushProtocol.leftover(MAP, n).toString());
      assertEquals("s" + n + "r1",
          new String(Files.readAllBytes(out.resolve("file.out")), StandardCharsets.UTF_8));
      SpillRecord index = new SpillRecord(
          new org.apache.hadoop.fs.Path(out.resolve("file.out.index").toUri()), conf);
      assertEquals(4, index.getIndex(1).partLength);
      assertEquals(0, index.getIndex(0).partLength);
      assertEquals(0, index.getIndex(2).partLength);
    }
  }

  @Test
  void pushesEveryReducerItsSegmentsInOrderSeveralAtOnce() throws Exception {
    List<MeetingSink> sinks = pushTwoSpills(REDUCES);
    for (int r = 0; r < REDUCES; r++) {
      assertEquals(List.of("0:s0r" + r, "1:s1r" + r, "met"), sinks.get(r).received);
    }
  }

  @Test
  void oneStreamPushesOneReducerAtATime() throws Exception {
    List<MeetingSink> sinks = pushTwoSpills(1);
    for (int r = 0; r < REDUCES; r++) {
      assertEquals("alone", sinks.get(r).received.get(2));
      assertTrue(sinks.get(r).received.containsAll(List.of("0:s0r" + r, "1:s1r" + r)));
    }
  }
}
