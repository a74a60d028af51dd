package io.hadoopaccel.mapreduce.coomr;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.hadoopaccel.minicluster.AuxServicesManifest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.mapred.CoomrMapOutputCollector;
import org.apache.hadoop.mapred.CoomrShuffleHandler;
import org.apache.hadoop.mapreduce.MRJobConfig;

/**
 * A mini cluster's NodeManager running CooMR as deployed: the coordinator of the -Pnative build
 * under {@link CoomrAuxService}, and {@link CoomrShuffleHandler} as {@code mapreduce_shuffle}.
 * Its socket and pool are in a temporary dir, deleted when the JVM exits (after the cluster).
 * For TestCoomrJobs and hadoop-accel-integration (through this module's test jar).
 */
public final class CoomrTestCluster {
  public static final String STOCK_COLLECTOR =
      "org.apache.hadoop.mapred.MapTask$MapOutputBuffer";
  static final Path BINARY = Paths.get(System.getProperty("coomr.coordinator.binary", "none"));

  private final Path dir;

  public CoomrTestCluster() {
    try {
      dir = Files.createTempDirectory("coomr-cluster");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> FileUtil.fullyDelete(dir.toFile())));
  }

  public Path dir() {
    return dir;
  }

  public Path socket() {
    return dir.resolve("sock/coordinator.sock");
  }

  public Path pool() {
    return dir.resolve("pool");
  }

  /** The cluster's configuration: CooMR's aux services, a 64 MB pool. */
  public void configure(Configuration c) {
    Map<String, Class<?>> services = new LinkedHashMap<>();
    services.put("mapreduce_shuffle", CoomrShuffleHandler.class);
    services.put(CoomrAuxService.SERVICE_NAME, CoomrAuxService.class);
    AuxServicesManifest.configure(c, "coomr", services);
    c.set(CoomrConfigKeys.NATIVE_DIR, BINARY.getParent().toString());
    c.set(CoomrConfigKeys.COORDINATOR_SOCKET, socket().toString());
    c.set(CoomrConfigKeys.POOL_DIR, pool().toString());
    c.set(CoomrConfigKeys.POOL_BYTES, "64m");
  }

  /** A job's configuration with CooMR's collector on, stock's as its fallback. */
  public static void switchOn(Configuration job, String coordinatorSocket) {
    job.set(MRJobConfig.MAP_OUTPUT_COLLECTOR_CLASS_ATTR,
        CoomrMapOutputCollector.class.getName() + "," + STOCK_COLLECTOR);
    job.set(CoomrConfigKeys.COORDINATOR_SOCKET, coordinatorSocket);
  }

  /**
   * Waits (at most a minute) until the shuffle has connected to the coordinator, so that maps
   * may leave their outputs in the pool. Skips the test without -Pnative.
   */
  public void awaitShuffleConnected() throws Exception {
    if (!Boolean.getBoolean("accel.native.required")) {
      assumeTrue(Files.isExecutable(BINARY), "no coomr_coordinator (build with -Pnative)");
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (int i = 0;; i++) {
      try (CoordinatorClient c = CoordinatorClient.attach(socket(), "job_0_0000", "probe_" + i,
          10_000)) {
        c.detach();
        if (c.servesOutputs()) {
          return;
        }
      } catch (IOException e) {
        // the aux service is still starting it
      }
      assertTrue(System.nanoTime() < deadline, "the shuffle did not connect to the coordinator");
      Thread.sleep(50); // polling a condition with a deadline, not synchronising on time
    }
  }
}
