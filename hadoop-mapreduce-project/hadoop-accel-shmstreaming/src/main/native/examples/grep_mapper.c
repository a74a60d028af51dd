/* Streaming Grep mapper: "match TAB 1" for every non-overlapping match of a POSIX extended
 * regular expression in each line. The pattern is argv[1], else the job's
 * mapreduce.mapper.regex (streaming exports it as mapreduce_mapper_regex). Runs over pipes or,
 * with -io shm, over the rings; sum the counts with shm_wordcount_reducer. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hadoop_accel/shm_stream.h"

int main(int argc, char **argv) {
  const char *pattern = argc > 1 ? argv[1] : getenv("mapreduce_mapper_regex");
  regex_t re;
  if (pattern == NULL || regcomp(&re, pattern, REG_EXTENDED) != 0) {
    fprintf(stderr, "shm_grep_mapper: no valid pattern (argv[1] or mapreduce.mapper.regex)\n");
    return 2;
  }
  hshm_stream *s = hshm_stream_open();
  if (s == NULL) return 2;
  char *copy = NULL; /* regexec needs a NUL-terminated line */
  size_t copy_cap = 0;
  const char *line;
  size_t len;
  int rc;
  while ((rc = hshm_stream_read_line(s, &line, &len)) == 1) {
    if (len + 1 > copy_cap) {
      copy_cap = 2 * (len + 1);
      if ((copy = realloc(copy, copy_cap)) == NULL) return 3;
    }
    memcpy(copy, line, len);
    copy[len] = '\0';
    regmatch_t m;
    const char *at = copy;
    int flags = 0;
    while (regexec(&re, at, 1, &m, flags) == 0) {
      if (m.rm_eo == m.rm_so) { /* empty match: step over one byte */
        if (at[m.rm_eo] == '\0') break;
        at += m.rm_eo + 1;
      } else {
        if (hshm_stream_write_record(s, at + m.rm_so, (size_t)(m.rm_eo - m.rm_so), "1", 1) != 0)
          return 4;
        at += m.rm_eo;
      }
      flags = REG_NOTBOL;
    }
  }
  free(copy);
  regfree(&re);
  return rc == 0 && hshm_stream_close(s) == 0 ? 0 : 5;
}
