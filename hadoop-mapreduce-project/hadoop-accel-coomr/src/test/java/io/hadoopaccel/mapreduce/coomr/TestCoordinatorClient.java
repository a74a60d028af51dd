package io.hadoopaccel.mapreduce.coomr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Java client against the native coordinator daemon (built by -Pnative). */
class TestCoordinatorClient {
  private static final int BLOCK = 4096;
  private static final long TIMEOUT_MS = 10_000;

  @TempDir
  Path tmp;
  private TestDaemon daemon;
  private Path socket;

  @BeforeEach
  void startCoordinator() throws Exception {
    daemon = new TestDaemon(tmp, 10 * BLOCK, BLOCK);
    socket = daemon.socket;
    assertTrue(Files.exists(socket));
  }

  @AfterEach
  void stopCoordinator() throws InterruptedException {
    if (daemon != null) {
      daemon.close();
    }
  }

  @Test
  void attachesGetsBlocksAndGivesThemBack() throws IOException {
    try (CoordinatorClient c = CoordinatorClient.attach(socket, "job_1_0001",
        "attempt_1_0001_m_000000_0", TIMEOUT_MS)) {
      assertEquals(BLOCK, c.blockSize());
      assertEquals(10, c.poolBlocks());
      assertEquals(tmp.resolve("pool/job_1_0001/attempt_1_0001_m_000000_0"), c.dir());
      assertEquals("rwx------",
          PosixFilePermissions.toString(Files.getPosixFilePermissions(c.dir())));
      assertEquals(3, c.request(3L * BLOCK - 1));
      assertEquals(0, c.request(8L * BLOCK)); // 7 free: refused, the spill goes to disk
      c.release(3);
      IOException tooMany = assertThrows(IOException.class, () -> c.release(1));
      assertTrue(tooMany.getMessage().contains("more blocks than granted"), tooMany.getMessage());
      c.detach();
      assertFalse(Files.exists(c.dir()));
    }
  }

  @Test
  void aRefusedTaskIsServedBeforeOneOverItsShare() throws IOException {
    try (CoordinatorClient big = CoordinatorClient.attach(socket, "job_1_0001", "m_0", TIMEOUT_MS);
        CoordinatorClient small =
            CoordinatorClient.attach(socket, "job_1_0001", "m_1", TIMEOUT_MS)) {
      assertEquals(8, big.request(8L * BLOCK));
      assertEquals(0, small.request(4L * BLOCK));
      assertEquals(0, big.request(BLOCK)); // small waits for 4: big's share is 6
      big.release(5);
      assertEquals(4, small.request(4L * BLOCK));
    }
  }

  @Test
  void aDeadCoordinatorFailsTheCallNotTheTask() throws Exception {
    try (CoordinatorClient c = CoordinatorClient.attach(socket, "job_1_0001", "m_0", TIMEOUT_MS)) {
      daemon.kill();
      long t0 = System.nanoTime();
      assertThrows(IOException.class, () -> c.request(BLOCK));
      assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS));
    }
    daemon = null;
    assertThrows(IOException.class,
        () -> CoordinatorClient.attach(socket, "job_1_0001", "m_1", TIMEOUT_MS));
  }

  @Test
  void refusesAnUnsafeAttemptName() {
    IOException e = assertThrows(IOException.class,
        () -> CoordinatorClient.attach(socket, "job_1_0001", "../../etc", TIMEOUT_MS));
    assertTrue(e.getMessage().contains("plain names"), e.getMessage());
  }
}
