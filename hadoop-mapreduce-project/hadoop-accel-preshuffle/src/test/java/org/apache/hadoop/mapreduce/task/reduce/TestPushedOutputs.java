package org.apache.hadoop.mapreduce.task.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalDirAllocator;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.IFile;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MROutputFiles;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.util.Progress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a reducer holds of the maps' pushes: only the SUCCEEDED attempt's complete push is taken,
 * and the held share of each map (its furthest live attempt's progress) feeds reduce progress.
 */
class TestPushedOutputs {
  private static final TaskAttemptID REDUCE = attempt(TaskType.REDUCE, 0, 0);

  @TempDir
  Path dir;
  private PushedOutputs<Text, Text> pushed;

  @BeforeEach
  void setUp() throws IOException {
    JobConf conf = new JobConf();
    conf.set(MRConfig.LOCAL_DIR, dir.toString());
    conf.setMapOutputKeyClass(Text.class);
    conf.setMapOutputValueClass(Text.class);
    MROutputFiles files = new MROutputFiles();
    files.setConf(conf);
    Counters counters = new Counters();
    MergeManagerImpl<Text, Text> merger = new MergeManagerImpl<>(REDUCE, conf, FileSystem.getLocal(conf),
        new LocalDirAllocator(MRConfig.LOCAL_DIR), Reporter.NULL, null, null, null,
        counters.findCounter("test", "spilled"), counters.findCounter("test", "combined"),
        counters.findCounter("test", "merged"), t -> { throw new AssertionError(t); },
        new Progress(), files);
    pushed = new PushedOutputs<>(merger, conf, files, Reporter.NULL,
        ShuffleClientMetrics.create(REDUCE, conf), 64L << 20);
  }

  @AfterEach
  void tearDown() {
    pushed.close();
  }

  @Test
  void heldShareFollowsTheFurthestLiveAttemptOfEachMap() throws IOException {
    TaskAttemptID map0 = attempt(TaskType.MAP, 0, 0);
    TaskAttemptID map0Spec = attempt(TaskType.MAP, 0, 1);
    TaskAttemptID map1 = attempt(TaskType.MAP, 1, 0);
    receive(map0, 0, 400);
    assertEquals(0.4f, pushed.pendingMaps(), 1e-6);
    receive(map1, 0, 250);
    assertEquals(0.65f, pushed.pendingMaps(), 1e-6);
    receive(map0Spec, 0, 300);
    receive(map0Spec, 1, 600);
    assertEquals(0.85f, pushed.pendingMaps(), 1e-6); // map 0 counts once, at its furthest
    pushed.kill(map0Spec);
    assertEquals(0.65f, pushed.pendingMaps(), 1e-6);
    assertNull(pushed.claim(map1), "an attempt that never said how many spills it had");
    assertEquals(0.4f, pushed.pendingMaps(), 1e-6);
  }

  @Test
  void onlyTheSucceededAttemptsCompletePushIsTaken() throws IOException {
    TaskAttemptID loser = attempt(TaskType.MAP, 2, 0);
    TaskAttemptID winner = attempt(TaskType.MAP, 2, 1);
    receive(loser, 0, 500);
    receive(winner, 0, 500);
    receive(winner, 1, 1000);
    assertEquals(false, pushed.done(loser, 2));
    assertEquals(true, pushed.done(winner, 2));
    PushedOutputs.Claim<Text, Text> taken = pushed.claim(winner);
    assertNotNull(taken);
    assertEquals(2, taken.segments.size());
    assertEquals(2, taken.pullFrom, "nothing left to pull");
    taken.segments.forEach(pushed::discard); // not merged here
    assertEquals(0f, pushed.pendingMaps(), 1e-6);
    assertEquals("the map's output is already taken", pushed.refusal(loser));
  }

  @Test
  void aPrefixOfTheSpillsIsTakenWhenTheMapLeftTheRestToPull() throws IOException {
    TaskAttemptID map = attempt(TaskType.MAP, 3, 0);
    receive(map, 0, 300);
    receive(map, 1, 600);
    assertEquals(false, pushed.left(map, 4, 3), "spill 2 was neither pushed nor left");
    assertEquals(true, pushed.left(map, 4, 2));
    receive(map, 2, 800); // a push cut at close that arrived after all: pull only spill 3
    PushedOutputs.Claim<Text, Text> taken = pushed.claim(map);
    assertNotNull(taken);
    assertEquals(List.of(3, 4), List.of(taken.segments.size(), taken.spills));
    assertEquals(3, taken.pullFrom);
    taken.segments.forEach(pushed::discard);
  }

  @Test
  void aGapInThePushedSpillsMeansAWholePull() throws IOException {
    TaskAttemptID map = attempt(TaskType.MAP, 4, 0);
    receive(map, 0, 300);
    receive(map, 2, 900); // spill 1 went to an earlier attempt of this reduce
    assertEquals(false, pushed.left(map, 3, 1));
    assertNull(pushed.claim(map));
  }

  /** Pushes a one-record IFile segment of {@code map}, as a map's spill holds it. */
  private void receive(TaskAttemptID map, int spill, int progress) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    long rawLength;
    try (FSDataOutputStream out = new FSDataOutputStream(bytes, null)) {
      IFile.Writer<Text, Text> w =
          new IFile.Writer<>(new JobConf(), out, Text.class, Text.class, null, null);
      w.append(new Text(map + "/" + spill), new Text("v"));
      w.close();
      rawLength = w.getRawLength();
    }
    InputStream in = new ByteArrayInputStream(bytes.toByteArray());
    pushed.receive(map, spill, progress, rawLength, bytes.size(), in);
  }

  private static TaskAttemptID attempt(TaskType type, int task, int attempt) {
    return new TaskAttemptID("1700000000000", 1, type, task, attempt);
  }
}
