package io.hadoopaccel.mapreduce.preshuffle;

import io.hadoopaccel.common.mapred.ForwardingMapOutputFile;
import java.io.IOException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.MapOutputFile;

/**
 * The map task's own {@link MapOutputFile}, unchanged, telling a listener what stock's sort
 * buffer does with it: each spill's index being written (its data is then complete but for the
 * stream's last buffer), and the start of the final merge (every spill is then closed, about to
 * be merged into the map output and deleted, or renamed to it).
 */
public final class SpillWatchingOutputFiles extends ForwardingMapOutputFile {
  /** What the spills tell the pushing side. */
  public interface Listener {
    void spillWritten(int spill, Path data, Path index);

    /** Called once, on the map's thread, before any spill is merged, renamed or deleted. */
    void outputFinal() throws IOException;
  }

  private final Listener listener;
  private boolean merging;
  private Path spillData; // the spill being written

  public SpillWatchingOutputFiles(MapOutputFile files, Listener listener) {
    super(files);
    this.listener = listener;
  }

  private void mergeStarts() throws IOException {
    if (!merging) {
      merging = true;
      listener.outputFinal();
    }
  }

  @Override
  public Path getSpillIndexFileForWrite(int spillNumber, long size) throws IOException {
    Path index = files.getSpillIndexFileForWrite(spillNumber, size);
    listener.spillWritten(spillNumber, spillData, index);
    return index;
  }

  // The merge's first call is one of these two (getSpillFile when there are spills).
  @Override
  public Path getSpillFile(int spillNumber) throws IOException {
    mergeStarts();
    return files.getSpillFile(spillNumber);
  }

  @Override
  public Path getOutputFileForWrite(long size) throws IOException {
    mergeStarts();
    return files.getOutputFileForWrite(size);
  }

  @Override
  public Path getSpillFileForWrite(int spillNumber, long size) throws IOException {
    // Spills are written one at a time: its index comes next (no search of the local dirs).
    spillData = files.getSpillFileForWrite(spillNumber, size);
    return spillData;
  }
}
