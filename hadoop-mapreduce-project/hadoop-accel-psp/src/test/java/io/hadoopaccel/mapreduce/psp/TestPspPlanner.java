package io.hadoopaccel.mapreduce.psp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Predictions, their timing, and how placements score them (hit, late, miss, waste). */
class TestPspPlanner {
  private static final long MB = 1L << 20;

  /** Records requests; the test completes them when it wants. */
  private static final class FakePrefetcher implements PspPlanner.Prefetcher<String> {
    final List<String> sent = new ArrayList<>();
    final List<Consumer<PspPlanner.Outcome>> pending = new ArrayList<>();
    final List<String> released = new ArrayList<>();
    /** What readOnLoadedNode answers for any map and host. */
    long readOnLoaded;

    @Override
    public void prefetch(String map, String host, Consumer<PspPlanner.Outcome> done) {
      sent.add(map + "@" + host);
      pending.add(done);
    }

    @Override
    public void release(String map, String host) {
      released.add(map + "@" + host);
    }

    @Override
    public long readOnLoadedNode(String map, String runHost) {
      return readOnLoaded;
    }

    void loadAll(long bytes) {
      for (Consumer<PspPlanner.Outcome> c : pending) {
        c.accept(new PspPlanner.Outcome(bytes, 1, 0, 0, false));
      }
      pending.clear();
    }
  }

  private final FakePrefetcher prefetcher = new FakePrefetcher();
  private final Map<PspCounter, Long> counters = new EnumMap<>(PspCounter.class);

  /** Predictions only (the seed's PSP), so each test sees just the requests it predicts. */
  private PspPlanner<String> planner(long aheadBytes) {
    return planner(aheadBytes, false);
  }

  private PspPlanner<String> planner(long aheadBytes, boolean onLaunch) {
    // 100 MiB/s, 1 s lead; splits of 64 MiB (m*) or 1 MiB (s*).
    return new PspPlanner<>(new PspPlanner.Settings(aheadBytes, 1_000, 100 * MB, 64, onLaunch),
        prefetcher, m -> m.startsWith("s") ? MB : 64 * MB,
        (c, v) -> counters.merge(c, v, Long::sum));
  }

  private long count(PspCounter c) {
    return counters.getOrDefault(c, 0L);
  }

  /** Plans maps whose one replica host is h1, on rack /r, in order. */
  private static void planOnH1(PspPlanner<String> p, String... maps) {
    for (String m : maps) {
      p.plan(m, new String[] {"h1"}, List.of("/r"));
    }
  }

  private static Map<String, List<PspPlanner.Running>> running(String host, long start,
      float progress) {
    return Map.of(host, List.of(new PspPlanner.Running(start, progress)));
  }

  @Test
  void waitsUntilReadTimePlusLeadBeforeThePredictedLaunch() {
    PspPlanner<String> p = planner(0);
    planOnH1(p, "m0", "m1", "m2");
    p.placed("m0", "h1", 0);
    // m0: 10 % at 1 s => finishes at 10 s; m1 (64 MiB = 0.64 s read + 1 s lead) at 8.36 s.
    p.tick(1_000, running("h1", 0, 0.1f), h -> "/r");
    assertEquals(1, count(PspCounter.PREDICTIONS));
    assertTrue(prefetcher.sent.isEmpty(), "sent too early: " + prefetcher.sent);
    p.tick(8_000, running("h1", 0, 0.8f), h -> "/r"); // 8 s / 0.8 = 10 s: start 8.36 s
    assertTrue(prefetcher.sent.isEmpty(), "sent too early: " + prefetcher.sent);
    p.tick(8_400, running("h1", 0, 0.84f), h -> "/r");
    assertEquals(List.of("m1@h1"), prefetcher.sent);
    prefetcher.loadAll(64 * MB);
    p.placed("m1", "h1", 10_100);
    assertEquals(1, count(PspCounter.HITS));
    assertEquals(100, count(PspCounter.LAUNCH_ERROR_MS));
    assertEquals(1, count(PspCounter.LAUNCH_ERROR_SAMPLES));
    assertEquals(List.of("m1@h1"), prefetcher.released);
  }

  @Test
  void aNodesOwnMapsTimeItsSlots() {
    PspPlanner<String> p = planner(0);
    p.plan("m2", new String[] {"h1"}, List.of("/r"));
    p.finished("h1", 4_000);
    p.finished("h2", 20_000); // the job's mean: 12 s
    // h1's running map has no progress yet: it ends at 10 s + h1's own 4 s, so m2's request
    // (0.64 s read, 1 s lead) is due at 12.36 s. With the job's mean it would be 20.36 s.
    p.tick(12_300, running("h1", 10_000, 0f), h -> "/r");
    assertTrue(prefetcher.sent.isEmpty(), "sent too early: " + prefetcher.sent);
    p.tick(12_400, running("h1", 10_000, 0f), h -> "/r");
    assertEquals(List.of("m2@h1"), prefetcher.sent);
  }

