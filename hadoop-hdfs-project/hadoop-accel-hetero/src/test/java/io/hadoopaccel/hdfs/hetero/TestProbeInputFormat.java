package io.hadoopaccel.hdfs.hetero;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.task.JobContextImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The probe job's splits: every node gets the whole sample in K pieces, located on it. */
class TestProbeInputFormat {

  @TempDir
  Path tmp;

  private List<InputSplit> splits(long len, int k, String... hosts) throws Exception {
    Path sample = tmp.resolve("sample.txt");
    Files.write(sample, new byte[(int) len]);
    Configuration conf = new Configuration(false);
    conf.set("fs.defaultFS", "file:///");
    conf.set(ProbeInputFormat.SAMPLE, sample.toUri().toString());
    conf.setStrings(ProbeInputFormat.HOSTS, hosts);
    conf.setInt(ProbeInputFormat.SPLITS_PER_NODE, k);
    return new ProbeInputFormat<Object, Object>().getSplits(new JobContextImpl(conf, new JobID()));
  }

  @Test
  void eachNodeGetsKSplitsCoveringTheWholeSampleLocatedOnIt() throws Exception {
    List<InputSplit> s = splits(1000, 3, "dn1", "dn2");
    assertEquals(6, s.size());
    for (int h = 0; h < 2; h++) {
      long next = 0;
      for (int i = 0; i < 3; i++) {
        FileSplit f = (FileSplit) s.get(3 * h + i);
        assertArrayEquals(new String[] {h == 0 ? "dn1" : "dn2"}, f.getLocations());
        assertEquals(next, f.getStart());
        next = f.getStart() + f.getLength();
      }
      assertEquals(1000, next, "the splits of a node must end at the sample's end");
    }
    // Same byte ranges on every node: equal work.
    assertEquals(((FileSplit) s.get(1)).getStart(), ((FileSplit) s.get(4)).getStart());
    assertEquals(((FileSplit) s.get(1)).getLength(), ((FileSplit) s.get(4)).getLength());
  }

  @Test
  void missingSettingsAreErrors() {
    assertThrows(IOException.class, () -> splits(10, 1));
    // Out of its declared range: refused naming the key, as every key of ours is.
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> splits(10, 0, "dn1"));
    assertTrue(e.getMessage().contains(HeteroConfigKeys.PROBE_SPLITS_PER_NODE), e.getMessage());
  }
}
