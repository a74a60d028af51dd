package io.hadoopaccel.mapreduce.preshuffle;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.MRJobConfig;

/**
 * Where each running reducer receives pushes: one empty file per reduce attempt in the job's
 * staging directory, named {@code partition.attempt.port.host}. The staging directory is the
 * job user's alone (0700), so only the job's own tasks can register or read; a map lists the
 * directory once to learn every registered reducer. A later attempt of a partition wins.
 */
public final class ReducerRegistry {
  private static final String DIR = "preshuffle-receivers";

  private final FileSystem fs;
  private final Path dir;

  public ReducerRegistry(Configuration conf) throws IOException {
    String jobDir = conf.get(MRJobConfig.MAPREDUCE_JOB_DIR);
    if (jobDir == null) {
      throw new IOException(MRJobConfig.MAPREDUCE_JOB_DIR + " is not set");
    }
    this.dir = new Path(jobDir, DIR);
    this.fs = dir.getFileSystem(conf);
  }

  /** Registers a reduce attempt's receiver; returns the entry to remove when it ends. */
  public Path register(int partition, int attempt, String host, int port) throws IOException {
    Path entry = new Path(dir, partition + "." + attempt + "." + port + "." + host);
    fs.create(entry, true).close();
    return entry;
  }

  public void unregister(Path entry) throws IOException {
    fs.delete(entry, false);
  }

  /** The newest registered receiver of each partition that has one. */
  public Map<Integer, InetSocketAddress> receivers() throws IOException {
    Map<Integer, InetSocketAddress> byPartition = new HashMap<>();
    Map<Integer, Integer> attemptOf = new HashMap<>();
    FileStatus[] entries;
    try {
      entries = fs.listStatus(dir);
    } catch (FileNotFoundException e) {
      return byPartition; // no reducer has registered yet
    }
    for (FileStatus st : entries) {
      String[] f = st.getPath().getName().split("\\.", 4);
      if (f.length != 4) {
        continue;
      }
      try {
        int partition = Integer.parseInt(f[0]);
        int attempt = Integer.parseInt(f[1]);
        if (attemptOf.getOrDefault(partition, -1) < attempt) {
          attemptOf.put(partition, attempt);
          byPartition.put(partition,
              InetSocketAddress.createUnresolved(f[3], Integer.parseInt(f[2])));
        }
      } catch (NumberFormatException e) {
        // not ours: skip
      }
    }
    return byPartition;
  }
}
