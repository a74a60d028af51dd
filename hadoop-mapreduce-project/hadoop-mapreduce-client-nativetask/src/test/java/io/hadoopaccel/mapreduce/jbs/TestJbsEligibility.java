package io.hadoopaccel.mapreduce.jbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.compress.BZip2Codec;
import org.apache.hadoop.io.compress.DefaultCodec;
import org.apache.hadoop.io.compress.GzipCodec;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.junit.jupiter.api.Test;

/** When a reduce runs JBS and when it falls back to stock shuffle; the keys' checks. */
class TestJbsEligibility {
  private static final TaskAttemptID FIRST =
      new TaskAttemptID("1700000000000", 1, TaskType.REDUCE, 0, 0);
  private static final TaskAttemptID RETRY =
      new TaskAttemptID("1700000000000", 1, TaskType.REDUCE, 0, 1);

  private static JobConf conf(Class<?> key) {
    JobConf c = new JobConf(false);
    c.setMapOutputKeyClass(key);
    return c;
  }

  @Test
  void registeredKeyTypesAndCodecsAreTaken() {
    assertEquals(ReducerProtocol.KEY_TEXT, JbsEligibility.keyType(conf(Text.class)));
    assertEquals(ReducerProtocol.KEY_BYTES_WRITABLE,
        JbsEligibility.keyType(conf(BytesWritable.class)));
    assertEquals(ReducerProtocol.KEY_INT, JbsEligibility.keyType(conf(IntWritable.class)));
    assertEquals(ReducerProtocol.KEY_LONG, JbsEligibility.keyType(conf(LongWritable.class)));
    assertNull(JbsEligibility.unsupportedReason(conf(Text.class), null, FIRST, false));
    assertNull(JbsEligibility.unsupportedReason(conf(LongWritable.class), new DefaultCodec(),
        FIRST, false));
    assertEquals(ReducerProtocol.CODEC_NONE, JbsEligibility.codec(null));
    assertEquals(ReducerProtocol.CODEC_ZLIB, JbsEligibility.codec(new DefaultCodec()));
  }

  @Test
  void everythingElseFallsBackWithAReason() {
    // A user-set comparator, even on Text.
    JobConf c = conf(Text.class);
    c.set(MRJobConfig.KEY_COMPARATOR, Text.Comparator.class.getName());
    assertEquals(0, JbsEligibility.keyType(c));
    assertTrue(JbsEligibility.unsupportedReason(c, null, FIRST, false).contains("comparator"));
    // Other key classes (the default map output key is LongWritable only if unset).
    assertTrue(JbsEligibility.unsupportedReason(conf(org.apache.hadoop.io.DoubleWritable.class),
        null, FIRST, false).contains("DoubleWritable"));
    // Other codecs, including DefaultCodec's subclass GzipCodec.
    assertNotNull(JbsEligibility.unsupportedReason(conf(Text.class), new GzipCodec(), FIRST,
        false));
    assertNotNull(JbsEligibility.unsupportedReason(conf(Text.class), new BZip2Codec(), FIRST,
        false));
    // Encrypted intermediate data.
    JobConf enc = conf(Text.class);
    enc.setBoolean(MRJobConfig.MR_ENCRYPTED_INTERMEDIATE_DATA, true);
    assertTrue(JbsEligibility.unsupportedReason(enc, null, FIRST, false).contains("encrypt"));
    assertTrue(JbsEligibility.isEncryptionReason(
        JbsEligibility.unsupportedReason(enc, null, FIRST, false)));
    // Encrypted shuffle: the daemons have no TLS, so stock's HTTPS it is.
    JobConf ssl = conf(Text.class);
    ssl.setBoolean("mapreduce.shuffle.ssl.enabled", true);
    String why = JbsEligibility.unsupportedReason(ssl, null, FIRST, false);
    assertTrue(why.contains("mapreduce.shuffle.ssl.enabled is true"), why);
    assertTrue(JbsEligibility.isEncryptionReason(why));
    assertTrue(!JbsEligibility.isEncryptionReason(JbsEligibility.unsupportedReason(
        conf(Text.class), null, RETRY, false)));
    // A retried attempt, local map outputs.
    assertTrue(JbsEligibility.unsupportedReason(conf(Text.class), null, RETRY, false)
        .contains("retry"));
    assertNotNull(JbsEligibility.unsupportedReason(conf(Text.class), null, FIRST, true));
  }

