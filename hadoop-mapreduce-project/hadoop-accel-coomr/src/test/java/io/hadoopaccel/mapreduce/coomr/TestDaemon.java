package io.hadoopaccel.mapreduce.coomr;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;

/**
 * The coordinator daemon of the -Pnative build, run in a test's temporary dir: socket
 * {@code coordinator.sock}, pool dir {@code pool}. Without -Pnative the test is skipped; with
 * it, a missing daemon fails.
 */
final class TestDaemon implements AutoCloseable {
  static final Path BINARY = Paths.get(System.getProperty("coomr.coordinator.binary", "none"));

  final Path socket;
  final Path pool;
  private final Process process;

  TestDaemon(Path dir, long poolBytes, int blockSize) throws IOException {
    if (!Boolean.getBoolean("accel.native.required")) {
      assumeTrue(Files.isExecutable(BINARY), "no coomr_coordinator (build with -Pnative)");
    }
    socket = dir.resolve("coordinator.sock");
    pool = dir.resolve("pool");
    process = new ProcessBuilder(BINARY.toString(), "--socket", socket.toString(), "--pool-dir",
        pool.toString(), "--pool-bytes", String.valueOf(poolBytes), "--block-size",
        String.valueOf(blockSize)).redirectErrorStream(true).start();
    // It logs one line once it listens; that line, not a sleep, says it is ready.
    String line = new String(process.getInputStream().readNBytes(20), StandardCharsets.UTF_8);
    assertTrue(line.startsWith("coomr_coordinator: "), line);
  }

  /** Kills it at once (no cleanup), as a crash would. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    assertTrue(process.waitFor(10, TimeUnit.SECONDS));
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    assertTrue(process.waitFor(10, TimeUnit.SECONDS));
  }
}
