package io.hadoopaccel.hdfs.hetero;

import io.hadoopaccel.common.conf.AccelConfiguration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The profiles ({@value HeteroConfigKeys#PROFILES_FILE}) as the NameNode and the
 * {@code hdfs hetero} tools see them: loaded, re-read when the file changes, written atomically.
 *
 * <p>A local file is read on the block allocation path (one stat per reload interval). At
 * start-up a malformed local file is an error naming the line; later, a malformed edit is logged
 * and the last good profiles stay in force, so a typo never changes where blocks go.
 *
 * <p>A file on a Hadoop FileSystem ({@link ProfileStore#remote()}, e.g. on HDFS for NameNode
 * HA) may be served by this very NameNode, which cannot answer before it is up and must not
 * wait on itself while allocating a block. So it is read by a background thread: at start-up
 * nothing is bound until the first read succeeds, and after that each reload interval the
 * allocation path only asks the thread to check. Errors are logged and counted, never fatal.
 */
public final class ProfileFile {
  private static final Logger LOG = LoggerFactory.getLogger(ProfileFile.class);
  /** How long a forced reload of a remote file waits for its read. */
  private static final long FORCED_RELOAD_WAIT_MS = 30_000;

  private final ProfileStore store;
  private final long reloadIntervalMs;
  private final ExecutorService loader; // remote stores only

  private volatile HeteroProfiles current = HeteroProfiles.EMPTY;
  private volatile long nextCheckMs;
  /** Held while reading, apart from this object's lock: get() never waits on a remote read. */
  private final Object readLock = new Object();
  private ProfileStore.Stamp seen; // guarded by readLock: what the last read saw
  private boolean everRead; // guarded by readLock
  private Future<?> pending; // guarded by this

  private final AtomicLong version = new AtomicLong();
  private final AtomicLong reloadFailures = new AtomicLong();
  private volatile long loadedAtMs;
  private volatile long checksum;
  private volatile String lastError = "";

  /** Loads the profiles {@code conf} names; throws if a local file is malformed. */
  public ProfileFile(Configuration conf) throws IOException {
    this(ProfileStore.of(conf), AccelConfiguration.getInt(conf, HeteroConfigKeys.PROFILES_RELOAD_MS));
  }

  public ProfileFile(Path path, long reloadIntervalMs) throws IOException {
    this(ProfileStore.local(path), reloadIntervalMs);
  }

  public ProfileFile(ProfileStore store, long reloadIntervalMs) throws IOException {
    this.store = store;
    this.reloadIntervalMs = reloadIntervalMs;
    if (store.remote()) {
      loader = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "hetero-profiles-loader");
        t.setDaemon(true);
        return t;
      });
      LOG.info("Computing-ratio profiles are on {}: read in the background; nothing is bound "
          + "until the first read succeeds", store);
      checkInBackground(true);
    } else {
      loader = null;
      synchronized (readLock) {
        ProfileStore.Stamp stamp = store.stat();
        HeteroProfiles p = store.read(); // malformed: the caller fails
        seen = stamp;
        everRead = true;
        if (stamp == null) {
          LOG.info("No computing-ratio profiles at {}: every file is placed as stock HDFS "
              + "places it", store);
        }
        install(p);
      }
    }
    this.nextCheckMs = System.currentTimeMillis() + reloadIntervalMs;
  }

  /** The local file a configuration names (relative: under HADOOP_CONF_DIR). */
  public static Path resolve(Configuration conf) {
    String name = AccelConfiguration.getString(conf, HeteroConfigKeys.PROFILES_FILE);
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException(
          "Configuration key " + HeteroConfigKeys.PROFILES_FILE + " is empty");
    }
    Path p = Paths.get(name);
    if (!p.isAbsolute()) {
      String confDir = System.getenv("HADOOP_CONF_DIR");
      p = (confDir == null || confDir.isEmpty() ? Paths.get("") : Paths.get(confDir)).resolve(p);
    }
    return p.toAbsolutePath();
  }

  /** Where the profiles are read from. */
  public ProfileStore store() {
    return store;
  }

  /**
   * The profiles in force, first checking the file if the reload interval has passed: for a
   * local file one stat, for a remote one a request to the loader thread (never a wait).
   */
  public HeteroProfiles get() {
    long now = System.currentTimeMillis();
    if (now >= nextCheckMs) {
      synchronized (this) {
        if (now >= nextCheckMs) {
          nextCheckMs = now + reloadIntervalMs;
          if (loader != null) {
            checkInBackground(false);
          } else {
            check(false); // one local stat
          }
        }
      }
    }
    return current;
  }

  /**
   * Reads the file now, changed or not (the {@code hdfs dfsadmin -refresh} handler). Returns a
   * line saying what is in force. A remote read is waited for, within a bound.
   */
  public String reloadNow() {
    if (loader == null) {
      check(true);
    } else {
      Future<?> f;
      synchronized (this) {
        f = checkInBackground(true);
      }
      try {
        f.get(FORCED_RELOAD_WAIT_MS, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        return "still reading " + store + " after " + FORCED_RELOAD_WAIT_MS / 1000
            + " s; profiles version " + version() + " stays in force meanwhile";
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "interrupted";
      } catch (java.util.concurrent.ExecutionException e) {
        return "reload failed: " + e.getCause();
      }
    }
    HeteroProfiles p = current;
    return "profiles version " + version() + " from " + store + ": " + p.profiles().size()
        + " profile(s), " + p.bindings().size() + " binding(s)"
        + (lastError.isEmpty() ? "" : "; last error: " + lastError);
  }

  private synchronized Future<?> checkInBackground(boolean force) {
    if (force || pending == null || pending.isDone()) {
      pending = loader.submit(() -> check(force));
    }
    return pending;
  }

  /** Re-reads the file if it changed (or if {@code force}); keeps the old profiles on error. */
  private void check(boolean force) {
    synchronized (readLock) {
      checkLocked(force);
    }
  }

  private void checkLocked(boolean force) {
    ProfileStore.Stamp stamp = null;
    try {
      stamp = store.stat();
      if (!force && everRead && java.util.Objects.equals(stamp, seen)) {
        return;
      }
      install(store.read());
    } catch (IOException e) {
      failed(e.toString(), null);
      if (loader != null) {
        return; // a remote file system not up yet, or a transient error: tried again next check
      }
    } catch (IllegalArgumentException e) {
      failed(e.getMessage(), null); // malformed: below, so it is logged once per edit
    } catch (RuntimeException e) {
      failed(e.toString(), e);
    }
    // What we saw, even if malformed: the error is logged once per edit, not per check.
    seen = stamp;
    everRead = true;
  }

  private void failed(String message, Throwable t) {
    reloadFailures.incrementAndGet();
    lastError = String.valueOf(message);
    if (t == null) {
      LOG.error("Keeping the previous computing-ratio profiles (version {}): {}", version(),
          message);
    } else {
      LOG.error("Keeping the previous computing-ratio profiles (version {})", version(), t);
    }
  }

  /** Puts {@code fresh} in force; the version counts changes of what is in force. */
  private void install(HeteroProfiles fresh) {
    CRC32 crc = new CRC32();
    crc.update(fresh.format().getBytes(StandardCharsets.UTF_8));
    loadedAtMs = System.currentTimeMillis();
    lastError = "";
    if (version.get() > 0 && crc.getValue() == checksum) {
      return; // same profiles (a touch, or comments only)
    }
    current = fresh;
    checksum = crc.getValue();
    long v = version.incrementAndGet();
    LOG.info("Computing-ratio profiles version {} from {}: {} profile(s), bound directories {}",
        v, store, fresh.profiles().size(), fresh.bindings().keySet());
  }

  /** Changes of the profiles in force since start-up (0: never read, for a remote file). */
  public long version() {
    return version.get();
  }

  /** When the file was last read successfully (epoch ms), 0 if never. */
  public long loadedAtMs() {
    return loadedAtMs;
  }

  /** CRC32 of the profiles in force, in their text form (compare NameNodes with it). */
  public long checksum() {
    return checksum;
  }

  /** Reads that failed (unreadable or malformed file) since start-up. */
  public long reloadFailures() {
    return reloadFailures.get();
  }

  /** Writes {@code profiles} atomically (temp file + rename), readable by the NameNode. */
  public static void write(Path path, HeteroProfiles profiles) throws IOException {
    ProfileStore.local(path).write(profiles);
  }

  /** Reads {@code path} once, for tools. */
  public static HeteroProfiles readOnce(Path path) {
    return readOnce(ProfileStore.local(path));
  }

  /** Reads {@code store} once, for tools. */
  public static HeteroProfiles readOnce(ProfileStore store) {
    try {
      return store.read();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
