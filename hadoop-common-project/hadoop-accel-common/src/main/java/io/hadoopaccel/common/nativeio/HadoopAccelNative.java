package io.hadoopaccel.common.nativeio;

import com.sun.jna.Library;
import java.util.Optional;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;

/**
 * libhadoopaccel, the native library shared by all features: its C API (see
 * {@code src/main/native/include/hadoop_accel/accel.h}) and a CRC-32 that uses it when present.
 */
public final class HadoopAccelNative {
  public static final String LIBRARY = "hadoopaccel";

  /** JNA binding of {@code accel.h}. {@code size_t} is 64-bit: Linux x86-64/aarch64 only. */
  public interface Api extends Library {
    String hacc_version();

    int hacc_crc32_update(int crc, byte[] buf, long len);
  }

  private HadoopAccelNative() {}

  /** The library, or empty (logged once) when it is switched off or cannot load. */
  public static Optional<Api> load(Configuration conf) {
    return NativeLoader.load(conf, LIBRARY, Api.class, "pure-Java implementations");
  }

  /** CRC-32 of {@code buf}: native when loaded, {@link CRC32} otherwise; same result either way. */
  public static long crc32(Configuration conf, byte[] buf) {
    Optional<Api> api = load(conf);
    if (api.isPresent()) {
      return Integer.toUnsignedLong(api.get().hacc_crc32_update(0, buf, buf.length));
    }
    CRC32 crc = new CRC32();
    crc.update(buf);
    return crc.getValue();
  }
}
