package io.hadoopaccel.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.mapreduce.coomr.CoomrCounter;
import io.hadoopaccel.mapreduce.coomr.CoomrReduceMemory;
import io.hadoopaccel.mapreduce.coomr.CoomrTestCluster;
import io.hadoopaccel.mapreduce.kism.KismConfigKeys;
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
 * CooMR's parts in one job, as seed 002 runs them: map spills and outputs in the node's shared
 * pool, fetched through CooMR's shuffle handler, and merged on the reduce side by KISM's
 * key-based in-situ merge, which may keep the fetched outputs in the pool too. The output must
 * be byte-identical to stock's.
 */
class TestCoomrWithKism {
  private static final CoomrTestCluster COOMR = new CoomrTestCluster();

  @RegisterExtension
  static final MiniHadoopClusterExtension CLUSTER = MiniHadoopClusterExtension.builder()
      .configure(COOMR::configure).build();

  private enum Run { STOCK, COOMR_KISM, COOMR_KISM_POOL }

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
          if (r != Run.STOCK) {
            CoomrTestCluster.switchOn(conf, COOMR.socket().toString());
            conf.set(MRConfig.SHUFFLE_CONSUMER_PLUGIN, KismShuffle.class.getName());
          }
          if (r == Run.COOMR_KISM_POOL) {
            conf.set(KismConfigKeys.SHARED_MEMORY_CLASS, CoomrReduceMemory.class.getName());
          }
          return conf;
        }, Sort::new, r -> new String[] {"-r", "2", in.toString(),
            PairedJobs.outDir("/coomr-kism", r).toString()});
    for (Run r : new Run[] {Run.COOMR_KISM, Run.COOMR_KISM_POOL}) {
      PairedJobs.assertSameOutput(CLUSTER.getFileSystem(),
          PairedJobs.outDir("/coomr-kism", Run.STOCK), PairedJobs.outDir("/coomr-kism", r));
      Counters on = c.get(r);
      String all = r + ": " + PairedJobs.summary(on, CoomrCounter.class) + " "
          + PairedJobs.summary(on, KismCounter.class);
      assertEquals(0, on.findCounter(CoomrCounter.FALLBACKS).getValue(), all);
      assertTrue(on.findCounter(CoomrCounter.POOL_SPILLS).getValue() >= 6, all);
      assertEquals(3, on.findCounter(CoomrCounter.POOL_OUTPUTS).getValue(), all);
      assertEquals(2, on.findCounter(KismCounter.REDUCES).getValue(), all);
      assertEquals(0, on.findCounter(KismCounter.FALLBACKS).getValue(), all);
      assertTrue(on.findCounter(KismCounter.MERGED_ENTRIES).getValue() > 0, all);
      // The reduces keep nothing in their heap (input.buffer.percent 0): each of the 3 x 2
      // fetched outputs goes to a segment log, on disk, or in the pool where the reduce asks.
      long inPool = on.findCounter(KismCounter.SEGMENTS_IN_SHARED_MEMORY).getValue();
      assertEquals(r == Run.COOMR_KISM_POOL ? 6 : 0, inPool, all);
      assertEquals(6 - inPool, on.findCounter(KismCounter.SEGMENTS_ON_DISK).getValue(), all);
      if (r == Run.COOMR_KISM_POOL) {
        assertEquals(0, on.findCounter(KismCounter.LOCAL_BYTES_WRITTEN).getValue(), all);
        assertTrue(on.findCounter(CoomrCounter.REDUCE_POOL_BYTES).getValue() > 0, all);
      }
    }
  }
}
