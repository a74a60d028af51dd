package io.hadoopaccel.mapreduce.jbs;

import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * The local file system under the scheme {@code jbsmanifest:}, reporting group/other write bits
 * cleared. Test-only: the NodeManager refuses an aux-services manifest if the file or any parent
 * dir is group- or world-writable, and a build tree may sit under {@code /tmp} (a fresh clone in
 * CI does), which is world-writable with the sticky bit.
 */
public class ManifestLocalFileSystem extends RawLocalFileSystem {
  static final String SCHEME = "jbsmanifest";

  @Override
  public URI getUri() {
    return URI.create(SCHEME + ":///");
  }

  @Override
  public FileStatus getFileStatus(Path f) throws IOException {
    FileStatus s = super.getFileStatus(f);
    FsPermission safe = new FsPermission((short) (s.getPermission().toShort() & ~0022));
    return new FileStatus(s.getLen(), s.isDirectory(), s.getReplication(), s.getBlockSize(),
        s.getModificationTime(), s.getAccessTime(), safe, s.getOwner(), s.getGroup(),
        s.getPath());
  }
}
