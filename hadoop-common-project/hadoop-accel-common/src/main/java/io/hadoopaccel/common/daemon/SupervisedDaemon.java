package io.hadoopaccel.common.daemon;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One native daemon under a NodeManager aux service (JBS's, CooMR's): started with its command
 * line, up once it prints {@code READY <address>}, commanded by lines on its stdin (one answer
 * line each), stderr copied into our log. A supervisor thread starts it again when a start fails
 * (the first one included) or the process exits, after a back-off that doubles while starts
 * fail or processes die young (max 60 s), and calls {@code onRestart} once a new process is
 * READY (the aux service re-sends ADD_JOB there). After {@code maxFailedStarts} failed starts
 * in a row it gives up with one ERROR line ({@link #gaveUp()}, {@link #failedStarts()}).
 * Commands from {@link #submit} go out in order on a control thread of their own, so callers
 * (the NodeManager's dispatcher) never wait on a daemon; a daemon that does not answer one
 * within the reply timeout is killed (it is stuck) and so restarted. Closing stdin stops it;
 * a daemon still running after a grace period is killed.
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
  /** Failed starts in a row before giving up (1 s doubling to 60 s between them: about 2 min). */
  public static final int DEFAULT_MAX_FAILED_STARTS = 8;

  private final String name;
  private final Function<String, List<String>> command; // previous READY address -> command
  private final long readyTimeoutMs;
  private final long replyTimeoutMs;
  private final long initialBackoffMs;
  private final Runnable onRestart;
  private final int maxFailedStarts;

  private volatile Process process;
  private volatile BlockingQueue<Object> stdout;
  private volatile String address;
  private volatile boolean stopping;
  private volatile int starts;
  private volatile int failedStarts;
  private volatile boolean gaveUp;
  private volatile String lastStartFailure;
  private Thread supervisor;
  /** Commands for the control thread, in submission order: lines, or {@link Query}s. */
  private final BlockingQueue<Object> control = new LinkedBlockingQueue<>();
  private final java.util.concurrent.atomic.AtomicInteger controlInFlight =
      new java.util.concurrent.atomic.AtomicInteger();
  private Thread controller;
  private volatile java.util.function.Consumer<String> stderrTap;
  private volatile String whenGivenUp = "What it serves is off on this node.";

  public SupervisedDaemon(String name, Function<String, List<String>> command,
      long readyTimeoutMs, long replyTimeoutMs, long initialBackoffMs, Runnable onRestart) {
    this(name, command, readyTimeoutMs, replyTimeoutMs, initialBackoffMs, onRestart,
        DEFAULT_MAX_FAILED_STARTS);
  }

  public SupervisedDaemon(String name, Function<String, List<String>> command, long readyTimeoutMs,
      long replyTimeoutMs, long initialBackoffMs, Runnable onRestart, int maxFailedStarts) {
    this.maxFailedStarts = maxFailedStarts;
    this.name = name;
    this.command = command;
    this.readyTimeoutMs = readyTimeoutMs;
    this.replyTimeoutMs = replyTimeoutMs;
    this.initialBackoffMs = initialBackoffMs;
    this.onRestart = onRestart;
  }

  /** What giving up means to users, for its ERROR line (which features run stock instead). */
  public void setWhenGivenUp(String consequence) {
    whenGivenUp = consequence;
  }

  /** Tests: sees every stderr line of every process of this daemon (null: none). */
  public void setStderrTap(java.util.function.Consumer<String> tap) {
    stderrTap = tap;
  }

  /** What the daemon printed after READY (port or socket path); null before the first READY. */
  public String address() {
    return address;
  }

  /** How many processes were started (1 + restarts), failed starts included. */
  public int starts() {
    return starts;
  }

  /** Starts that did not reach READY, over the daemon's life. */
  public int failedStarts() {
    return failedStarts;
  }

  /** True once the supervisor stopped trying (too many failed starts in a row). */
  public boolean gaveUp() {
    return gaveUp;
  }

  /** Why the last failed start failed (null if none did). */
  public String lastStartFailure() {
    return lastStartFailure;
  }

  public boolean isRunning() {
    Process p = process;
    return p != null && p.isAlive() && stdout != null;
  }

  public Process process() {
    return process;
  }

  /**
   * Starts the first process and waits for READY. If that fails, the supervisor thread retries
   * with back-off (the caller is not held up); either way it keeps the daemon running from then
   * on. Returns whether the first start reached READY.
   */
  public synchronized boolean start() throws InterruptedException {
    boolean up;
    try {
      launch();
      up = true;
    } catch (IOException e) {
      startFailed(e);
      up = false;
    }
    final boolean running = up;
    supervisor = new Thread(() -> supervise(running), "supervisor-" + name);
    supervisor.setDaemon(true);
    supervisor.start();
    controller = new Thread(this::controlLoop, "control-" + name);
    controller.setDaemon(true);
    controller.start();
    return up;
  }

  private void startFailed(IOException e) {
    failedStarts++;
    lastStartFailure = e.getMessage();
  }

  private void launch() throws IOException, InterruptedException {
    List<String> cmd = command.apply(address);
    LOG.info("Starting {}: {}", name, String.join(" ", cmd));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    Process p = pb.start();
    starts++;
    BlockingQueue<Object> lines = new LinkedBlockingQueue<>();
    Thread out = new Thread(() -> pump(p, lines), name + "-stdout");
    out.setDaemon(true);
    out.start();
    Thread err = new Thread(() -> copyStderr(p), name + "-stderr");
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

  private void supervise(boolean running) {
    long backoff = initialBackoffMs;
    int failedInARow = running ? 0 : 1;
    while (!stopping) {
      if (running) {
        Process p = process;
        long startedAt = System.nanoTime();
        int status;
        try {
          status = p.waitFor();
        } catch (InterruptedException e) {
          continue; // stop() interrupts; the loop condition decides
        }
        if (stopping) {
          return;
        }
        stdout = null;
        running = false;
        if ((System.nanoTime() - startedAt) / 1_000_000 > HEALTHY_MS) {
          backoff = initialBackoffMs;
        }
        LOG.error("{} (pid {}) exited with status {}; restarting in {} ms", name, p.pid(),
            status, backoff);
      } else if (failedInARow >= maxFailedStarts) {
        gaveUp = true;
        LOG.error("{} failed to start {} times in a row (last: {}); giving up until the"
            + " NodeManager restarts. {}", name, failedInARow, lastStartFailure, whenGivenUp);
        return;
      } else {
        LOG.error("{} did not start ({}); try {} of {} in {} ms", name, lastStartFailure,
            failedInARow + 1, maxFailedStarts, backoff);
      }
      try {
        synchronized (this) {
          if (!stopping) {
            wait(backoff);
          }
        }
      } catch (InterruptedException e) {
        // stop() or a spurious interrupt: the loop condition decides
      }
      if (stopping) {
        return;
      }
      try {
        launch();
        running = true;
        failedInARow = 0;
        onRestart.run();
      } catch (IOException | RuntimeException e) {
        startFailed(e instanceof IOException ? (IOException) e : new IOException(e));
        failedInARow++;
      } catch (InterruptedException e) {
        continue;
      }
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }

  /**
   * Queues one command line for the control thread and returns at once. Commands go out in
   * submission order; one that finds the daemon down is dropped (a restarted daemon gets every
   * live job again through onRestart), one whose answer is not OK is logged.
   */
  public void submit(String line) {
    controlInFlight.incrementAndGet();
    control.add(line);
  }

  /** A command whose answer someone waits for ({@link #query}). */
  private static final class Query {
    final String line;
    final CompletableFuture<String> answer = new CompletableFuture<>();

    Query(String line) {
      this.line = line;
    }
  }

  /**
   * Queues one command line like {@link #submit} and returns its answer line to come; the
   * future fails if the daemon is down or does not answer (after the reply timeout, when the
   * daemon is killed as for any command). The caller waits as long as it likes (the metrics
   * source waits briefly), never holding up the control thread.
   */
  public CompletableFuture<String> query(String line) {
    Query q = new Query(line);
    controlInFlight.incrementAndGet();
    control.add(q);
    return q.answer;
  }

  /** Tests: waits until every submitted command was handled; false after ms. */
  public boolean awaitControlIdle(long ms) throws InterruptedException {
    long deadline = System.nanoTime() + ms * 1_000_000;
    while (controlInFlight.get() > 0) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(5);
    }
    return true;
  }

  private void controlLoop() {
    while (!stopping) {
      Object next;
      try {
        next = control.take();
      } catch (InterruptedException e) {
        continue;
      }
      Query query = next instanceof Query ? (Query) next : null;
      String line = query != null ? query.line : (String) next;
      try {
        String verb = line.indexOf(' ') > 0 ? line.substring(0, line.indexOf(' ')) : line;
        try {
          String answer = command(line);
          if (query != null) {
            query.answer.complete(answer);
          } else if (!answer.equals("OK")) {
            LOG.error("{} answered {} to {}", name, answer, verb);
          }
        } catch (ReplyTimeoutException e) {
          if (query != null) {
            query.answer.completeExceptionally(e);
          }
          // A daemon that cannot answer a control line is stuck: its later answers would also
          // pair with the wrong commands. Kill it; the supervisor restarts it and re-adds jobs.
          Process p = process;
          LOG.error("{} did not answer {} within {} ms; killing it (pid {}) to restart it",
              name, verb, replyTimeoutMs, p == null ? "none" : p.pid());
          if (p != null) {
            p.destroyForcibly();
          }
        } catch (IOException e) {
          if (query != null) {
            query.answer.completeExceptionally(e);
          } else {
            LOG.warn("{} for {} not delivered: {}", verb, name, e.getMessage());
          }
        }
      } finally {
        if (query != null && !query.answer.isDone()) {
          query.answer.completeExceptionally(new IOException(name + ": " + line + " failed"));
        }
        controlInFlight.decrementAndGet();
      }
    }
  }

  /** No answer within the reply timeout. */
  static final class ReplyTimeoutException extends IOException {
    private static final long serialVersionUID = 1L;

    ReplyTimeoutException(String msg) {
      super(msg);
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
      throw new ReplyTimeoutException(name + " did not answer within " + replyTimeoutMs + " ms");
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
    Thread c = controller;
    if (c != null) {
      c.interrupt();
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

  /**
   * Where the tarball ships daemon executables: {@code $HADOOP_HOME/bin}, else
   * {@code hadoop.home.dir}'s bin, else {@code bin} under the working directory.
   */
  public static File hadoopBinDir() {
    String home = System.getenv("HADOOP_HOME");
    if (home == null || home.isEmpty()) {
      home = System.getProperty("hadoop.home.dir");
    }
    return home == null || home.isEmpty() ? new File("bin") : new File(home, "bin");
  }

  /** True if {@code f} is a file we may execute. */
  public static boolean executable(File f) {
    return f.isFile() && f.canExecute();
  }
}
