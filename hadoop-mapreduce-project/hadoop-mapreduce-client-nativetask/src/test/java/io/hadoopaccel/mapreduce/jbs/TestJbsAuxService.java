package io.hadoopaccel.mapreduce.jbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.common.daemon.SupervisedDaemon;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.apache.hadoop.yarn.server.api.ApplicationTerminationContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JbsAuxService with fake daemons: shell scripts named like the real ones that print READY,
 * log their command line and every control line to files, and answer OK.
 */
class TestJbsAuxService {
  private static final byte[] SECRET = {1, 2, (byte) 0xAB, (byte) 0xFF};
  private static final ApplicationId APP = ApplicationId.newInstance(1700000000000L, 7);
  private static final String JOB = "job_1700000000000_0007";

  @TempDir
  Path dir;

  private void fakeDaemon(String name, String ready) throws IOException {
    Path bin = dir.resolve("bin");
    Files.createDirectories(bin);
    Path script = bin.resolve(name);
    Files.writeString(script, "#!/bin/sh\n"
        + "echo \"$*\" >> \"$0.argv\"\n"
        + "echo \"" + ready + "\"\n"
        + "echo \"fake " + name + " up\" >&2\n"
        + "while read line; do echo \"$line\" >> \"$0.cmds\"; echo OK; done\n");
    assertTrue(script.toFile().setExecutable(true));
  }

  private Configuration conf() {
    Configuration c = new Configuration(false);
    c.set("hadoop.accel.jbs.native.dir", dir.resolve("bin").toString());
    c.set("hadoop.accel.jbs.merger.socket", dir.resolve("m.sock").toString());
    c.set("hadoop.accel.jbs.supplier.port", "0");
    c.set("hadoop.accel.jbs.restart.backoff.ms", "10");
    c.set("hadoop.accel.jbs.ready.timeout.ms", "10000");
    c.set("yarn.nodemanager.local-dirs", dir.resolve("l1") + "," + dir.resolve("l2"));
    return c;
  }

  private List<String> lines(String file) throws IOException {
    Path p = dir.resolve("bin").resolve(file);
    return Files.exists(p) ? Files.readAllLines(p, StandardCharsets.UTF_8) : List.of();
  }

