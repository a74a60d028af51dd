package io.hadoopaccel.mapreduce.kism;

import io.hadoopaccel.common.conf.AccelConfiguration;
import io.hadoopaccel.common.mapred.SharedSegmentMemory;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.RawComparator;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.mapred.Counters;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapred.RawKeyValueIterator;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.reduce.MapOutput;
import org.apache.hadoop.mapreduce.task.reduce.MergeManager;
import org.apache.hadoop.util.ReflectionUtils;
import org.apache.hadoop.util.ShutdownHookManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reduce-side merge of KISM. Stock {@code MergeManagerImpl} merges in-memory outputs to disk
 * whenever its buffer fills and merges disk files again whenever more than {@code io.sort.factor}
 * pile up, rewriting every value on each pass. Here nothing is merged before the reduce:
 *
 * <ul>
 *   <li>a fetched output stays where it lands: in its fetched buffer if the reducer may keep it
 *       in memory ({@code mapreduce.reduce.input.buffer.percent}, 0 by default), otherwise
 *       appended once, as fetched, to a segment log (one append-only file per concurrent fetch,
 *       not one per map output). An output the reducer may not keep would have to be written
 *       before the reduce anyway, so it is written while it is fetched, off the critical path;
 *   <li>one merge pass over all outputs at once hands the reducer a {@link RawKeyValueIterator}:
 *       a heap of one cursor per output compares keys only (in place for in-memory outputs),
 *       values are never copied between files, and each output is read front to back once.
 * </ul>
 *
 * <p>So every map-output byte is written to local disk at most once and read back at most once,
 * however many map outputs there are. With {@code hadoop.accel.kism.shared.memory.class} (CooMR's
 * node pool, seed 002 §3.1), an output that may not stay in the heap goes into a segment log in
 * node-shared memory instead whenever the node grants room for it, and is not written to disk
 * at all. No combiner runs on the reduce side (Hadoop's contract
 * allows zero combiner runs there).
 */
public class KismMergeManager<K, V> implements MergeManager<K, V> {
  private static final Logger LOG = LoggerFactory.getLogger(KismMergeManager.class);
  private static final int MIN_READ_BUFFER = 4 * 1024;
  private static final int MERGE_BATCH_BYTES = 1 << 20;
  // Stock MergeManagerImpl's default for mapreduce.reduce.shuffle.memory.limit.percent.
  private static final float DEFAULT_SHUFFLE_MEMORY_LIMIT_PERCENT = 0.25f;

  private final TaskAttemptID reduceId;
  private final JobConf conf;
  private final FileSystem fs;
  private final CompressionCodec codec;
  private final MapOutputFile mapOutputFile;
  private final Reporter reporter;
  private final Counters.Counter mergedMapOutputs;

  private final long memoryLimit;
  private final long maxSingleShuffleLimit;
  private final long maxInMemReduce;
  private final long inMemoryLimit;
  private final int readBufferBytes;
  private final boolean mergeThread;

  private long usedMemory;
  private int committed;
  private final List<InMemoryOutput<K, V>> inMemory = new ArrayList<>();
  private final List<FileSegment> onDisk = new ArrayList<>();
  private final List<SegmentLog> logs = new ArrayList<>();
  private final ArrayDeque<SegmentLog> idleLogs = new ArrayDeque<>();
  private final ArrayDeque<SegmentLog> idleSharedLogs = new ArrayDeque<>();
  private SharedSegmentMemory shared; // null: none, or given up at cleanup
  private final Runnable cleanupHook = this::cleanup;
  private SegmentFiles openFiles;

  /**
   * Why KISM cannot run this reduce, or null if it can. Anything listed here makes the reduce
   * use stock Shuffle instead.
   */
  static String unsupportedReason(JobConf conf, FileSystem localFs) {
    if (conf.getBoolean(MRJobConfig.MR_ENCRYPTED_INTERMEDIATE_DATA,
        MRJobConfig.DEFAULT_MR_ENCRYPTED_INTERMEDIATE_DATA)) {
      return MRJobConfig.MR_ENCRYPTED_INTERMEDIATE_DATA + " is on (KISM reads map outputs"
          + " unencrypted)";
    }
    if (!(localFs instanceof LocalFileSystem)) {
      return "the local file system is " + localFs.getClass().getName();
    }
    return null;
  }

