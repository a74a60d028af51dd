/* Streaming identity program over ShmStreaming: copies its input to its output byte for byte,
 * as cat does over pipes. */
#include "hadoop_accel/shm_stream.h"

int main(void) {
  hshm_stream *s = hshm_stream_open();
  if (s == NULL) return 2;
  char buf[64 * 1024];
  ssize_t n;
  while ((n = hshm_stream_read(s, buf, sizeof buf)) > 0) {
    if (hshm_stream_write(s, buf, (size_t)n) != n) return 3;
  }
  return n == 0 && hshm_stream_close(s) == 0 ? 0 : 4;
}
