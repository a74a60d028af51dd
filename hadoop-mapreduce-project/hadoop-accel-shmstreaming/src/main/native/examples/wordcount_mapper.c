/* Streaming WordCount mapper over ShmStreaming: "word TAB 1" per whitespace-separated word.
 * With pipes it would read stdin and printf; here it reads and writes the task's rings. */
#include <stdio.h>

#include "hadoop_accel/shm_stream.h"
#include "words.h"

int main(void) {
  hshm_stream *s = hshm_stream_open();
  if (s == NULL) return 2;
  const char *line;
  size_t len;
  int rc;
  while ((rc = hshm_stream_read_line(s, &line, &len)) == 1) {
    size_t at = 0, n;
    const char *word;
    while (next_word(line, len, &at, &word, &n)) {
      if (hshm_stream_write_record(s, word, n, "1", 1) != 0) return 3;
    }
  }
  return rc == 0 && hshm_stream_close(s) == 0 ? 0 : 4;
}
