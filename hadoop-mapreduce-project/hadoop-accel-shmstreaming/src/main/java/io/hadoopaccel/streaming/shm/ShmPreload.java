package io.hadoopaccel.streaming.shm;

import io.hadoopaccel.common.conf.AccelConfiguration;
import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.streaming.PipeMapRed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts the preload shim into the program's environment before streaming starts it: {@code
 * LD_PRELOAD} gets {@code libhadoop_shm_preload.so} from the directory {@code libhadoop_shm.so}
 * was loaded from, through {@code stream.addenvironment} of the task's own copy of the job
 * configuration (streaming builds the program's environment from it). Called by the
 * configure() of {@link ShmPipeMapper}, {@link ShmPipeReducer} and {@link ShmPipeCombiner}.
 */
final class ShmPreload {
  private static final Logger LOG = LoggerFactory.getLogger(ShmPreload.class);
  static final String SHIM = "libhadoop_shm_preload.so";
  private static final String ADD_ENV = "stream.addenvironment";
  private static final String LD_PRELOAD = "LD_PRELOAD";
  /** Tasks whose program was started with the shim preloaded. */
  private static final Map<PipeMapRed, String> PRELOADED =
      Collections.synchronizedMap(new WeakHashMap<>());

  private ShmPreload() {}

  /** The configuration to start {@code task}'s program with: {@code job}, or a copy with the shim. */
  static JobConf prepare(PipeMapRed task, JobConf job) {
    if (!AccelConfiguration.getBoolean(job, ShmStreamingConfigKeys.PRELOAD)) {
      return job;
    }
    Optional<String> lib = ShmRingLibrary.file(job);
    if (!lib.isPresent()) {
      return job; // ShmChannel falls back to pipes with its own log line
    }
    File shim = new File(new File(lib.get()).getParentFile(), SHIM);
    if (!shim.isFile() || shim.getPath().matches(".*[\\s:].*")) {
      LOG.warn("ShmStreaming: {} not usable next to {} (missing, or a space or colon in its "
          + "path); only programs linked to the ShmStreaming API will attach", shim, lib.get());
      return job;
    }
    List<String> env = new ArrayList<>();
    String existing = System.getenv(LD_PRELOAD);
    String[] given = job.get(ADD_ENV, "").trim().split(" ");
    for (String nv : given) {
      if (nv.startsWith(LD_PRELOAD + "=")) {
        existing = nv.substring(LD_PRELOAD.length() + 1);
      } else if (!nv.isEmpty()) {
        env.add(nv);
      }
    }
    String value = shim.getAbsolutePath();
    if (existing != null && !existing.isEmpty() && !existing.contains(SHIM)) {
      value += ":" + existing;
    } else if (existing != null && existing.contains(SHIM)) {
      value = existing; // the user preloads it already (e.g. -cmdenv LD_PRELOAD=...)
    }
    env.add(LD_PRELOAD + "=" + value);
    JobConf copy = new JobConf(job);
    copy.set(ADD_ENV, String.join(" ", env));
    PRELOADED.put(task, shim.getAbsolutePath());
    return copy;
  }

  /** Whether {@code task}'s program was started with the shim preloaded. */
  static boolean preloaded(PipeMapRed task) {
    return PRELOADED.containsKey(task);
  }
}