  public KismMergeManager(TaskAttemptID reduceId, JobConf conf, FileSystem localFs,
      CompressionCodec codec, MapOutputFile mapOutputFile, Reporter reporter,
      Counters.Counter mergedMapOutputs) {
    this.reduceId = reduceId;
    this.conf = conf;
    this.fs = ((LocalFileSystem) localFs).getRaw(); // checksums are IFile's own
    this.codec = codec;
    this.mapOutputFile = mapOutputFile;
    this.mapOutputFile.setConf(conf);
    this.reporter = reporter;
    this.mergedMapOutputs = mergedMapOutputs;

    float inputBuffer = fraction(conf, MRJobConfig.SHUFFLE_INPUT_BUFFER_PERCENT,
        MRJobConfig.DEFAULT_SHUFFLE_INPUT_BUFFER_PERCENT);
    float singleShuffle = fraction(conf, MRJobConfig.SHUFFLE_MEMORY_LIMIT_PERCENT,
        DEFAULT_SHUFFLE_MEMORY_LIMIT_PERCENT);
    float reduceBuffer = fraction(conf, MRJobConfig.REDUCE_INPUT_BUFFER_PERCENT, 0f);
    long heap = conf.getLong(MRJobConfig.REDUCE_MEMORY_TOTAL_BYTES,
        Runtime.getRuntime().maxMemory());
    this.memoryLimit = (long) (heap * inputBuffer);
    this.maxSingleShuffleLimit = Math.min((long) (memoryLimit * singleShuffle),
        Integer.MAX_VALUE - 8);
    this.maxInMemReduce = (long) (memoryLimit * reduceBuffer);
    this.inMemoryLimit = Math.min(memoryLimit, maxInMemReduce);
    this.readBufferBytes =
        (int) AccelConfiguration.getBytes(conf, KismConfigKeys.READ_BUFFER_BYTES);
    this.mergeThread = AccelConfiguration.getBoolean(conf, KismConfigKeys.MERGE_THREAD);
    this.shared = sharedMemory(conf, reduceId, reporter);
    ShutdownHookManager.get().addShutdownHook(cleanupHook, 10);
    LOG.info("KISM merge for {}: memoryLimit={} maxSingleShuffleLimit={} maxInMemReduce={}"
        + " readBuffer={} mergeThread={}", reduceId, memoryLimit, maxSingleShuffleLimit,
        maxInMemReduce, readBufferBytes, mergeThread);
  }

  /** The configured shared memory, attached for this reduce; null if none or it cannot attach. */
  private static SharedSegmentMemory sharedMemory(JobConf conf, TaskAttemptID reduceId,
      Reporter reporter) {
    String name = AccelConfiguration.get(conf, KismConfigKeys.SHARED_MEMORY_CLASS);
    if (name == null || name.isEmpty()) {
      return null;
    }
    SharedSegmentMemory memory;
    try {
      memory = ReflectionUtils.newInstance(
          conf.getClassByName(name).asSubclass(SharedSegmentMemory.class), conf);
    } catch (ClassNotFoundException | ClassCastException e) {
      throw new IllegalArgumentException("Invalid value '" + name + "' for configuration key "
          + KismConfigKeys.SHARED_MEMORY_CLASS + ": " + e, e);
    }
    String why = memory.attach(conf, reduceId.getJobID().toString(), reduceId.toString(),
        reporter);
    if (why != null) {
      LOG.info("KISM keeps no map outputs of {} in shared memory ({}): they go to disk",
          reduceId, why);
      memory.close();
      return null;
    }
    return memory;
  }

  private static float fraction(JobConf conf, String key, float dflt) {
    float f = conf.getFloat(key, dflt);
    if (!(f >= 0f && f <= 1f)) {
      throw new IllegalArgumentException("Invalid value " + conf.get(key) + " for " + key
          + ": expected a fraction between 0 and 1");
    }
    return f;
  }

  /** Never stalls a fetcher: an output that may not stay in memory goes to disk instead. */
  @Override
  public void waitForResource() {}

  @Override
  public synchronized MapOutput<K, V> reserve(TaskAttemptID mapId, long requestedSize,
      int fetcher) throws IOException {
    if (requestedSize <= maxSingleShuffleLimit && usedMemory + requestedSize <= inMemoryLimit) {
      usedMemory += requestedSize;
      return new InMemoryOutput<>(this, conf, codec, mapId, (int) requestedSize);
    }
    return new OnDiskOutput<>(this, conf, mapId, requestedSize);
  }

  /**
   * A log no other output is appending to (one per concurrent fetch), with room for
   * {@code bytes} more: in shared memory if it grants them, else on local disk.
   */
  SegmentLog takeLog(long bytes) throws IOException {
    SharedSegmentMemory memory;
    synchronized (this) {
      memory = shared;
    }
    // Asked without the lock: other fetchers reserve and commit meanwhile.
    java.nio.file.Path dir = memory == null ? null : memory.reserve(bytes);
    synchronized (this) {
      SegmentLog log = (dir != null ? idleSharedLogs : idleLogs).poll();
      if (log == null) {
        Path path = dir != null ? new Path(dir.toString(), "kism-" + logs.size())
            : mapOutputFile.getInputFileForWrite(reduceId.getTaskID(), bytes)
                .suffix(".kism-" + logs.size());
        log = new SegmentLog(fs, path, dir != null);
        logs.add(log);
      }
      return log;
    }
  }

