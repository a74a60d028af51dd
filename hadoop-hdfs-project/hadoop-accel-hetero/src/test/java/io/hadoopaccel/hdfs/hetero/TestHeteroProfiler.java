package io.hadoopaccel.hdfs.hetero;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hadoopaccel.minicluster.MiniHadoopClusterExtension;
import io.hadoopaccel.workloads.jobs.WordCount;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;
import org.apache.hadoop.mapreduce.Cluster;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.FileSystemCounter;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobCounter;
import org.apache.hadoop.mapreduce.JobID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hdfs hetero profile}, {@code derive} and {@code show -dir} on one shared MiniDFS
 * (2 DataNodes) + MiniMRYarn (1 NodeManager) cluster. Every node is on this machine, so the
 * ratios themselves mean nothing here; the tests check the mechanics: one ratio per distinct
 * host that ran a probe attempt, ratio 1 for the fastest, the sample read locally with its
 * replication raised and then restored, and the passive deriver reading the probe job back
 * from the job history.
 */
class TestHeteroProfiler {

  @RegisterExtension
  static final MiniHadoopClusterExtension CLUSTER =
      MiniHadoopClusterExtension.builder().numDataNodes(2).build();

  private static final Pattern JOB_ID = Pattern.compile("Probe job (job_\\d+_\\d+)");

  @TempDir
  Path tmp;
  private Configuration conf;
  private String out;
  private String err;

  @BeforeEach
  void setUp() {
    conf = CLUSTER.getConfiguration();
    conf.set(HeteroConfigKeys.PROFILES_FILE, tmp.resolve("hetero-profiles.conf").toString());
  }

  private int run(String... args) {
    AdminRun r = AdminRun.of(conf, args);
    out = r.out;
    err = r.err;
    return r.rc;
  }

  private HeteroProfiles onDisk() {
    return ProfileFile.readOnce(ProfileFile.resolve(conf));
  }

  private static Set<String> dataNodeHosts() throws IOException {
    Set<String> hosts = new TreeSet<>();
    for (DatanodeInfo dn : CLUSTER.getFileSystem().getDataNodeStats(DatanodeReportType.LIVE)) {
      hosts.add(dn.getHostName());
    }
    return hosts;
  }

  /** ~{@code mb} MB of words, written with 1 MB blocks and the given replication. */
  private static long writeText(org.apache.hadoop.fs.Path p, int mb, short replication)
      throws IOException {
    FileSystem fs = CLUSTER.getFileSystem();
    Random rnd = new Random(3L);
    try (Writer w = new OutputStreamWriter(
        fs.create(p, true, 64 << 10, replication, 1 << 20), StandardCharsets.UTF_8)) {
      StringBuilder line = new StringBuilder();
      for (long written = 0; written < (long) mb << 20; written += line.length()) {
        line.setLength(0);
        for (int i = 0; i < 12; i++) {
          line.append(i == 0 ? "" : " ").append("w").append(rnd.nextInt(5000));
        }
        line.append('\n');
        w.write(line.toString());
      }
    }
    return fs.getFileStatus(p).getLen();
  }

