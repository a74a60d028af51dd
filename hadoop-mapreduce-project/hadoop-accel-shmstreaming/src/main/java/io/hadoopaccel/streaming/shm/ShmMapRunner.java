package io.hadoopaccel.streaming.shm;

import java.io.IOException;
import java.util.Optional;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.FileSplit;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.LineRecordReader;
import org.apache.hadoop.mapred.OutputCollector;
import org.apache.hadoop.mapred.RecordReader;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter;
import org.apache.hadoop.streaming.PipeMapRunner;
import org.apache.hadoop.streaming.PipeMapper;
import org.apache.hadoop.streaming.ShmPipeMapRedAccess;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streaming's map runner for jobs whose map input goes over the rings: hands the split to the
 * program in bulk ({@link BulkMapInput}) when TextInputFormat would pass its lines through
 * unchanged, else runs upstream's record loop. {@link ShmIdentifierResolver} installs it.
 */
public class ShmMapRunner<K1, V1, K2, V2> extends PipeMapRunner<K1, V1, K2, V2> {
  private static final Logger LOG = LoggerFactory.getLogger(ShmMapRunner.class);

  private JobConf job;

  @Override
  public void configure(JobConf job) {
    super.configure(job);
    this.job = job;
  }

  @Override
  public void run(RecordReader<K1, V1> input, OutputCollector<K2, V2> output, Reporter reporter)
      throws IOException {
    ShmChannel.useReporter((PipeMapper) getMapper(), reporter);
    Optional<String> lineByLine = BulkMapInput.whyNot(job, reporter.getInputSplit());
    if (lineByLine.isPresent()) {
      LOG.info("ShmStreaming: map input goes to the program line by line: {}", lineByLine.get());
      super.run(input, output, reporter);
      return;
    }
    PipeMapper mapper = (PipeMapper) getMapper();
    ShmPipeMapRedAccess.startOutputThreads(mapper, output, reporter);
    try {
      BulkMapInput bulk =
          new BulkMapInput(job, (FileSplit) reporter.getInputSplit(), input.getPos());
      long lines;
      try {
        lines = bulk.copyWholeLines(ShmPipeMapRedAccess.programInput(mapper), () -> {
          if (ShmPipeMapRedAccess.outputFailure(mapper) != null) {
            throw new IllegalStateException("the program's output or stderr thread failed",
                ShmPipeMapRedAccess.outputFailure(mapper));
          }
          reporter.progress();
        });
      } catch (IOException | IllegalStateException e) {
        mapper.mapRedFinished(); // as upstream's mapper does when a write to the program fails
        throw e instanceof IOException ? (IOException) e : new IOException(e.getMessage(), e);
      }
      ShmPipeMapRedAccess.addRecordsRead(mapper, lines);
      LOG.info("ShmStreaming: map input went to the program in bulk: {} lines, {} bytes",
          lines, bulk.bytesRead());
      long tailBytes = 0;
      LineRecordReader tail = bulk.tailReader();
      if (tail != null) {
        try {
          long from = tail.getPos();
          LongWritable key = tail.createKey();
          Text value = tail.createValue();
          while (tail.next(key, value)) {
            mapper.map(key, value, output, reporter);
            lines++;
          }
          tailBytes = tail.getPos() - from;
        } finally {
          tail.close();
        }
      }
      // Upstream's reader wrapper counts these; neither of our reads goes through it.
      reporter.incrCounter(TaskCounter.MAP_INPUT_RECORDS, lines);
      reporter.incrCounter(FileInputFormatCounter.BYTES_READ, bulk.bytesRead() + tailBytes);
    } finally {
      mapper.close();
    }
  }
}
