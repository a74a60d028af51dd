package io.hadoopaccel.hdfs.psp;

import io.hadoopaccel.common.conf.AccelConfiguration;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * Sends requests to one node's prefetcher over one short connection. Every wait (connect, each
 * reply) is bounded by {@code hadoop.accel.psp.prefetch.timeout.ms}; a slow or dead prefetcher
 * is an IOException, never a hang.
 */
public final class PrefetchClient {
  private final int port;
  private final int timeoutMs;

  public PrefetchClient(Configuration conf) {
    this(AccelConfiguration.getInt(conf, PspConfigKeys.PREFETCH_PORT),
        AccelConfiguration.getInt(conf, PspConfigKeys.PREFETCH_TIMEOUT_MS));
  }

  public PrefetchClient(int port, int timeoutMs) {
    this.port = port;
    this.timeoutMs = timeoutMs;
  }

  /** The replies to {@code requests}, in order, from the prefetcher on {@code host}. */
  public List<PrefetchReply> send(String host, List<PrefetchRequest> requests)
      throws IOException {
    List<PrefetchReply> replies = new ArrayList<>(requests.size());
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), timeoutMs);
      s.setSoTimeout(timeoutMs);
      s.setTcpNoDelay(true);
      DataOutputStream out =
          new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
      DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
      out.writeInt(PrefetchRequest.MAGIC);
      // One at a time: each reply says the range is loaded, so later ones wait their turn.
      for (PrefetchRequest r : requests) {
        r.write(out);
        out.flush();
        replies.add(PrefetchReply.read(in));
      }
    }
    return replies;
  }
}
