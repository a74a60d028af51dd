/* Streaming WordCount mapper that combines in memory: counts every word of its input in a hash
 * table and writes "word TAB count" once per distinct word at the end, so the job moves far
 * fewer records (no combiner needed). Runs over pipes or, with -io shm, over the rings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hadoop_accel/shm_stream.h"
#include "words.h"

struct entry {
  char *word; /* NULL: free slot */
  size_t len;
  long long count;
};

static struct entry *table;
static size_t cap = 1 << 16, used;

static size_t hash(const char *s, size_t n) {
  size_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

static struct entry *slot(struct entry *t, size_t c, const char *w, size_t n) {
  size_t i = hash(w, n) & (c - 1);
  while (t[i].word != NULL && !(t[i].len == n && memcmp(t[i].word, w, n) == 0))
    i = (i + 1) & (c - 1);
  return &t[i];
}

static int add(const char *w, size_t n) {
  if (2 * (used + 1) > cap) { /* keep the load under 1/2 */
    struct entry *bigger = calloc(2 * cap, sizeof *bigger);
    if (bigger == NULL) return -1;
    for (size_t i = 0; i < cap; i++)
      if (table[i].word != NULL) *slot(bigger, 2 * cap, table[i].word, table[i].len) = table[i];
    free(table);
    table = bigger;
    cap *= 2;
  }
  struct entry *e = slot(table, cap, w, n);
  if (e->word == NULL) {
    if ((e->word = malloc(n ? n : 1)) == NULL) return -1;
    memcpy(e->word, w, n);
    e->len = n;
    used++;
  }
  e->count++;
  return 0;
}

int main(void) {
  hshm_stream *s = hshm_stream_open();
  if (s == NULL || (table = calloc(cap, sizeof *table)) == NULL) return 2;
  const char *line;
  size_t len;
  int rc;
  while ((rc = hshm_stream_read_line(s, &line, &len)) == 1) {
    size_t at = 0, n;
    const char *word;
    while (next_word(line, len, &at, &word, &n)) {
      if (add(word, n) != 0) return 3;
    }
  }
  if (rc != 0) return 4;
  char count[32];
  for (size_t i = 0; i < cap; i++) {
    if (table[i].word == NULL) continue;
    int n = snprintf(count, sizeof count, "%lld", table[i].count);
    if (hshm_stream_write_record(s, table[i].word, table[i].len, count, (size_t)n) != 0) return 5;
  }
  return hshm_stream_close(s) == 0 ? 0 : 6;
}
