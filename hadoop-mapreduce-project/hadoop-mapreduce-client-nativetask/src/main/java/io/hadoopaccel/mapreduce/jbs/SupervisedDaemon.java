package io.hadoopaccel.mapreduce.jbs;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One native daemon under the aux service (DESIGN.md §1): started with its command line, up
 * once it prints {@code READY <address>}, commanded by lines on its stdin (one answer line
 * each), stderr copied into our log. A supervisor thread restarts it when it exits, after a
 * back-off that doubles while restarts fail or die young (max 60 s), and calls
 * {@code onRestart} once the new process is READY (the aux service re-sends ADD_JOB there).
 * Closing stdin stops it; a daemon still running after a grace period is killed.
 */
public final class SupervisedDaemon {
  @Override
  public String toString() {
    return name;
  }

  private static final Logger LOG = LoggerFactory.getLogger(SupervisedDaemon.class);
  private static final Object EOF = new Object();
  private static final long MAX_BACKOFF_MS = 60_000;
  private static final long HEALTHY_MS = 60_000;

  private final String name;
  private final Function<String, List<String>> command; // previous READY address -> command
  private final long readyTimeoutMs;
  private final long replyTimeoutMs;
  private final long initialBackoffMs;
  private final Runnable onRestart;

  private volatile Process process;
  private volatile BlockingQueue<Object> stdout;
  private volatile String address;
  private volatile boolean stopping;
  private volatile int starts;
  private Thread supervisor;
  private volatile java.util.function.Consumer<String> stderrTap;

  public SupervisedDaemon(String name, Function<String, List<String>> command,
      long readyTimeoutMs, long replyTimeoutMs, long initialBackoffMs, Runnable onRestart) {
    this.name = name;
    this.command = command;
    this.readyTimeoutMs = readyTimeoutMs;
    this.replyTimeoutMs = replyTimeoutMs;
    this.initialBackoffMs = initialBackoffMs;
    this.onRestart = onRestart;
  }

  /** Tests: sees every stderr line of every process of this daemon (null: none). */
  void setStderrTap(java.util.function.Consumer<String> tap) {
    stderrTap = tap;
  }

  /** What the daemon printed after READY (port or socket path); null before the first READY. */
  public String address() {
    return address;
  }

  /** How many processes were started (1 + restarts). */
  public int starts() {
    return starts;
  }

  public boolean isRunning() {
    Process p = process;
    return p != null && p.isAlive() && stdout != null;
  }

  public Process process() {
    return process;
  }

  /**
   * Starts the first process and waits for READY; throws if that fails. The supervisor
   * thread keeps it running from then on.
   */
  public synchronized void start() throws IOException, InterruptedException {
    launch();
    supervisor = new Thread(this::supervise, "jbs-supervisor-" + name);
    supervisor.setDaemon(true);
    supervisor.start();
  }

  private void launch() throws IOException, InterruptedException {
    List<String> cmd = command.apply(address);
    LOG.info("Starting {}: {}", name, String.join(" ", cmd));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    Process p = pb.start();
    starts++;
    BlockingQueue<Object> lines = new LinkedBlockingQueue<>();
    Thread out = new Thread(() -> pump(p, lines), "jbs-" + name + "-stdout");
    out.setDaemon(true);
    out.start();
    Thread err = new Thread(() -> copyStderr(p), "jbs-" + name + "-stderr");
    err.setDaemon(true);
    err.start();
    Object first = lines.poll(readyTimeoutMs, TimeUnit.MILLISECONDS);
    if (!(first instanceof String) || !((String) first).startsWith("READY")) {
      p.destroyForcibly();
      throw new IOException(name + " did not print READY within " + readyTimeoutMs + " ms"
          + (first instanceof String ? " (printed: " + first + ")"
              : first == EOF ? " (exited with " + waitExit(p) + ")" : ""));
    }
    String ready = ((String) first).substring(5).trim();
    LOG.info("{} is READY at {} (pid {})", name, ready, p.pid());
    address = ready;
    stdout = lines;
    process = p;
  }

  private static String waitExit(Process p) {
    try {
      return p.waitFor(5, TimeUnit.SECONDS) ? "status " + p.exitValue() : "no status yet";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown status";
    }
  }

  private static void pump(Process p, BlockingQueue<Object> lines) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
        StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        lines.add(line);
      }
    } catch (IOException e) {
      // the process is gone
    } finally {
      lines.add(EOF);
    }
  }

  private void copyStderr(Process p) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(),
        StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        LOG.info("[{}] {}", name, line);
        java.util.function.Consumer<String> tap = stderrTap;
        if (tap != null) {
          tap.accept(line);
        }
      }
    } catch (IOException e) {
      // the process is gone
    }
  }

  private void supervise() {
    long backoff = initialBackoffMs;
    while (!stopping) {
      Process p = process;
      long startedAt = System.nanoTime();
      int status;
      try {
        status = p.waitFor();
      } catch (InterruptedException e) {
        if (stopping) {
          return;
        }
        continue;
      }
      if (stopping) {
        return;
      }
      stdout = null;
      if ((System.nanoTime() - startedAt) / 1_000_000 > HEALTHY_MS) {
        backoff = initialBackoffMs;
      }
      LOG.error("{} (pid {}) exited with status {}; restarting in {} ms", name, p.pid(), status,
          backoff);
      while (!stopping) {
        try {
          synchronized (this) {
            wait(backoff);
          }
          if (stopping) {
            return;
          }
          launch();
          onRestart.run();
          backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
          break;
        } catch (InterruptedException e) {
          if (stopping) {
            return;
          }
        } catch (IOException | RuntimeException e) {
          backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
          LOG.error("Restarting {} failed: {}; next try in {} ms", name, e.getMessage(), backoff);
        }
      }
    }
  }

  /**
   * Sends one command line and returns the daemon's answer line; IOException if it is not
   * running or does not answer in time.
   */
  public synchronized String command(String line) throws IOException {
    Process p = process;
    BlockingQueue<Object> lines = stdout;
    if (p == null || lines == null || !p.isAlive()) {
      throw new IOException(name + " is not running");
    }
    OutputStream in = p.getOutputStream();
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
    Object answer;
    try {
      answer = lines.poll(replyTimeoutMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted waiting for " + name, e);
    }
    if (answer == EOF) {
      lines.add(EOF);
      throw new IOException(name + " exited");
    }
    if (answer == null) {
      throw new IOException(name + " did not answer within " + replyTimeoutMs + " ms");
    }
    return (String) answer;
  }

  /** Closes stdin (the daemon exits at EOF), waits up to graceMs, then kills it. */
  public void stop(long graceMs) {
    stopping = true;
    synchronized (this) {
      notifyAll();
    }
    Thread s = supervisor;
    if (s != null) {
      s.interrupt();
    }
    Process p = process;
    if (p == null) {
      return;
    }
    try {
      p.getOutputStream().close();
    } catch (IOException e) {
      // already gone
    }
    try {
      if (!p.waitFor(graceMs, TimeUnit.MILLISECONDS)) {
        LOG.warn("{} (pid {}) did not exit within {} ms of stdin EOF; killing it", name, p.pid(),
            graceMs);
        p.destroyForcibly();
        p.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
    }
    if (s != null) {
      try {
        s.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** True if {@code f} is a file we may execute. */
  static boolean executable(File f) {
    return f.isFile() && f.canExecute();
  }
}
