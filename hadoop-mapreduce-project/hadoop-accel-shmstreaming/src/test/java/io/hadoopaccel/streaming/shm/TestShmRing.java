package io.hadoopaccel.streaming.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Java binding against a real second process: the JVM writes random-sized chunks (0 B to
 * twice the ring) into one ring while a C program (shm_identity) copies them into the other,
 * from which the JVM reads with random sizes; checksums of everything must match. Small rings
 * make both sides wrap on every write and sleep and wake constantly.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TestShmRing {
  private static ShmJobs jobs;

  @BeforeAll
  static void setUp() throws Exception {
    jobs = new ShmJobs("shm-ring");
    Configuration conf = new Configuration(jobs.conf);
    assertTrue(ShmRingLibrary.load(conf),
        () -> "libhadoop_shm did not load from " + conf.get("hadoop.accel.native.lib.dir"));
  }

  @ParameterizedTest(name = "capacity {0}, batch {1}")
  @CsvSource({"4096, 1", "4096, 16", "65536, 4096", "65536, 0", "1048576, 0", "7, 0"})
  void everyByteComesBackThroughAProgram(int capacity, int batch) throws Exception {
    Path base = jobs.ringDir.resolve("stress-" + capacity + "-" + batch);
    ShmRing in = ShmRing.create(base + ".in", capacity, ShmRingLibrary.WRITER, batch);
    ShmRing out = ShmRing.create(base + ".out", capacity, ShmRingLibrary.READER, batch);
    ProcessBuilder pb = new ProcessBuilder(jobs.c("shm_identity"));
    pb.environment().put("stream_map_input_writer_class", ShmTextInputWriter.class.getName());
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process program = pb.start();
    try (OutputStream stdin = program.getOutputStream()) {
      stdin.write((ShmChannel.HANDSHAKE + "\t" + in.path() + "\t" + out.path() + "\n")
          .getBytes(StandardCharsets.UTF_8));
      stdin.flush();
      assertTrue(in.waitPeer(10_000) && out.waitPeer(10_000), "program did not attach");
      Files.delete(Path.of(in.path()));
      Files.delete(Path.of(out.path()));

      // 8 MiB, or 32768 ring-fulls for a tiny ring (every op of the 7-byte one sleeps and
      // wakes: 8 MiB would take minutes and test nothing more).
      long total = Math.min(8L << 20, capacity * 32768L);
      CRC32 sent = new CRC32();
      AtomicReference<Throwable> writerFailed = new AtomicReference<>();
      Thread writer = new Thread(() -> {
        Random r = new Random(capacity * 31L + batch);
        byte[] buf = new byte[Math.max(2 * capacity, 16)];
        try {
          for (long done = 0; done < total; ) {
            int n = (int) Math.min(total - done, r.nextInt(buf.length + 1));
            r.nextBytes(buf);
            in.write(buf, 0, n);
            sent.update(buf, 0, n);
            done += n;
          }
          in.close();
        } catch (Throwable t) {
          writerFailed.set(t);
        }
      });
      writer.start();
      CRC32 received = new CRC32();
      Random r = new Random(7);
      byte[] buf = new byte[Math.max(2 * capacity, 16)];
      long got = 0;
      int n;
      while ((n = out.read(buf, 0, 1 + r.nextInt(buf.length))) > 0) {
        received.update(buf, 0, n);
        got += n;
      }
      writer.join();
      assertEquals(null, writerFailed.get());
      assertEquals(total, got);
      assertEquals(sent.getValue(), received.getValue());
      assertTrue(program.waitFor(30, TimeUnit.SECONDS), "program did not exit");
      assertEquals(0, program.exitValue());
      long[] stats = in.stats();
      assertEquals(total, stats[0], "bytes the JVM wrote, by the ring's count");
    } finally {
      in.close();
      out.close();
      program.destroyForcibly();
    }
    assertEquals(List.of(), jobs.ringFiles());
  }

  @Test
  void aProgramThatExitsIsAnErrorForABlockedWriter() throws Exception {
    Path base = jobs.ringDir.resolve("dies");
    ShmRing in = ShmRing.create(base + ".in", 4096, ShmRingLibrary.WRITER, 0);
    ShmRing out = ShmRing.create(base + ".out", 4096, ShmRingLibrary.READER, 0);
    // Attaches (through the Python package), reads one line, then exits without closing.
    ProcessBuilder pb = new ProcessBuilder(jobs.python, "-c",
        "import hadoop_shm, os\nfor l in hadoop_shm.lines():\n    os._exit(3)\n");
    pb.environment().put("stream_map_input_writer_class", ShmTextInputWriter.class.getName());
    pb.environment().put("PYTHONPATH",
        new File(System.getProperty("accel.shm.python.dir", "src/main/python")).getAbsolutePath());
    pb.environment().put("HADOOP_SHM_LIB",
        new File(jobs.conf.get("hadoop.accel.native.lib.dir"), "libhadoop_shm.so").getPath());
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process program = pb.start();
    try (OutputStream stdin = program.getOutputStream()) {
      stdin.write((ShmChannel.HANDSHAKE + "\t" + in.path() + "\t" + out.path() + "\n")
          .getBytes(StandardCharsets.UTF_8));
      stdin.flush();
      assertTrue(in.waitPeer(10_000) && out.waitPeer(10_000), "program did not attach");
      Files.delete(Path.of(in.path()));
      Files.delete(Path.of(out.path()));
      byte[] line = "a line\n".getBytes(StandardCharsets.US_ASCII);
      IOException e = assertThrows(IOException.class, () -> {
            for (int i = 0; i < 1_000_000; i++) { // far more than the 4 KiB ring holds
              in.write(line, 0, line.length);
            }
          });
      assertTrue(e.getMessage().contains("Broken pipe"), e.getMessage());
      assertTrue(program.waitFor(10, TimeUnit.SECONDS));
      assertEquals(3, program.exitValue());
    } finally {
      in.close();
      out.close();
    }
  }
}