  private void idle(SegmentLog log) {
    (log.shared() ? idleSharedLogs : idleLogs).push(log);
  }

  synchronized void unreserve(long size) {
    usedMemory -= size;
  }

  synchronized void commit(InMemoryOutput<K, V> out) {
    out.setOrder(committed++);
    inMemory.add(out);
    reporter.incrCounter(KismCounter.SEGMENTS_IN_MEMORY, 1);
  }

  synchronized void commit(OnDiskOutput<K, V> out) {
    SegmentLog log = out.log();
    onDisk.add(new FileSegment(log.path(), out.offset(), out.length(), codec != null,
        committed++, log.shared()));
    idle(log);
    if (log.shared()) {
      reporter.incrCounter(KismCounter.SEGMENTS_IN_SHARED_MEMORY, 1);
      reporter.incrCounter(KismCounter.SHARED_MEMORY_BYTES, out.length());
    } else {
      reporter.incrCounter(KismCounter.SEGMENTS_ON_DISK, 1);
      reporter.incrCounter(KismCounter.LOCAL_BYTES_WRITTEN, out.length());
    }
  }

  synchronized void abort(OnDiskOutput<K, V> out) {
    if (out.log() != null) {
      idle(out.log());
    }
  }

  @Override
  public RawKeyValueIterator close() throws IOException {
    List<InMemoryOutput<K, V>> memory;
    List<FileSegment> files;
    synchronized (this) {
      memory = new ArrayList<>(inMemory);
      files = new ArrayList<>(onDisk);
      inMemory.clear();
      onDisk.clear();
    }
    long kept = 0;
    for (InMemoryOutput<K, V> m : memory) {
      kept += m.data().length;
    }
    synchronized (this) {
      for (SegmentLog log : logs) {
        log.flush();
      }
    }

    int readBuffer = readBufferBytes;
    if (!files.isEmpty()) {
      long room = Math.max(memoryLimit - kept, 0) / files.size();
      readBuffer = (int) Math.max(MIN_READ_BUFFER, Math.min(readBufferBytes, room));
    }
    openFiles = new SegmentFiles(fs);
    List<RecordCursor> cursors = new ArrayList<>();
    for (InMemoryOutput<K, V> m : memory) {
      cursors.add(new MemoryCursor(m.data(), m.order()));
    }
    for (FileSegment f : files) {
      cursors.add(f.compressed() ? new FileCursor(f, openFiles, codec, conf, readBuffer)
          : new MappedCursor(f, openFiles));
    }
    mergedMapOutputs.increment(cursors.size());
    reporter.incrCounter(KismCounter.REDUCES, 1);
    LOG.info("KISM merging {} map outputs in one pass: {} in memory ({} bytes), {} in {}"
        + " segment logs ({} in shared memory); read-ahead {} bytes each", cursors.size(),
        memory.size(), kept, files.size(), logs.size(),
        files.stream().filter(FileSegment::shared).count(), readBuffer);
    @SuppressWarnings("unchecked")
    RawComparator<K> comparator = (RawComparator<K>) conf.getOutputKeyComparator();
    MergedIterator merged = new MergedIterator(cursors, comparator, reporter, openFiles,
        this::cleanup);
    return mergeThread
        ? new PipelinedIterator(merged, MERGE_BATCH_BYTES, "KISM merge " + reduceId) : merged;
  }

  /**
   * Deletes every file this merge created and leaves the shared memory; safe to call more than
   * once.
   */
  void cleanup() {
    List<SegmentLog> files;
    SharedSegmentMemory leaving;
    synchronized (this) {
      files = new ArrayList<>(logs);
      logs.clear();
      idleLogs.clear();
      idleSharedLogs.clear();
      if (openFiles != null) {
        openFiles.close();
      }
      leaving = shared;
      shared = null;
    }
    for (SegmentLog log : files) {
      try {
        log.close();
        fs.delete(log.path(), false);
      } catch (IOException e) {
        LOG.warn("Could not delete {}: {}", log.path(), e.toString());
      }
    }
    if (leaving != null) {
      leaving.close();
    }
    if (!ShutdownHookManager.get().isShutdownInProgress()) {
      ShutdownHookManager.get().removeShutdownHook(cleanupHook);
    }
  }
}
