package io.hadoopaccel.minicluster;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;

/**
 * A mini cluster's NodeManager aux services, set through an aux-services manifest:
 * MiniMRYarnCluster overwrites {@code yarn.nodemanager.aux-services} and the class of
 * {@code mapreduce_shuffle}, but a manifest wins over both. Use as a
 * {@link MiniHadoopClusterExtension} configurer.
 */
public final class AuxServicesManifest {
  private AuxServicesManifest() {}

  /**
   * Writes a manifest naming {@code services} (service name to class, e.g. mapreduce_shuffle to
   * a ShuffleHandler subclass) under {@code test.build.data} and points {@code conf} at it.
   */
  public static void configure(Configuration conf, String name, Map<String, Class<?>> services) {
    try {
      File dir = new File(System.getProperty("test.build.data", "target/test/data"),
          name + "-manifest").getAbsoluteFile();
      dir.mkdirs();
      File manifest = new File(dir, "aux-services.json");
      Files.writeString(manifest.toPath(), "{\"services\":[" + services.entrySet().stream()
          .map(e -> service(e.getKey(), e.getValue())).collect(Collectors.joining(","))
          + "]}", StandardCharsets.UTF_8);
      conf.setBoolean("yarn.nodemanager.aux-services.manifest.enabled", true);
      // Through ManifestLocalFileSystem: the build dir may be under world-writable /tmp.
      conf.set("fs." + ManifestLocalFileSystem.SCHEME + ".impl",
          ManifestLocalFileSystem.class.getName());
      conf.set("yarn.nodemanager.aux-services.manifest",
          ManifestLocalFileSystem.SCHEME + "://" + manifest.getAbsolutePath());
      conf.setLong("yarn.nodemanager.aux-services.manifest.reload-ms", 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String service(String name, Class<?> c) {
    return "{\"name\":\"" + name + "\",\"version\":\"1\",\"configuration\":{\"properties\":"
        + "{\"class.name\":\"" + c.getName() + "\"}}}";
  }
}
