package io.hadoopaccel.common.conf;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The {@code <range>} of every numeric key, read once from {@code accel-default.xml} (Hadoop's
 * Configuration skips the element, so only we see it). The native daemons' option parsers get
 * the same ranges from a header generated from the same file, so Java and C++ cannot disagree.
 */
public final class AccelKeyRanges {
  private static final Map<String, KeyRange> RANGES = load();

  private AccelKeyRanges() {}

  /** Every declared range, by key. */
  public static Map<String, KeyRange> all() {
    return RANGES;
  }

  /** The declared range of {@code key}; a key read as a number without one is a bug. */
  public static KeyRange of(String key) {
    KeyRange r = RANGES.get(key);
    if (r == null) {
      throw new IllegalStateException("Configuration key " + key + " has no <range> in "
          + AccelConfiguration.DEFAULT_RESOURCE);
    }
    return r;
  }

  private static Map<String, KeyRange> load() {
    Map<String, KeyRange> out = new TreeMap<>();
    try (InputStream in = AccelKeyRanges.class.getClassLoader()
        .getResourceAsStream(AccelConfiguration.DEFAULT_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(AccelConfiguration.DEFAULT_RESOURCE
            + " is not on the classpath");
      }
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      Document doc = f.newDocumentBuilder().parse(in);
      NodeList props = doc.getElementsByTagName("property");
      for (int i = 0; i < props.getLength(); i++) {
        Element p = (Element) props.item(i);
        NodeList range = p.getElementsByTagName("range");
        if (range.getLength() > 0) {
          String key = p.getElementsByTagName("name").item(0).getTextContent().trim();
          out.put(key, KeyRange.parse(key, range.item(0).getTextContent()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot read " + AccelConfiguration.DEFAULT_RESOURCE, e);
    }
    return Collections.unmodifiableMap(out);
  }
}
