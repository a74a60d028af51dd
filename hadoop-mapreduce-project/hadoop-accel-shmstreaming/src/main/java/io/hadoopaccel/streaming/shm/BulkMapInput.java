package io.hadoopaccel.streaming.shm;

import io.hadoopaccel.common.conf.AccelConfiguration;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Optional;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.hadoop.mapred.FileSplit;
import org.apache.hadoop.mapred.InputSplit;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.LineRecordReader;
import org.apache.hadoop.mapred.TextInputFormat;
import org.apache.hadoop.mapreduce.MRJobConfig;

/**
 * A map task's split handed to the program as bytes: what TextInputFormat plus streaming's text
 * writer would send (each line, then a newline), without making a Text of every line and
 * writing it in four calls. The whole lines of the split go in 64 KiB blocks with TextInputFormat's
 * line ends (LF, CR, CRLF) turned into LF; the split's last lines, near its end, are read by
 * upstream's own LineRecordReader, so which lines belong to which split stays exactly upstream's.
 */
final class BulkMapInput {
  static final int BLOCK = 64 * 1024;
  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  private final JobConf job;
  private final Path path;
  private final long end;
  private final long first;
  private final FileSystem fs;
  /** Where the lines read by the tail reader start: just after the split's last LF. */
  private long tail;
  private long bytesRead;

  /**
   * @param first the first byte of the first line the split owns (where upstream's reader
   *     stands after skipping the previous split's last line)
   */
  BulkMapInput(JobConf job, FileSplit split, long first) throws IOException {
    this.job = job;
    this.path = split.getPath();
    this.fs = path.getFileSystem(job);
    this.end = split.getStart() + split.getLength();
    this.first = first;
  }

  /** Why this task's input must go line by line, or empty when it can go in bulk. */
  static Optional<String> whyNot(JobConf job, InputSplit split) {
    if (!AccelConfiguration.getBoolean(job, ShmStreamingConfigKeys.BULK_INPUT)) {
      return Optional.of(ShmStreamingConfigKeys.BULK_INPUT + "=false");
    }
    if (!(split instanceof FileSplit)) {
      return Optional.of("the split is a " + split.getClass().getName() + ", not a file split");
    }
    Class<?> format = job.getClass("mapred.input.format.class", TextInputFormat.class);
    if (format != TextInputFormat.class) {
      return Optional.of("the input format is " + format.getName());
    }
    Class<?> writer = job.getClass("stream.map.input.writer.class", null);
    if (writer != ShmTextInputWriter.class) {
      return Optional.of("the map input writer is " + writer);
    }
    if (!job.getBoolean("stream.map.input.ignoreKey", true)) {
      return Optional.of("keys go to the program too (stream.map.input.ignoreKey=true)");
    }
    if (new CompressionCodecFactory(job).getCodec(((FileSplit) split).getPath()) != null) {
      return Optional.of("the input is compressed");
    }
    if (job.get("textinputformat.record.delimiter") != null) {
      return Optional.of("textinputformat.record.delimiter is set");
    }
    if (job.getInt(org.apache.hadoop.mapreduce.lib.input.LineRecordReader.MAX_LINE_LENGTH,
        Integer.MAX_VALUE) != Integer.MAX_VALUE) {
      return Optional.of("a maximum line length is set");
    }
    if (job.getBoolean(MRJobConfig.SKIP_RECORDS, false)) {
      return Optional.of("bad records are being skipped");
    }
    return Optional.empty();
  }

  /**
   * Writes the split's whole lines up to its last LF before its end, line ends as LF, and
   * returns how many lines that was. {@code progress} runs after every block.
   */
  long copyWholeLines(OutputStream out, Runnable progress) throws IOException {
    try (FSDataInputStream in = fs.open(path)) {
      tail = lastLineStart(in);
      in.seek(first);
      byte[] block = new byte[BLOCK];
      byte[] normalised = new byte[BLOCK];
      long lines = 0;
      boolean afterCr = false;
      boolean start = first == 0;
      for (long pos = first; pos < tail; ) {
        int n = (int) Math.min(BLOCK, tail - pos);
        in.readFully(block, 0, n);
        pos += n;
        bytesRead += n;
        int from = 0;
        if (start) { // TextInputFormat drops a UTF-8 byte order mark at the start of a file
          start = false;
          if (n >= 3 && block[0] == BOM[0] && block[1] == BOM[1] && block[2] == BOM[2]) {
            from = 3;
          }
        }
        int crs = 0;
        for (int i = from; i < n; i++) {
          byte b = block[i];
          if (b == '\n') {
            lines++;
          } else if (b == '\r') {
            crs++;
          }
        }
        if (crs == 0 && !afterCr) {
          out.write(block, from, n - from);
        } else {
          // CR and CRLF end lines as LF does; a CRLF is one line end, even across blocks.
          int m = 0;
          for (int i = from; i < n; i++) {
            byte b = block[i];
            if (b == '\r') {
              normalised[m++] = '\n';
              afterCr = true;
            } else {
              if (b == '\n' && afterCr) {
                lines--; // counted above, ends the line its CR already ended
              } else {
                normalised[m++] = b;
              }
              afterCr = false;
            }
          }
          lines += crs;
          out.write(normalised, 0, m);
        }
        progress.run();
      }
      return lines;
    }
  }

  /**
   * Upstream's reader for the lines from the last LF before the split's end onwards, or null
   * when the split owns no line (it lies inside one line that started in an earlier split).
   */
  LineRecordReader tailReader() throws IOException {
    if (tail > end) {
      return null;
    }
    // A split that starts one byte early skips exactly that byte, the LF (or, at the first
    // line, the previous split's line end), as upstream skips a partial first line.
    long start = tail == 0 ? 0 : tail - 1;
    return new LineRecordReader(job, new FileSplit(path, start, end - start, (String[]) null));
  }

  /** Bytes this class read itself (the tail reader counts its own). */
  long bytesRead() {
    return bytesRead;
  }

  /** Just after the last LF in [first, end), or first when there is none. */
  private long lastLineStart(FSDataInputStream in) throws IOException {
    long limit = Math.min(end, fs.getFileStatus(path).getLen());
    byte[] window = new byte[BLOCK];
    for (long hi = limit; hi > first; ) {
      long lo = Math.max(first, hi - BLOCK);
      int n = (int) (hi - lo);
      in.readFully(lo, window, 0, n);
      for (int i = n - 1; i >= 0; i--) {
        if (window[i] == '\n') {
          return lo + i + 1;
        }
      }
      hi = lo;
    }
    return first;
  }
}
