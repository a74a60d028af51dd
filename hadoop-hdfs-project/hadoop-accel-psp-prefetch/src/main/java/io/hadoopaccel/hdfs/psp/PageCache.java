package io.hadoopaccel.hdfs.psp;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The page cache of local files: preload a range (posix_fadvise WILLNEED, then a read-through so
 * that "loaded" means resident), lock it in memory (mlock), drop a file, count its resident
 * bytes (mincore). Uses libc through JNA; without it, preloading is a plain read-through, nothing
 * is locked and residency is unknown (-1).
 */
public final class PageCache {
  private static final Logger LOG = LoggerFactory.getLogger(PageCache.class);
  private static final int O_RDONLY = 0;
  private static final int PROT_READ = 1;
  private static final int MAP_SHARED = 1;
  private static final int POSIX_FADV_WILLNEED = 3;
  private static final int POSIX_FADV_DONTNEED = 4;
  private static final int SC_PAGESIZE = 30;
  private static final int READ_BUFFER = 1 << 20;
  private static final AtomicBoolean LOCK_REFUSED = new AtomicBoolean();

  private static final boolean NATIVE = LibC.load();
  private static final long PAGE = NATIVE ? LibC.sysconf(SC_PAGESIZE) : 4096;

  private PageCache() {}

  /** Whether fadvise/mincore are available (Linux with JNA). */
  public static boolean isNative() {
    return NATIVE;
  }

  /**
   * Brings {@code [offset, offset + length)} of {@code file} into the page cache and returns when
   * it is resident and marked in use (read twice), i.e. resident unless memory pressure
   * evicted it since.
   */
  public static long preload(File file, long offset, long length) throws IOException {
    if (NATIVE && length > 0) {
      int fd = LibC.open(file.getPath(), O_RDONLY);
      if (fd >= 0) {
        try {
          // Asks the kernel for the whole range at once; the read-through below then waits on
          // I/O already queued instead of issuing it one readahead window at a time.
          LibC.posix_fadvise(fd, offset, length, POSIX_FADV_WILLNEED);
        } finally {
          LibC.close(fd);
        }
      }
    }
    long n = readThrough(file, offset, length);
    // A second pass, from memory, is the pages' second access: the kernel moves them to its
    // active list, so reclaim under memory pressure takes pages read once (inputs already
    // consumed, spills) before a block whose map has yet to start. Read once, one of four
    // preloaded blocks was no longer wholly resident when its map started, in a CI run.
    readThrough(file, offset, n);
    return n;
  }

  private static long readThrough(File file, long offset, long length) throws IOException {
    long done = 0;
    ByteBuffer buf = ByteBuffer.allocateDirect(READ_BUFFER);
    try (FileChannel ch = FileChannel.open(file.toPath(), StandardOpenOption.READ)) {
      while (done < length) {
        buf.clear();
        buf.limit((int) Math.min(buf.capacity(), length - done));
        int n = ch.read(buf, offset + done);
        if (n < 0) {
          break;
        }
        done += n;
      }
    }
    return done;
  }

  /** A range of a file locked in memory until closed (see {@link #lock}). */
  public static final class Locked implements Closeable {
    private final Pointer addr;
    private final long length;
    private boolean closed;

    private Locked(Pointer addr, long length) {
      this.addr = addr;
      this.length = length;
    }

    @Override
    public synchronized void close() {
      if (!closed) {
        closed = true;
        LibC.munmap(addr, length); // unmapping unlocks
      }
    }
  }

  /**
   * Locks {@code [offset, offset + length)} of {@code file} in memory (mmap + mlock, as HDFS's
   * centralized cache does), so that no reclaim evicts it before its reader comes: a kernel that
   * pages out idle cache, or memory pressure from the node's tasks. Reads in any page not
   * resident. Null when it cannot lock: no JNA, or mlock refused (the process's memlock limit,
   * {@code ulimit -l}); the first refusal is logged, and the range then stays merely cached.
   */
  public static Locked lock(File file, long offset, long length) {
    if (!NATIVE || length <= 0) {
      return null;
    }
    long start = offset - offset % PAGE;
    long len = offset + length - start;
    int fd = LibC.open(file.getPath(), O_RDONLY);
    if (fd < 0) {
      return null;
    }
    try {
      Pointer addr = LibC.mmap(null, len, PROT_READ, MAP_SHARED, fd, start);
      if (Pointer.nativeValue(addr) == -1L) {
        return null;
      }
      try {
        LibC.mlock(addr, len);
      } catch (LastErrorException e) {
        LibC.munmap(addr, len);
        if (LOCK_REFUSED.compareAndSet(false, true)) {
          LOG.info("PSP cannot lock preloaded blocks in memory (mlock: errno {}; the memlock "
              + "limit, ulimit -l, must hold hadoop.accel.psp.prefetch.max.bytes): they stay "
              + "cached but may be evicted before their maps read them", e.getErrorCode());
        }
        return null;
      }
      return new Locked(addr, len);
    } finally {
      LibC.close(fd);
    }
  }

