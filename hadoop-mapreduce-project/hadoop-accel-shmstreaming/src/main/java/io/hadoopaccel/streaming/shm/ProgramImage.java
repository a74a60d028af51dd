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
    if (maps.isEmpty()) {
      return Optional.empty();
    }
    boolean dynamic = maps.contains("/ld-linux") || maps.contains("/ld-2.") || maps.contains("/ld-musl");
    if (!dynamic) {
      return Optional.of(false); // a static binary: no loader, no preload
    }
    return maps.contains("/libc.so") || maps.contains("/libc-") || maps.contains("/libc.musl")
        ? Optional.of(false) : Optional.empty();
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
