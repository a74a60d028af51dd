package io.hadoopaccel.hdfs.psp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;

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

  @Test
  void aBlocksMemoryLockIsClosedWhenItStopsCounting() {
    List<String> closed = new ArrayList<>();
    HeldBytes h = new HeldBytes(100, 1_000);
    h.admit("a", 10, 0);
    h.admit("b", 10, 500);
    h.admit("c", 10, 600);
    assertTrue(h.attach("a", lock("a", closed)));
    assertTrue(h.attach("b", lock("b", closed)));
    assertTrue(h.attach("c", lock("c", closed)));
    assertFalse(h.attach("c", lock("c2", closed)), "a block has one lock");
    assertFalse(h.attach("x", lock("x", closed)), "x is not held: the lock is the caller's");
    assertEquals(List.of(), closed);
    assertEquals(10, h.release("b"));
    assertEquals(List.of("b"), closed);
    h.admit("d", 10, 1_000); // a expires
    assertEquals(List.of("b", "a"), closed);
    h.clear();
    assertEquals(List.of("b", "a", "c"), closed);
    assertEquals(0, h.total());
  }

  private static Closeable lock(String name, List<String> closed) {
    return () -> closed.add(name);
  }
}
