package io.hadoopaccel.workloads;

import io.hadoopaccel.workloads.gen.GenAdjacency;
import io.hadoopaccel.workloads.gen.GenSelfJoin;
import io.hadoopaccel.workloads.gen.GenSmallFiles;
import io.hadoopaccel.workloads.gen.GenText;
import io.hadoopaccel.workloads.jobs.AdjacencyList;
import io.hadoopaccel.workloads.jobs.Grep;
import io.hadoopaccel.workloads.jobs.InvertedIndex;
import io.hadoopaccel.workloads.jobs.SelfJoin;
import io.hadoopaccel.workloads.jobs.Sort;
import io.hadoopaccel.workloads.jobs.WordCount;
import org.apache.hadoop.util.ProgramDriver;

/**
 * The jar's Main-Class: {@code hadoop jar hadoop-accel-workloads-*.jar <program> args...}.
 * TeraGen/TeraSort/TeraValidate are upstream's (hadoop-mapreduce-examples), not repeated here.
 */
public final class WorkloadDriver {
  private WorkloadDriver() {
  }

  public static ProgramDriver programs() throws Throwable {
    ProgramDriver pgd = new ProgramDriver();
    pgd.addClass("gen-text", GenText.class,
        "Zipf text, 10-20 words a line from a 10,000-word vocabulary (seed 000 input).");
    pgd.addClass("gen-smallfiles", GenSmallFiles.class,
        "Many ~1 MB text files (seed 003 ch.4 small-file input).");
    pgd.addClass("gen-adjacency", GenAdjacency.class,
        "Graph as adjacency lists with 4-64 KB values, or as edges (seed 002).");
    pgd.addClass("gen-selfjoin", GenSelfJoin.class,
        "k-field records in groups sharing a (k-1)-prefix (SelfJoin input).");
    pgd.addClass("wordcount", WordCount.class,
        "Counts words; combiner on unless -nocombiner.");
    pgd.addClass("grep", Grep.class,
        "Counts regex matches (search job + sort-by-count job).");
    pgd.addClass("invertedindex", InvertedIndex.class,
        "word -> sorted list of the files containing it.");
    pgd.addClass("adjacencylist", AdjacencyList.class,
        "vertex -> out-list and in-list, from edges or adjacency lists (PUMA).");
    pgd.addClass("selfjoin", SelfJoin.class,
        "Joins k-field records on their (k-1)-prefix (PUMA).");
    pgd.addClass("sort", Sort.class,
        "Identity map/reduce over text lines or SequenceFiles; -totalOrder.");
    return pgd;
  }

  public static void main(String[] args) {
    int exitCode = -1;
    try {
      exitCode = programs().run(args);
    } catch (Throwable e) {
      e.printStackTrace();
    }
    System.exit(exitCode);
  }
}
