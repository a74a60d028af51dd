package io.hadoopaccel.common.nativeio;

import com.sun.jna.Library;
import com.sun.jna.Native;
import io.hadoopaccel.common.conf.AccelConfigKeys;
import io.hadoopaccel.common.conf.AccelConfiguration;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads our native libraries, once per JVM and library: through JNA ({@link #load}), or as a
 * JNI library of the caller's ({@link #loadJni}).
 *
 * <p>A library that is switched off ({@code hadoop.accel.native.enabled=false}), missing or
 * broken yields {@link Optional#empty()} and exactly one log line saying which Java path the
 * caller falls back to; callers never see a {@link LinkageError}.
 */
public final class NativeLoader {
  private static final Logger LOG = LoggerFactory.getLogger(NativeLoader.class);

  /** Outcome of one load attempt: the bound API, or why there is none. */
  public static final class Status {
    private final Object api;
    private final String detail;

    Status(Object api, String detail) {
      this.api = api;
      this.detail = detail;
    }

    public boolean isLoaded() {
      return api != null;
    }

    /** The file loaded, or the reason nothing was. */
    public String detail() {
      return detail;
    }
  }

  private static final Map<String, Status> LOADED = new ConcurrentHashMap<>();
  private static final Set<String> SWITCHED_OFF = ConcurrentHashMap.newKeySet();

  private NativeLoader() {}

  /**
   * Binds {@code lib<name>.so} to {@code api}.
   *
   * @param fallback what the caller does without it, for the log line (e.g. "java.util.zip.CRC32")
   */
  public static <T extends Library> Optional<T> load(
      Configuration conf, String name, Class<T> api, String fallback) {
    if (!AccelConfiguration.getBoolean(conf, AccelConfigKeys.NATIVE_ENABLED)) {
      if (SWITCHED_OFF.add(name)) {
        LOG.info("Native library {} not used: {}=false; falling back to {}",
            name, AccelConfigKeys.NATIVE_ENABLED, fallback);
      }
      return Optional.empty();
    }
    Status s = LOADED.computeIfAbsent(name, n -> tryLoad(conf, n, api, fallback));
    return Optional.ofNullable(api.isInstance(s.api) ? api.cast(s.api) : null);
  }

  /**
   * Loads {@code lib<name>.so} for the JNI methods of the caller, found where {@link #load}
   * looks. {@code systemLoad} must be {@code System::load} written in the caller's class, so the
   * library belongs to the caller's class loader; {@code probe} calls one of its native methods
   * and says whether the library is the one expected (it may throw {@link LinkageError}).
   *
   * @return the file loaded, or empty (with one log line naming {@code fallback})
   */
  public static Optional<String> loadJni(Configuration conf, String name,
      java.util.function.Consumer<String> systemLoad, java.util.function.BooleanSupplier probe,
      String fallback) {
    if (!AccelConfiguration.getBoolean(conf, AccelConfigKeys.NATIVE_ENABLED)) {
      if (SWITCHED_OFF.add(name)) {
        LOG.info("Native library {} not used: {}=false; falling back to {}",
            name, AccelConfigKeys.NATIVE_ENABLED, fallback);
      }
      return Optional.empty();
    }
    Status s = LOADED.computeIfAbsent("jni:" + name, n -> {
      String file = System.mapLibraryName(name);
      String target = null;
      for (String dir : searchDirs(conf)) {
        File f = new File(dir, file);
        if (f.isFile()) {
          target = f.getAbsolutePath();
          break;
        }
      }
      try {
        if (target == null) {
          throw new UnsatisfiedLinkError("not in " + searchDirs(conf));
        }
        systemLoad.accept(target);
        if (!probe.getAsBoolean()) {
          throw new UnsatisfiedLinkError(target + " is another version");
        }
        LOG.debug("Loaded native library {} from {}", name, target);
        return new Status(target, target);
      } catch (LinkageError | RuntimeException e) {
        String why = file + " not loadable (" + firstLine(e.getMessage()) + ")";
        LOG.info("Native library {} not available: {}; falling back to {}", name, why, fallback);
        return new Status(null, why);
      }
    });
    return Optional.ofNullable(s.isLoaded() ? s.detail() : null);
  }

  /**
   * The file {@code lib<name>.so} that {@link #load} and {@link #loadJni} would try first, without
   * loading it; empty if no search directory holds one (JNA may still find it on the system's
   * loader path).
   */
  public static Optional<File> find(Configuration conf, String name) {
    String file = System.mapLibraryName(name);
    for (String dir : searchDirs(conf)) {
      File f = new File(dir, file);
      if (f.isFile()) {
        return Optional.of(f.getAbsoluteFile());
      }
    }
    return Optional.empty();
  }

  /** What happened when {@code name} was loaded, or {@code null} if nobody asked yet. */
  public static Status status(String name) {
    return LOADED.get(name);
  }

  private static <T extends Library> Status tryLoad(
      Configuration conf, String name, Class<T> api, String fallback) {
    String file = System.mapLibraryName(name);
    List<File> candidates = new ArrayList<>();
    for (String dir : searchDirs(conf)) {
      File f = new File(dir, file);
      if (f.isFile()) {
        candidates.add(f);
      }
    }
    String target = candidates.isEmpty() ? name : candidates.get(0).getAbsolutePath();
    try {
      T bound = Native.load(target, api);
      String where = candidates.isEmpty() ? "system library path" : target;
      LOG.debug("Loaded native library {} from {}", name, where);
      return new Status(bound, where);
    } catch (LinkageError | RuntimeException e) {
      String why = file + " not loadable (" + firstLine(e.getMessage()) + ")";
      LOG.info("Native library {} not available: {}; falling back to {}", name, why, fallback);
      return new Status(null, why);
    }
  }

  private static List<String> searchDirs(Configuration conf) {
    List<String> dirs = new ArrayList<>();
    String configured = Objects.toString(AccelConfiguration.get(conf, AccelConfigKeys.NATIVE_LIB_DIR), "");
    if (!configured.isEmpty()) {
      dirs.add(configured);
    }
    for (String prop : new String[] {"jna.library.path", "java.library.path"}) {
      String v = System.getProperty(prop);
      if (v != null) {
        for (String d : v.split(File.pathSeparator)) {
          if (!d.isEmpty()) {
            dirs.add(d);
          }
        }
      }
    }
    return dirs;
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "no detail";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
