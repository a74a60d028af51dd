/* Streaming WordCount reducer over ShmStreaming: sums the counts of consecutive equal keys
 * (streaming hands the reducer "key TAB value" lines sorted by key). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hadoop_accel/shm_stream.h"

int main(void) {
  hshm_stream *s = hshm_stream_open();
  if (s == NULL) return 2;
  char *key = NULL;
  size_t key_len = 0, key_cap = 0;
  long long sum = 0;
  int have = 0;
  const char *line;
  size_t len;
  int rc;
  char num[32];
  while ((rc = hshm_stream_read_line(s, &line, &len)) == 1) {
    const char *tab = memchr(line, '\t', len);
    size_t klen = tab ? (size_t)(tab - line) : len;
    long long v = tab ? strtoll(tab + 1, NULL, 10) : 1;
    if (have && (klen != key_len || memcmp(key, line, klen) != 0)) {
      int n = snprintf(num, sizeof num, "%lld", sum);
      if (hshm_stream_write_record(s, key, key_len, num, (size_t)n) != 0) return 3;
      have = 0;
    }
    if (!have) {
      if (klen > key_cap) {
        key_cap = klen * 2 + 16;
        key = realloc(key, key_cap);
        if (key == NULL) return 5;
      }
      memcpy(key, line, klen);
      key_len = klen;
      sum = 0;
      have = 1;
    }
    sum += v;
  }
  if (have) {
    int n = snprintf(num, sizeof num, "%lld", sum);
    if (hshm_stream_write_record(s, key, key_len, num, (size_t)n) != 0) return 3;
  }
  free(key);
  return rc == 0 && hshm_stream_close(s) == 0 ? 0 : 4;
}
