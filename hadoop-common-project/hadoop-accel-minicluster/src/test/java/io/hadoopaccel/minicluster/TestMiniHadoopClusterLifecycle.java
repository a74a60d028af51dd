package io.hadoopaccel.minicluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.test.GenericTestUtils;
import org.junit.jupiter.api.Test;

/** DFS-only mode, and cleanup when YARN fails to start after HDFS is already up. */
class TestMiniHadoopClusterLifecycle {

  @Test
  void dfsOnlyClusterServesHdfsWithoutYarn() throws Exception {
    MiniHadoopClusterExtension ext = MiniHadoopClusterExtension.builder()
        .numDataNodes(1).dfsOnly().build();
    ext.start("lifecycle-dfs-only");
    try {
      assertNull(ext.getMrCluster());
      Configuration conf = ext.getConfiguration();
      assertEquals(ext.getDfsCluster().getURI().toString(), conf.get("fs.defaultFS"));
      assertFalse("yarn".equals(conf.get("mapreduce.framework.name")));

      FileSystem fs = FileSystem.get(conf);
      Path dir = new Path("/out");
      try (FSDataOutputStream os = fs.create(new Path(dir, "part-r-00001"))) {
        os.write("b\nd\n".getBytes(StandardCharsets.UTF_8));
      }
      try (FSDataOutputStream os = fs.create(new Path(dir, "part-r-00000"))) {
        os.write("c\na\n".getBytes(StandardCharsets.UTF_8));
      }
      try (FSDataOutputStream os = fs.create(new Path(dir, "_SUCCESS"))) {
        os.write("not output\n".getBytes(StandardCharsets.UTF_8));
      }
      assertEquals("a\nb\nc\nd\n", ext.readOutput(dir));
      assertTrue(ext.getBaseDir().getPath().contains("lifecycle-dfs-only"));
    } finally {
      ext.stop();
    }
    assertThrows(NullPointerException.class, ext::getDfsCluster);
  }

  @Test
  void yarnStartFailureStopsTheRunningHdfs() throws Exception {
    MiniHadoopClusterExtension ext = MiniHadoopClusterExtension.builder()
        .configure(conf -> conf.set("yarn.resourcemanager.scheduler.class",
            "io.hadoopaccel.minicluster.NoSuchScheduler"))
        .build();
    Exception e = assertThrows(Exception.class, () -> ext.start("lifecycle-yarn-fails"));
    // The failure comes from YARN, so HDFS was already up when it happened...
    boolean fromYarn = false;
    for (Throwable t = e; t != null; t = t.getCause()) {
      fromYarn |= String.valueOf(t.getMessage()).contains("NoSuchScheduler");
    }
    assertTrue(fromYarn, "unexpected failure: " + e);
    // ...and MiniDFSCluster.shutdown(true) deletes its storage only after stopping the
    // NameNode and DataNodes: the directory is gone, so start() stopped HDFS.
    File dfsDir = new File(GenericTestUtils.getTestDir("minicluster-lifecycle-yarn-fails"), "dfs");
    assertFalse(dfsDir.exists(), dfsDir + " still exists: HDFS was not shut down");
    assertThrows(NullPointerException.class, ext::getDfsCluster);
    assertThrows(NullPointerException.class, ext::getConfiguration);
    ext.stop(); // idempotent
  }
}
