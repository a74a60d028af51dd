package io.hadoopaccel.minicluster;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFileAttributes;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * The local file system under the scheme {@code accelmanifest:}, reporting modes 0755/0644, for
 * {@link AuxServicesManifest}. Test-only: the NodeManager refuses an aux-services manifest if the file or any parent dir is
 * group- or world-writable, and a build tree may sit under {@code /tmp} (a fresh clone in CI
 * does), which is world-writable with the sticky bit.
 */
public class ManifestLocalFileSystem extends RawLocalFileSystem {
  static final String SCHEME = "accelmanifest";

  @Override
  public URI getUri() {
    return URI.create(SCHEME + ":///");
  }

  @Override
  public FileStatus getFileStatus(Path f) throws IOException {
    Path q = makeQualified(f);
    PosixFileAttributes a;
    try {
      a = Files.readAttributes(Paths.get(q.toUri().getPath()), PosixFileAttributes.class);
    } catch (NoSuchFileException e) {
      throw new FileNotFoundException(f.toString());
    }
    FsPermission mode = new FsPermission((short) (a.isDirectory() ? 0755 : 0644));
    return new FileStatus(a.size(), a.isDirectory(), 1, 4096, a.lastModifiedTime().toMillis(),
        a.lastAccessTime().toMillis(), mode, a.owner().getName(), a.group().getName(), q);
  }
}
