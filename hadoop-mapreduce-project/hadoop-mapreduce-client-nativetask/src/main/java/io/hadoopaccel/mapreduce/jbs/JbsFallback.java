package io.hadoopaccel.mapreduce.jbs;

/**
 * Why a reduce does not take the native path: the counter that counts this reason (one of the
 * FALLBACK_* counters of {@link JbsCounter}) and the sentence the task logs.
 */
public final class JbsFallback {
  public final JbsCounter counter;
  public final String reason;

  public JbsFallback(JbsCounter counter, String reason) {
    if (!counter.name().startsWith("FALLBACK_")) {
      throw new IllegalArgumentException(counter + " is not a fallback reason");
    }
    this.counter = counter;
    this.reason = reason;
  }

  /** The reason of a native session that failed before its first merged record. */
  public static JbsFallback ofSessionFailure(Throwable t) {
    String why = t.getMessage() == null ? t.toString() : t.getMessage();
    if (t instanceof CodecNotBuiltException) {
      return new JbsFallback(JbsCounter.FALLBACK_CODEC, why);
    }
    return new JbsFallback(t instanceof SupplierUnreachableException
        ? JbsCounter.FALLBACK_SUPPLIER_UNREACHABLE : JbsCounter.FALLBACK_NETMERGER, why);
  }

  @Override
  public String toString() {
    return counter + ": " + reason;
  }
}
