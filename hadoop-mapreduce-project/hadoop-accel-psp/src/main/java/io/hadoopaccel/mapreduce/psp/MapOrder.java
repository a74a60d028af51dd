package io.hadoopaccel.mapreduce.psp;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The pending maps in the order the stock allocator hands them to a container on a host: first
 * the host's node-local maps in request order, then its rack's, then any map in request order
 * (RMContainerAllocator's assignMapsWithLocality). PSP plans each map onto ONE of its replica
 * hosts ({@link #chooseHost}) and requests it there only, so that for node-local maps this order
 * is exactly the allocator's: what is predicted for a host is what that host gets next.
 *
 * @param <T> map (task attempt) id
 */
public final class MapOrder<T> {
  private final Map<String, LinkedHashSet<T>> byHost = new HashMap<>();
  private final Map<String, LinkedHashSet<T>> byRack = new HashMap<>();
  private final LinkedHashSet<T> all = new LinkedHashSet<>();
  private final Map<T, Placement> placed = new HashMap<>();

  private static final class Placement {
    final String host;
    final Collection<String> racks;

    Placement(String host, Collection<String> racks) {
      this.host = host;
      this.racks = racks;
    }
  }

  /**
   * The replica host to plan a new map on: the one with the fewest pending maps planned on it
   * (the first listed on a tie), so every node gets a similar queue of local maps.
   */
  public String chooseHost(String[] hosts) {
    String best = null;
    int bestCount = Integer.MAX_VALUE;
    for (String h : hosts) {
      LinkedHashSet<T> q = byHost.get(h);
      int n = q == null ? 0 : q.size();
      if (n < bestCount) {
        best = h;
        bestCount = n;
      }
    }
    return best;
  }

  /** A map requested on {@code host} (null: anywhere) within {@code racks}. */
  public void add(T map, String host, Collection<String> racks) {
    if (placed.containsKey(map)) {
      return;
    }
    if (host != null) {
      byHost.computeIfAbsent(host, h -> new LinkedHashSet<>()).add(map);
    }
    for (String r : racks) {
      byRack.computeIfAbsent(r, x -> new LinkedHashSet<>()).add(map);
    }
    all.add(map);
    placed.put(map, new Placement(host, new ArrayList<>(racks)));
  }

  /** The map got a container, or was withdrawn. */
  public void remove(T map) {
    Placement p = placed.remove(map);
    if (p == null) {
      return;
    }
    if (p.host != null) {
      byHost.get(p.host).remove(map);
    }
    for (String r : p.racks) {
      byRack.get(r).remove(map);
    }
    all.remove(map);
  }

  public boolean contains(T map) {
    return placed.containsKey(map);
  }

  /** The host a pending map is planned on, or null. */
  public String hostOf(T map) {
    Placement p = placed.get(map);
    return p == null ? null : p.host;
  }

  public int size() {
    return all.size();
  }

  /**
   * Up to {@code max} maps {@code host} (in {@code rack}) would get next, in order, leaving out
   * those {@code skip} rejects (e.g. already predicted for another node).
   */
  public List<T> next(String host, String rack, int max, Predicate<T> skip) {
    List<T> out = new ArrayList<>();
    collect(byHost.get(host), out, max, skip);
    collect(byRack.get(rack), out, max, skip);
    collect(all, out, max, skip);
    return out;
  }

  private void collect(LinkedHashSet<T> from, List<T> out, int max, Predicate<T> skip) {
    if (from == null) {
      return;
    }
    for (T m : from) {
      if (out.size() >= max) {
        return;
      }
      if (!skip.test(m) && !out.contains(m)) {
        out.add(m);
      }
    }
  }
}
