package io.hadoopaccel.minicluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.net.URL;

import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.MapOutputCollector;
import org.apache.hadoop.mapred.MapTask;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.task.reduce.Shuffle;
import org.junit.jupiter.api.Test;

/**
 * The upstream suites run in this module's surefire JVM and build their own JobConfs: prove
 * that such a JobConf reads src/test/resources/mapred-site.xml. mapred-default.xml holds the
 * same stock values, so the check is on where the value came from, not only on the value.
 */
class TestUpstreamSuiteConfig {

  @Test
  void freshJobConfReadsTestSiteFile() {
    JobConf conf = new JobConf();
    URL site = conf.getResource("mapred-site.xml");
    assertNotNull(site, "mapred-site.xml is not on the test classpath");

    assertEquals(Shuffle.class.getName(), conf.get(MRConfig.SHUFFLE_CONSUMER_PLUGIN));
    assertArrayEquals(new String[] {"mapred-site.xml"},
        conf.getPropertySources(MRConfig.SHUFFLE_CONSUMER_PLUGIN));

    assertEquals(MapTask.MapOutputBuffer.class.getName(),
        conf.get(MRJobConfig.MAP_OUTPUT_COLLECTOR_CLASS_ATTR));
    assertArrayEquals(new String[] {"mapred-site.xml"},
        conf.getPropertySources(MRJobConfig.MAP_OUTPUT_COLLECTOR_CLASS_ATTR));
  }

  @Test
  void configuredClassesResolveToThePluginTypes() {
    JobConf conf = new JobConf();
    assertEquals(Shuffle.class, conf.getClass(MRConfig.SHUFFLE_CONSUMER_PLUGIN, null,
        ShuffleConsumerPlugin.class));
    assertEquals(MapTask.MapOutputBuffer.class, conf.getClass(
        MRJobConfig.MAP_OUTPUT_COLLECTOR_CLASS_ATTR, null, MapOutputCollector.class));
  }
}
