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

/**
 * accel-default.xml itself: every key declared once, documented, with a default inside its range,
 * and loadable by Hadoop's own parser despite our {@code <range>} element. (Which keys the
 * sources name is TestKeysDeclared's job.)
 */
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
  void everyKeyIsDeclaredOnceWithADescription() throws Exception {
    Map<String, String> xml = declared();
    assertFalse(xml.isEmpty());
    assertTrue(xml.keySet().containsAll(constants()), "common keys missing from the file");
    xml.forEach((k, d) -> {
      assertTrue(k.startsWith(AccelConfigKeys.PREFIX), k + " lacks prefix " + AccelConfigKeys.PREFIX);
      assertTrue(d.length() > 20, k + " needs a real description");
    });
  }

  @Test
  void everyNumericDefaultLiesInItsRange() {
    Configuration defaults = new Configuration(false);
    defaults.addResource(AccelConfiguration.DEFAULT_RESOURCE);
    for (KeyRange r : AccelKeyRanges.all().values()) {
      String v = defaults.getTrimmed(r.key);
      assertNotNull(v, r.key + " has a range but no default");
      if (v.chars().allMatch(Character::isLetter)) {
        continue; // a word such as "auto" that the feature reads before the number
      }
      long n = org.apache.hadoop.util.StringUtils.TraditionalBinaryPrefix.string2long(v);
      assertTrue(r.contains(n), r.key + "'s default " + v + " is outside " + r);
    }
  }

  /**
   * Hadoop's Configuration parser (3.5.0 StAX: unknown elements fall to the default branch of
   * handleStartElement/handleEndElement, as {@code <description>} does) must read every value
   * of the file exactly as declared, whatever sits next to it.
   */
  @Test
  void hadoopReadsTheValuesAndIgnoresRanges(@TempDir Path dir) throws Exception {
    Configuration defaults = new Configuration(false);
    defaults.addResource(AccelConfiguration.DEFAULT_RESOURCE);
    int ranged = 0;
    try (InputStream in = getClass().getClassLoader()
        .getResourceAsStream(AccelConfiguration.DEFAULT_RESOURCE)) {
      Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
      NodeList props = doc.getElementsByTagName("property");
      for (int i = 0; i < props.getLength(); i++) {
        Element p = (Element) props.item(i);
        String name = p.getElementsByTagName("name").item(0).getTextContent().trim();
        String value = p.getElementsByTagName("value").item(0).getTextContent();
        ranged += p.getElementsByTagName("range").getLength();
        assertEquals(value.isEmpty() ? null : value, defaults.getRaw(name), name);
      }
    }
    assertEquals(AccelKeyRanges.all().size(), ranged);
    // The element before the value, after it, and on a property with no value at all.
    Path f = dir.resolve("ranges.xml");
    Files.writeString(f, "<configuration>"
        + "<property><name>a</name><range>1..9</range><value>5</value></property>"
        + "<property><name>b</name><value>6</value><range>1..9</range></property>"
        + "<property><name>c</name><range>1..9</range></property>"
        + "</configuration>");
    Configuration conf = new Configuration(false);
    conf.addResource(new org.apache.hadoop.fs.Path(f.toUri()));
    assertEquals("5", conf.getRaw("a"));
    assertEquals("6", conf.getRaw("b"));
    assertEquals(null, conf.getRaw("c"));
    assertEquals(2, conf.size());
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
