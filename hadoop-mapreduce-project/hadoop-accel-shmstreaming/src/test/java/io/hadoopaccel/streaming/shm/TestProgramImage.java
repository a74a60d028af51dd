package io.hadoopaccel.streaming.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A static binary is told from its ELF header, not from its memory map: a dynamic program
 * caught mid-exec, before the kernel mapped its loader, looks static in /proc/pid/maps.
 */
class TestProgramImage {
  @TempDir
  Path dir;

  @Test
  void aDynamicExecutableHasAnInterpreter() {
    assertEquals(Optional.of(true), ProgramImage.hasInterpreter("/bin/sh"));
    String java = ProcessHandle.current().info().command().orElse("/bin/sh");
    assertEquals(Optional.of(true), ProgramImage.hasInterpreter(java));
  }

  @Test
  void aStaticExecutableHasNone() {
    // glibc's ldconfig is linked statically on Debian and most distributions.
    assumeTrue(new File("/sbin/ldconfig").canRead(), "no /sbin/ldconfig here");
    assertEquals(Optional.of(false), ProgramImage.hasInterpreter("/sbin/ldconfig"));
  }

  @Test
  void whatIsNotElfOrCannotBeReadIsUnknown() throws Exception {
    Path script = dir.resolve("script.sh");
    Files.write(script, "#!/bin/sh\necho hi\n".getBytes(StandardCharsets.US_ASCII));
    assertEquals(Optional.empty(), ProgramImage.hasInterpreter(script.toString()));
    assertEquals(Optional.empty(), ProgramImage.hasInterpreter(dir.resolve("none").toString()));
    // An ELF header whose program headers lie beyond the file: unknown, not "static".
    byte[] elf = Files.readAllBytes(Path.of("/bin/sh"));
    Path cut = dir.resolve("cut");
    Files.write(cut, java.util.Arrays.copyOf(elf, 64));
    assertEquals(Optional.empty(), ProgramImage.hasInterpreter(cut.toString()));
  }
}