  /** Waits for a condition the daemons' side effects make true (polling, 20 s at most). */
  private static void await(String what, BooleanSupplier cond) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(10);
    }
  }

  private static ByteBuffer token() throws IOException {
    Token<JobTokenIdentifier> t = new Token<>(new JobTokenIdentifier(new Text(JOB)).getBytes(),
        SECRET, JobTokenIdentifier.KIND_NAME, new Text("service"));
    return ShuffleHandler.serializeServiceData(t);
  }

  @Test
  void startsBothDaemonsAddsAndRemovesJobsAndRestartsAKilledDaemon() throws Exception {
    fakeDaemon("jbs_mof_supplier", "READY 45678");
    fakeDaemon("jbs_net_merger", "READY " + dir.resolve("m.sock"));
    JbsAuxService s = new JbsAuxService();
    s.init(conf());
    s.start();
    try {
      assertTrue(s.supplierDaemon().isRunning());
      assertTrue(s.mergerDaemon().isRunning());
      assertEquals(45678, ShuffleHandler.deserializeMetaData(s.getMetaData()));
      String argv = lines("jbs_mof_supplier.argv").get(0);
      assertTrue(argv.startsWith("--listen 0.0.0.0:0 --local-dirs " + dir.resolve("l1") + ","
          + dir.resolve("l2")), argv);
      assertTrue(lines("jbs_net_merger.argv").get(0).contains("--spill-dirs "
          + dir.resolve("l1/jbs-spill") + "," + dir.resolve("l2/jbs-spill")));
      assertTrue(Files.isDirectory(dir.resolve("l2/jbs-spill")));

      // The token as the ApplicationMaster serializes it for ShuffleHandler; every container
      // repeats the init, the daemons hear of the job once.
      s.initializeApplication(new ApplicationInitializationContext("alice", APP, token()));
      s.initializeApplication(new ApplicationInitializationContext("alice", APP, token()));
      idle(s);
      String add = "ADD_JOB " + JOB + " alice 0102abff";
      assertEquals(List.of(add), lines("jbs_mof_supplier.cmds"));
      assertEquals(List.of(add), lines("jbs_net_merger.cmds"));

      // kill -9 the supplier: restarted on the port it had, told of the live job again.
      Process first = s.supplierDaemon().process();
      first.destroyForcibly();
      await("supplier restart", () -> s.supplierDaemon().starts() == 2
          && s.supplierDaemon().isRunning() && linesQuietly("jbs_mof_supplier.cmds").size() == 2);
      assertEquals(List.of(add, add), lines("jbs_mof_supplier.cmds"));
      assertTrue(lines("jbs_mof_supplier.argv").get(1).startsWith("--listen 0.0.0.0:45678 "));
      assertFalse(first.isAlive());

      s.stopApplication(new ApplicationTerminationContext(APP));
      idle(s);
      assertEquals(List.of(add, "REMOVE_JOB " + JOB), lines("jbs_net_merger.cmds"));
      assertFalse(s.hasJob(JOB));
    } finally {
      s.stop();
    }
    // stdin EOF ended both fakes.
    assertFalse(s.supplierDaemon().process().isAlive());
    assertFalse(s.mergerDaemon().process().isAlive());
  }

  /** ADD_JOB/REMOVE_JOB go out on the daemons' control threads: wait until they did. */
  private static void idle(JbsAuxService s) throws InterruptedException {
    assertTrue(s.supplierDaemon().awaitControlIdle(20_000));
    assertTrue(s.mergerDaemon().awaitControlIdle(20_000));
  }

  private List<String> linesQuietly(String f) {
    try {
      return lines(f);
    } catch (IOException e) {
      return List.of();
    }
  }

  @Test
  void tokenFromJbsShuffleHandlerWhenTheServiceDataIsEmpty() throws Exception {
    fakeDaemon("jbs_mof_supplier", "READY 45679");
    fakeDaemon("jbs_net_merger", "READY " + dir.resolve("m.sock"));
    JbsAuxService s = new JbsAuxService();
    s.init(conf());
    s.start();
    try {
      // Hadoop 3.5.0's AM: empty data for jbs_shuffle, the token for mapreduce_shuffle.
      s.initializeApplication(new ApplicationInitializationContext("bob", APP,
          ByteBuffer.allocate(0)));
      idle(s);
      assertEquals(List.of(), lines("jbs_net_merger.cmds"));
      JbsJobTokens.publish(APP, "bob", SECRET);
      idle(s);
      assertEquals(List.of("ADD_JOB " + JOB + " bob 0102abff"), lines("jbs_net_merger.cmds"));
    } finally {
      s.stop();
      JbsJobTokens.remove(APP);
    }
  }

  @Test
  void missingBinaryKeepsTheServiceUp() throws Exception {
    JbsAuxService s = new JbsAuxService();
    s.init(conf());
    s.start();
    try {
      assertNull(s.supplierDaemon());
      // Metadata even so: the NodeManager refuses containers naming a service without any.
      assertEquals(0, ShuffleHandler.deserializeMetaData(s.getMetaData()));
      s.initializeApplication(new ApplicationInitializationContext("alice", APP, token()));
      s.stopApplication(new ApplicationTerminationContext(APP));
      assertEquals(org.apache.hadoop.service.Service.STATE.STARTED, s.getServiceState());
    } finally {
      s.stop();
    }
  }

  @Test
  void aDaemonThatNeverSaysReadyIsReported() throws Exception {
    fakeDaemon("jbs_mof_supplier", "HELLO");
    fakeDaemon("jbs_net_merger", "READY " + dir.resolve("m.sock"));
    Configuration c = conf();
    JbsAuxService s = new JbsAuxService();
    s.init(c);
    s.start();
    try {
      assertFalse(s.supplierDaemon().isRunning());
      assertTrue(s.mergerDaemon().isRunning());
      assertNotNull(lines("jbs_mof_supplier.argv").get(0));
    } finally {
      s.stop();
    }
  }

  /** A script that fails its first `failures` starts (exit 3), then runs as fakeDaemon's. */
  private void flakyDaemon(String name, String ready, int failures) throws IOException {
    Path bin = dir.resolve("bin");
    Files.createDirectories(bin);
    Path script = bin.resolve(name);
    Files.writeString(script, "#!/bin/sh\n"
        + "echo \"$*\" >> \"$0.argv\"\n"
        + "n=$(wc -l < \"$0.argv\")\n"
        + "if [ \"$n\" -le " + failures + " ]; then echo \"cannot start ($n)\" >&2; exit 3; fi\n"
        + "echo \"" + ready + "\"\n"
        + "while read line; do echo \"$line\" >> \"$0.cmds\"; echo OK; done\n");
    assertTrue(script.toFile().setExecutable(true));
  }

  /** a first start that fails is retried with back-off, not left dead. */
  @Test
  void aFailedFirstStartIsRetriedAndTheJobsReachTheDaemon() throws Exception {
    flakyDaemon("jbs_mof_supplier", "READY 45680", 2);
    fakeDaemon("jbs_net_merger", "READY " + dir.resolve("m.sock"));
    JbsAuxService s = new JbsAuxService();
    s.init(conf());
    s.start();
    try {
      // A job arrives while the supplier is still down: it gets ADD_JOB once it is up.
      s.initializeApplication(new ApplicationInitializationContext("alice", APP, token()));
      await("supplier up after two failed starts", () -> s.supplierDaemon().isRunning()
          && !linesQuietly("jbs_mof_supplier.cmds").isEmpty());
      assertEquals(3, s.supplierDaemon().starts());
      assertEquals(2, s.supplierDaemon().failedStarts());
      assertFalse(s.supplierDaemon().gaveUp());
      // Queued before or re-sent after the start that worked (a repeat is harmless).
      assertTrue(lines("jbs_mof_supplier.cmds").stream()
          .allMatch(l -> l.equals("ADD_JOB " + JOB + " alice 0102abff")));
      assertEquals(45680, ShuffleHandler.deserializeMetaData(s.getMetaData()));
    } finally {
      s.stop();
    }
  }

  /** ...and a daemon that never starts is given up on, visibly, with the service still up. */
  @Test
  void aDaemonThatNeverStartsIsGivenUpOnAfterBoundedRetries() throws Exception {
    flakyDaemon("jbs_mof_supplier", "READY 45681", Integer.MAX_VALUE);
    fakeDaemon("jbs_net_merger", "READY " + dir.resolve("m.sock"));
    JbsAuxService s = new JbsAuxService();
    s.init(conf());
    s.start();
    try {
      await("supervisor gives up", () -> s.supplierDaemon().gaveUp());
      int max = SupervisedDaemon.DEFAULT_MAX_FAILED_STARTS;
      assertEquals(max, s.supplierDaemon().failedStarts());
      assertEquals(max, lines("jbs_mof_supplier.argv").size());
      assertFalse(s.supplierDaemon().isRunning());
      assertTrue(s.supplierDaemon().lastStartFailure().contains("did not print READY"));
      // The NodeManager goes on, and so do the other daemon and job bookkeeping.
      s.initializeApplication(new ApplicationInitializationContext("alice", APP, token()));
      idle(s);
      assertEquals(1, lines("jbs_net_merger.cmds").size());
      assertEquals(org.apache.hadoop.service.Service.STATE.STARTED, s.getServiceState());
    } finally {
      s.stop();
    }
  }

  /** a daemon that stops answering its control channel is restarted. */
  @Test
  void aDaemonThatDoesNotAnswerAControlLineIsKilledAndRestarted() throws Exception {
    Path script = dir.resolve("mute");
    Files.writeString(script, "#!/bin/sh\necho READY x\nwhile read line; do :; done\n");
    assertTrue(script.toFile().setExecutable(true));
    java.util.concurrent.atomic.AtomicInteger restarts =
        new java.util.concurrent.atomic.AtomicInteger();
    SupervisedDaemon d = new SupervisedDaemon("mute", prev -> List.of(script.toString()), 10_000,
        300, 10, restarts::incrementAndGet);
    assertTrue(d.start());
    try {
      Process first = d.process();
      long t0 = System.nanoTime();
      d.submit("PING"); // returns at once: the caller never waits on the daemon
      assertTrue((System.nanoTime() - t0) / 1_000_000 < 200);
      await("restart of the mute daemon", () -> restarts.get() == 1 && d.isRunning());
      assertFalse(first.isAlive());
      assertEquals(2, d.starts());
      assertEquals(0, d.failedStarts());
    } finally {
      d.stop(5_000);
    }
  }

  @Test
  void badValuesStopTheServiceNamingTheKey() {
    Configuration c = conf();
    c.set("hadoop.accel.jbs.merger.max.connections", "lots");
    JbsAuxService s = new JbsAuxService();
    Exception e = assertThrows(Exception.class, () -> s.init(c));
    assertTrue(String.valueOf(e.getMessage()).contains("hadoop.accel.jbs.merger.max.connections")
        || String.valueOf(e.getCause()).contains("hadoop.accel.jbs.merger.max.connections"),
        String.valueOf(e));
    assertNotNull(new File(dir.toFile(), "."));
  }
}