  /** Writes back and drops {@code file}'s pages (tests start from a cold cache with this). */
  public static void evict(File file) throws IOException {
    if (!NATIVE) {
      throw new IOException("page cache control needs libc through JNA");
    }
    try (FileChannel ch = FileChannel.open(file.toPath(), StandardOpenOption.READ)) {
      ch.force(true);
    }
    int fd = LibC.open(file.getPath(), O_RDONLY);
    if (fd < 0) {
      throw new IOException("cannot open " + file);
    }
    try {
      int rc = LibC.posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
      if (rc != 0) {
        throw new IOException("posix_fadvise(DONTNEED) failed on " + file + ": " + rc);
      }
    } finally {
      LibC.close(fd);
    }
  }

  /** Bytes of {@code file} in the page cache (whole pages), or -1 if that cannot be told. */
  public static long residentBytes(File file) {
    long len = file.length();
    long pages = residentPages(file, 0, len);
    return pages < 0 ? -1 : Math.min(len, pages * PAGE);
  }

  /**
   * Whether every page of {@code [offset, offset + length)} of {@code file} (clipped to the file)
   * is in the page cache; false when that cannot be told.
   */
  public static boolean isResident(File file, long offset, long length) {
    long end = Math.min(file.length(), offset + length);
    if (end <= offset) {
      return true;
    }
    long start = offset - offset % PAGE;
    return residentPages(file, start, end - start) == (end - start + PAGE - 1) / PAGE;
  }

  /** Resident pages of {@code [offset, offset + len)} ({@code offset} page-aligned), or -1. */
  private static long residentPages(File file, long offset, long len) {
    if (!NATIVE) {
      return -1;
    }
    if (len == 0) {
      return 0;
    }
    int fd = LibC.open(file.getPath(), O_RDONLY);
    if (fd < 0) {
      return -1;
    }
    try {
      // Mapping reads nothing: mincore only looks at the cache.
      Pointer addr = LibC.mmap(null, len, PROT_READ, MAP_SHARED, fd, offset);
      if (Pointer.nativeValue(addr) == -1L) {
        return -1;
      }
      try {
        byte[] vec = new byte[(int) ((len + PAGE - 1) / PAGE)];
        if (LibC.mincore(addr, len, vec) != 0) {
          return -1;
        }
        long pages = 0;
        for (byte b : vec) {
          pages += b & 1;
        }
        return pages;
      } finally {
        LibC.munmap(addr, len);
      }
    } finally {
      LibC.close(fd);
    }
  }

  /** libc, directly mapped (64-bit Linux: size_t and off_t are Java longs). */
  private static final class LibC {
    static boolean load() {
      if (!Platform.isLinux() || !Platform.is64Bit()) {
        LOG.info("PSP page cache control off ({}): preloads read through, residency unknown",
            System.getProperty("os.name"));
        return false;
      }
      try {
        Native.register(LibC.class, Platform.C_LIBRARY_NAME);
        return true;
      } catch (LinkageError e) {
        LOG.info("PSP page cache control off (libc through JNA: {}): preloads read through", e
            .toString());
        return false;
      }
    }

    static native int open(String path, int flags);

    static native int close(int fd);

    static native int posix_fadvise(int fd, long offset, long len, int advice);

    static native Pointer mmap(Pointer addr, long length, int prot, int flags, int fd, long off);

    static native int munmap(Pointer addr, long length);

    static native int mlock(Pointer addr, long length) throws LastErrorException;

    static native int mincore(Pointer addr, long length, byte[] vec);

    static native long sysconf(int name);
  }
}
