package io.hadoopaccel.mapreduce.jbs.upstream;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.mapred.MiniMRCluster;
import org.apache.hadoop.mapred.TestReduceFetchFromPartialMem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * Upstream's TestReduceFetchFromPartialMem (its test, job and assertions, inherited) on JBS:
 * the mini cluster's NodeManager runs the daemons, and every reduce must have been merged by the
 * NetMerger.
 */
class TestReduceFetchFromPartialMemOnJbs extends TestReduceFetchFromPartialMem {

  @BeforeAll
  static void jbsIsConfigured() {
    NativePathCheck.requireJbsSiteConfig();
  }

  /**
   * Replaces upstream's setUp, which starts two NodeManagers: JBS runs one MOFSupplier per host
   * on one port (hadoop.accel.jbs.supplier.port) and one NetMerger socket, so a second
   * NodeManager in this JVM could not start its daemons and its map outputs would be unreachable.
   */
  @BeforeEach
  @Override
  public void setUp() throws Exception {
    dfsCluster = new MiniDFSCluster.Builder(new Configuration()).numDataNodes(2).build();
    mrCluster = new MiniMRCluster(1, dfsCluster.getFileSystem().getUri().toString(), 1);
  }

  /** JUnit runs it before upstream's own @AfterEach stops the clusters. */
  @AfterEach
  void everyReduceRanNatively() throws Exception {
    NativePathCheck.assertEveryReduceRanNatively(mrCluster.createJobConf());
  }
}
