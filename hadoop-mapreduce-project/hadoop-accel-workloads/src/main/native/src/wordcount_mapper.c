/*
 * Streaming WordCount mapper: "word\t1\n" for every word of stdin. A word is a maximal run of
 * bytes other than space, \t, \n, \v, \f, \r (as the Java and Python versions).
 */
#include <stdio.h>
#include <stdlib.h>

#include "stream_io.h"

int main(void) {
  line_reader in;
  out_buffer out;
  if (lr_init(&in, stdin) != 0 || ob_init(&out, stdout) != 0) {
    fputs("wordcount-mapper: out of memory\n", stderr);
    return 1;
  }
  char *line;
  size_t len;
  int rc;
  while ((rc = lr_next(&in, &line, &len)) == 1) {
    size_t i = 0;
    while (i < len) {
      while (i < len && stream_is_space((unsigned char)line[i])) {
        i++;
      }
      size_t start = i;
      while (i < len && !stream_is_space((unsigned char)line[i])) {
        i++;
      }
      if (i > start) {
        ob_write(&out, line + start, i - start);
        ob_write(&out, "\t1\n", 3);
      }
    }
  }
  lr_free(&in);
  if (ob_close(&out) != 0) {
    fputs("wordcount-mapper: write error\n", stderr);
    return 1;
  }
  if (rc < 0) {
    fputs("wordcount-mapper: read error\n", stderr);
    return 1;
  }
  return 0;
}
