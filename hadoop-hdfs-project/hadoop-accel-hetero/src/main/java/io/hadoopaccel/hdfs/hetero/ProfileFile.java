package io.hadoopaccel.hdfs.hetero;

import io.hadoopaccel.common.conf.AccelConfiguration;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The profiles file ({@value HeteroConfigKeys#PROFILES_FILE}) as the NameNode and the
 * {@code hdfs hetero} tools see it: loaded, re-read when it changes, written atomically.
 *
 * <p>A relative name is resolved against {@code $HADOOP_CONF_DIR} (the current directory when
 * that is unset). A missing file means no bindings. At start-up a malformed file is an error
 * naming the line; later, a malformed edit is logged and the last good profiles stay in force, so
 * a typo never changes where blocks go.
 */
public final class ProfileFile {
  private static final Logger LOG = LoggerFactory.getLogger(ProfileFile.class);

  private final Path path;
  private final long reloadIntervalMs;

  private volatile HeteroProfiles current;
  private volatile long nextCheckMs;
  private FileTime loadedMtime;
  private long loadedSize = -1;

  /** Loads the file named by {@code conf}; throws if it exists and is malformed. */
  public ProfileFile(Configuration conf) throws IOException {
    this(resolve(conf), AccelConfiguration.getInt(conf, HeteroConfigKeys.PROFILES_RELOAD_MS));
  }

  public ProfileFile(Path path, long reloadIntervalMs) throws IOException {
    this.path = path;
    this.reloadIntervalMs = reloadIntervalMs;
    this.current = read();
    this.nextCheckMs = System.currentTimeMillis() + reloadIntervalMs;
  }

  /** The file a configuration names. */
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

  public Path path() {
    return path;
  }

  /**
   * The profiles in force, re-reading the file first if the reload interval has passed and the
   * file changed. Cheap enough for the block allocation path: one stat per interval.
   */
  public HeteroProfiles get() {
    long now = System.currentTimeMillis();
    if (now >= nextCheckMs) {
      synchronized (this) {
        if (now >= nextCheckMs) {
          nextCheckMs = now + reloadIntervalMs;
          try {
            HeteroProfiles fresh = readIfChanged();
            if (fresh != null) {
              current = fresh;
              LOG.info("Reloaded computing-ratio profiles from {}: {} profile(s), {} binding(s)",
                  path, fresh.profiles().size(), fresh.bindings().size());
            }
          } catch (IOException | IllegalArgumentException e) {
            LOG.error("Keeping the previous computing-ratio profiles: {}", e.getMessage());
          }
        }
      }
    }
    return current;
  }

  /** Reads the file now, whatever its age. */
  public synchronized HeteroProfiles read() throws IOException {
    FileTime mtime;
    long size;
    try {
      mtime = Files.getLastModifiedTime(path);
      size = Files.size(path);
    } catch (NoSuchFileException e) {
      LOG.info("No computing-ratio profiles at {}: every file is placed as stock HDFS does", path);
      loadedMtime = null;
      loadedSize = -1;
      return HeteroProfiles.EMPTY;
    }
    HeteroProfiles p;
    try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      p = HeteroProfiles.parse(path.toString(), r);
    }
    loadedMtime = mtime;
    loadedSize = size;
    return p;
  }

  private HeteroProfiles readIfChanged() throws IOException {
    FileTime mtime = null;
    long size = -1;
    try {
      mtime = Files.getLastModifiedTime(path);
      size = Files.size(path);
    } catch (NoSuchFileException e) {
      // Deleted: falls through as changed when something was loaded.
    }
    boolean same = mtime == null ? loadedMtime == null
        : mtime.equals(loadedMtime) && size == loadedSize;
    if (same) {
      return null;
    }
    // Record what we saw even if it is malformed, so the error is logged once per edit.
    FileTime seenMtime = mtime;
    long seenSize = size;
    try {
      return read();
    } finally {
      loadedMtime = seenMtime;
      loadedSize = seenSize;
    }
  }

  /** Writes {@code profiles} atomically (temp file + rename), readable by the NameNode. */
  public static void write(Path path, HeteroProfiles profiles) throws IOException {
    Path dir = path.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, "." + path.getFileName(), ".tmp");
    try {
      Files.write(tmp, profiles.format().getBytes(StandardCharsets.UTF_8));
      try {
        Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** Reads {@code path} once, for tools. */
  public static HeteroProfiles readOnce(Path path) {
    try {
      return new ProfileFile(path, Long.MAX_VALUE).current;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
