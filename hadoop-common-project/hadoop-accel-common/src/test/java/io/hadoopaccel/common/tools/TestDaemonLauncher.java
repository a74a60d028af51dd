package io.hadoopaccel.common.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class TestDaemonLauncher {

  /** Every address key of every daemon at port 0, so only what a test sets is checked. */
  private static Configuration allPortsZero() {
    Configuration conf = new Configuration(false);
    for (String line : DaemonLauncher.PORT_TABLE.split("\n")) {
      if (!line.isBlank()) {
        for (String key : DaemonLauncher.PortKey.parse(line).keys()) {
          conf.set(key, "0.0.0.0:0");
        }
      }
    }
    conf.set("fs.defaultFS", "hdfs://localhost:0");
    return conf;
  }

  /** A server socket on a free port, bound the way a daemon would bind it. */
  private static ServerSocket occupy() throws Exception {
    ServerSocket s = new ServerSocket();
    s.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0));
    return s;
  }

  /** Records that the launcher really called main, with the arguments. */
  public static final class FakeDaemon {
    static final List<String> CALLS = new ArrayList<>();

    public static void main(String[] args) {
      CALLS.add(String.join(" ", args));
    }
  }

  private static String text(ByteArrayOutputStream b) {
    return b.toString(StandardCharsets.UTF_8);
  }

  @Test
  void takenPortIsNamedWithItsKeyAndValue() throws Exception {
    try (ServerSocket taken = occupy()) {
      int port = taken.getLocalPort();
      Configuration conf = allPortsZero();
      conf.set("dfs.namenode.http-address", "0.0.0.0:" + port);
      List<String> errors = DaemonLauncher.conflicts("namenode", conf);
      assertEquals(List.of("ERROR: namenode cannot start: port " + port
          + " (dfs.namenode.http-address = 0.0.0.0:" + port + ") is already in use"), errors);
    }
  }

  @Test
  void namenodeRpcPortComesFromDefaultFsUnlessRpcAddressIsSet() throws Exception {
    try (ServerSocket taken = occupy()) {
      int port = taken.getLocalPort();
      Configuration conf = allPortsZero();
      conf.unset("dfs.namenode.rpc-address");
      conf.set("fs.defaultFS", "hdfs://localhost:" + port);
      List<String> errors = DaemonLauncher.conflicts("namenode", conf);
      assertEquals(1, errors.size(), errors.toString());
      assertTrue(errors.get(0).contains("port " + port + " (fs.defaultFS = hdfs://localhost:" + port + ")"),
          errors.get(0));

      conf.set("dfs.namenode.rpc-address", "localhost:0");
      assertEquals(List.of(), DaemonLauncher.conflicts("namenode", conf));
    }
  }

  @Test
  void defaultsApplyWhenKeysAreUnsetAndUriWithoutPortMeans8020() {
    Configuration conf = new Configuration(false);
    conf.set("fs.defaultFS", "hdfs://localhost");
    Set<Integer> ports = new TreeSet<>();
    DaemonLauncher.endpoints("namenode", conf).forEach(e -> ports.add(e.port()));
    assertEquals(Set.of(8020, 9870), ports);

    ports.clear();
    DaemonLauncher.endpoints("resourcemanager", conf).forEach(e -> ports.add(e.port()));
    assertEquals(Set.of(8030, 8031, 8032, 8033, 8088), ports);

    // yarn.nodemanager.address defaults to port 0: not checked.
    ports.clear();
    DaemonLauncher.endpoints("nodemanager", conf).forEach(e -> ports.add(e.port()));
    assertEquals(Set.of(8040, 8042), ports);

    // No web proxy address, no port; a file:// default FS is not a namenode address.
    assertTrue(DaemonLauncher.endpoints("proxyserver", conf).isEmpty());
    conf.set("fs.defaultFS", "file:///");
    assertEquals(1, DaemonLauncher.endpoints("namenode", conf).size());
  }

  @Test
  void bindHostOverridesTheHostAndIsNamed() throws Exception {
    try (ServerSocket taken = occupy()) {
      int port = taken.getLocalPort();
      Configuration conf = allPortsZero();
      conf.set("yarn.resourcemanager.webapp.address", "rm.example.invalid:" + port);
      conf.set("yarn.resourcemanager.bind-host", "0.0.0.0");
      List<String> errors = DaemonLauncher.conflicts("resourcemanager", conf);
      assertEquals(List.of("ERROR: resourcemanager cannot start: port " + port
          + " (yarn.resourcemanager.webapp.address = rm.example.invalid:" + port
          + ", yarn.resourcemanager.bind-host = 0.0.0.0) is already in use"), errors);
    }
  }

  @Test
  void freeConfigurationPassesAndRunsMain() throws Throwable {
    int port;
    try (ServerSocket probe = occupy()) {
      port = probe.getLocalPort();
    }
    Configuration conf = allPortsZero();
    conf.set("mapreduce.jobhistory.webapp.address", "0.0.0.0:" + port);
    assertEquals(List.of(), DaemonLauncher.conflicts("historyserver", conf));

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    FakeDaemon.CALLS.clear();
    int rc = DaemonLauncher.launch("historyserver", FakeDaemon.class.getName(),
        new String[] {"-a", "b"}, conf, new PrintStream(out, true), new PrintStream(err, true));
    assertEquals(0, rc);
    assertEquals("historyserver: ports free, starting " + FakeDaemon.class.getName() + "\n", text(out));
    assertEquals("", text(err));
    assertEquals(List.of("-a b"), FakeDaemon.CALLS);
  }

  @Test
  void takenPortMeansMainIsNeverCalled() throws Throwable {
    try (ServerSocket taken = occupy()) {
      Configuration conf = allPortsZero();
      conf.set("dfs.datanode.ipc.address", "0.0.0.0:" + taken.getLocalPort());
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      FakeDaemon.CALLS.clear();
      int rc = DaemonLauncher.launch("datanode", FakeDaemon.class.getName(), new String[0], conf,
          new PrintStream(out, true), new PrintStream(err, true));
      assertEquals(1, rc);
      assertEquals("", text(out));
      assertTrue(text(err).contains("port " + taken.getLocalPort() + " (dfs.datanode.ipc.address"), text(err));
      assertTrue(FakeDaemon.CALLS.isEmpty());
    }
  }

  @Test
  void missingMainClassIsAnErrorNotAStackTrace() throws Throwable {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc = DaemonLauncher.launch("balancer", "no.such.Main", new String[0], allPortsZero(),
        new PrintStream(new ByteArrayOutputStream(), true), new PrintStream(err, true));
    assertEquals(1, rc);
    assertTrue(text(err).startsWith("ERROR: balancer cannot start: no main method in no.such.Main"), text(err));
  }

  @Test
  void onlyTheFilesOfTheDaemonsKeysAreLoaded() {
    assertEquals("Configuration: core-default.xml, core-site.xml, hdfs-default.xml, hdfs-site.xml",
        DaemonLauncher.daemonConfiguration("namenode").toString());
    assertEquals("Configuration: core-default.xml, core-site.xml, yarn-default.xml, yarn-site.xml",
        DaemonLauncher.daemonConfiguration("nodemanager").toString());
    assertEquals("Configuration: core-default.xml, core-site.xml, mapred-default.xml, mapred-site.xml",
        DaemonLauncher.daemonConfiguration("historyserver").toString());
  }

  @Test
  void everyTableRowIsWellFormed() {
    Set<String> daemons = new TreeSet<>();
    for (String line : DaemonLauncher.PORT_TABLE.split("\n")) {
      if (!line.isBlank()) {
        DaemonLauncher.PortKey row = DaemonLauncher.PortKey.parse(line);
        daemons.add(row.daemon());
        assertFalse(row.keys().isEmpty());
        assertTrue(row.defaultAddress().equals("-") || row.defaultAddress().matches("[^:]*:\\d+"), line);
      }
    }
    assertEquals(new TreeSet<>(List.of("namenode", "datanode", "secondarynamenode", "journalnode",
        "resourcemanager", "nodemanager", "proxyserver", "timelineserver", "historyserver")), daemons);
  }
}
