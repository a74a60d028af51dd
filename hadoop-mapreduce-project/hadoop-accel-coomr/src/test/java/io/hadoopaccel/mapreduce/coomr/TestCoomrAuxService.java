package io.hadoopaccel.mapreduce.coomr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.api.ApplicationTerminationContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The NodeManager side: the aux service runs the coordinator and ends jobs in it. */
class TestCoomrAuxService {
  @TempDir
  Path tmp;

  private Configuration conf(Path nativeDir) {
    Configuration conf = new Configuration(false);
    conf.set(CoomrConfigKeys.COORDINATOR_SOCKET, tmp.resolve("sock/coordinator.sock").toString());
    conf.set(CoomrConfigKeys.POOL_DIR, tmp.resolve("pool").toString());
    conf.set(CoomrConfigKeys.POOL_BYTES, "4m");
    conf.set(CoomrConfigKeys.BLOCK_SIZE, "64k");
    conf.set(CoomrConfigKeys.NATIVE_DIR, nativeDir.toString());
    return conf;
  }

  /** The service, started with the -Pnative build's coordinator (skipped without -Pnative). */
  private CoomrAuxService startedWithTheCoordinator() {
    Path binary = TestDaemon.BINARY;
    if (!Boolean.getBoolean("accel.native.required")) {
      assumeTrue(Files.isExecutable(binary), "no coomr_coordinator (build with -Pnative)");
    }
    CoomrAuxService svc = new CoomrAuxService();
    svc.init(conf(binary.getParent()));
    svc.start();
    return svc;
  }

  @Test
  void runsTheCoordinatorAndEndsJobsInIt() throws Exception {
    CoomrAuxService svc = startedWithTheCoordinator();
    Process p;
    try {
      assertTrue(svc.coordinator().isRunning());
      p = svc.coordinator().process();
      Path socket = tmp.resolve("sock/coordinator.sock");
      assertEquals("rwx------", PosixFilePermissions.toString(
          Files.getPosixFilePermissions(socket.getParent())));
      ApplicationId app = ApplicationId.newInstance(1764000000000L, 7);
      try (CoordinatorClient c = CoordinatorClient.attach(socket, "job_1764000000000_0007",
          "attempt_1764000000000_0007_m_000000_0", 10_000)) {
        assertEquals(64 << 10, c.blockSize());
        assertEquals(64, c.poolBlocks());
        assertEquals(2, c.request(100_000));
        Files.write(c.dir().resolve("spill0.out"), new byte[100_000]);
        // The job ends (its tasks are being killed): its dir goes at once. Commands go through
        // the daemon's control thread in order, one answer line each: once a second END_JOB
        // is answered, the first is done.
        svc.stopApplication(new ApplicationTerminationContext(app));
        assertEquals("OK", svc.coordinator().query("END_JOB job_1764000000000_0007")
            .get(10, TimeUnit.SECONDS));
        assertFalse(Files.exists(tmp.resolve("pool/job_1764000000000_0007")));
        c.detach();
      }
    } finally {
      svc.stop();
    }
    // Closing its stdin stopped it.
    assertTrue(p.waitFor(10, TimeUnit.SECONDS));
    assertFalse(Files.exists(tmp.resolve("sock/coordinator.sock")));
  }

  /**
   * A coordinator killed with a running map's spills in the pool is restarted with
   * {@code --recover}: the map's spills stay (it merges them later), and a job that ended while
   * no coordinator ran is ended in the new one.
   */
  @Test
  void aRestartedCoordinatorKeepsRunningMapsSpillsAndEndsJobsEndedMeanwhile() throws Exception {
    CoomrAuxService svc = startedWithTheCoordinator();
    try {
      Path socket = tmp.resolve("sock/coordinator.sock");
      CoordinatorClient running = CoordinatorClient.attach(socket, "job_1764000000000_0001",
          "attempt_1764000000000_0001_m_000000_0", 10_000);
      CoordinatorClient ended = CoordinatorClient.attach(socket, "job_1764000000000_0002",
          "attempt_1764000000000_0002_m_000000_0", 10_000);
      assertEquals(2, running.request(100_000));
      Path spill = running.dir().resolve("spill0.out");
      Files.write(spill, new byte[100_000]);
      Files.write(ended.dir().resolve("spill0.out"), new byte[10]);

      Process first = svc.coordinator().process();
      first.destroyForcibly();
      assertTrue(first.waitFor(10, TimeUnit.SECONDS));
      svc.stopApplication(new ApplicationTerminationContext(
          ApplicationId.newInstance(1764000000000L, 2)));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!(svc.coordinator().starts() == 2 && svc.coordinator().isRunning())) {
        assertTrue(System.nanoTime() < deadline, "not restarted");
        Thread.sleep(20); // polling a condition with a deadline, not synchronising on time
      }
      assertTrue(svc.coordinator().process().info().commandLine().orElse("")
          .contains("--recover"));
      // The restart re-sends END_JOB for every job ended so far, after it is READY.
      Path endedDir = tmp.resolve("pool/job_1764000000000_0002");
      while (Files.exists(endedDir)) {
        assertTrue(System.nanoTime() < deadline, "the ended job's dir stayed");
        Thread.sleep(20); // polling a condition with a deadline, not synchronising on time
      }
      assertTrue(Files.exists(spill), "the running map's spill was not kept");
      assertThrows(java.io.IOException.class, () -> running.request(1), "the old connection");
      running.close();
      ended.close();
    } finally {
      svc.stop();
    }
  }

  @Test
  void withoutTheExecutableTheServiceStaysUpAndNothingRuns() {
    CoomrAuxService svc = new CoomrAuxService();
    svc.init(conf(tmp.resolve("no-such-dir")));
    svc.start();
    try {
      assertNull(svc.coordinator());
    } finally {
      svc.stop();
    }
  }

  @Test
  void badValuesStopTheNodeManagerNamingTheKey() {
    Configuration conf = conf(tmp);
    conf.set(CoomrConfigKeys.POOL_DIR, "relative/pool");
    CoomrAuxService svc = new CoomrAuxService();
    // AbstractService.init passes a RuntimeException through as it is.
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> svc.init(conf));
    assertTrue(e.getMessage().contains(CoomrConfigKeys.POOL_DIR), e.getMessage());
    Configuration tiny = conf(tmp);
    tiny.set(CoomrConfigKeys.BLOCK_SIZE, "1k");
    IllegalArgumentException f = assertThrows(IllegalArgumentException.class,
        () -> new CoomrAuxService().init(tiny));
    assertTrue(f.getMessage().contains(CoomrConfigKeys.BLOCK_SIZE), f.getMessage());
  }
}
