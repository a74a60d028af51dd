package io.hadoopaccel.mapreduce.jbs;

import java.io.IOException;

/**
 * The NetMerger refused the map output's codec at REGISTER: it was built without that codec's
 * library (Snappy or LZ4 are optional at build time). The reduce falls back with
 * FALLBACK_CODEC, as for a codec JBS never supports.
 */
public class CodecNotBuiltException extends IOException {
  private static final long serialVersionUID = 1L;

  public CodecNotBuiltException(String message) {
    super(message);
  }
}