  @Test
  void defaultsAreReadAndBadValuesNameTheKey() {
    JbsConfig d = JbsConfig.from(new Configuration(false));
    assertEquals(13570, d.supplierPort);
    assertEquals(131072, d.bufferBytes);
    assertEquals(512, d.maxConnections);
    Configuration bad = new Configuration(false);
    bad.set("hadoop.accel.jbs.buffer.bytes", "5000");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> JbsConfig.from(bad));
    assertTrue(e.getMessage().contains("hadoop.accel.jbs.buffer.bytes"), e.getMessage());
    Configuration port = new Configuration(false);
    port.set("hadoop.accel.jbs.supplier.port", "70000");
    e = assertThrows(IllegalArgumentException.class, () -> JbsConfig.from(port));
    assertTrue(e.getMessage().contains("hadoop.accel.jbs.supplier.port"), e.getMessage());
    Configuration read = new Configuration(false);
    read.set("hadoop.accel.jbs.read.timeout.ms", "0");
    e = assertThrows(IllegalArgumentException.class, () -> JbsConfig.from(read));
    assertTrue(e.getMessage().contains("hadoop.accel.jbs.read.timeout.ms"), e.getMessage());
    Configuration sock = new Configuration(false);
    sock.set("hadoop.accel.jbs.merger.socket", "relative.sock");
    e = assertThrows(IllegalArgumentException.class, () -> JbsConfig.from(sock));
    assertTrue(e.getMessage().contains("hadoop.accel.jbs.merger.socket"), e.getMessage());
  }

  @Test
  void commandLinesFollowTheDesign() {
    Configuration c = new Configuration(false);
    c.set("hadoop.accel.jbs.native.dir", "/opt/jbs");
    c.set("hadoop.accel.jbs.merger.socket", "/tmp/m.sock");
    JbsConfig cfg = JbsConfig.from(c);
    assertEquals("/opt/jbs/jbs_mof_supplier --listen 0.0.0.0:99 --local-dirs /a,/b"
        + " --buffer-bytes 131072 --buffers 256 --index-cache-bytes 10485760",
        String.join(" ", cfg.supplierCommand(cfg.supplierBinary(), 99,
            java.util.List.of("/a", "/b"))));
    assertEquals("/opt/jbs/jbs_net_merger --socket /tmp/m.sock --socket-access owner"
        + " --buffer-bytes 131072"
        + " --memory-bytes 268435456 --max-connections 512 --spill-dirs /a/s"
        + " --connect-timeout-ms 5000 --read-timeout-ms 180000 --fetch-retries 5"
        + " --retry-backoff-ms 500",
        String.join(" ", cfg.mergerCommand(cfg.mergerBinary(), java.util.List.of("/a/s"))));
  }

  @Test
  void bindAddressAndSocketAccessReachTheDaemons() {
    Configuration c = new Configuration(false);
    c.set("hadoop.accel.jbs.supplier.bind.address", "10.1.2.3");
    c.set("yarn.nodemanager.container-executor.class",
        "org.apache.hadoop.yarn.server.nodemanager.LinuxContainerExecutor");
    JbsConfig cfg = JbsConfig.from(c);
    assertTrue(cfg.supplierCommand(cfg.supplierBinary(), 7, java.util.List.of("/a"))
        .contains("10.1.2.3:7"));
    assertTrue(String.join(" ", cfg.mergerCommand(cfg.mergerBinary(), java.util.List.of()))
        .contains("--socket-access any"));  // tasks run as other users than the NodeManager
    c.set("hadoop.accel.jbs.supplier.bind.address", "::1");
    assertTrue(JbsConfig.from(c).supplierCommand(cfg.supplierBinary(), 7,
        java.util.List.of("/a")).contains("[::1]:7"));
    c.set("hadoop.accel.jbs.supplier.bind.address", "a b");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> JbsConfig.from(c));
    assertTrue(e.getMessage().contains("hadoop.accel.jbs.supplier.bind.address"),
        e.getMessage());
  }
}