  @Test
  void aNodesLoadsAreTimedTogetherSinceTheyShareItsDisk() {
    PspPlanner<String> p = planner(0);
    planOnH1(p, "m0", "m1", "m2", "m3");
    p.placed("m0", "h1", 0);
    p.placed("m1", "h1", 0);
    // Both slots free at 10 s. m2's own 0.64 s read starts at 8.36 s; m3, next on the same
    // disk, needs both reads (1.28 s): its request goes out at 7.72 s.
    p.tick(7_800, twoSlots(0.78f), h -> "/r");
    assertEquals(List.of("m3@h1"), prefetcher.sent);
    p.tick(8_400, twoSlots(0.84f), h -> "/r");
    assertEquals(List.of("m3@h1", "m2@h1"), prefetcher.sent);
  }

  @Test
  void mapsLaunchingEarlierThanPredictedWidenTheLead() {
    PspPlanner<String> p = planner(0);
    planOnH1(p, "m0", "m1", "m2");
    p.placed("m0", "h1", 0);
    p.tick(8_400, running("h1", 0, 0.84f), h -> "/r"); // finish 10 s: m1's request at 8.36 s
    assertEquals(List.of("m1@h1"), prefetcher.sent);
    prefetcher.loadAll(64 * MB);
    p.placed("m1", "h1", 7_000); // launched 3 s before its prediction
    // m1 finishes at 27 s. m2's request, due at 25.36 s with the 1 s lead alone, now goes out
    // at 22.36 s.
    p.tick(22_000, running("h1", 7_000, 0.75f), h -> "/r");
    assertEquals(List.of("m1@h1"), prefetcher.sent);
    p.tick(23_000, running("h1", 7_000, 0.8f), h -> "/r");
    assertEquals(List.of("m1@h1", "m2@h1"), prefetcher.sent);
  }

  @Test
  void loadsSlowerThanConfiguredAreTimedAtTheirObservedRate() {
    PspPlanner<String> p = planner(0);
    planOnH1(p, "m0", "m1", "m2");
    p.placed("m0", "h1", 0);
    p.tick(1_000, running("h1", 0, 0f), h -> "/r"); // unknown finish: m1 at once
    p.tick(3_000, running("h1", 0, 0f), h -> "/r");
    prefetcher.loadAll(64 * MB); // 64 MiB in 2 s: 32 MiB/s, not the configured 100
    p.placed("m1", "h1", 4_000);
    // m1 finishes at 24 s. m2 (64 MiB) at 32 MiB/s with the 1 s lead: due at 21 s (at the
    // configured rate it would be 22.36 s).
    p.tick(20_800, running("h1", 4_000, 0.84f), h -> "/r");
    assertEquals(List.of("m1@h1"), prefetcher.sent);
    p.tick(21_200, running("h1", 4_000, 0.86f), h -> "/r");
    assertEquals(List.of("m1@h1", "m2@h1"), prefetcher.sent);
  }

  private static Map<String, List<PspPlanner.Running>> twoSlots(float progress) {
    return Map.of("h1", List.of(new PspPlanner.Running(0, progress),
        new PspPlanner.Running(0, progress)));
  }

  @Test
  void unknownFinishPrefetchesAtOnceOneMapPerSlot() {
    PspPlanner<String> p = planner(0);
    planOnH1(p, "m0", "m1", "m2");
    p.placed("m0", "h1", 0);
    p.tick(100, running("h1", 0, 0f), h -> "/r");
    assertEquals(List.of("m1@h1"), prefetcher.sent);
    // Placed before its input was loaded: late, not a hit.
    p.placed("m1", "h1", 500);
    assertEquals(1, count(PspCounter.LATE_PREFETCHES));
    assertEquals(0, count(PspCounter.HITS));
  }

  @Test
  void tinySplitsAreFetchedSeveralMapsAhead() {
    PspPlanner<String> p = planner(4 * MB);
    for (int i = 0; i < 10; i++) {
      p.plan("s" + i, new String[] {"h1"}, List.of("/r"));
    }
    p.placed("s0", "h1", 0);
    p.tick(100, running("h1", 0, 0f), h -> "/r");
    // 1 MiB each, 4 MiB ahead for the one slot: four maps.
    assertEquals(List.of("s1@h1", "s2@h1", "s3@h1", "s4@h1"), prefetcher.sent);
  }

