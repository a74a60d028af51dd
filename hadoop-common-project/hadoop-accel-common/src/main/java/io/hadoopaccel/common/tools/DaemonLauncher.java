package io.hadoopaccel.common.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/**
 * {@code DaemonLauncher <daemon> <mainClass> [args...]}: what {@code --daemon start} runs.
 *
 * <p>A daemon whose port is taken otherwise dies with a {@code BindException} deep in its log,
 * often after seconds of start-up. This checks every TCP port the daemon will bind according to
 * its configuration first, and names the port and the key that set it:
 *
 * <pre>ERROR: namenode cannot start: port 9870 (dfs.namenode.http-address = 0.0.0.0:9870) is already in use</pre>
 *
 * <p>When all ports are free it prints {@code <daemon>: ports free, starting <mainClass>} (the
 * start scripts wait for that line) and runs the daemon's own {@code main} in this JVM.
 */
public final class DaemonLauncher {

  /**
   * The ports each daemon binds. Columns: daemon; address key(s), the first one that is set wins
   * (a value is {@code host:port}, {@code :port}, {@code port} or an {@code hdfs://} URI); the
   * address used when none is set, whose port also fills in a URI without one ({@code -}: the port
   * is optional and not checked unless set); the key that overrides the host to bind to.
   * Port 0 means "any free port" and is never checked.
   */
  static final String PORT_TABLE = """
      namenode           dfs.namenode.rpc-address|fs.defaultFS  0.0.0.0:8020   dfs.namenode.rpc-bind-host
      namenode           dfs.namenode.servicerpc-address        -              dfs.namenode.servicerpc-bind-host
      namenode           dfs.namenode.http-address              0.0.0.0:9870   dfs.namenode.http-bind-host
      datanode           dfs.datanode.address                   0.0.0.0:9866   -
      datanode           dfs.datanode.http.address              0.0.0.0:9864   -
      datanode           dfs.datanode.ipc.address               0.0.0.0:9867   -
      secondarynamenode  dfs.namenode.secondary.http-address    0.0.0.0:9868   -
      journalnode        dfs.journalnode.rpc-address            0.0.0.0:8485   dfs.journalnode.rpc-bind-host
      journalnode        dfs.journalnode.http-address           0.0.0.0:8480   dfs.journalnode.http-bind-host
      resourcemanager    yarn.resourcemanager.address           0.0.0.0:8032   yarn.resourcemanager.bind-host
      resourcemanager    yarn.resourcemanager.scheduler.address 0.0.0.0:8030   yarn.resourcemanager.bind-host
      resourcemanager    yarn.resourcemanager.resource-tracker.address 0.0.0.0:8031 yarn.resourcemanager.bind-host
      resourcemanager    yarn.resourcemanager.admin.address     0.0.0.0:8033   yarn.resourcemanager.bind-host
      resourcemanager    yarn.resourcemanager.webapp.address    0.0.0.0:8088   yarn.resourcemanager.bind-host
      nodemanager        yarn.nodemanager.address               0.0.0.0:0      yarn.nodemanager.bind-host
      nodemanager        yarn.nodemanager.localizer.address     0.0.0.0:8040   yarn.nodemanager.bind-host
      nodemanager        yarn.nodemanager.webapp.address        0.0.0.0:8042   yarn.nodemanager.bind-host
      proxyserver        yarn.web-proxy.address                 -              -
      timelineserver     yarn.timeline-service.address          0.0.0.0:10200  yarn.timeline-service.bind-host
      timelineserver     yarn.timeline-service.webapp.address   0.0.0.0:8188   yarn.timeline-service.bind-host
      historyserver      mapreduce.jobhistory.address           0.0.0.0:10020  mapreduce.jobhistory.bind-host
      historyserver      mapreduce.jobhistory.webapp.address    0.0.0.0:19888  mapreduce.jobhistory.bind-host
      historyserver      mapreduce.jobhistory.admin.address     0.0.0.0:10033  mapreduce.jobhistory.bind-host
      """;

