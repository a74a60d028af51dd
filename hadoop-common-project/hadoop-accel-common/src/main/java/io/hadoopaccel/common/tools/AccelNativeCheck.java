package io.hadoopaccel.common.tools;

import com.sun.jna.NativeLibrary;
import io.hadoopaccel.common.conf.AccelConfigKeys;
import io.hadoopaccel.common.conf.AccelConfiguration;
import io.hadoopaccel.common.nativeio.HadoopAccelNative;
import io.hadoopaccel.common.nativeio.NativeLoader;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ExitUtil;
import org.apache.hadoop.util.NativeLibraryChecker;

/**
 * {@code hadoop checknative [-a|-h]}: upstream's report on libhadoop and its codecs, then one line
 * per native piece of ours: {@code NAME: true|false DETAIL}.
 *
 * <p>Exit status as stock's checker, with libhadoopaccel in libhadoop's place (the tarball ships
 * no libhadoop, by design, so upstream's lines are information only): 1 if libhadoopaccel is
 * missing; with {@code -a}, also 1 if any other piece of ours is; else 0. {@code -h} prints the
 * usage (exit 0), any other argument prints it on stderr (exit 1).
 */
public final class AccelNativeCheck {
  private AccelNativeCheck() {}

  /** How a piece is checked. */
  enum Kind {
    /** libhadoopaccel: bound through JNA and asked for its version. */
    CORE,
    /** A shared library: located like NativeLoader does and opened (dlopen). */
    LIBRARY,
    /** An LD_PRELOAD shim: located and checked to be an ELF shared object, never opened here
     *  (its constructor belongs to a streaming program's process). */
    PRELOAD,
    /** A daemon executable: run without arguments, it must print its usage. */
    EXECUTABLE
  }

  /** One native piece: the name shown, the file, how it is checked, what uses it. */
  static final class Piece {
    final String name;
    final String file;
    final Kind kind;
    final String usedBy;

    Piece(String name, String file, Kind kind, String usedBy) {
      this.name = name;
      this.file = file;
      this.kind = kind;
      this.usedBy = usedBy;
    }
  }

  /** The outcome for one piece. */
  static final class Result {
    final Piece piece;
    final boolean ok;
    final String detail;

    Result(Piece piece, boolean ok, String detail) {
      this.piece = piece;
      this.ok = ok;
      this.detail = detail;
    }

    String line() {
      return String.format("%-19s %b %s", piece.name + ":", ok, detail);
    }
  }

  /** Every native piece the tarball ships (built with -Pnative). */
  static final List<Piece> PIECES = List.of(
      new Piece("hadoop-accel", "libhadoopaccel.so", Kind.CORE, "every feature"),
      new Piece("hadoop-shm", "libhadoop_shm.so", Kind.LIBRARY, "ShmStreaming rings"),
      new Piece("hadoop-shm-preload", "libhadoop_shm_preload.so", Kind.PRELOAD,
          "ShmStreaming for unmodified programs"),
      new Piece("jbs_mof_supplier", "jbs_mof_supplier", Kind.EXECUTABLE, "JBS MOFSupplier daemon"),
      new Piece("jbs_net_merger", "jbs_net_merger", Kind.EXECUTABLE, "JBS NetMerger daemon"));

  /** Longest a daemon executable may take to print its usage. */
  private static final long EXEC_TIMEOUT_MS = 10_000;

  /** Where the JBS daemons are: hadoop.accel.jbs.native.dir, else $HADOOP_HOME/bin. */
  static File daemonDir(Configuration conf) {
    String dir = AccelConfiguration.get(conf, AccelConfigKeys.JBS_NATIVE_DIR);
    if (dir != null && !dir.isEmpty()) {
      return new File(dir);
    }
    String home = System.getProperty("hadoop.home.dir", System.getenv("HADOOP_HOME"));
    return new File(home == null ? "." : home, "bin");
  }

  static List<Result> check(Configuration conf, List<Piece> pieces, File daemonDir) {
    List<Result> results = new ArrayList<>();
    for (Piece p : pieces) {
      results.add(check(conf, p, daemonDir));
    }
    return results;
  }

  private static Result check(Configuration conf, Piece p, File daemonDir) {
    switch (p.kind) {
      case CORE:
        if (!AccelConfiguration.getBoolean(conf, AccelConfigKeys.NATIVE_ENABLED)) {
          return new Result(p, false, "switched off (" + AccelConfigKeys.NATIVE_ENABLED + "=false)");
        }
        Optional<HadoopAccelNative.Api> api = HadoopAccelNative.load(conf);
        NativeLoader.Status s = NativeLoader.status(HadoopAccelNative.LIBRARY);
        if (api.isPresent()) {
          return new Result(p, true, s.detail() + " (" + api.get().hacc_version() + ")");
        }
        return new Result(p, false, s.detail());
      case LIBRARY:
      case PRELOAD:
        String lib = p.file.substring(3, p.file.length() - 3); // libNAME.so -> NAME
        Optional<File> f = NativeLoader.find(conf, lib);
        if (!f.isPresent()) {
          return new Result(p, false, p.file + " not found (used by " + p.usedBy + ")");
        }
        return p.kind == Kind.LIBRARY ? opens(p, f.get()) : isSharedObject(p, f.get());
      case EXECUTABLE:
      default:
        return runs(p, new File(daemonDir, p.file));
    }
  }

