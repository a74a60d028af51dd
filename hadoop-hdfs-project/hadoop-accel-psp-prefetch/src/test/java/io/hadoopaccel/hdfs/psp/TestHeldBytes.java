package io.hadoopaccel.hdfs.psp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The prefetcher's memory bound: admission, release, and expiry of unreleased blocks. */
class TestHeldBytes {
  @Test
  void admitsUpToTheBoundThenRefusesUntilReleaseOrExpiry() {
    HeldBytes h = new HeldBytes(100, 1_000);
    assertEquals(HeldBytes.Admission.ADMITTED, h.admit("a", 60, 0));
    assertEquals(HeldBytes.Admission.ALREADY_HELD, h.admit("a", 60, 10));
    assertEquals(HeldBytes.Admission.FULL, h.admit("b", 50, 20));
    assertEquals(HeldBytes.Admission.ADMITTED, h.admit("c", 40, 30));
    assertEquals(100, h.total());
    assertEquals(60, h.release("a"));
    assertEquals(0, h.release("a"));
    assertEquals(HeldBytes.Admission.ADMITTED, h.admit("b", 50, 40));
    // c (admitted at 30) expires at 1030, b at 1040.
    assertEquals(HeldBytes.Admission.FULL, h.admit("d", 20, 1_029));
    assertEquals(HeldBytes.Admission.ADMITTED, h.admit("d", 20, 1_030));
    assertEquals(70, h.total());
  }
}
