package io.hadoopaccel.hdfs.hetero;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;

/** One in-process run of {@code hdfs hetero}: its exit code and what it printed. */
final class AdminRun {
  final int rc;
  final String out;
  final String err;

  private AdminRun(int rc, String out, String err) {
    this.rc = rc;
    this.out = out;
    this.err = err;
  }

  static AdminRun of(Configuration conf, String... args) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    int rc;
    try (PrintStream po = new PrintStream(o, true, StandardCharsets.UTF_8);
        PrintStream pe = new PrintStream(e, true, StandardCharsets.UTF_8)) {
      rc = new HeteroAdmin(conf, po, pe).run(args);
    }
    return new AdminRun(rc, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
  }
}
