package io.hadoopaccel.common.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code hadoop.accel.*} key named anywhere in the sources (Java, C/C++, Python, shell,
 * CMake, XML) is declared in accel-default.xml, and every declared key is named by some source
 * (its feature's keys class, which spells keys out in full for this reason).
 */
class TestKeysDeclared {
  private static final Pattern KEY =
      Pattern.compile("hadoop\\.accel\\.[a-z0-9]+(?:[.-][a-z0-9]+)*");
  private static final Set<String> SOURCE_SUFFIXES = Set.of(".java", ".c", ".cc", ".cpp", ".h",
      ".hpp", ".py", ".sh", ".cmake", ".txt", ".xml", ".properties");

  /** What a scan found: key literals the file does not declare, declared keys nobody names. */
  static final class Findings {
    final List<String> undeclared = new ArrayList<>();
    final Set<String> unnamed = new TreeSet<>();
  }

  static Findings scan(Path root, List<Path> files, Set<String> declared) throws IOException {
    Findings f = new Findings();
    Set<String> named = new TreeSet<>();
    for (Path rel : files) {
      String text;
      try {
        text = Files.readString(root.resolve(rel), StandardCharsets.UTF_8);
      } catch (java.nio.charset.MalformedInputException e) {
        continue; // not text
      }
      String[] lines = text.split("\n", -1);
      for (int i = 0; i < lines.length; i++) {
        Matcher m = KEY.matcher(lines[i]);
        while (m.find()) {
          String k = m.group();
          // "hadoop.accel.jbs.*", "hadoop.accel.jbs." or a sentence's end: a family of keys.
          String rest = lines[i].substring(m.end());
          boolean family = rest.startsWith(".") || rest.startsWith("*");
          if (declared.contains(k)) {
            named.add(k);
          } else if (!(family && declared.stream().anyMatch(d -> d.startsWith(k + ".")))) {
            f.undeclared.add(rel + ":" + (i + 1) + ": " + k);
          }
        }
      }
    }
    f.unnamed.addAll(declared);
    f.unnamed.removeAll(named);
    return f;
  }

  static boolean isSource(Path rel) {
    String name = rel.getFileName().toString();
    if (name.equals(AccelConfiguration.DEFAULT_RESOURCE)) {
      return false; // the declarations themselves
    }
    int dot = name.lastIndexOf('.');
    if (dot >= 0 && SOURCE_SUFFIXES.contains(name.substring(dot))) {
      return true;
    }
    return dot < 0 && rel.getParent() != null && rel.getParent().endsWith("bin"); // scripts
  }

  /** The repository root: the first parent holding the top pom and hadoop-common-project. */
  static Path repoRoot() {
    Path p = Paths.get("").toAbsolutePath();
    while (p != null && !(Files.isRegularFile(p.resolve("pom.xml"))
        && Files.isDirectory(p.resolve("hadoop-common-project")))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException(
          "not inside the repository: " + Paths.get("").toAbsolutePath());
    }
    return p;
  }

  /** Tracked files ({@code git ls-files}); without git, the tree minus build output. */
  static List<Path> sourceFiles(Path root) throws IOException, InterruptedException {
    List<Path> all = new ArrayList<>();
    if (Files.exists(root.resolve(".git"))) {
      Process git = new ProcessBuilder("git", "-C", root.toString(), "ls-files", "-z")
          .redirectError(ProcessBuilder.Redirect.DISCARD).start();
      byte[] out;
      try (InputStream in = git.getInputStream()) {
        out = in.readAllBytes();
      }
      if (git.waitFor(60, TimeUnit.SECONDS) && git.exitValue() == 0) {
        for (String s : new String(out, StandardCharsets.UTF_8).split("\0")) {
          if (!s.isEmpty()) {
            all.add(Paths.get(s));
          }
        }
      }
    }
    if (all.isEmpty()) {
      try (Stream<Path> walk = Files.walk(root)) {
        all = walk.filter(Files::isRegularFile).map(root::relativize)
            .filter(r -> Stream.of(r.toString().split("/"))
                .noneMatch(c -> c.equals("target") || c.startsWith(".")))
            .collect(Collectors.toList());
      }
    }
    return all.stream().filter(TestKeysDeclared::isSource)
        .filter(r -> Files.isRegularFile(root.resolve(r))).collect(Collectors.toList());
  }

  static Set<String> declared() {
    Configuration defaults = new Configuration(false);
    defaults.addResource(AccelConfiguration.DEFAULT_RESOURCE);
    Set<String> keys = new TreeSet<>();
    // Keys with an empty default are not in the Configuration; read names from the raw XML too.
    defaults.forEach(e -> keys.add(e.getKey()));
    try (InputStream in = TestKeysDeclared.class.getClassLoader()
        .getResourceAsStream(AccelConfiguration.DEFAULT_RESOURCE)) {
      Matcher m = Pattern.compile("<name>\\s*([^<\\s]+)\\s*</name>")
          .matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      while (m.find()) {
        keys.add(m.group(1));
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return keys;
  }

  @Test
  void everyKeyInTheSourcesIsDeclaredAndEveryDeclaredKeyIsNamed() throws Exception {
    Path root = repoRoot();
    List<Path> files = sourceFiles(root);
    assertTrue(files.size() > 100, "found only " + files.size() + " source files under " + root);
    Findings f = scan(root, files, declared());
    assertEquals(List.of(), f.undeclared,
        "key literals not declared in " + AccelConfiguration.DEFAULT_RESOURCE);
    assertEquals(Set.of(), f.unnamed, "declared keys that no source names");
  }

  /** The scan fails on what it is there to catch. */
  @Test
  void anUndeclaredLiteralAndAnUnnamedDeclarationAreReported(@TempDir Path dir) throws Exception {
    String p = "hadoop" + ".accel.demo."; // split, or the real scan would find these keys here
    Files.writeString(dir.resolve("Feature.java"), "class Feature {\n"
        + "  static final String A = \"" + p + "known\";\n"
        + "  static final String B = \"" + p + "typo\"; // " + p + "* is a family\n"
        + "  // " + p + "typo. is a typo too: no declared key starts with it\n"
        + "}\n");
    Files.writeString(dir.resolve("run.sh"), "hadoop jar x -D " + p + "other=1\n");
    Findings f = scan(dir, List.of(Paths.get("Feature.java"), Paths.get("run.sh")),
        Set.of(p + "known", p + "unused"));
    assertEquals(List.of("Feature.java:3: " + p + "typo", "Feature.java:4: " + p + "typo",
        "run.sh:1: " + p + "other"), f.undeclared);
    assertEquals(Set.of(p + "unused"), f.unnamed);
  }
}