  /**
   * Which files define keys of a prefix (core-*.xml always load). They are all on a daemon's
   * class path; absent ones are skipped. Only those the daemon's keys need are parsed, since
   * parsing the big *-default.xml files is most of this check's cost.
   */
  static final String[][] RESOURCES = {
    {"dfs.", "hdfs-default.xml", "hdfs-site.xml"},
    {"yarn.", "yarn-default.xml", "yarn-site.xml"},
    {"mapreduce.", "mapred-default.xml", "mapred-site.xml"},
  };

  private static final String NONE = "-";

  private DaemonLauncher() {}

  /** One row of {@link #PORT_TABLE}. */
  record PortKey(String daemon, List<String> keys, String defaultAddress, String bindHostKey) {
    static PortKey parse(String line) {
      String[] f = line.trim().split("\\s+");
      if (f.length != 4) {
        throw new IllegalStateException("PORT_TABLE row needs 4 columns: " + line);
      }
      return new PortKey(f[0], List.of(f[1].split("\\|")), f[2], f[3]);
    }
  }

  /** A port a daemon will bind, and where it came from (for the error message). */
  record Endpoint(String host, int port, String key, String value, String bindHostKey) {
    String describe() {
      String bind = bindHostKey == null ? "" : ", " + bindHostKey + " = " + host;
      return "port " + port + " (" + key + " = " + value + bind + ")";
    }
  }

  static List<PortKey> portKeys(String daemon) {
    List<PortKey> rows = new ArrayList<>();
    for (String line : PORT_TABLE.split("\n")) {
      if (!line.isBlank()) {
        PortKey row = PortKey.parse(line);
        if (row.daemon().equals(daemon)) {
          rows.add(row);
        }
      }
    }
    return rows;
  }

  /** The configuration {@code daemon} will see, as far as its port keys go. */
  static Configuration daemonConfiguration(String daemon) {
    Configuration conf = new Configuration();
    for (String[] files : RESOURCES) {
      boolean needed = portKeys(daemon).stream()
          .anyMatch(row -> row.keys().stream().anyMatch(k -> k.startsWith(files[0]))
              || row.bindHostKey().startsWith(files[0]));
      for (int i = 1; needed && i < files.length; i++) {
        conf.addResource(files[i]);
      }
    }
    return conf;
  }

  /** The ports {@code daemon} will bind with {@code conf}; port 0 and unset optional ones left out. */
  static List<Endpoint> endpoints(String daemon, Configuration conf) {
    List<Endpoint> out = new ArrayList<>();
    for (PortKey row : portKeys(daemon)) {
      String key = null;
      String value = null;
      for (String k : row.keys()) {
        String v = conf.getTrimmed(k);
        if (v != null && !v.isEmpty()) {
          key = k;
          value = v;
          break;
        }
      }
      if (value == null) {
        if (row.defaultAddress().equals(NONE)) {
          continue;
        }
        key = row.keys().get(0);
        value = row.defaultAddress();
      }
      Endpoint e = toEndpoint(key, value, row, conf);
      if (e != null && e.port() != 0) {
        out.add(e);
      }
    }
    return out;
  }

  /** Parses {@code host:port}, {@code :port}, {@code port}, {@code host} or a URI; null if not ours. */
  private static Endpoint toEndpoint(String key, String value, PortKey row, Configuration conf) {
    try {
      return parseEndpoint(key, value, row, conf);
    } catch (IllegalArgumentException e) {
      return null; // a malformed address is the daemon's to report, with its own message
    }
  }