  private static Result opens(Piece p, File f) {
    try {
      NativeLibrary.getInstance(f.getPath());
      return new Result(p, true, f.getPath());
    } catch (UnsatisfiedLinkError e) {
      return new Result(p, false, f.getPath() + " not loadable (" + firstLine(e.getMessage()) + ")");
    }
  }

  /** ELF magic and e_type ET_DYN (3), little-endian as on every platform we build for. */
  private static Result isSharedObject(Piece p, File f) {
    byte[] h = new byte[18];
    try (InputStream in = Files.newInputStream(f.toPath())) {
      if (in.readNBytes(h, 0, h.length) == h.length && h[0] == 0x7f && h[1] == 'E' && h[2] == 'L'
          && h[3] == 'F' && h[16] == 3 && h[17] == 0) {
        return new Result(p, true, f.getPath());
      }
      return new Result(p, false, f.getPath() + " is not an ELF shared object");
    } catch (IOException e) {
      return new Result(p, false, f.getPath() + " unreadable (" + e.getMessage() + ")");
    }
  }

  /** Runs the daemon without arguments: printing "usage: NAME" proves it starts (links). */
  private static Result runs(Piece p, File exe) {
    if (!exe.isFile()) {
      return new Result(p, false, exe.getPath() + " not found (used by " + p.usedBy + ")");
    }
    if (!exe.canExecute()) {
      return new Result(p, false, exe.getPath() + " is not executable");
    }
    try {
      Process proc = new ProcessBuilder(exe.getPath())
          .redirectErrorStream(true)
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .start();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Thread reader = new Thread(() -> {
        try (InputStream in = proc.getInputStream()) {
          in.transferTo(out);
        } catch (IOException ignored) {
          // the process is gone; what was read is enough
        }
      }, "checknative-" + p.name);
      reader.setDaemon(true);
      reader.start();
      if (!proc.waitFor(EXEC_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
        proc.destroyForcibly();
        return new Result(p, false, exe.getPath() + " did not answer within "
            + EXEC_TIMEOUT_MS / 1000 + " s");
      }
      reader.join(EXEC_TIMEOUT_MS);
      String text = out.toString(StandardCharsets.UTF_8);
      if (text.contains("usage: " + p.file)) {
        return new Result(p, true, exe.getPath());
      }
      return new Result(p, false, exe.getPath() + " exited " + proc.exitValue() + ": "
          + firstLine(text.trim()));
    } catch (IOException e) {
      return new Result(p, false, exe.getPath() + " cannot run (" + e.getMessage() + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(p, false, exe.getPath() + " check interrupted");
    }
  }

  /** Stock semantics, libhadoopaccel in libhadoop's place: see the class comment. */
  static int exitCode(List<Result> results, boolean all) {
    for (Result r : results) {
      if (!r.ok && (all || r.piece.kind == Kind.CORE)) {
        return 1;
      }
    }
    return 0;
  }

  static final String USAGE = "Usage: hadoop checknative [-a|-h]\n"
      + "  Reports upstream's native libraries (libhadoop and its codecs; this distribution ships\n"
      + "  no libhadoop, so those lines are information only) and every native piece of ours.\n"
      + "  Exits 1 if libhadoopaccel is missing, and with -a also if any other piece is.\n"
      + "  -h  print this message\n";

  /** The whole command; returns the exit status. */
  static int run(String[] args, Configuration conf, File daemonDir, PrintStream out,
      PrintStream err) {
    boolean all = false;
    if (args.length == 1 && args[0].equals("-h")) {
      out.print(USAGE);
      return 0;
    } else if (args.length == 1 && args[0].equals("-a")) {
      all = true;
    } else if (args.length != 0) {
      err.print(USAGE);
      return 1;
    }
    upstreamReport();
    out.println("Hadoop Accel native pieces:");
    List<Result> results = check(conf, PIECES, daemonDir);
    for (Result r : results) {
      out.println(r.line());
    }
    return exitCode(results, all);
  }

  /** Upstream's lines; its exit status (always 1 here, for libhadoop) is not ours. */
  private static void upstreamReport() {
    ExitUtil.disableSystemExit();
    org.apache.log4j.Logger.getLogger(ExitUtil.class).setLevel(org.apache.log4j.Level.OFF);
    try {
      NativeLibraryChecker.main(new String[0]);
    } catch (ExitUtil.ExitException e) {
      // reported through its lines
    }
  }

  private static String firstLine(String s) {
    if (s == null || s.isEmpty()) {
      return "no output";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  public static void main(String[] args) {
    Configuration conf = AccelConfiguration.create();
    System.exit(run(args, conf, daemonDir(conf), System.out, System.err));
  }
}
