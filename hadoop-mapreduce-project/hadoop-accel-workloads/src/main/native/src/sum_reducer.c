/*
 * Streaming sum reducer (WordCount and Grep, and their combiner): reads "key\tcount" lines
 * sorted by key, writes "key\tsum" once per run of equal keys. The key is everything before
 * the first TAB; a line without TAB counts as one occurrence of the whole line; empty lines are
 * ignored. A count that is not a non-negative decimal integer is an error (exit 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream_io.h"

#ifndef PROGRAM_NAME
#define PROGRAM_NAME "sum-reducer"
#endif

static int parse_count(const char *s, size_t len, unsigned long long *v) {
  if (len == 0) {
    return -1;
  }
  unsigned long long x = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') {
      return -1;
    }
    unsigned long long d = (unsigned long long)(s[i] - '0');
    if (x > (~0ULL - d) / 10) {
      return -1; /* overflow */
    }
    x = x * 10 + d;
  }
  *v = x;
  return 0;
}

int main(void) {
  line_reader in;
  out_buffer out;
  size_t key_cap = 256;
  char *key = malloc(key_cap);
  if (!key || lr_init(&in, stdin) != 0 || ob_init(&out, stdout) != 0) {
    fputs(PROGRAM_NAME ": out of memory\n", stderr);
    return 1;
  }
  size_t key_len = 0;
  int have_key = 0;
  unsigned long long sum = 0;
  unsigned long long lineno = 0;
  char *line;
  size_t len;
  int rc;
  while ((rc = lr_next(&in, &line, &len)) == 1) {
    lineno++;
    if (len > 0 && line[len - 1] == '\r') {
      len--;
    }
    if (len == 0) {
      continue;
    }
    char *tab = memchr(line, '\t', len);
    size_t klen = tab ? (size_t)(tab - line) : len;
    unsigned long long count = 1;
    if (tab && parse_count(tab + 1, len - klen - 1, &count) != 0) {
      fprintf(stderr, PROGRAM_NAME ": line %llu: bad count '%.*s'\n", lineno, (int)(len - klen - 1),
              tab + 1);
      return 1;
    }
    if (have_key && klen == key_len && memcmp(line, key, klen) == 0) {
      sum += count;
      continue;
    }
    if (have_key) {
      ob_write(&out, key, key_len);
      ob_char(&out, '\t');
      ob_u64(&out, sum);
      ob_char(&out, '\n');
    }
    if (klen > key_cap) {
      free(key);
      key_cap = klen * 2;
      key = malloc(key_cap);
      if (!key) {
        fputs(PROGRAM_NAME ": out of memory\n", stderr);
        return 1;
      }
    }
    memcpy(key, line, klen);
    key_len = klen;
    have_key = 1;
    sum = count;
  }
  if (have_key) {
    ob_write(&out, key, key_len);
    ob_char(&out, '\t');
    ob_u64(&out, sum);
    ob_char(&out, '\n');
  }
  free(key);
  lr_free(&in);
  if (ob_close(&out) != 0) {
    fputs(PROGRAM_NAME ": write error\n", stderr);
    return 1;
  }
  if (rc < 0) {
    fputs(PROGRAM_NAME ": read error\n", stderr);
    return 1;
  }
  return 0;
}
