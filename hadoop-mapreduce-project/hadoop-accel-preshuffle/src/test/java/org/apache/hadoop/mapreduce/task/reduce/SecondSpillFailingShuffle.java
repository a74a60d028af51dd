package org.apache.hadoop.mapreduce.task.reduce;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.mapreduce.TaskAttemptID;

/**
 * Preshuffle's reduce side that cannot store the second pushed spill it is sent by each map
 * (as if its disk were full), once: the map then stops pushing to it and, at close, leaves
 * that spill and the later ones to be pulled. Pushed spills are the merge manager's
 * reservations under fetcher id 0 (stock's fetchers count from 1).
 */
public class SecondSpillFailingShuffle<K, V> extends PreshuffleShuffle<K, V> {
  @Override
  protected MergeManagerImpl<K, V> createMergeManager(Context<K, V> context) {
    return new MergeManagerImpl<K, V>(context.getReduceId(), context.getJobConf(),
        context.getLocalFS(), context.getLocalDirAllocator(), context.getReporter(),
        context.getCodec(), context.getCombinerClass(), context.getCombineCollector(),
        context.getSpilledRecordsCounter(), context.getReduceCombineInputCounter(),
        context.getMergedMapOutputsCounter(), this, context.getMergePhase(),
        context.getMapOutputFile()) {
      private final Set<TaskAttemptID> seen = new HashSet<>();
      private final Set<TaskAttemptID> failed = new HashSet<>();

      @Override
      public synchronized MapOutput<K, V> reserve(TaskAttemptID map, long size, int fetcher)
          throws IOException {
        if (fetcher == 0 && !seen.add(map) && failed.add(map)) {
          throw new IOException("test: no room for a second pushed spill of " + map);
        }
        return super.reserve(map, size, fetcher);
      }
    };
  }
}
