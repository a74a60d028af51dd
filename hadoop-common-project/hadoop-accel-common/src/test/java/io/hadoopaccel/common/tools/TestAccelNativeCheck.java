package io.hadoopaccel.common.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.common.conf.AccelConfigKeys;
import io.hadoopaccel.common.conf.AccelConfiguration;
import io.hadoopaccel.common.nativeio.HadoopAccelNative;
import io.hadoopaccel.common.nativeio.NativeLoader;
import io.hadoopaccel.common.tools.AccelNativeCheck.Kind;
import io.hadoopaccel.common.tools.AccelNativeCheck.Piece;
import io.hadoopaccel.common.tools.AccelNativeCheck.Result;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestAccelNativeCheck {
  private static final boolean NATIVE_REQUIRED = Boolean.getBoolean("accel.native.required");

  @TempDir Path dir;

  private static Result result(Kind kind, boolean ok) {
    return new Result(new Piece("p", "libp.so", kind, "a test"), ok, "");
  }

  @Test
  void exitStatusFollowsStockWithOurCoreLibraryInLibhadoopsPlace() {
    List<Result> allThere = List.of(result(Kind.CORE, true), result(Kind.LIBRARY, true));
    List<Result> optionalMissing = List.of(result(Kind.CORE, true), result(Kind.EXECUTABLE, false));
    List<Result> coreMissing = List.of(result(Kind.CORE, false), result(Kind.LIBRARY, true));
    assertEquals(0, AccelNativeCheck.exitCode(allThere, false));
    assertEquals(0, AccelNativeCheck.exitCode(allThere, true));
    assertEquals(0, AccelNativeCheck.exitCode(optionalMissing, false));
    assertEquals(1, AccelNativeCheck.exitCode(optionalMissing, true));
    assertEquals(1, AccelNativeCheck.exitCode(coreMissing, false));
    assertEquals(1, AccelNativeCheck.exitCode(coreMissing, true));
  }

  @Test
  void usageAndBadArguments() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Configuration conf = new Configuration(false);
    assertEquals(0, AccelNativeCheck.run(new String[] {"-h"}, conf, dir.toFile(),
        new PrintStream(out, true), new PrintStream(err, true)));
    assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("Usage: hadoop checknative"));
    assertEquals(1, AccelNativeCheck.run(new String[] {"-x"}, conf, dir.toFile(),
        new PrintStream(out, true), new PrintStream(err, true)));
    assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("Usage: hadoop checknative"));
  }

  @Test
  void eachKindIsReallyChecked() throws IOException {
    Path libs = Files.createDirectories(dir.resolve("lib"));
    Path bin = Files.createDirectories(dir.resolve("bin"));
    // Not an ELF file: neither a shim nor a library.
    Files.writeString(libs.resolve("libfake_shim.so"), "not a library");
    Files.writeString(libs.resolve("libfake_lib.so"), "not a library");
    // A "daemon" that prints its usage, one that prints something else, one not executable.
    Path good = bin.resolve("good_daemon");
    Files.writeString(good, "#!/bin/sh\necho 'usage: good_daemon --listen HOST:PORT' >&2\nexit 2\n");
    assertTrue(good.toFile().setExecutable(true));
    Path bad = bin.resolve("bad_daemon");
    Files.writeString(bad, "#!/bin/sh\necho 'error while loading shared libraries: libx.so' >&2\nexit 127\n");
    assertTrue(bad.toFile().setExecutable(true));
    Files.writeString(bin.resolve("plain_file"), "");

    Configuration conf = new Configuration(false);
    conf.set(AccelConfigKeys.NATIVE_LIB_DIR, libs.toString());
    List<Result> r = AccelNativeCheck.check(conf, List.of(
        new Piece("shim", "libfake_shim.so", Kind.PRELOAD, "t"),
        new Piece("lib", "libfake_lib.so", Kind.LIBRARY, "t"),
        new Piece("absent", "libabsent.so", Kind.LIBRARY, "t"),
        new Piece("good", "good_daemon", Kind.EXECUTABLE, "t"),
        new Piece("bad", "bad_daemon", Kind.EXECUTABLE, "t"),
        new Piece("plain", "plain_file", Kind.EXECUTABLE, "t"),
        new Piece("gone", "gone_daemon", Kind.EXECUTABLE, "t")), bin.toFile());
    assertFalse(r.get(0).ok, r.get(0).line());
    assertTrue(r.get(0).detail.contains("not an ELF shared object"), r.get(0).line());
    assertFalse(r.get(1).ok, r.get(1).line());
    assertTrue(r.get(1).detail.contains("not loadable"), r.get(1).line());
    assertFalse(r.get(2).ok);
    assertTrue(r.get(2).detail.contains("not found"), r.get(2).line());
    assertTrue(r.get(3).ok, r.get(3).line());
    assertFalse(r.get(4).ok);
    assertTrue(r.get(4).detail.contains("exited 127: error while loading"), r.get(4).line());
    assertFalse(r.get(5).ok);
    assertTrue(r.get(5).detail.contains("not executable"), r.get(5).line());
    assertFalse(r.get(6).ok);
    assertTrue(r.get(6).detail.contains("not found"), r.get(6).line());
  }

  /** With -Pnative the real libhadoopaccel passes as a library and as a shared object. */
  @Test
  void realLibraryPassesEveryFileCheck() {
    Configuration conf = AccelConfiguration.create();
    boolean built = NativeLoader.find(conf, HadoopAccelNative.LIBRARY).isPresent();
    assertTrue(built || !NATIVE_REQUIRED, "libhadoopaccel not built");
    List<Result> r = AccelNativeCheck.check(conf, List.of(
        new Piece("core", "libhadoopaccel.so", Kind.CORE, "t"),
        new Piece("lib", "libhadoopaccel.so", Kind.LIBRARY, "t"),
        new Piece("elf", "libhadoopaccel.so", Kind.PRELOAD, "t")), new File("."));
    for (Result x : r) {
      assertEquals(built, x.ok, x.line());
    }
    assertEquals(built ? 0 : 1, AccelNativeCheck.exitCode(r, true));
  }

  @Test
  void switchedOffCoreCountsAsMissing() {
    Configuration conf = new Configuration(false);
    conf.setBoolean(AccelConfigKeys.NATIVE_ENABLED, false);
    List<Result> r = AccelNativeCheck.check(conf, List.of(
        new Piece("core", "libhadoopaccel.so", Kind.CORE, "t")), dir.toFile());
    assertFalse(r.get(0).ok);
    assertEquals(1, AccelNativeCheck.exitCode(r, false));
  }
}
