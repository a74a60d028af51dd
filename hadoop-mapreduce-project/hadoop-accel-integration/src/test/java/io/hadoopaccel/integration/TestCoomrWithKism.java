package io.hadoopaccel.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.mapreduce.coomr.CoomrCounter;
import io.hadoopaccel.mapreduce.coomr.CoomrTestCluster;
import io.hadoopaccel.mapreduce.kism.KismCounter;
import io.hadoopaccel.mapreduce.kism.KismShuffle;
import io.hadoopaccel.minicluster.MiniHadoopClusterExtension;
import io.hadoopaccel.minicluster.PairedJobs;
import io.hadoopaccel.workloads.gen.ZipfText;
import io.hadoopaccel.workloads.jobs.Sort;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CooMR's two parts in one job, as seed 002 runs them: map spills and outputs in the node's
 * shared pool, fetched through CooMR's shuffle handler, and merged on the reduce side by KISM's
 * key-based in-situ merge. The output must be byte-identical to stock's.
 */
class TestCoomrWithKism {
  private static final CoomrTestCluster COOMR = new CoomrTestCluster();

  @RegisterExtension
  static final MiniHadoopClusterExtension CLUSTER = MiniHadoopClusterExtension.builder()
      .configure(COOMR::configure).build();

  private enum Run { STOCK, COOMR_KISM }

  @BeforeAll
  static void shuffleConnected() throws Exception {
    COOMR.awaitShuffleConnected();
  }

  @Test
  void sortWithPoolOutputsAndKismMergeIsIdentical() throws Exception {
    Path in = new Path("/coomr-kism/in");
    ZipfText.writeFiles(CLUSTER.getFileSystem(), in, new int[] {2 << 20, 2 << 20, 1 << 20}, 31);
    Map<Run, Counters> c = PairedJobs.runAtOnce(CLUSTER.getConfiguration(), Run.class,
        "coomr-kism", r -> {
          Configuration conf = CLUSTER.getConfiguration();
          conf.setInt(MRJobConfig.IO_SORT_MB, 1); // several spills per map, in the pool
          if (r == Run.COOMR_KISM) {
            CoomrTestCluster.switchOn(conf, COOMR.socket().toString());
            conf.set(MRConfig.SHUFFLE_CONSUMER_PLUGIN, KismShuffle.class.getName());
          }
          return conf;
        }, Sort::new, r -> new String[] {"-r", "2", in.toString(),
            PairedJobs.outDir("/coomr-kism", r).toString()});
    PairedJobs.assertSameOutput(CLUSTER.getFileSystem(),
        PairedJobs.outDir("/coomr-kism", Run.STOCK), PairedJobs.outDir("/coomr-kism",
            Run.COOMR_KISM));
    Counters on = c.get(Run.COOMR_KISM);
    String all = PairedJobs.summary(on, CoomrCounter.class) + " "
        + PairedJobs.summary(on, KismCounter.class);
    assertEquals(0, on.findCounter(CoomrCounter.FALLBACKS).getValue(), all);
    assertTrue(on.findCounter(CoomrCounter.POOL_SPILLS).getValue() >= 6, all);
    assertEquals(3, on.findCounter(CoomrCounter.POOL_OUTPUTS).getValue(), all);
    assertEquals(2, on.findCounter(KismCounter.REDUCES).getValue(), all);
    assertEquals(0, on.findCounter(KismCounter.FALLBACKS).getValue(), all);
    assertTrue(on.findCounter(KismCounter.MERGED_ENTRIES).getValue() > 0, all);
  }
}
