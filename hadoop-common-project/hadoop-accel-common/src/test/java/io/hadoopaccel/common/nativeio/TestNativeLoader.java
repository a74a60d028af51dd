package io.hadoopaccel.common.nativeio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.jna.Library;
import io.hadoopaccel.common.conf.AccelConfigKeys;
import io.hadoopaccel.common.conf.AccelConfiguration;
import java.util.Optional;
import java.util.Random;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class TestNativeLoader {
  /** -Pnative sets this: then a missing library is a failure, not a skipped test. */
  private static final boolean NATIVE_REQUIRED = Boolean.getBoolean("accel.native.required");

  interface Missing extends Library {
    int nothing();
  }

  private static long javaCrc(byte[] b) {
    CRC32 c = new CRC32();
    c.update(b);
    return c.getValue();
  }

  @Test
  void nativeLibraryLoadsWhenBuilt() {
    Optional<HadoopAccelNative.Api> api = HadoopAccelNative.load(AccelConfiguration.create());
    if (NATIVE_REQUIRED) {
      assertTrue(api.isPresent(), "libhadoopaccel not loaded: "
          + NativeLoader.status(HadoopAccelNative.LIBRARY).detail());
    }
    assumeTrue(api.isPresent(), "native build not present");
    assertTrue(api.get().hacc_version().contains("accel"));
    assertTrue(NativeLoader.status(HadoopAccelNative.LIBRARY).detail().endsWith(".so"));
  }

  @Test
  void crcIsTheSameWithAndWithoutNative() {
    Random rnd = new Random(7);
    Configuration on = AccelConfiguration.create();
    Configuration off = AccelConfiguration.create();
    off.setBoolean(AccelConfigKeys.NATIVE_ENABLED, false);
    assertFalse(HadoopAccelNative.load(off).isPresent());
    for (int len : new int[] {0, 1, 9, 4096, 100_003}) {
      byte[] b = new byte[len];
      rnd.nextBytes(b);
      assertEquals(javaCrc(b), HadoopAccelNative.crc32(on, b), "len " + len);
      assertEquals(javaCrc(b), HadoopAccelNative.crc32(off, b), "len " + len);
    }
  }

  @Test
  void missingLibraryFallsBackWithAReason() {
    Optional<Missing> m = NativeLoader.load(
        AccelConfiguration.create(), "hadoopaccel_no_such_lib", Missing.class, "nothing");
    assertFalse(m.isPresent());
    NativeLoader.Status s = NativeLoader.status("hadoopaccel_no_such_lib");
    assertFalse(s.isLoaded());
    assertTrue(s.detail().contains("libhadoopaccel_no_such_lib.so"), s.detail());
  }

  @Test
  void missingJniLibraryFallsBackWithAReasonAndNeverProbes() {
    Optional<String> f = NativeLoader.loadJni(AccelConfiguration.create(), "hadoopaccel_no_such_jni",
        System::load, () -> {
          throw new AssertionError("probed a library that did not load");
        }, "nothing");
    assertFalse(f.isPresent());
    NativeLoader.Status s = NativeLoader.status("jni:hadoopaccel_no_such_jni");
    assertFalse(s.isLoaded());
    assertTrue(s.detail().contains("libhadoopaccel_no_such_jni.so"), s.detail());
  }

  @Test
  void badSwitchValueNamesTheKey() {
    Configuration conf = AccelConfiguration.create();
    conf.set(AccelConfigKeys.NATIVE_ENABLED, "yes");
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> HadoopAccelNative.load(conf));
    assertTrue(e.getMessage().contains(AccelConfigKeys.NATIVE_ENABLED));
  }
}
