package org.apache.hadoop.mapreduce.task.reduce;

import org.apache.hadoop.mapreduce.TaskAttemptID;

/**
 * Preshuffle's reduce side whose first attempt of reduce 0 dies, as a killed container dies
 * (no cleanup: its receiver is still registered), at the moment its first map output is
 * committed to the merge. By then the maps have pushed to it (they start only once every
 * reduce has registered), and the merge has begun.
 */
public class HaltingPreshuffleShuffle<K, V> extends PreshuffleShuffle<K, V> {
  @Override
  protected MergeManagerImpl<K, V> createMergeManager(Context<K, V> context) {
    TaskAttemptID reduce = context.getReduceId();
    boolean halts = reduce.getTaskID().getId() == 0 && reduce.getId() == 0;
    return new MergeManagerImpl<K, V>(reduce, context.getJobConf(), context.getLocalFS(),
        context.getLocalDirAllocator(), context.getReporter(), context.getCodec(),
        context.getCombinerClass(), context.getCombineCollector(),
        context.getSpilledRecordsCounter(), context.getReduceCombineInputCounter(),
        context.getMergedMapOutputsCounter(), this, context.getMergePhase(),
        context.getMapOutputFile()) {
      @Override
      public synchronized void closeInMemoryFile(InMemoryMapOutput<K, V> out) {
        haltIf(halts);
        super.closeInMemoryFile(out);
      }

      @Override
      public synchronized void closeOnDiskFile(CompressAwarePath file) {
        haltIf(halts);
        super.closeOnDiskFile(file);
      }
    };
  }

  private static void haltIf(boolean halts) {
    if (halts) {
      Runtime.getRuntime().halt(17);
    }
  }
}
