package io.hadoopaccel.workloads.jobs;

import java.io.IOException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.hadoop.io.compress.SplittableCompressionCodec;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.LineRecordReader;

/** Text lines as keys (no offsets), so a text file can be sorted and sampled by its lines. */
public class LineKeyInputFormat extends FileInputFormat<Text, NullWritable> {

  @Override
  protected boolean isSplitable(JobContext context, Path file) {
    CompressionCodec codec =
        new CompressionCodecFactory(context.getConfiguration()).getCodec(file);
    return codec == null || codec instanceof SplittableCompressionCodec;
  }

  @Override
  public RecordReader<Text, NullWritable> createRecordReader(InputSplit split,
      TaskAttemptContext context) {
    return new RecordReader<Text, NullWritable>() {
      private final LineRecordReader lines = new LineRecordReader();

      @Override
      public void initialize(InputSplit s, TaskAttemptContext c) throws IOException {
        lines.initialize(s, c);
      }

      @Override
      public boolean nextKeyValue() throws IOException {
        return lines.nextKeyValue();
      }

      @Override
      public Text getCurrentKey() {
        return lines.getCurrentValue();
      }

      @Override
      public NullWritable getCurrentValue() {
        return NullWritable.get();
      }

      @Override
      public float getProgress() throws IOException {
        return lines.getProgress();
      }

      @Override
      public void close() throws IOException {
        lines.close();
      }
    };
  }
}
