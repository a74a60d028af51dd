package io.hadoopaccel.mapreduce.kism;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapreduce.MRConfig;
import org.junit.jupiter.api.Test;

/**
 * The upstream suites listed in pom.xml build their own JobConfs in this module's surefire JVM:
 * prove that such a JobConf takes KISM from src/test/resources/mapred-site.xml, so a classpath
 * mistake fails here instead of silently testing stock Shuffle.
 */
class TestUpstreamSuiteConfig {

  @Test
  void freshJobConfSelectsKismFromTheTestSiteFile() {
    JobConf conf = new JobConf();
    assertNotNull(conf.getResource("mapred-site.xml"), "mapred-site.xml is not on the classpath");
    assertEquals(KismShuffle.class.getName(), conf.get(MRConfig.SHUFFLE_CONSUMER_PLUGIN));
    assertArrayEquals(new String[] {"mapred-site.xml"},
        conf.getPropertySources(MRConfig.SHUFFLE_CONSUMER_PLUGIN));
    // What ReduceTask does with the key.
    assertEquals(KismShuffle.class, conf.getClass(MRConfig.SHUFFLE_CONSUMER_PLUGIN, null,
        ShuffleConsumerPlugin.class));
  }
}
