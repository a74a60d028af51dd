package io.hadoopaccel.mapreduce.jbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.hadoopaccel.common.conf.AccelKeyRanges;
import io.hadoopaccel.common.conf.KeyRange;
import io.hadoopaccel.common.daemon.SupervisedDaemon;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every numeric JBS key at either end of its range in accel-default.xml starts both real daemons
 * through the aux service (its own command-line builder, READY awaited); one past either end stops
 * the aux service's init naming the key; and the daemons' parsers draw the line at exactly the
 * same place (a value one past the end, put straight on a daemon's command line, is refused naming
 * the key), so Java and the daemons cannot disagree. Needs -Pnative's daemons (skipped without
 * them, failed when -Pnative requires them).
 */
class TestJbsKeyExtremes {
  private static final boolean NATIVE_REQUIRED = Boolean.getBoolean("accel.native.required");
  private static final File NATIVE_DIR = new File(System.getProperty("jbs.native.bin.dir",
      "../../target/native/bin"));
  private static final boolean NATIVES =
      new File(NATIVE_DIR, JbsConfig.SUPPLIER_BINARY).canExecute()
          && new File(NATIVE_DIR, JbsConfig.MERGER_BINARY).canExecute();

  @TempDir
  Path dir;

  @BeforeAll
  static void needDaemons() {
    assertFalse(NATIVE_REQUIRED && !NATIVES, "no daemons in " + NATIVE_DIR);
  }

  static List<KeyRange> jbsRanges() {
    List<KeyRange> out = new ArrayList<>();
    AccelKeyRanges.all().forEach((k, r) -> {
      if (k.startsWith("hadoop.accel.jbs.")) {
        out.add(r);
      }
    });
    return out;
  }

  static Stream<Arguments> ends() {
    return jbsRanges().stream().flatMap(r -> Stream.of(Arguments.of(r.key, r.min),
        Arguments.of(r.key, r.max)));
  }

  static Stream<Arguments> beyond() {
    return jbsRanges().stream().flatMap(r -> Stream.of(Arguments.of(r.key, r.min - 1),
        Arguments.of(r.key, r.max + 1)));
  }

  private Configuration conf(String key, long value) throws Exception {
    Configuration c = new Configuration(false);
    c.set(JbsConfigKeys.NATIVE_DIR, NATIVE_DIR.getAbsolutePath());
    c.set(JbsConfigKeys.MERGER_SOCKET, dir.resolve("m.sock").toString());
    c.set(JbsConfigKeys.SUPPLIER_PORT, "0");
    Files.createDirectories(dir.resolve("local"));
    c.set("yarn.nodemanager.local-dirs", dir.resolve("local").toString());
    c.set(key, Long.toString(value));
    return c;
  }

  @Test
  void everyJbsKeyThatReachesADaemonHasARange() {
    List<String> keys = new ArrayList<>();
    jbsRanges().forEach(r -> keys.add(r.key));
    for (String k : List.of(JbsConfigKeys.BUFFER_BYTES, JbsConfigKeys.SUPPLIER_BUFFERS,
        JbsConfigKeys.SUPPLIER_INDEX_CACHE_BYTES, JbsConfigKeys.MERGER_MEMORY_BYTES,
        JbsConfigKeys.MERGER_MAX_CONNECTIONS, JbsConfigKeys.CONNECT_TIMEOUT_MS,
        JbsConfigKeys.READ_TIMEOUT_MS, JbsConfigKeys.FETCH_RETRIES,
        JbsConfigKeys.FETCH_RETRY_BACKOFF_MS, JbsConfigKeys.SUPPLIER_PORT)) {
      assertTrue(keys.contains(k), k + " has no <range>");
    }
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("ends")
  void bothDaemonsStartWithTheKeyAtAnEndOfItsRange(String key, long value) throws Exception {
    assumeTrue(NATIVES, "daemons not built (-Pnative)");
    JbsAuxService s = new JbsAuxService();
    s.init(conf(key, value));
    s.start();
    try {
      for (SupervisedDaemon d : List.of(s.supplierDaemon(), s.mergerDaemon())) {
        assertNotNull(d, "aux service started no daemons");
        assertNotNull(d.address(), d + " never printed READY with " + key + "=" + value);
        assertTrue(d.isRunning(), d + " is not running with " + key + "=" + value);
        assertEquals(1, d.starts(), d + " restarted with " + key + "=" + value);
      }
    } finally {
      s.stop();
    }
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("beyond")
  void oneBeyondStopsTheAuxServiceNamingTheKey(String key, long value) throws Exception {
    JbsAuxService s = new JbsAuxService();
    Exception e = assertThrows(Exception.class, () -> s.init(conf(key, value)));
    StringBuilder messages = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    assertTrue(messages.toString().contains("configuration key " + key), messages.toString());
    assertTrue(messages.toString().contains("'" + value + "'"), messages.toString());
  }

  /**
   * The daemons' own limit is the declared one: the aux service's command line for the key at an
   * end of its range, with that value moved one past it, makes the daemon exit naming the key.
   */
  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("ends")
  void theDaemonRefusesOnePastTheEndNamingTheKey(String key, long value) throws Exception {
    assumeTrue(NATIVES, "daemons not built (-Pnative)");
    KeyRange r = AccelKeyRanges.of(key);
    long past = value == r.max ? r.max + 1 : r.min - 1;
    List<String> local = List.of(dir.resolve("local").toString());
    List<Function<JbsConfig, List<String>>> daemons = List.of(
        c -> c.supplierCommand(c.supplierBinary(), 0, local),
        c -> c.mergerCommand(c.mergerBinary(), local));
    int tried = 0;
    for (Function<JbsConfig, List<String>> build : daemons) {
      List<String> cmd = build.apply(JbsConfig.from(conf(key, value)));
      int at = argumentOf(cmd, build.apply(JbsConfig.from(conf(key, value == r.min ? r.max
          : r.min))));
      if (at < 0) {
        continue; // not this daemon's option
      }
      assertEquals(Long.toString(value), cmd.get(at), String.join(" ", cmd));
      List<String> bad = new ArrayList<>(cmd);
      bad.set(at, Long.toString(past));
      Path err = dir.resolve("stderr-" + tried);
      Process p = new ProcessBuilder(bad).redirectError(err.toFile()).start();
      assertTrue(p.waitFor(20, TimeUnit.SECONDS), String.join(" ", bad) + " did not exit");
      String stderr = Files.readString(err, StandardCharsets.UTF_8);
      assertEquals(2, p.exitValue(), String.join(" ", bad) + ": " + stderr);
      assertTrue(stderr.contains(key), stderr);
      tried++;
    }
    boolean javaOnly = key.equals(JbsConfigKeys.RESTART_BACKOFF_MS)
        || key.equals(JbsConfigKeys.READY_TIMEOUT_MS)
        || key.equals(JbsConfigKeys.REDUCER_READ_TIMEOUT_MS) // read by the reduce task
        || key.equals(JbsConfigKeys.SUPPLIER_PORT); // inside --listen HOST:PORT
    assertEquals(!javaOnly, tried > 0, key + " on a daemon's command line: " + tried);
  }

  /** The one position where two command lines differ, if it is an option's value; else -1. */
  private static int argumentOf(List<String> a, List<String> b) {
    int at = -1;
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).equals(b.get(i))) {
        if (at >= 0) {
          return -1;
        }
        at = i;
      }
    }
    return at > 0 && a.get(at - 1).startsWith("--") && !a.get(at).contains(":") ? at : -1;
  }
}
