package io.hadoopaccel.common.tools;

import io.hadoopaccel.common.conf.AccelConfiguration;
import io.hadoopaccel.common.nativeio.HadoopAccelNative;
import io.hadoopaccel.common.nativeio.NativeLoader;
import java.util.Arrays;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ExitUtil;
import org.apache.hadoop.util.NativeLibraryChecker;

/**
 * {@code hadoop checknative [-a]}: upstream's report on libhadoop and codecs, followed by one
 * line per native library of ours. Exit code as stock (1 without libhadoop, which we do not ship);
 * with {@code -a} also 1 when one of ours is missing.
 */
public final class AccelNativeCheck {
  private AccelNativeCheck() {}

  /** One report line for libhadoopaccel: {@code hadoop-accel: true <file> (<version>)}. */
  static String accelLine(Configuration conf) {
    Optional<HadoopAccelNative.Api> api = HadoopAccelNative.load(conf);
    NativeLoader.Status s = NativeLoader.status(HadoopAccelNative.LIBRARY);
    if (api.isPresent()) {
      return String.format("%-13s true %s (%s)", "hadoop-accel:", s.detail(), api.get().hacc_version());
    }
    return String.format("%-13s false %s", "hadoop-accel:", s == null ? "switched off" : s.detail());
  }

  public static void main(String[] args) {
    boolean checkAll = Arrays.asList(args).contains("-a");
    int upstream = 0;
    // Upstream's checker ends in ExitUtil.terminate(); keep the JVM to print our lines after it,
    // without the "Terminate called" stack trace ExitUtil logs when exits are disabled.
    ExitUtil.disableSystemExit();
    org.apache.log4j.Logger.getLogger(ExitUtil.class).setLevel(org.apache.log4j.Level.OFF);
    try {
      NativeLibraryChecker.main(args);
    } catch (ExitUtil.ExitException e) {
      upstream = e.getExitCode();
    }
    Configuration conf = AccelConfiguration.create();
    String line = accelLine(conf);
    System.out.println(line);
    boolean ours = HadoopAccelNative.load(conf).isPresent();
    System.exit(upstream != 0 ? upstream : (checkAll && !ours ? 1 : 0));
  }
}
