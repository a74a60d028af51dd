package io.hadoopaccel.common.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** Keeps AccelConfigKeys and accel-default.xml in step: every key declared once, documented. */
class TestAccelDefaults {

  /** name -> description, straight from the XML (Configuration does not expose descriptions). */
  private static Map<String, String> declared() throws Exception {
    Map<String, String> out = new TreeMap<>();
    try (InputStream in = TestAccelDefaults.class.getClassLoader()
        .getResourceAsStream(AccelConfiguration.DEFAULT_RESOURCE)) {
      assertNotNull(in, AccelConfiguration.DEFAULT_RESOURCE + " is not on the classpath");
      Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
      NodeList props = doc.getElementsByTagName("property");
      for (int i = 0; i < props.getLength(); i++) {
        Element p = (Element) props.item(i);
        String name = p.getElementsByTagName("name").item(0).getTextContent().trim();
        NodeList d = p.getElementsByTagName("description");
        String desc = d.getLength() == 0 ? "" : d.item(0).getTextContent().trim();
        assertEquals(null, out.put(name, desc), name + " is declared twice");
      }
    }
    return out;
  }

  private static TreeSet<String> constants() throws IllegalAccessException {
    TreeSet<String> keys = new TreeSet<>();
    for (Field f : AccelConfigKeys.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class
          && !f.getName().equals("PREFIX")) {
        keys.add((String) f.get(null));
      }
    }
    return keys;
  }

  @Test
  void everyConstantIsDeclaredWithADescriptionAndNothingElseIs() throws Exception {
    Map<String, String> xml = declared();
    assertFalse(xml.isEmpty());
    assertEquals(constants(), new TreeSet<>(xml.keySet()));
    xml.forEach((k, d) -> {
      assertTrue(k.startsWith(AccelConfigKeys.PREFIX), k + " lacks prefix " + AccelConfigKeys.PREFIX);
      assertTrue(d.length() > 20, k + " needs a real description");
    });
  }

  @Test
  void defaultsApplyWhenNothingIsSet() {
    Configuration conf = new Configuration();
    assertTrue(AccelConfiguration.getBoolean(conf, AccelConfigKeys.NATIVE_ENABLED));
    assertEquals(null, AccelConfiguration.get(conf, AccelConfigKeys.NATIVE_LIB_DIR));
  }

  @Test
  void siteFilesWinOverDefaults(@TempDir Path dir) throws Exception {
    // As a daemon sees it: hdfs-site.xml already loaded before any feature reads its keys.
    Path site = dir.resolve("some-site.xml");
    Files.writeString(site, "<configuration><property><name>" + AccelConfigKeys.NATIVE_ENABLED
        + "</name><value>false</value></property></configuration>");
    Configuration conf = new Configuration();
    conf.addResource(new org.apache.hadoop.fs.Path(site.toUri()));
    assertFalse(AccelConfiguration.getBoolean(conf, AccelConfigKeys.NATIVE_ENABLED));
    assertFalse(AccelConfiguration.getBoolean(new Configuration(conf), AccelConfigKeys.NATIVE_ENABLED));
  }
}
