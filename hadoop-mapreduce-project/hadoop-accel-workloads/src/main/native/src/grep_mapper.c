/*
 * Streaming Grep mapper: "match\t1\n" for every non-overlapping match of a POSIX extended
 * regular expression in every line of stdin (like upstream's RegexMapper with Matcher.find).
 *
 *   grep-mapper [REGEX [GROUP]]
 *
 * Without arguments the pattern and group come from the job configuration, which streaming
 * exports to the environment: mapreduce_mapper_regex and mapreduce_mapper_regexmapper__group
 * (from -D mapreduce.mapper.regex=... and -D mapreduce.mapper.regexmapper..group=...).
 * POSIX ERE is not Java regex syntax: keep patterns to the common subset (literals, [], *, +,
 * ?, {m,n}, ^, $, groups) for identical results. Lines are matched up to their first NUL byte.
 */
#define _POSIX_C_SOURCE 200809L

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream_io.h"

#define MAX_GROUPS 10

int main(int argc, char **argv) {
  const char *pattern = argc > 1 ? argv[1] : getenv("mapreduce_mapper_regex");
  const char *group_text = argc > 2 ? argv[2] : getenv("mapreduce_mapper_regexmapper__group");
  if (!pattern || argc > 3) {
    fputs("usage: grep-mapper [REGEX [GROUP]] (or set mapreduce.mapper.regex)\n", stderr);
    return 2;
  }
  int group = 0;
  if (group_text && *group_text) {
    char *end;
    long g = strtol(group_text, &end, 10);
    if (*end != '\0' || g < 0 || g >= MAX_GROUPS) {
      fprintf(stderr, "grep-mapper: bad group '%s' (0..%d)\n", group_text, MAX_GROUPS - 1);
      return 2;
    }
    group = (int)g;
  }
  regex_t re;
  int err = regcomp(&re, pattern, REG_EXTENDED);
  if (err != 0) {
    char msg[256];
    regerror(err, &re, msg, sizeof(msg));
    fprintf(stderr, "grep-mapper: bad regex '%s': %s\n", pattern, msg);
    return 2;
  }
  if ((size_t)group > re.re_nsub) {
    fprintf(stderr, "grep-mapper: group %d but the regex has %zu groups\n", group, re.re_nsub);
    return 2;
  }
  line_reader in;
  out_buffer out;
  if (lr_init(&in, stdin) != 0 || ob_init(&out, stdout) != 0) {
    fputs("grep-mapper: out of memory\n", stderr);
    return 1;
  }
  regmatch_t m[MAX_GROUPS];
  char *line;
  size_t len;
  int rc;
  while ((rc = lr_next(&in, &line, &len)) == 1) {
    size_t pos = 0;
    size_t end = strlen(line); /* stop at an embedded NUL */
    int flags = 0;
    while (pos <= end && regexec(&re, line + pos, MAX_GROUPS, m, flags) == 0) {
      if (m[group].rm_so >= 0) {
        ob_write(&out, line + pos + m[group].rm_so, (size_t)(m[group].rm_eo - m[group].rm_so));
        ob_write(&out, "\t1\n", 3);
      }
      /* Continue after the match; after an empty match, one byte further. */
      pos += (size_t)(m[0].rm_eo > m[0].rm_so ? m[0].rm_eo : m[0].rm_eo + 1);
      flags = REG_NOTBOL;
    }
  }
  regfree(&re);
  lr_free(&in);
  if (ob_close(&out) != 0) {
    fputs("grep-mapper: write error\n", stderr);
    return 1;
  }
  if (rc < 0) {
    fputs("grep-mapper: read error\n", stderr);
    return 1;
  }
  return 0;
}
