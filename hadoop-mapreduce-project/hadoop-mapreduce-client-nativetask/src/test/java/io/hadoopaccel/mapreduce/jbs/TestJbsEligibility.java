package io.hadoopaccel.mapreduce.jbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.DoubleWritable;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.compress.BZip2Codec;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.DefaultCodec;
import org.apache.hadoop.io.compress.GzipCodec;
import org.apache.hadoop.io.compress.Lz4Codec;
import org.apache.hadoop.io.compress.SnappyCodec;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.task.reduce.JbsShuffle;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;
import org.junit.jupiter.api.Test;

/** When a reduce runs JBS, when it falls back and which counter says why; the keys' checks. */
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
    assertNull(JbsEligibility.fallback(conf(Text.class), null, FIRST, false));
    assertNull(JbsEligibility.fallback(conf(LongWritable.class), new DefaultCodec(), FIRST,
        false));
    assertEquals(ReducerProtocol.CODEC_NONE, JbsEligibility.codec(null));
    assertEquals(ReducerProtocol.CODEC_ZLIB, JbsEligibility.codec(new DefaultCodec()));
    assertEquals(ReducerProtocol.CODEC_SNAPPY, JbsEligibility.codec(new SnappyCodec()));
    assertEquals(ReducerProtocol.CODEC_LZ4, JbsEligibility.codec(new Lz4Codec()));
    assertNull(JbsEligibility.fallback(conf(Text.class), new SnappyCodec(), FIRST, false));
    assertNull(JbsEligibility.fallback(conf(Text.class), new Lz4Codec(), FIRST, false));
  }

  @Test
  void aNetMergerWithoutTheCodecMeansFallbackCodec() {
    JbsFallback f = JbsFallback.ofSessionFailure(
        new CodecNotBuiltException("the NetMerger was built without this codec"));
    assertEquals(JbsCounter.FALLBACK_CODEC, f.counter);
  }

  /** The reason's counter, after checking that the sentence contains {@code words}. */
  private static JbsCounter counterOf(JobConf c, CompressionCodec codec, TaskAttemptID id,
      boolean local, String words) {
    JbsFallback f = JbsEligibility.fallback(c, codec, id, local);
    assertNotNull(f);
    assertTrue(f.reason.contains(words), f.reason);
    return f.counter;
  }

  @Test
  void everythingElseFallsBackWithAReasonAndItsCounter() {
    // A user-set comparator, even on Text.
    JobConf c = conf(Text.class);
    c.set(MRJobConfig.KEY_COMPARATOR, Text.Comparator.class.getName());
    assertEquals(0, JbsEligibility.keyType(c));
    assertEquals(JbsCounter.FALLBACK_COMPARATOR, counterOf(c, null, FIRST, false,
        "comparator " + Text.Comparator.class.getName()));
    // Other key classes (the default map output key is LongWritable only if unset).
    assertEquals(JbsCounter.FALLBACK_KEY_CLASS, counterOf(conf(DoubleWritable.class), null,
        FIRST, false, "DoubleWritable"));
    // Other codecs, including DefaultCodec's subclass GzipCodec.
    assertEquals(JbsCounter.FALLBACK_CODEC, counterOf(conf(Text.class), new GzipCodec(), FIRST,
        false, "GzipCodec"));
    assertEquals(JbsCounter.FALLBACK_CODEC, counterOf(conf(Text.class), new BZip2Codec(), FIRST,
        false, "BZip2Codec"));
    // Encrypted intermediate data.
    JobConf enc = conf(Text.class);
    enc.setBoolean(MRJobConfig.MR_ENCRYPTED_INTERMEDIATE_DATA, true);
    assertEquals(JbsCounter.FALLBACK_ENCRYPTION, counterOf(enc, null, FIRST, false, "encrypt"));
    // Encrypted shuffle: the daemons have no TLS, so stock's HTTPS it is.
    JobConf ssl = conf(Text.class);
    ssl.setBoolean("mapreduce.shuffle.ssl.enabled", true);
    assertEquals(JbsCounter.FALLBACK_ENCRYPTION, counterOf(ssl, null, FIRST, false,
        "mapreduce.shuffle.ssl.enabled is true"));
    // A retried attempt, local map outputs.
    assertEquals(JbsCounter.FALLBACK_RETRY_ATTEMPT, counterOf(conf(Text.class), null, RETRY,
        false, "retry"));
    assertEquals(JbsCounter.FALLBACK_LOCAL_MAP_FILES, counterOf(conf(Text.class), null, FIRST,
        true, "local files"));
    // Session failures: a MOFSupplier nobody can reach, anything else of the NetMerger's.
    assertEquals(JbsCounter.FALLBACK_SUPPLIER_UNREACHABLE, JbsFallback.ofSessionFailure(
        new SupplierUnreachableException("the MOFSupplier on h:1 cannot be reached")).counter);
    JbsFallback f = JbsFallback.ofSessionFailure(new java.io.IOException("no NetMerger socket"));
    assertEquals(JbsCounter.FALLBACK_NETMERGER, f.counter);
    assertEquals("no NetMerger socket", f.reason);
    assertThrows(IllegalArgumentException.class,
        () -> new JbsFallback(JbsCounter.NATIVE_REDUCES, "not a reason"));
  }

  @Test
  void theFallbackPluginKeyIsCheckedAtStart() {
    JobConf c = new JobConf(false);
    assertEquals(Shuffle.class, JbsShuffle.fallbackPlugin(c));
    c.set(JbsConfigKeys.FALLBACK_PLUGIN, " " + Shuffle.class.getName() + " ");
    assertEquals(Shuffle.class, JbsShuffle.fallbackPlugin(c));
    for (String bad : new String[] {"no.such.Plugin", Text.class.getName(),
        JbsShuffle.class.getName()}) {
      c.set(JbsConfigKeys.FALLBACK_PLUGIN, bad);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> JbsShuffle.fallbackPlugin(c));
      assertTrue(e.getMessage().contains(JbsConfigKeys.FALLBACK_PLUGIN + ": "), e.getMessage());
    }
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
