package io.hadoopaccel.streaming.shm;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;

/**
 * Whether the program's current image (Linux {@code /proc/<pid>}) loaded the preload shim.
 * The dynamic loader maps {@code LD_PRELOAD} libraries before the program's own (libc), so
 * "libc mapped, shim not" or "no dynamic loader at all" (a static binary) means this image
 * will never attach: the task can fall back to pipes before it writes the handshake, or fail
 * at once after it, instead of waiting for the attach timeout.
 */
final class ProgramImage {
  private static final int POLL_MS = 5;
  private static final String JVM_EXE = exe(ProcessHandle.current().pid()).orElse("");

  private ProgramImage() {}

  /**
   * Waits until process {@code pid}'s image has the shim (empty) or is known not to load it
   * (its executable); gives up (empty: the attach wait decides) after {@code timeoutMs} or
   * when the process is gone.
   */
  static Optional<String> awaitShim(long pid, long timeoutMs) throws IOException {
    long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
    while (System.nanoTime() < deadline) {
      Optional<Boolean> loaded = shimLoaded(pid);
      if (loaded.isPresent()) {
        return loaded.get() ? Optional.empty() : exe(pid);
      }
      if (!Files.exists(Paths.get("/proc/" + pid))) {
        return Optional.empty();
      }
      try {
        Thread.sleep(POLL_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while starting the streaming program");
      }
    }
    return Optional.empty();
  }

  /** The executable of {@code pid} if its current image is known not to load the shim. */
  static Optional<String> withoutShim(long pid) {
    Optional<Boolean> loaded = shimLoaded(pid);
    return loaded.isPresent() && !loaded.get() ? exe(pid) : Optional.empty();
  }

  /** True / false once the image's libraries are mapped; empty while starting or unknown. */
  private static Optional<Boolean> shimLoaded(long pid) {
    Optional<String> exe = exe(pid);
    // The JVM's own image (fork before exec) or its spawn helper: not the program yet.
    if (!exe.isPresent() || exe.get().equals(JVM_EXE) || exe.get().endsWith("/jspawnhelper")) {
      return Optional.empty();
    }
    String maps;
    try {
      maps = new String(Files.readAllBytes(Paths.get("/proc/" + pid + "/maps")),
          StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      return Optional.empty();
    }
    if (maps.contains("libhadoop_shm")) {
      return Optional.of(true);
    }
    Optional<Boolean> dynamic = hasInterpreter(exe.get());
    if (dynamic.isPresent() && !dynamic.get()) {
      return Optional.of(false); // a static binary: no loader, no preload
    }
    // The loader maps LD_PRELOAD objects before the program's own libraries: libc without the
    // shim means this image will not load it. (Maps alone cannot tell a static binary from one
    // caught mid-exec, before the kernel mapped its loader: hence the ELF header above.)
    return maps.contains("/libc.so") || maps.contains("/libc-") || maps.contains("/libc.musl")
        ? Optional.of(false) : Optional.empty();
  }

  /**
   * Whether the ELF executable at {@code path} names a program interpreter (PT_INTERP: a
   * dynamic loader, hence LD_PRELOAD applies); empty when it cannot be read or is not ELF.
   */
  static Optional<Boolean> hasInterpreter(String path) {
    byte[] head = new byte[4096];
    int n;
    try (java.io.InputStream in = Files.newInputStream(Paths.get(path))) {
      n = in.readNBytes(head, 0, head.length);
    } catch (IOException e) {
      return Optional.empty();
    }
    if (n < 52 || head[0] != 0x7f || head[1] != 'E' || head[2] != 'L' || head[3] != 'F') {
      return Optional.empty();
    }
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(head, 0, n).order(
        head[5] == 2 ? java.nio.ByteOrder.BIG_ENDIAN : java.nio.ByteOrder.LITTLE_ENDIAN);
    boolean elf64 = head[4] == 2;
    long phoff = elf64 ? b.getLong(32) : Integer.toUnsignedLong(b.getInt(28));
    int phentsize = Short.toUnsignedInt(b.getShort(elf64 ? 54 : 42));
    int phnum = Short.toUnsignedInt(b.getShort(elf64 ? 56 : 44));
    final int ptInterp = 3;
    for (int i = 0; i < phnum; i++) {
      long at = phoff + (long) i * phentsize;
      if (phentsize < 4 || at < 0 || at + 4 > n) {
        return Optional.empty(); // headers beyond what was read: unknown
      }
      if (b.getInt((int) at) == ptInterp) {
        return Optional.of(true);
      }
    }
    return Optional.of(false);
  }

  private static Optional<String> exe(long pid) {
    try {
      Path p = Files.readSymbolicLink(Paths.get("/proc/" + pid + "/exe"));
      return Optional.of(p.toString());
    } catch (IOException | UnsupportedOperationException e) {
      return Optional.empty();
    }
  }
}