  @Test
  void aMapPlacedElsewhereIsAMissAndItsBytesAreWasted() {
    PspPlanner<String> p = planner(0);
    p.plan("m0", new String[] {"h1"}, List.of("/r"));
    p.plan("m1", new String[] {"h1", "h2"}, List.of("/r"));
    p.plan("m2", new String[] {"h2"}, List.of("/r"));
    p.placed("m0", "h1", 0);
    // m1 is planned on h2 (fewer maps): h1 is predicted it only once its slot's time is known.
    p.tick(100, running("h1", 0, 0.5f), h -> "/r");
    assertEquals(List.of("m1@h1"), prefetcher.sent);
    prefetcher.loadAll(64 * MB);
    p.placed("m1", "h2", 1_000); // the wrong prediction
    assertEquals(1, count(PspCounter.MISSES));
    assertEquals(64 * MB, count(PspCounter.WASTED_PREFETCH_BYTES));
    assertEquals(0, count(PspCounter.HITS));
    assertEquals(List.of("m1@h1"), prefetcher.released);
  }

  @Test
  void aMissWhileStillLoadingIsWastedWhenTheLoadEnds() {
    PspPlanner<String> p = planner(0);
    p.plan("m0", new String[] {"h1"}, List.of("/r"));
    p.plan("m1", new String[] {"h1"}, List.of("/r"));
    p.placed("m0", "h1", 0);
    p.tick(100, running("h1", 0, 0f), h -> "/r");
    p.placed("m1", "h2", 200);
    assertEquals(0, count(PspCounter.WASTED_PREFETCH_BYTES));
    prefetcher.loadAll(64 * MB);
    assertEquals(64 * MB, count(PspCounter.WASTED_PREFETCH_BYTES));
    assertEquals(List.of("m1@h1"), prefetcher.released);
  }

  @Test
  void aMapPredictedForOneNodeIsNotPredictedForAnother() {
    PspPlanner<String> p = planner(0);
    p.plan("m0", new String[] {"h1"}, List.of("/r"));
    p.plan("m1", new String[] {"h2"}, List.of("/r"));
    p.plan("m2", new String[] {"h3"}, List.of("/r"));
    p.placed("m0", "h1", 0);
    // h1 has nothing local left: it would get m1 (rack order) ...
    p.tick(100, running("h1", 0, 0.5f), h -> "/r");
    assertEquals(List.of("m1@h1"), prefetcher.sent);
    // ... so h4, with nothing local either, is predicted the next one, m2.
    p.tick(100, running("h4", 0, 0.5f), h -> "/r");
    assertEquals(List.of("m1@h1", "m2@h4"), prefetcher.sent);
    assertEquals(2, count(PspCounter.PREDICTIONS));
  }

  @Test
  void unreachablePrefetcherIsCountedAndNeverAHit() {
    PspPlanner<String> p = planner(0);
    p.plan("m0", new String[] {"h1"}, List.of("/r"));
    p.plan("m1", new String[] {"h1"}, List.of("/r"));
    p.placed("m0", "h1", 0);
    p.tick(100, running("h1", 0, 0f), h -> "/r");
    prefetcher.pending.get(0).accept(new PspPlanner.Outcome(0, 0, 0, 0, true));
    p.placed("m1", "h1", 1_000);
    assertEquals(1, count(PspCounter.PREFETCHER_UNREACHABLE));
    assertEquals(0, count(PspCounter.HITS) + count(PspCounter.LATE_PREFETCHES));
    assertTrue(p.summary().contains("unreachable=1"), p.summary());
  }

  @Test
  void aHostOutOfLocalMapsIsPredictedTheRackHeadTheAllocatorGivesIt() {
    PspPlanner<String> p = planner(0);
    p.plan("m0", new String[] {"h1"}, List.of("/r"));
    p.plan("m1", new String[] {"h1"}, List.of("/r"));
    p.plan("m2", new String[] {"h1"}, List.of("/r"));
    p.plan("x", new String[] {"h2"}, List.of("/r"));
    p.placed("m0", "h1", 0);
    p.placed("x", "h2", 0);
    // h2 (nothing local left) frees at 2 s, h1 at 10 s: the allocator gives h2 the rack's
    // head, m1, and h1 its next local map after that, m2.
    p.tick(1_000, Map.of("h1", List.of(new PspPlanner.Running(0, 0.1f)),
        "h2", List.of(new PspPlanner.Running(0, 0.5f))), h -> "/r");
    assertEquals(List.of("m1@h2"), prefetcher.sent);
    p.tick(8_400, Map.of("h1", List.of(new PspPlanner.Running(0, 0.84f)),
        "h2", List.of(new PspPlanner.Running(0, 0.99f))), h -> "/r");
    assertEquals(List.of("m1@h2", "m2@h1"), prefetcher.sent);
    assertEquals(2, count(PspCounter.PREDICTIONS));
  }

