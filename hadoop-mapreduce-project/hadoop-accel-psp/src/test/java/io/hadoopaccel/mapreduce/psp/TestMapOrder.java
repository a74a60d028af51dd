package io.hadoopaccel.mapreduce.psp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The stock allocator's order (node-local, rack, any; request order in each) and planning. */
class TestMapOrder {
  @Test
  void nodeLocalThenRackThenAnyInRequestOrder() {
    MapOrder<String> o = new MapOrder<>();
    o.add("m0", "h2", List.of("/r1"));
    o.add("m1", "h1", List.of("/r1"));
    o.add("m2", "h3", List.of("/r2"));
    o.add("m3", "h1", List.of("/r1"));
    assertEquals(List.of("m1", "m3", "m0", "m2"), o.next("h1", "/r1", 10, m -> false));
    assertEquals(List.of("m1"), o.next("h1", "/r1", 1, m -> false));
    // h4 has nothing local: its rack's first, then any.
    assertEquals(List.of("m2", "m0"), o.next("h4", "/r2", 2, m -> false));
    o.remove("m1");
    assertEquals(List.of("m3", "m0"), o.next("h1", "/r1", 2, m -> false));
    assertEquals(List.of("m0", "m2"), o.next("h1", "/r1", 2, "m3"::equals));
  }

  @Test
  void plansEachMapOnItsLeastLoadedReplicaHost() {
    MapOrder<String> o = new MapOrder<>();
    String[] replicas = {"h1", "h2", "h3"};
    for (int i = 0; i < 6; i++) {
      String h = o.chooseHost(replicas);
      o.add("m" + i, h, List.of("/r"));
    }
    assertEquals(List.of("m0", "m3"), o.next("h1", "/r", 2, m -> false));
    assertEquals(List.of("m1", "m4"), o.next("h2", "/r", 2, m -> false));
    assertEquals("h3", o.hostOf("m5"));
    assertEquals(6, o.size());
  }
}