  @Test
  void profileMeasuresEveryHostThenDeriveReadsTheProbeJobBack() throws Exception {
    DistributedFileSystem fs = CLUSTER.getFileSystem();
    org.apache.hadoop.fs.Path sample = new org.apache.hadoop.fs.Path("/samples/words.txt");
    long len = writeText(sample, 3, (short) 1);
    Set<String> hosts = dataNodeHosts();

    assertEquals(0, run("profile", "wc", "-sample", sample.toString(),
        "-mapper", WordCount.TokenizerMapper.class.getName(), "-splits-per-node", "2",
        "-D", "mapreduce.job.queuename=default"), out + err);
    Matcher m = JOB_ID.matcher(out);
    assertTrue(m.find(), out);
    String jobId = m.group(1);
    assertTrue(out.contains("Raising the replication of"), out);
    assertTrue(out.contains("Saved profile wc"), out);
    // Progress: timestamped lines of tasks done and left, the last one final.
    int probeMaps = hosts.size() * 2;
    assertTrue(Pattern.compile("(?m)^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ Probe job "
        + jobId + ": " + probeMaps + " of " + probeMaps + " task\\(s\\) done, 0 running, 0 left$")
        .matcher(out).find(), out);

    // One ratio per distinct DataNode host, the fastest at 1.
    HeteroProfiles.Profile wc = onDisk().profile("wc");
    assertNotNull(wc, out);
    assertEquals(hosts, new TreeSet<>(wc.ratios().keySet()), out);
    assertEquals(1.0, Collections.min(wc.ratios().values()), out);
    // The replication was raised for the probe and is back to what it was.
    assertEquals(1, fs.getFileStatus(sample).getReplication());

    // The probe job: K maps per host, all data-local, each host read the whole sample.
    Counters c;
    Cluster cluster = new Cluster(conf);
    try {
      Job probe = cluster.getJob(JobID.forName(jobId));
      c = probe.getCounters();
    } finally {
      cluster.close();
    }
    long maps = 2L * hosts.size();
    assertEquals(maps, c.findCounter(JobCounter.TOTAL_LAUNCHED_MAPS).getValue());
    assertEquals(maps, c.findCounter(JobCounter.DATA_LOCAL_MAPS).getValue());
    long hdfsRead = c.findCounter("hdfs", FileSystemCounter.BYTES_READ).getValue();
    assertTrue(hdfsRead >= len * hosts.size(), hdfsRead + " < " + len + " x " + hosts.size());

    // Passive: the same job's map throughput per host, compared with the active profile.
    assertEquals(0, run("derive", "wc", "-job", jobId), out + err);
    assertTrue(out.contains(maps + " successful map attempt(s)"), out);
    assertTrue(out.contains("Agreement with profile wc on " + hosts.size() + " node(s)"), out);
    assertTrue(out.contains("left as it is"), out);
    assertEquals(wc.ratios(), onDisk().profile("wc").ratios(), "derive without -save wrote");

    assertEquals(0, run("derive", "wc-derived", "-job", jobId, "-save"), out + err);
    Map<String, Double> derived = onDisk().profile("wc-derived").ratios();
    assertEquals(hosts, new TreeSet<>(derived.keySet()), out);
    assertEquals(1.0, Collections.min(derived.values()), out);
  }

  @Test
  void showDirCountsReplicasPerDataNodeAgainstTheTarget() throws Exception {
    DatanodeInfo[] dns = CLUSTER.getFileSystem().getDataNodeStats(DatanodeReportType.LIVE);
    assertEquals(2, dns.length);
    String first = dns[0].getXferAddr();
    String second = dns[1].getXferAddr();
    // Only the first DataNode is in the profile, at ratio 2: the second counts as ratio 1.
    assertEquals(0, run("set", "half", first + "=2"), out + err);
    assertEquals(0, run("bind", "/data", "half"), out + err);
    writeText(new org.apache.hadoop.fs.Path("/data/in/part-0"), 3, (short) 1);

    assertEquals(0, run("show", "-dir", "/data/in"), out + err);
    assertTrue(out.matches("(?s)/data/in: 1 file\\(s\\), (\\d+) block\\(s\\), \\1 replica\\(s\\).*"),
        out);
    assertTrue(out.contains("profile half (bound at /data)"), out);
    for (String line : out.split("\n")) {
      if (line.contains("(" + first + ")")) {
        assertTrue(line.matches(".*\\s2\\s.*\\s33\\.3%.*"), line);
      } else if (line.contains("(" + second + ")")) {
        assertTrue(line.matches(".*\\s1\\s.*\\s66\\.7%.*"), line);
      }
    }
    assertTrue(out.contains("(" + first + ")") && out.contains("(" + second + ")"), out);
    assertTrue(err.contains("profile half has no ratio for DataNode"), err);
    assertTrue(err.contains(second), err);

    // A directory nothing is bound to: actual replicas only.
    writeText(new org.apache.hadoop.fs.Path("/free/part-0"), 1, (short) 2);
    assertEquals(0, run("show", "-dir", "/free"), out + err);
    Matcher free = Pattern.compile("/free: 1 file\\(s\\), (\\d+) block\\(s\\), (\\d+) replica")
        .matcher(out);
    assertTrue(free.find(), out);
    assertEquals(2 * Long.parseLong(free.group(1)), Long.parseLong(free.group(2)), out);
    assertTrue(out.contains("not bound to a profile"), out);
    assertEquals(1, run("show", "-dir", "/no/such/dir"));
    assertTrue(err.contains("/no/such/dir"), err);
  }
}
