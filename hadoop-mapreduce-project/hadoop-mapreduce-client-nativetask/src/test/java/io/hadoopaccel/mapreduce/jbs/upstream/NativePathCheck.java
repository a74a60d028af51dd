package io.hadoopaccel.mapreduce.jbs.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.hadoopaccel.mapreduce.jbs.JbsConfig;
import io.hadoopaccel.mapreduce.jbs.JbsCounter;
import java.io.File;
import java.io.IOException;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.JobClient;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.JobStatus;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.task.reduce.JbsShuffle;

/**
 * What the wrapped upstream suites check besides upstream's own assertions: the site files of
 * the upstream-suites-on-jbs execution are in force, and every job a suite ran on its mini
 * cluster merged every reduce in the NetMerger.
 */
final class NativePathCheck {
  private NativePathCheck() {}

  /**
   * Before a wrapped suite: runs only in the upstream-suites-on-jbs execution (a -Dtest run also
   * offers the class to the default execution, which has no JBS site files), and there the site
   * files and daemons must be present, or the suite would silently test stock Shuffle.
   */
  static void requireJbsSiteConfig() {
    assumeTrue(Boolean.getBoolean("jbs.upstream.suites"),
        "runs in the upstream-suites-on-jbs execution (-Pnative) only");
    JobConf conf = new JobConf();
    assertNotNull(conf.getResource("mapred-site.xml"), "target/upstream-site not on classpath");
    assertEquals(JbsShuffle.class.getName(), conf.get(MRConfig.SHUFFLE_CONSUMER_PLUGIN));
    File dir = new File(conf.get("hadoop.accel.jbs.native.dir"));
    assertTrue(new File(dir, JbsConfig.SUPPLIER_BINARY).canExecute()
        && new File(dir, JbsConfig.MERGER_BINARY).canExecute(), "no JBS daemons in " + dir);
  }

  /**
   * After each test, before upstream tears its cluster down: every job that ran there reduced
   * natively (NATIVE_REDUCES = launched reduces, no FALLBACKS, bytes fetched by the NetMerger).
   */
  static void assertEveryReduceRanNatively(JobConf clusterConf) throws IOException {
    try (JobClient client = new JobClient(clusterConf)) {
      JobStatus[] jobs = client.getAllJobs();
      assertTrue(jobs.length > 0, "the suite ran no job on its cluster");
      for (JobStatus s : jobs) {
        Counters c = client.getJob(s.getJobID()).getCounters();
        assertNotNull(c, "no counters for " + s.getJobID());
        long reduces = c.getCounter(JobCounter.TOTAL_LAUNCHED_REDUCES);
        assertTrue(reduces > 0, s.getJobID() + " launched no reduce");
        assertEquals(0, c.getCounter(JbsCounter.FALLBACKS), s.getJobID() + ": JBS fell back");
        assertEquals(reduces, c.getCounter(JbsCounter.NATIVE_REDUCES),
            s.getJobID() + ": native reduces");
        assertTrue(c.getCounter(JbsCounter.BYTES_FETCHED_NATIVELY) > 0,
            s.getJobID() + ": the NetMerger fetched nothing");
      }
    }
  }
}
