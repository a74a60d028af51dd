package io.hadoopaccel.hdfs.hetero;

import io.hadoopaccel.common.conf.AccelConfiguration;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;

/**
 * Where the profiles text lives ({@value HeteroConfigKeys#PROFILES_FILE}): a file on the local
 * disk, or a file of any Hadoop FileSystem named by a URI (e.g. {@code hdfs://ns1/system/...}),
 * which every NameNode of an HA pair sees. Reads and atomic writes, for the NameNode and tools.
 */
public abstract class ProfileStore {

  /** What a change check compares: modification time and length. */
  record Stamp(long mtimeMs, long size) {}

  /**
   * The store a configuration names. A value with a scheme other than {@code file} is a Hadoop
   * FileSystem URI; otherwise a local path, relative ones resolved against
   * {@code $HADOOP_CONF_DIR} (the working directory when unset).
   */
  public static ProfileStore of(Configuration conf) {
    String name = AccelConfiguration.getString(conf, HeteroConfigKeys.PROFILES_FILE);
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException(
          "Configuration key " + HeteroConfigKeys.PROFILES_FILE + " is empty");
    }
    URI uri;
    try {
      uri = new URI(name);
    } catch (java.net.URISyntaxException e) {
      uri = null; // a local name with characters a URI does not allow
    }
    String scheme = uri == null ? null : uri.getScheme();
    if (scheme == null || scheme.length() == 1) { // one letter: a Windows drive, not a scheme
      return local(ProfileFile.resolve(conf));
    }
    if (scheme.equals("file")) {
      return local(Paths.get(uri));
    }
    return new OnFileSystem(new Path(uri), conf);
  }

  /** A local file. */
  public static ProfileStore local(java.nio.file.Path path) {
    return new Local(path.toAbsolutePath());
  }

  /**
   * True when reading may be a remote call (an RPC to a NameNode, possibly this one): the
   * NameNode then reads it off the block allocation path.
   */
  public abstract boolean remote();

  /** The stamp of the file, or null when it does not exist. */
  abstract Stamp stat() throws IOException;

  /** The text, or null when the file does not exist. */
  abstract String readText() throws IOException;

  /** Replaces the file with {@code text} atomically: readers see the old or the new text. */
  abstract void writeText(String text) throws IOException;

  /** The profiles in the file; a missing file has none. Throws on a malformed file. */
  public HeteroProfiles read() throws IOException {
    String text = readText();
    return text == null ? HeteroProfiles.EMPTY
        : HeteroProfiles.parse(toString(), new StringReader(text));
  }

  /** Writes {@code profiles} atomically. */
  public void write(HeteroProfiles profiles) throws IOException {
    writeText(profiles.format());
  }

  private static final class Local extends ProfileStore {
    private final java.nio.file.Path path;

    Local(java.nio.file.Path path) {
      this.path = path;
    }

    @Override
    public boolean remote() {
      return false;
    }

    @Override
    Stamp stat() throws IOException {
      try {
        return new Stamp(Files.getLastModifiedTime(path).toMillis(), Files.size(path));
      } catch (NoSuchFileException e) {
        return null;
      }
    }

    @Override
    String readText() throws IOException {
      try {
        return Files.readString(path, StandardCharsets.UTF_8);
      } catch (NoSuchFileException e) {
        return null;
      }
    }

    @Override
    void writeText(String text) throws IOException {
      java.nio.file.Path dir = path.getParent();
      Files.createDirectories(dir);
      java.nio.file.Path tmp = Files.createTempFile(dir, "." + path.getFileName(), ".tmp");
      try {
        Files.write(tmp, text.getBytes(StandardCharsets.UTF_8));
        try {
          Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE,
              StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING);
        }
      } finally {
        Files.deleteIfExists(tmp);
      }
    }

    @Override
    public String toString() {
      return path.toString();
    }
  }

  private static final class OnFileSystem extends ProfileStore {
    private final Path path;
    private final Configuration conf;

    OnFileSystem(Path path, Configuration conf) {
      this.path = path;
      this.conf = conf;
    }

    private FileSystem fs() throws IOException {
      return path.getFileSystem(conf);
    }

    @Override
    public boolean remote() {
      return true;
    }

    @Override
    Stamp stat() throws IOException {
      try {
        FileStatus st = fs().getFileStatus(path);
        return new Stamp(st.getModificationTime(), st.getLen());
      } catch (FileNotFoundException e) {
        return null;
      }
    }

    @Override
    String readText() throws IOException {
      try (InputStream in = fs().open(path)) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (FileNotFoundException e) {
        return null;
      }
    }

    @Override
    void writeText(String text) throws IOException {
      FileSystem fs = fs();
      Path tmp = new Path(path.getParent(), "." + path.getName() + "." + UUID.randomUUID() + ".tmp");
      try {
        try (OutputStream out = fs.create(tmp, false)) {
          out.write(text.getBytes(StandardCharsets.UTF_8));
        }
        // FileContext has the one public rename that replaces the target in one step.
        FileContext.getFileContext(fs.getUri(), conf).rename(tmp, path, Options.Rename.OVERWRITE);
      } finally {
        fs.delete(tmp, false);
      }
    }

    @Override
    public String toString() {
      return path.toString();
    }
  }
}
