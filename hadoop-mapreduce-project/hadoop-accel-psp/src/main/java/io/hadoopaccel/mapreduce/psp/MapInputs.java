package io.hadoopaccel.mapreduce.psp;

import io.hadoopaccel.hdfs.psp.PrefetchRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.serializer.Deserializer;
import org.apache.hadoop.io.serializer.SerializationFactory;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.lib.input.CombineFileSplit;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.split.JobSplit.TaskSplitIndex;
import org.apache.hadoop.mapreduce.split.JobSplit.TaskSplitMetaInfo;
import org.apache.hadoop.mapreduce.split.SplitMetaInfoReader;

/**
 * The input of each map of a job, as the AM can learn it: the split meta info names each map's
 * split in the job's split file; file splits (also combined ones: small files) name byte ranges
 * of HDFS files, whose blocks (with block tokens for the AM's user) make prefetch requests.
 */
public final class MapInputs {
  /** A byte range of one file. */
  static final class Range {
    final Path path;
    final long start;
    final long length;

    Range(Path path, long start, long length) {
      this.path = path;
      this.start = start;
      this.length = length;
    }
  }

  private final Configuration conf;
  private final TaskSplitMetaInfo[] meta;

  /** Reads the job's split meta info from its submit dir ({@code mapreduce.job.dir}). */
  public MapInputs(Configuration conf, JobID jobId, Path jobSubmitDir) throws IOException {
    this.conf = conf;
    FileSystem fs = jobSubmitDir.getFileSystem(conf);
    this.meta = SplitMetaInfoReader.readSplitMetaInfo(jobId, fs, conf, jobSubmitDir);
  }

  /** Bytes of map {@code index}'s split (0 if unknown). */
  public long bytes(int index) {
    return index < meta.length ? meta[index].getInputDataLength() : 0;
  }

  /** Prefetch requests covering map {@code index}'s input, block by block, with their hosts. */
  public List<InputBlock> requests(int index) throws IOException {
    List<InputBlock> out = new ArrayList<>();
    for (Range r : ranges(readSplit(meta[index].getSplitIndex()))) {
      FileSystem fs = r.path.getFileSystem(conf);
      if (!(fs instanceof DistributedFileSystem) || r.length <= 0) {
        continue; // only HDFS replicas live on DataNodes
      }
      String file = fs.makeQualified(r.path).toUri().getPath();
      long end = r.start + r.length;
      for (LocatedBlock lb : ((DistributedFileSystem) fs).getClient()
          .getLocatedBlocks(file, r.start, r.length).getLocatedBlocks()) {
        ExtendedBlock b = lb.getBlock();
        long from = Math.max(r.start, lb.getStartOffset());
        long to = Math.min(end, lb.getStartOffset() + b.getNumBytes());
        if (to > from) {
          DatanodeInfo[] locations = lb.getLocations();
          String[] hosts = new String[locations.length];
          for (int i = 0; i < hosts.length; i++) {
            hosts[i] = locations[i].getHostName(); // as the split's hosts name them
          }
          out.add(new InputBlock(new PrefetchRequest(PrefetchRequest.Op.PREFETCH,
              b.getBlockPoolId(), b.getBlockId(), b.getGenerationStamp(),
              from - lb.getStartOffset(), to - from, lb.getBlockToken()), hosts));
        }
      }
    }
    return out;
  }

  private Object readSplit(TaskSplitIndex index) throws IOException {
    Path file = new Path(index.getSplitLocation());
    try (FSDataInputStream in = file.getFileSystem(conf).open(file)) {
      in.seek(index.getStartOffset());
      String className = Text.readString(in);
      Class<?> cls;
      try {
        cls = conf.getClassByName(className);
      } catch (ClassNotFoundException e) {
        throw new IOException("split class " + className + " not on the AM's class path", e);
      }
      @SuppressWarnings("unchecked")
      Deserializer<Object> d =
          new SerializationFactory(conf).getDeserializer((Class<Object>) cls);
      if (d == null) {
        throw new IOException("no deserializer for " + className);
      }
      d.open(in);
      return d.deserialize(null);
    }
  }

  /** The file ranges a split reads; none for splits that are not of files. */
  static List<Range> ranges(Object split) {
    List<Range> out = new ArrayList<>();
    if (split instanceof CombineFileSplit) { // also mapred.lib.CombineFileSplit
      CombineFileSplit c = (CombineFileSplit) split;
      for (int i = 0; i < c.getNumPaths(); i++) {
        out.add(new Range(c.getPath(i), c.getOffset(i), c.getLength(i)));
      }
    } else if (split instanceof FileSplit) {
      FileSplit f = (FileSplit) split;
      out.add(new Range(f.getPath(), f.getStart(), f.getLength()));
    } else if (split instanceof org.apache.hadoop.mapred.FileSplit) {
      org.apache.hadoop.mapred.FileSplit f = (org.apache.hadoop.mapred.FileSplit) split;
      out.add(new Range(f.getPath(), f.getStart(), f.getLength()));
    }
    return out;
  }
}
