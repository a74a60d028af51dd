package io.hadoopaccel.mapreduce.coomr;

import io.hadoopaccel.common.mapred.ForwardingMapOutputFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.MapOutputFile;
import org.apache.hadoop.mapred.Reporter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A map task's {@link MapOutputFile} that puts spills into the node's shared pool (COMS, seed
 * 002 §3.1) when the coordinator grants room for them, and on disk as stock otherwise. When the
 * node's shuffle asks the coordinator where outputs are ({@link CoordinatorClient#servesOutputs}),
 * the map output goes into the pool too and is handed over ({@link #handover}): the coordinator
 * writes it to stock's disk paths in the background. Spill indexes stay stock's.
 *
 * <p>Stock's sort buffer names each spill's size before writing it, but only as the bytes of
 * its keys and values: the file adds two length fields per record and codec framing. The grant
 * is therefore for a bound of the file's size, and what the file does not use is given back
 * once it is written (the next spill, or the merge, says so). A file larger than its grant
 * (only a combiner that writes more than it reads can do that) gets the difference granted
 * then, or is moved to disk.
 */
public final class PoolSpillFiles extends ForwardingMapOutputFile {
  private static final Logger LOG = LoggerFactory.getLogger(PoolSpillFiles.class);
  /** Stock's allowance for a partition's IFile header and trailer (MapTask). */
  static final long APPROX_HEADER_LENGTH = 150;
  /** Bytes of sort-buffer metadata per record (MapTask.METASIZE). */
  static final long METASIZE = 16;

  private final CoordinatorClient pool;
  private final Path poolDir;
  private final long sortBufferBytes;
  private final int partitions;
  private final boolean compressed;
  private final LongSupplier recordsCollected;
  private final Reporter reporter;
  /** Pooled spills, by number, with the blocks each holds; the output as {@link #OUTPUT}. */
  private final Map<Integer, Long> held = new HashMap<>();
  private static final int OUTPUT = -1;
  static final String DATA = "file.out";
  static final String INDEX = "file.out.index";
  /** Bytes of an index record (MapTask.MAP_OUTPUT_INDEX_RECORD_LENGTH) and the index checksum. */
  private static final long INDEX_RECORD = 24;
  private static final long INDEX_CHECKSUM = 8;
  private boolean outputInPool;
  private boolean handedOver;
  private int spills;
  private int unsettled = -1; // the pooled spill being written, whose size is not known yet
  private boolean poolLost; // the coordinator failed a call: later spills go to disk
  private volatile boolean finalSpill;

  /**
   * @param recordsCollected records the map has collected so far: no spill holds more
   */
  public PoolSpillFiles(MapOutputFile files, CoordinatorClient pool, long sortBufferBytes,
      int partitions, boolean compressed, LongSupplier recordsCollected, Reporter reporter) {
    super(files);
    this.pool = pool;
    this.poolDir = new Path(pool.dir().toString());
    this.sortBufferBytes = sortBufferBytes;
    this.partitions = partitions;
    this.compressed = compressed;
    this.recordsCollected = recordsCollected;
    this.reporter = reporter;
  }

  /** The map has collected its last record: the next spill is the flush's. */
  public void finalSpillNext() {
    finalSpill = true;
  }

  /**
   * An upper bound of a spill file's size, from stock's estimate {@code size} (key and value
   * bytes plus {@link #APPROX_HEADER_LENGTH} per partition). Each record adds two variable-length
   * ints: at most 1 byte each below 128 bytes of key or value, and at most 1 + length/32 bytes
   * each in general. Records are bounded by the buffer (each takes {@link #METASIZE} bytes of it
   * besides its data) and by what the map has collected. Codecs expand incompressible data by
   * less than a sixth (Snappy's worst case).
   */
  long bound(long size) {
    long data = Math.max(0, size - partitions * APPROX_HEADER_LENGTH);
    long records = Math.min(Math.max(0, sortBufferBytes - data) / METASIZE,
        recordsCollected.getAsLong());
    long raw = size + 2 * records + data / 32;
    return compressed ? raw + raw / 6 + partitions * 64L : raw;
  }

  @Override
  public Path getSpillFileForWrite(int spillNumber, long size) throws IOException {
    settle();
    spills = Math.max(spills, spillNumber + 1);
    // A map's only spill is its output, which stock renames into place: keep it on disk unless
    // the output may stay in the pool.
    boolean onlySpill = finalSpill && spillNumber == 0 && !pool.servesOutputs();
    if (!poolLost && !onlySpill) {
      long blocks = call(() -> pool.request(bound(size)));
      if (blocks > 0) {
        held.put(spillNumber, blocks);
        unsettled = spillNumber;
        reporter.incrCounter(CoomrCounter.POOL_SPILLS, 1);
        return pooled(spillNumber);
      }
    }
    reporter.incrCounter(CoomrCounter.DISK_SPILLS, 1);
    return files.getSpillFileForWrite(spillNumber, size);
  }

  @Override
  public Path getSpillFile(int spillNumber) throws IOException {
    settle(); // the merge has begun: every spill is written
    if (!held.containsKey(spillNumber)) {
      return files.getSpillFile(spillNumber);
    }
    if (spills == 1 && pool.servesOutputs() && !poolLost) {
      // The only spill is renamed to the map output, in the pool (the same volume).
      outputInPool = true;
      return pooled(spillNumber);
    }
    if (spills == 1) {
      // The only spill is renamed to the map output, which must be on disk: copy it there.
      Path disk = moveToDisk(spillNumber);
      reporter.incrCounter(CoomrCounter.SPILLS_MOVED_TO_DISK, 1);
      return disk;
    }
    return pooled(spillNumber);
  }

  /**
   * The merged map output: into the pool when the node's shuffle can serve it from there, with a
   * grant for it and its index (no more than its spills, plus codec framing).
   */
  @Override
  public Path getOutputFileForWrite(long size) throws IOException {
    settle();
    if (pool.servesOutputs() && !poolLost) {
      long bytes = (compressed ? size + size / 6 + partitions * 64L : size) + indexBytes();
      long blocks = call(() -> pool.request(bytes));
      if (blocks > 0) {
        held.put(OUTPUT, blocks);
        outputInPool = true;
        return new Path(poolDir, DATA);
      }
    }
    return files.getOutputFileForWrite(size);
  }

  /**
   * Where stock renames a map's only spill to: beside it in the pool, as the output the
   * coordinator takes over ({@code YarnOutputFiles} would nest it in output/ATTEMPT/).
   */
  @Override
  public Path getOutputFileForWriteInVolume(Path existing) {
    return inPool(existing) ? new Path(poolDir, DATA)
        : files.getOutputFileForWriteInVolume(existing);
  }

  @Override
  public Path getOutputIndexFileForWriteInVolume(Path existing) {
    return inPool(existing) ? new Path(poolDir, INDEX)
        : files.getOutputIndexFileForWriteInVolume(existing);
  }

  private boolean inPool(Path p) {
    return poolDir.equals(p.getParent());
  }

  @Override
  public Path getOutputIndexFileForWrite(long size) throws IOException {
    return outputInPool ? new Path(poolDir, INDEX) : files.getOutputIndexFileForWrite(size);
  }

  @Override
  public Path getOutputFile() throws IOException {
    return outputInPool && !handedOver ? new Path(poolDir, DATA) : files.getOutputFile();
  }

  @Override
  public Path getOutputIndexFile() throws IOException {
    return outputInPool && !handedOver ? new Path(poolDir, INDEX) : files.getOutputIndexFile();
  }

  private long indexBytes() {
    return partitions * INDEX_RECORD + INDEX_CHECKSUM;
  }

  /**
   * The map is done: a map output in the pool goes to the coordinator, with just the blocks it
   * needs (the spills' are given back), and is written to stock's disk paths later. If the
   * coordinator cannot take it, the map writes it there itself. Returns whether it was handed
   * over.
   */
  public boolean handover() throws IOException {
    if (!outputInPool) {
      return false;
    }
    java.nio.file.Path data = Paths.get(poolDir.toUri().getPath(), DATA);
    java.nio.file.Path index = Paths.get(poolDir.toUri().getPath(), INDEX);
    long dataBytes = Files.size(data);
    long indexBytes = Files.size(index);
    Path diskData = files.getOutputFileForWrite(dataBytes);
    Path diskIndex = files.getOutputIndexFileForWrite(indexBytes);
    long need = blocks(dataBytes) + blocks(indexBytes);
    long have = heldBlocks();
    boolean taken = !poolLost && call(() -> {
      if (have > need) {
        pool.release(have - need);
      } else if (have < need && pool.request((need - have) * pool.blockSize()) == 0) {
        return 0L; // over its grants (only a combiner that grows data does that)
      }
      pool.handover(diskData.toUri().getPath(), diskIndex.toUri().getPath());
      return 1L;
    }) == 1L;
    if (taken) {
      reporter.incrCounter(CoomrCounter.POOL_OUTPUTS, 1);
      reporter.incrCounter(CoomrCounter.POOL_OUTPUT_BYTES, dataBytes);
    } else {
      reporter.incrCounter(CoomrCounter.OUTPUTS_WRITTEN_BY_MAP, 1);
      copy(data, diskData);
      copy(index, diskIndex);
      Files.delete(data);
      Files.delete(index);
    }
    held.clear();
    handedOver = true;
    return taken;
  }

  private long blocks(long bytes) {
    return (bytes + pool.blockSize() - 1) / pool.blockSize();
  }

  private static void copy(java.nio.file.Path from, Path to) throws IOException {
    java.nio.file.Path target = Paths.get(to.toUri().getPath());
    Files.createDirectories(target.getParent());
    Files.copy(from, target);
  }

  private Path pooled(int spillNumber) {
    return new Path(poolDir, "spill" + spillNumber + ".out");
  }

  /** Gives back what the last pooled spill did not use, or asks for what it used beyond. */
  private void settle() throws IOException {
    if (unsettled < 0) {
      return;
    }
    int n = unsettled;
    unsettled = -1;
    long bytes = Files.size(Paths.get(pooled(n).toUri().getPath()));
    reporter.incrCounter(CoomrCounter.POOL_SPILL_BYTES, bytes);
    long need = blocks(bytes);
    long granted = held.get(n);
    if (need < granted) {
      call(() -> {
        pool.release(granted - need);
        return 0L;
      });
      held.put(n, need);
    } else if (need > granted) {
      long more = call(() -> pool.request((need - granted) * pool.blockSize()));
      if (more > 0) {
        held.put(n, granted + more);
      } else {
        LOG.info("spill {} took {} bytes, more than its grant and the pool can give: moving it"
            + " to disk", n, bytes);
        moveToDisk(n);
        reporter.incrCounter(CoomrCounter.SPILLS_MOVED_TO_DISK, 1);
      }
    }
  }

  private Path moveToDisk(int spillNumber) throws IOException {
    java.nio.file.Path from = Paths.get(pooled(spillNumber).toUri().getPath());
    Path disk = files.getSpillFileForWrite(spillNumber, Files.size(from));
    java.nio.file.Path to = Paths.get(disk.toUri().getPath());
    Files.createDirectories(to.getParent());
    Files.copy(from, to);
    Files.delete(from);
    long blocks = held.remove(spillNumber);
    call(() -> {
      pool.release(blocks);
      return 0L;
    });
    return disk;
  }

  private interface PoolCall {
    long run() throws IOException;
  }

  /** A failed call to the coordinator sends later spills to disk; pooled ones stay readable. */
  private long call(PoolCall c) {
    if (poolLost) {
      return 0;
    }
    try {
      return c.run();
    } catch (IOException e) {
      poolLost = true;
      LOG.warn("CooMR coordinator failed ({}); this map's further spills go to disk", e.toString());
      return 0;
    }
  }

  /** The merge is done and the spills deleted: the attempt's pool dir and blocks go. */
  public void detach() {
    call(() -> {
      pool.detach();
      return 0L;
    });
  }

  /** Blocks the pooled spills and output still hold (the handover settles to what it needs). */
  long heldBlocks() {
    return held.values().stream().mapToLong(Long::longValue).sum();
  }

}
