package io.hadoopaccel.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.hadoopaccel.common.conf.AccelConfiguration;
import io.hadoopaccel.workloads.gen.GenAdjacency;
import io.hadoopaccel.workloads.gen.GenSelfJoin;
import io.hadoopaccel.workloads.gen.GenSmallFiles;
import io.hadoopaccel.workloads.gen.Generators;
import io.hadoopaccel.workloads.gen.ZipfText;
import io.hadoopaccel.workloads.util.Vocabulary;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * The defaults accel-default.xml declares for the workload keys are the ones the tasks fall back
 * to in code (the programs' option defaults), so the operators' reference cannot drift.
 */
class TestWorkloadKeys {
  @Test
  void declaredDefaultsAreTheCodesDefaults() {
    Configuration declared = new Configuration(false);
    declared.addResource(AccelConfiguration.DEFAULT_RESOURCE);
    Map<String, String> code = Map.ofEntries(
        Map.entry(WorkloadConfigKeys.GEN_SEED, Long.toString(Generators.DEFAULT_SEED)),
        Map.entry(WorkloadConfigKeys.GEN_TEXT_BYTES, "0"),
        Map.entry(WorkloadConfigKeys.GEN_TEXT_ZIPF, Double.toString(ZipfText.DEFAULT_EXPONENT)),
        Map.entry(WorkloadConfigKeys.GEN_TEXT_MIN_WORDS,
            Integer.toString(ZipfText.DEFAULT_MIN_WORDS)),
        Map.entry(WorkloadConfigKeys.GEN_TEXT_MAX_WORDS,
            Integer.toString(ZipfText.DEFAULT_MAX_WORDS)),
        Map.entry(WorkloadConfigKeys.GEN_TEXT_VOCABULARY,
            Integer.toString(Vocabulary.DEFAULT_SIZE)),
        Map.entry(WorkloadConfigKeys.GEN_SMALLFILES_BYTES,
            Long.toString(GenSmallFiles.DEFAULT_FILE_BYTES)),
        Map.entry(WorkloadConfigKeys.GEN_ADJACENCY_VERTICES, "1"),
        Map.entry(WorkloadConfigKeys.GEN_ADJACENCY_MIN_VALUE,
            Integer.toString(GenAdjacency.DEFAULT_MIN_VALUE)),
        Map.entry(WorkloadConfigKeys.GEN_ADJACENCY_MAX_VALUE,
            Integer.toString(GenAdjacency.DEFAULT_MAX_VALUE)),
        Map.entry(WorkloadConfigKeys.GEN_ADJACENCY_EDGES, "false"),
        Map.entry(WorkloadConfigKeys.GEN_SELFJOIN_K, Integer.toString(GenSelfJoin.DEFAULT_FIELDS)),
        Map.entry(WorkloadConfigKeys.GEN_SELFJOIN_GROUP,
            Integer.toString(GenSelfJoin.DEFAULT_GROUP)),
        Map.entry(WorkloadConfigKeys.GEN_SELFJOIN_ITEMS, Long.toString(GenSelfJoin.DEFAULT_ITEMS)),
        Map.entry(WorkloadConfigKeys.SELFJOIN_K, "0"));
    code.forEach((k, v) -> assertEquals(v, declared.get(k), k));
    // Set by the programs, no fallback: declared empty.
    assertEquals(null, declared.get(WorkloadConfigKeys.GEN_MAPS));
    assertEquals(null, declared.get(WorkloadConfigKeys.GEN_UNITS));
  }
}
