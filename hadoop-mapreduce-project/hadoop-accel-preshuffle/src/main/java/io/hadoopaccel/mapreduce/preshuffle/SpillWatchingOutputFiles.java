package io.hadoopaccel.mapreduce.preshuffle;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.MapOutputFile;

/**
 * The map task's own {@link MapOutputFile}, unchanged, telling a listener what stock's sort
 * buffer does with it: each spill's index being written (its data is then complete but for the
 * stream's last buffer), and the start of the final merge (every spill is then closed, about to
 * be merged into the map output and deleted, or renamed to it).
 */
public final class SpillWatchingOutputFiles extends MapOutputFile {
  /** What the spills tell the pushing side. */
  public interface Listener {
    void spillWritten(int spill, Path data, Path index);

    /** Called once, on the map's thread, before any spill is merged, renamed or deleted. */
    void outputFinal() throws IOException;
  }

  private final MapOutputFile files;
  private final Listener listener;
  private boolean merging;
  private Path spillData; // the spill being written

  public SpillWatchingOutputFiles(MapOutputFile files, Listener listener) {
    this.files = files;
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

  // The merge's first call is one of these four (getSpillFile when there are spills).
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
  public Path getOutputFileForWriteInVolume(Path existing) {
    return files.getOutputFileForWriteInVolume(existing);
  }

  @Override
  public Path getOutputIndexFileForWriteInVolume(Path existing) {
    return files.getOutputIndexFileForWriteInVolume(existing);
  }

  @Override
  public Path getOutputFile() throws IOException {
    return files.getOutputFile();
  }

  @Override
  public Path getOutputIndexFile() throws IOException {
    return files.getOutputIndexFile();
  }

  @Override
  public Path getOutputIndexFileForWrite(long size) throws IOException {
    return files.getOutputIndexFileForWrite(size);
  }

  @Override
  public Path getSpillFileForWrite(int spillNumber, long size) throws IOException {
    // Spills are written one at a time: its index comes next (no search of the local dirs).
    spillData = files.getSpillFileForWrite(spillNumber, size);
    return spillData;
  }

  @Override
  public Path getSpillIndexFile(int spillNumber) throws IOException {
    return files.getSpillIndexFile(spillNumber);
  }

  @Override
  public Path getInputFile(int mapId) throws IOException {
    return files.getInputFile(mapId);
  }

  @Override
  public Path getInputFileForWrite(org.apache.hadoop.mapreduce.TaskID mapId, long size)
      throws IOException {
    return files.getInputFileForWrite(mapId, size);
  }

  @Override
  public void removeAll() throws IOException {
    files.removeAll();
  }

  @Override
  public void setConf(Configuration conf) {
    if (files != null) {
      files.setConf(conf);
    }
  }

  @Override
  public Configuration getConf() {
    return files.getConf();
  }
}
