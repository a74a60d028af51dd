package io.hadoopaccel.mapreduce.jbs;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fuzz-style test of the Java reducer-protocol decoder: byte streams made from valid
 * seed frames by random mutations (bit flips, byte overwrites with boundary values, truncation,
 * insertion, splicing, length-field rewrites) go through everything the reduce decodes from
 * its NetMerger: ReducerProtocol.read, every frame type's decoder, and MergedStreamIterator over
 * the DATA payloads. Anything but an IOException (an ArrayIndexOutOfBounds, NPE, OOM, ...) fails
 * with the seed and iteration to replay. Bounded: ITERATIONS inputs (set jbs.fuzz.iterations to
 * run longer, jbs.fuzz.seed to replay).
 */
class TestReducerProtocolFuzz {
  private static final int ITERATIONS = Integer.getInteger("jbs.fuzz.iterations", 30_000);
  private static final long SEED = Long.getLong("jbs.fuzz.seed", 24);

  private static byte[] string(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(2 + b.length).putShort((short) b.length).put(b).array();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.write(p, 0, p.length);
    }
    return out.toByteArray();
  }

  /** Records of up to 20-byte keys and 300-byte values (some empty), so inputs stay small. */
  private static List<byte[][]> smallRecords(Random r, int n) {
    List<byte[][]> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      byte[] k = new byte[r.nextInt(21)];
      byte[] v = new byte[r.nextInt(301)];
      r.nextBytes(k);
      r.nextBytes(v);
      out.add(new byte[][] {k, v});
    }
    return out;
  }

  /** Valid streams as a NetMerger sends them: handshake, fetch answers, merged stream, END. */
  private static List<byte[]> seeds() throws IOException {
    Random r = new Random(7);
    String attempt = "attempt_1700000000000_0003_m_000001_0";
    byte[] hello = TestReducerProtocol.frame(ReducerProtocol.HELLO, new byte[16]);
    byte[] registered = TestReducerProtocol.frame(ReducerProtocol.REGISTERED,
        concat(new byte[2], string("ok"), ByteBuffer.allocate(22).putShort((short) 20).array()));
    byte[] fetched = TestReducerProtocol.frame(ReducerProtocol.MAP_FETCHED, concat(
        ByteBuffer.allocate(12).putInt(1).putLong(12345).array(), string(attempt)));
    byte[] failed = TestReducerProtocol.frame(ReducerProtocol.FETCH_FAILED, concat(
        ByteBuffer.allocate(5).putInt(1).put((byte) 1).array(), string(attempt),
        string("connect to host1:13570: Connection refused")));
    byte[] stream = TestReducerProtocol.stream(smallRecords(r, 40));
    List<byte[]> data = TestReducerProtocol.cut(r, stream, 1024);
    byte[] end = TestReducerProtocol.endFrame(40, stream.length, 999, 1, 0);
    byte[] error = TestReducerProtocol.errorFrame(2, "CRC mismatch from host1");
    List<byte[]> seeds = new ArrayList<>();
    seeds.add(concat(hello, registered, fetched, failed));
    seeds.add(concat(concat(data.toArray(new byte[0][])), end));
    // Short records whose lengths the mutations can push around.
    byte[] small = TestReducerProtocol.stream(smallRecords(new Random(3), 3));
    seeds.add(concat(TestReducerProtocol.dataFrame(small, false), end));
    seeds.add(concat(TestReducerProtocol.dataFrame(small, false), error));
    return seeds;
  }

  private static final byte[] BOUNDARY = {0, 1, -1, 0x7F, (byte) 0x80, (byte) 0x8F,
      (byte) 0x87, (byte) 0x88, 16, 23, 25};

  private static byte[] mutate(Random r, byte[] in, List<byte[]> seeds) {
    byte[] b = in.clone();
    int ops = 1 + r.nextInt(4);
    for (int i = 0; i < ops && b.length > 0; i++) {
      int at = r.nextInt(b.length);
      switch (r.nextInt(7)) {
        case 0:
          b[at] ^= (byte) (1 << r.nextInt(8));
          break;
        case 1:
          b[at] = BOUNDARY[r.nextInt(BOUNDARY.length)];
          break;
        case 2:
          b = Arrays.copyOf(b, at);
          break;
        case 3: {
          byte[] ins = new byte[1 + r.nextInt(16)];
          r.nextBytes(ins);
          b = concat(Arrays.copyOf(b, at), ins, Arrays.copyOfRange(b, at, b.length));
          break;
        }
        case 4: {
          byte[] other = seeds.get(r.nextInt(seeds.size()));
          int from = r.nextInt(other.length);
          b = concat(Arrays.copyOf(b, at), Arrays.copyOfRange(other, from, other.length));
          break;
        }
        case 5: // a frame header's length field, if one starts at a 12-byte boundary here
          if (at + 12 <= b.length) {
            ByteBuffer.wrap(b).putInt(at + 8, r.nextBoolean() ? r.nextInt()
                : r.nextInt(ReducerProtocol.MAX_DATA_PAYLOAD + 8));
          }
          break;
        default: // a vint-looking byte somewhere in a payload
          b[at] = (byte) (-113 - r.nextInt(16));
          break;
      }
    }
    return b;
  }

  /** Decodes a whole stream as the reduce would; returns normally or throws IOException. */
  private static void decode(byte[] input) throws IOException {
    ByteArrayInputStream in = new ByteArrayInputStream(input);
    byte[] spare = new byte[4 + ReducerProtocol.MAX_DATA_PAYLOAD];
    List<ByteBuffer> payloads = new ArrayList<>();
    while (in.available() > 0) {
      ReducerProtocol.Frame f = ReducerProtocol.read(in, spare);
      switch (f.type) {
        case ReducerProtocol.HELLO:
          ReducerProtocol.hello(f);
          break;
        case ReducerProtocol.REGISTERED:
          ReducerProtocol.registered(f);
          break;
        case ReducerProtocol.MAP_FETCHED:
          ReducerProtocol.mapFetched(f);
          break;
        case ReducerProtocol.FETCH_FAILED:
          ReducerProtocol.fetchFailed(f);
          break;
        case ReducerProtocol.DATA:
          ByteBuffer p = ReducerProtocol.data(f);
          payloads.add(ByteBuffer.wrap(Arrays.copyOfRange(p.array(), p.arrayOffset(),
              p.arrayOffset() + p.limit())));
          break;
        case ReducerProtocol.END:
          ReducerProtocol.end(f);
          break;
        case ReducerProtocol.ERROR:
          ReducerProtocol.error(f);
          break;
        default:
          throw new AssertionError("read() let type " + f.type + " through");
      }
    }
    // The merged stream as the iterator reads it (CRC-valid payloads, possibly junk records).
    java.util.Iterator<ByteBuffer> it = payloads.iterator();
    MergedStreamIterator records = new MergedStreamIterator(new MergedStreamIterator
        .PayloadSource() {
          @Override
          public ByteBuffer next() {
            return it.hasNext() ? it.next() : null;
          }

          @Override
          public void close() {}
        }, 0, null);
    int n = 0;
    while (records.next()) {
      records.getKey().getLength();
      n++;
    }
    assertTrue(n >= 0);
  }

  @Test
  void mutatedFramesOnlyEverThrowIOException() throws Exception {
    List<byte[]> seeds = seeds();
    for (byte[] s : seeds) {
      decode(s); // the seeds themselves are valid
    }
    Random r = new Random(SEED);
    int ioExceptions = 0;
    for (int i = 0; i < ITERATIONS; i++) {
      byte[] input = mutate(r, seeds.get(r.nextInt(seeds.size())), seeds);
      try {
        decode(input);
      } catch (IOException e) {
        ioExceptions++;
      } catch (Throwable t) {
        fail("iteration " + i + " (jbs.fuzz.seed=" + SEED + "): " + t + " on "
            + input.length + " bytes starting " + ReducerProtocol.hex(Arrays.copyOf(input,
                Math.min(64, input.length))), t);
      }
    }
    // The mutations must reach the decoders' checks, not only pass through.
    assertTrue(ioExceptions > ITERATIONS / 4, ioExceptions + " IOExceptions");
    assertTrue(ioExceptions < ITERATIONS, "every input failed: the seeds never decode");
  }
}