  private static Endpoint parseEndpoint(String key, String value, PortKey row, Configuration conf) {
    int defaultPort = row.defaultAddress().equals(NONE) ? 0 : portOf(row.defaultAddress());
    String host;
    int port;
    if (value.contains("://")) {
      URI uri = URI.create(value);
      // fs.defaultFS = file:/// (or s3a://...) is not a namenode address; the namenode says so itself.
      if (!"hdfs".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
        return null;
      }
      host = uri.getHost();
      port = uri.getPort() == -1 ? defaultPort : uri.getPort();
    } else {
      int colon = value.lastIndexOf(':');
      if (colon >= 0) {
        host = value.substring(0, colon);
        port = Integer.parseInt(value.substring(colon + 1).trim());
      } else if (value.chars().allMatch(Character::isDigit)) {
        host = "";
        port = Integer.parseInt(value);
      } else {
        host = value;
        port = defaultPort;
      }
    }
    String bindHostKey = null;
    if (!row.bindHostKey().equals(NONE)) {
      String bindHost = conf.getTrimmed(row.bindHostKey());
      if (bindHost != null && !bindHost.isEmpty()) {
        host = bindHost;
        bindHostKey = row.bindHostKey();
      }
    }
    return new Endpoint(host.isEmpty() ? "0.0.0.0" : host, port, key, value, bindHostKey);
  }

  private static int portOf(String address) {
    return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
  }

  /** True unless something already listens on the endpoint's port. */
  static boolean isFree(Endpoint e) {
    InetAddress addr;
    try {
      addr = InetAddress.getByName(e.host());
    } catch (UnknownHostException ex) {
      return true; // an unresolvable host is a different error, which the daemon reports itself
    }
    try (ServerSocket s = new ServerSocket()) {
      // As the daemons do, so that connections in TIME_WAIT do not count as "in use".
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(addr, e.port()));
      return true;
    } catch (BindException ex) {
      // Only a taken port is ours to report; e.g. "Cannot assign requested address" is not.
      String msg = ex.getMessage() == null ? "" : ex.getMessage().toLowerCase(Locale.ROOT);
      return !msg.contains("in use");
    } catch (IOException ex) {
      return true;
    }
  }

  /** One ERROR line per port of {@code daemon} that is already taken; empty if it can start. */
  static List<String> conflicts(String daemon, Configuration conf) {
    List<String> errors = new ArrayList<>();
    for (Endpoint e : endpoints(daemon, conf)) {
      if (!isFree(e)) {
        errors.add("ERROR: " + daemon + " cannot start: " + e.describe() + " is already in use");
      }
    }
    return errors;
  }

  /**
   * Checks the ports, then runs {@code mainClass.main(args)} in this thread.
   *
   * @return 1 when a port is taken or the class has no main (nothing was started), else 0 once
   *     the daemon's main returns
   */
  static int launch(String daemon, String mainClass, String[] args, Configuration conf,
      PrintStream out, PrintStream err) throws Throwable {
    List<String> errors = conflicts(daemon, conf);
    Method main = null;
    try {
      main = Class.forName(mainClass).getMethod("main", String[].class);
      if (!Modifier.isStatic(main.getModifiers())) {
        throw new NoSuchMethodException(mainClass + ".main is not static");
      }
    } catch (ClassNotFoundException | NoSuchMethodException e) {
      errors.add("ERROR: " + daemon + " cannot start: no main method in " + mainClass + " (" + e + ")");
    }
    if (!errors.isEmpty()) {
      errors.forEach(err::println);
      err.flush();
      return 1;
    }
    out.println(daemon + ": ports free, starting " + mainClass);
    out.flush();
    try {
      main.invoke(null, (Object) args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
    return 0;
  }

  public static void main(String[] args) throws Throwable {
    if (args.length < 2) {
      System.err.println("Usage: DaemonLauncher <daemon> <mainClass> [args...]");
      System.exit(2);
    }
    int rc = launch(args[0], args[1], Arrays.copyOfRange(args, 2, args.length),
        daemonConfiguration(args[0]), System.out, System.err);
    if (rc != 0) {
      System.exit(rc);
    }
  }
}
