package io.hadoopaccel.streaming.shm;

import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.streaming.PipeMapRunner;
import org.apache.hadoop.streaming.io.IdentifierResolver;
import org.apache.hadoop.typedbytes.TypedBytesWritable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streaming's identifier resolver plus the ids {@code shm} (text records through shared-memory
 * rings: {@code -io shm}, or {@code stream.map.input=shm} etc.) and {@code shm-typedbytes}
 * (upstream's typed bytes through the rings). Every other id resolves as upstream's. The shipped mapred-site.xml sets it as {@code stream.io.identifier.resolver.class}.
 */
public class ShmIdentifierResolver extends IdentifierResolver implements Configurable {
  public static final String SHM_ID = "shm";
  /** Typed bytes (upstream's {@code typedbytes}) over the rings. */
  public static final String SHM_TYPED_BYTES_ID = "shm-typedbytes";
  private static final String MAP_RUNNER = "mapred.map.runner.class";
  private static final String MAPPER = "mapred.mapper.class";
  private static final String REDUCER = "mapred.reducer.class";
  private static final String COMBINER = "mapred.combiner.class";
  private static final Logger LOG = LoggerFactory.getLogger(ShmIdentifierResolver.class);

  private Configuration conf;

  @Override
  public void resolve(String identifier) {
    installMapRunner();
    installTaskClasses();
    if (SHM_ID.equalsIgnoreCase(identifier)) {
      checkSettings(identifier);
      setInputWriterClass(ShmTextInputWriter.class);
      setOutputReaderClass(ShmTextOutputReader.class);
      setOutputKeyClass(Text.class);
      setOutputValueClass(Text.class);
    } else if (SHM_TYPED_BYTES_ID.equalsIgnoreCase(identifier)) {
      checkSettings(identifier);
      setInputWriterClass(ShmTypedBytesInputWriter.class);
      setOutputReaderClass(ShmTypedBytesOutputReader.class);
      setOutputKeyClass(TypedBytesWritable.class);
      setOutputValueClass(TypedBytesWritable.class);
    } else {
      super.resolve(identifier);
    }
  }

  /** A bad tunable fails the submission, naming the key. */
  private void checkSettings(String identifier) {
    if (conf != null) {
      try {
        new ShmChannel.Settings(conf);
      } catch (IllegalArgumentException e) {
        LOG.error("-io {}: {}", identifier, e.getMessage()); // StreamJob drops the message
        throw e;
      }
    }
  }

  /**
   * Streaming has no hook for its map runner: it sets {@code PipeMapRunner} after resolving the
   * map input and before resolving the outputs, with this resolver, so a later call swaps in
   * {@link ShmMapRunner} (which can hand the split to the program in bulk) for shm map input.
   */
  private void installMapRunner() {
    if (conf != null && SHM_ID.equalsIgnoreCase(conf.get("stream.map.input"))
        && PipeMapRunner.class.getName().equals(conf.get(MAP_RUNNER))) {
      conf.set(MAP_RUNNER, ShmMapRunner.class.getName());
    }
  }

  /**
   * Streaming sets its mapper, reducer and combiner classes between resolving the inputs and
   * the outputs; for a side whose input is over the rings, swap in the subclass that preloads
   * the shim into the program and counts what went over the rings.
   */
  private void installTaskClasses() {
    if (conf == null) {
      return;
    }
    if (isShm(conf.get("stream.map.input"))) {
      swap(MAPPER, org.apache.hadoop.streaming.PipeMapper.class, ShmPipeMapper.class);
    }
    if (isShm(conf.get("stream.reduce.input"))) {
      swap(REDUCER, org.apache.hadoop.streaming.PipeReducer.class, ShmPipeReducer.class);
      swap(COMBINER, org.apache.hadoop.streaming.PipeCombiner.class, ShmPipeCombiner.class);
    }
  }

  private static boolean isShm(String id) {
    return SHM_ID.equalsIgnoreCase(id) || SHM_TYPED_BYTES_ID.equalsIgnoreCase(id);
  }

  private void swap(String key, Class<?> upstream, Class<?> ours) {
    if (upstream.getName().equals(conf.get(key))) {
      conf.set(key, ours.getName());
    }
  }

  @Override
  public void setConf(Configuration conf) {
    this.conf = conf;
  }

  @Override
  public Configuration getConf() {
    return conf;
  }
}
