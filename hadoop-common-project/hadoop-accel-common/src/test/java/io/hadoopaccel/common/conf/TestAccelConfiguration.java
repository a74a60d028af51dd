package io.hadoopaccel.common.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class TestAccelConfiguration {
  private enum Mode { AUTO, SHM, PIPE }

  private static Configuration with(String key, String value) {
    Configuration conf = new Configuration(false);
    conf.set(key, value);
    return conf;
  }

  private static void assertRejected(Runnable r, String key, String value) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
    assertTrue(e.getMessage().contains(key), e.getMessage());
    assertTrue(e.getMessage().contains("'" + value + "'"), e.getMessage());
  }

  @Test
  void booleansAreStrict() {
    assertEquals(true, AccelConfiguration.getBoolean(with("k.b", "TRUE"), "k.b"));
    assertEquals(false, AccelConfiguration.getBoolean(with("k.b", " false "), "k.b"));
    assertRejected(() -> AccelConfiguration.getBoolean(with("k.b", "ture"), "k.b"), "k.b", "ture");
  }

  @Test
  void missingKeyIsNamed() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> AccelConfiguration.getBoolean(new Configuration(false), "k.missing"));
    assertTrue(e.getMessage().contains("k.missing"));
  }

  @Test
  void intsAreRangeChecked() {
    assertEquals(7, AccelConfiguration.getInt(with("k.i", "7"), "k.i", 1, 10));
    assertRejected(() -> AccelConfiguration.getInt(with("k.i", "11"), "k.i", 1, 10), "k.i", "11");
    assertRejected(() -> AccelConfiguration.getInt(with("k.i", "x"), "k.i", 1, 10), "k.i", "x");
    assertRejected(() -> AccelConfiguration.getInt(with("k.i", "99999999999"), "k.i", 1, 10),
        "k.i", "99999999999");
  }

  @Test
  void sizesTakeUnits() {
    assertEquals(128L << 10, AccelConfiguration.getBytes(with("k.s", "128k"), "k.s", 1, 1L << 30));
    assertEquals(64L << 20, AccelConfiguration.getBytes(with("k.s", "64m"), "k.s", 1, 1L << 30));
    assertRejected(() -> AccelConfiguration.getBytes(with("k.s", "2g"), "k.s", 1, 1L << 30), "k.s", "2g");
    assertRejected(() -> AccelConfiguration.getBytes(with("k.s", "lots"), "k.s", 1, 1L << 30),
        "k.s", "lots");
  }

  @Test
  void enumsListTheChoices() {
    assertEquals(Mode.SHM, AccelConfiguration.getEnum(with("k.e", "shm"), "k.e", Mode.class));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> AccelConfiguration.getEnum(with("k.e", "tcp"), "k.e", Mode.class));
    assertTrue(e.getMessage().contains("auto, shm, pipe"), e.getMessage());
  }
}
