package io.hadoopaccel.common.mapred;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.MapOutputFile;

/**
 * A map task's own {@link MapOutputFile} with every call passed through, for a collector that
 * hands stock's sort buffer a view of it which watches or redirects some calls (Preshuffle
 * watches spills being written, CooMR puts spills into its memory pool). Subclasses override
 * only what they change.
 */
public abstract class ForwardingMapOutputFile extends MapOutputFile {
  protected final MapOutputFile files;

  protected ForwardingMapOutputFile(MapOutputFile files) {
    this.files = files;
  }

  @Override
  public Path getOutputFile() throws IOException {
    return files.getOutputFile();
  }

  @Override
  public Path getOutputFileForWrite(long size) throws IOException {
    return files.getOutputFileForWrite(size);
  }

  @Override
  public Path getOutputFileForWriteInVolume(Path existing) {
    return files.getOutputFileForWriteInVolume(existing);
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
  public Path getOutputIndexFileForWriteInVolume(Path existing) {
    return files.getOutputIndexFileForWriteInVolume(existing);
  }

  @Override
  public Path getSpillFile(int spillNumber) throws IOException {
    return files.getSpillFile(spillNumber);
  }

  @Override
  public Path getSpillFileForWrite(int spillNumber, long size) throws IOException {
    return files.getSpillFileForWrite(spillNumber, size);
  }

  @Override
  public Path getSpillIndexFile(int spillNumber) throws IOException {
    return files.getSpillIndexFile(spillNumber);
  }

  @Override
  public Path getSpillIndexFileForWrite(int spillNumber, long size) throws IOException {
    return files.getSpillIndexFileForWrite(spillNumber, size);
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
    if (files != null) { // MapOutputFile's constructor may call it before ours has run
      files.setConf(conf);
    }
  }

  @Override
  public Configuration getConf() {
    return files.getConf();
  }
}
