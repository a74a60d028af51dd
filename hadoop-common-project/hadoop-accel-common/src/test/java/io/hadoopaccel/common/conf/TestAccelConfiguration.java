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
  void intsAreBoundedByTheDeclaredRange() {
    String key = "hadoop.accel.jbs.merger.max.connections"; // <range>1..65536</range>
    assertEquals(7, AccelConfiguration.getInt(with(key, "7"), key));
    assertRejected(() -> AccelConfiguration.getInt(with(key, "65537"), key), key, "65537");
    assertRejected(() -> AccelConfiguration.getInt(with(key, "x"), key), key, "x");
    assertRejected(() -> AccelConfiguration.getInt(with(key, "99999999999"), key), key,
        "99999999999");
  }

  @Test
  void sizesTakeUnitsAndSteps() {
    String key = "hadoop.accel.jbs.buffer.bytes"; // <range>4k..16m step 4k</range>
    assertEquals(128L << 10, AccelConfiguration.getBytes(with(key, "128k"), key));
    assertEquals(16L << 20, AccelConfiguration.getBytes(with(key, "16m"), key));
    assertRejected(() -> AccelConfiguration.getBytes(with(key, "32m"), key), key, "32m");
    assertRejected(() -> AccelConfiguration.getBytes(with(key, "5000"), key), key, "5000");
    assertRejected(() -> AccelConfiguration.getBytes(with(key, "lots"), key), key, "lots");
  }

  @Test
  void everyDeclaredRangeAcceptsItsEndsAndRefusesOneBeyond() {
    assertTrue(AccelKeyRanges.all().size() >= 10, AccelKeyRanges.all().toString());
    for (KeyRange r : AccelKeyRanges.all().values()) {
      assertEquals(r.min, AccelConfiguration.getBytes(with(r.key, Long.toString(r.min)), r.key));
      assertEquals(r.max, AccelConfiguration.getBytes(with(r.key, Long.toString(r.max)), r.key));
      String below = Long.toString(r.min - 1);
      String above = Long.toString(r.max + 1);
      assertRejected(() -> AccelConfiguration.getBytes(with(r.key, below), r.key), r.key, below);
      assertRejected(() -> AccelConfiguration.getBytes(with(r.key, above), r.key), r.key, above);
      if (r.max <= Integer.MAX_VALUE) {
        assertEquals(r.max, AccelConfiguration.getInt(with(r.key, Long.toString(r.max)), r.key));
        assertRejected(() -> AccelConfiguration.getInt(with(r.key, above), r.key), r.key, above);
      }
      if (r.step > 1) {
        String off = Long.toString(r.min + 1);
        assertRejected(() -> AccelConfiguration.getBytes(with(r.key, off), r.key), r.key, off);
      }
    }
  }

  @Test
  void aNumberWithoutADeclaredRangeIsABug() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> AccelConfiguration.getInt(with("k.i", "7"), "k.i"));
    assertTrue(e.getMessage().contains("k.i") && e.getMessage().contains("<range>"),
        e.getMessage());
  }

  @Test
  void rangesParse() {
    KeyRange r = KeyRange.parse("k", " 4k..16m step 4k ");
    assertEquals(4096, r.min);
    assertEquals(16L << 20, r.max);
    assertEquals(4096, r.step);
    assertTrue(r.contains(8192) && !r.contains(8193) && !r.contains(0));
    assertThrows(IllegalArgumentException.class, () -> KeyRange.parse("k", "4k-16m"));
    assertThrows(IllegalArgumentException.class, () -> KeyRange.parse("k", "9..1"));
    assertThrows(IllegalArgumentException.class, () -> KeyRange.parse("k", "1..x"));
  }

  @Test
  void enumsListTheChoices() {
    assertEquals(Mode.SHM, AccelConfiguration.getEnum(with("k.e", "shm"), "k.e", Mode.class));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> AccelConfiguration.getEnum(with("k.e", "tcp"), "k.e", Mode.class));
    assertTrue(e.getMessage().contains("auto, shm, pipe"), e.getMessage());
  }
}
