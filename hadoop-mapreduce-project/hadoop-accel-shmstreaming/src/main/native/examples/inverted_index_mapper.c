/* Streaming InvertedIndex mapper over ShmStreaming: "word TAB document" for every word, where
 * the document is the name of the input file (streaming exports it as mapreduce_map_input_file;
 * "-" outside Hadoop). */
#include <stdlib.h>
#include <string.h>

#include "hadoop_accel/shm_stream.h"
#include "words.h"

int main(void) {
  const char *doc = getenv("mapreduce_map_input_file");
  if (doc == NULL) doc = getenv("map_input_file");
  if (doc == NULL) doc = "-";
  const char *slash = strrchr(doc, '/');
  if (slash != NULL && slash[1] != '\0') doc = slash + 1;
  size_t doc_len = strlen(doc);
  hshm_stream *s = hshm_stream_open();
  if (s == NULL) return 2;
  const char *line;
  size_t len;
  int rc;
  while ((rc = hshm_stream_read_line(s, &line, &len)) == 1) {
    size_t at = 0, n;
    const char *word;
    while (next_word(line, len, &at, &word, &n)) {
      if (hshm_stream_write_record(s, word, n, doc, doc_len) != 0) return 3;
    }
  }
  return rc == 0 && hshm_stream_close(s) == 0 ? 0 : 4;
}
