package io.hadoopaccel.common.mapred;

import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.Reporter;

/**
 * Node-shared memory where a reduce's merge may keep the map outputs it fetched, instead of its
 * local disk: seed 002 §3.1, last paragraph (CooMR's pool, given to reduces by the same max-min
 * fair balancer as to maps). A reduce-side merge (KISM's) creates one per reduce attempt by
 * class name, with a no-argument constructor, and calls {@link #attach} before anything else.
 */
public interface SharedSegmentMemory extends AutoCloseable {
  /**
   * Joins the node's shared memory as this reduce attempt. Returns null if it did, or why not
   * (the merge then writes to disk as it would without it, and logs the reason once).
   */
  String attach(Configuration job, String jobId, String attemptId, Reporter reporter);

  /**
   * Room for {@code bytes} more in this attempt's private dir in shared memory: the dir if
   * granted, null if refused (the caller writes those bytes to disk). Grants accumulate until
   * {@link #close}; the caller creates its files in the dir.
   */
  Path reserve(long bytes);

  /** Leaves the shared memory: the dir, with whatever is in it, and its grants go. */
  @Override
  void close();
}