  @Test
  void aMissThatStillReadsTheLoadedBytesWastesNone() {
    PspPlanner<String> p = planner(0);
    p.plan("m0", new String[] {"h1"}, List.of("/r"));
    p.plan("m1", new String[] {"h1"}, List.of("/r"));
    p.placed("m0", "h1", 0);
    p.tick(100, running("h1", 0, 0f), h -> "/r");
    prefetcher.loadAll(64 * MB);
    prefetcher.readOnLoaded = 64 * MB; // e.g. h1 holds m1's only replica: h2 reads it there
    p.placed("m1", "h2", 1_000);
    assertEquals(1, count(PspCounter.MISSES));
    assertEquals(1, count(PspCounter.MISSES_READING_PREFETCHED));
    assertEquals(0, count(PspCounter.WASTED_PREFETCH_BYTES));
  }

  @Test
  void aRackLocalGuessWaitsForAKnownSlotTime() {
    PspPlanner<String> p = planner(0);
    p.plan("m0", new String[] {"h1"}, List.of("/r"));
    p.plan("m1", new String[] {"h2"}, List.of("/r"));
    p.plan("m2", new String[] {"h1"}, List.of("/r"));
    p.placed("m0", "h1", 0);
    // h1's running map has reported no progress: its own next map (m2) is sent at once ...
    p.tick(100, running("h1", 0, 0f), h -> "/r");
    assertEquals(List.of("m2@h1"), prefetcher.sent);
    p.placed("m1", "h2", 200);
    p.placed("m2", "h1", 300);
    // ... while a map planned elsewhere waits until the slot's finish can be estimated.
    p.plan("m3", new String[] {"h2"}, List.of("/r"));
    p.tick(400, running("h1", 300, 0f), h -> "/r");
    assertEquals(List.of("m2@h1"), prefetcher.sent);
    p.tick(1_300, running("h1", 300, 0.5f), h -> "/r");
    assertEquals(List.of("m2@h1", "m3@h1"), prefetcher.sent);
  }

  @Test
  void onLaunchLoadsWhatNoPredictionLoadedOnTheContainersNode() {
    PspPlanner<String> p = planner(0, true);
    p.plan("m0", new String[] {"h1"}, List.of("/r"));
    p.plan("m1", new String[] {"h1"}, List.of("/r"));
    p.plan("m2", new String[] {"h1", "h2"}, List.of("/r"));
    // The first wave: nothing predicted it, so its input is requested with its container.
    p.placed("m0", "h1", 0);
    assertEquals(List.of("m0@h1"), prefetcher.sent);
    prefetcher.loadAll(64 * MB);
    assertEquals(List.of("m0@h1"), prefetcher.released); // only the bound's accounting
    // A prediction sent to the node that runs the map: no second request.
    p.tick(100, running("h1", 0, 0f), h -> "/r");
    assertEquals(List.of("m0@h1", "m1@h1"), prefetcher.sent);
    p.placed("m1", "h1", 500);
    assertEquals(List.of("m0@h1", "m1@h1"), prefetcher.sent);
    assertEquals(1, count(PspCounter.LATE_PREFETCHES));
    // A miss: the map's own node loads it too, and the wrong node's bytes still count wasted.
    prefetcher.loadAll(64 * MB);
    p.tick(600, running("h1", 500, 0.5f), h -> "/r");
    assertEquals("m2@h1", prefetcher.sent.get(2));
    prefetcher.loadAll(64 * MB);
    p.placed("m2", "h2", 1_000);
    assertEquals("m2@h2", prefetcher.sent.get(3));
    assertEquals(1, count(PspCounter.MISSES));
    assertEquals(64 * MB, count(PspCounter.WASTED_PREFETCH_BYTES));
    assertEquals(2, count(PspCounter.LAUNCH_PREFETCHES));
    assertEquals(2, count(PspCounter.PREDICTIONS));
    assertEquals(0, count(PspCounter.HITS));
  }

  @Test
  void onLaunchSendsAPredictionThatWasNotDueYet() {
    PspPlanner<String> p = planner(0, true);
    p.plan("m0", new String[] {"h1"}, List.of("/r"));
    p.plan("m1", new String[] {"h1"}, List.of("/r"));
    p.placed("m0", "h1", 0);
    // m0 finishes at 10 s: m1's request is due at 8.36 s, but m1 launches at 2 s.
    p.tick(1_000, running("h1", 0, 0.1f), h -> "/r");
    assertEquals(List.of("m0@h1"), prefetcher.sent);
    p.placed("m1", "h1", 2_000);
    assertEquals(List.of("m0@h1", "m1@h1"), prefetcher.sent);
    assertEquals(1, count(PspCounter.LATE_PREFETCHES));
    assertEquals(2, count(PspCounter.LAUNCH_PREFETCHES));
  }
}
