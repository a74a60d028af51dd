/* The peer of the Java-side microbenchmark (RingVsPipeBenchmark, src/test/java): a streaming
 * program that reads its whole input and throws it away, as fast as the transport delivers it.
 * Through hshm_stream, so the same binary runs over the rings (the task sent the -io shm
 * handshake) or over plain stdin (pipes). Reads 256 KiB at a time, at least the stream's own
 * input buffer, so every read goes straight from the ring or the pipe into `buf`: one copy on
 * either transport. At end of input prints "shm_sink: BYTES bytes over rings|pipes" on stderr
 * (the benchmark checks BYTES against what it wrote) and exits 0. */
#include <stdio.h>

#include "hadoop_accel/shm_stream.h"

static char buf[256 * 1024];

int main(void) {
  hshm_stream *s = hshm_stream_open();
  if (s == NULL) return 2;
  const char *transport = hshm_stream_transport(s) == HSHM_TRANSPORT_RINGS   ? "rings"
                          : hshm_stream_transport(s) == HSHM_TRANSPORT_PIPES ? "pipes"
                                                                             : "nothing";
  unsigned long long total = 0;
  ssize_t n;
  while ((n = hshm_stream_read(s, buf, sizeof buf)) > 0) total += (unsigned long long)n;
  fprintf(stderr, "shm_sink: %llu bytes over %s\n", total, transport);
  if (n < 0) return 3;
  return hshm_stream_close(s) == 0 ? 0 : 4;
}
