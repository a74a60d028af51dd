package io.hadoopaccel.mapreduce.jbs;

import java.io.IOException;

/**
 * A map's node has no MOFSupplier the NetMerger can connect to. Says nothing about the map
 * output (the node's stock ShuffleHandler may serve it): the reduce runs its fallback instead of
 * reporting a fetch failure.
 */
public class SupplierUnreachableException extends IOException {
  private static final long serialVersionUID = 1L;

  public SupplierUnreachableException(String message) {
    super(message);
  }
}
