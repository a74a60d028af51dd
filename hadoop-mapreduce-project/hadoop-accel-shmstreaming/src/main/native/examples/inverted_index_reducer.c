/* Streaming InvertedIndex reducer over ShmStreaming: for each key (lines arrive sorted by key,
 * values in any order), "key TAB doc1,doc2,..." with each document once, in byte order. */
#include <stdlib.h>
#include <string.h>

#include "hadoop_accel/shm_stream.h"

typedef struct {
  char *bytes;
  size_t len;
} slice;

static int compare(const void *a, const void *b) {
  const slice *x = a, *y = b;
  size_t n = x->len < y->len ? x->len : y->len;
  int c = memcmp(x->bytes, y->bytes, n);
  return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

static char *copy(const char *p, size_t n) {
  char *c = malloc(n + 1);
  if (c != NULL) memcpy(c, p, n);
  return c;
}

/* Writes key TAB the sorted distinct documents, and frees them. */
static int emit(hshm_stream *s, const slice *key, slice *docs, size_t n, char **joined,
                size_t *cap) {
  qsort(docs, n, sizeof *docs, compare);
  size_t used = 0;
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && compare(&docs[i - 1], &docs[i]) == 0) continue;
    if (used + docs[i].len + 1 > *cap) {
      *cap = (used + docs[i].len + 1) * 2;
      char *bigger = realloc(*joined, *cap);
      if (bigger == NULL) return -1;
      *joined = bigger;
    }
    if (used > 0) (*joined)[used++] = ',';
    memcpy(*joined + used, docs[i].bytes, docs[i].len);
    used += docs[i].len;
  }
  int rc = hshm_stream_write_record(s, key->bytes, key->len, *joined, used);
  for (size_t i = 0; i < n; i++) free(docs[i].bytes);
  return rc;
}

int main(void) {
  hshm_stream *s = hshm_stream_open();
  if (s == NULL) return 2;
  slice key = {NULL, 0};
  slice *docs = NULL;
  size_t ndocs = 0, docs_cap = 0, joined_cap = 0;
  char *joined = NULL;
  const char *line;
  size_t len;
  int rc;
  while ((rc = hshm_stream_read_line(s, &line, &len)) == 1) {
    const char *tab = memchr(line, '\t', len);
    size_t klen = tab ? (size_t)(tab - line) : len;
    if (key.bytes != NULL && (klen != key.len || memcmp(key.bytes, line, klen) != 0)) {
      if (emit(s, &key, docs, ndocs, &joined, &joined_cap) != 0) return 3;
      ndocs = 0;
      free(key.bytes);
      key.bytes = NULL;
    }
    if (key.bytes == NULL) {
      key.bytes = copy(line, klen);
      key.len = klen;
      if (key.bytes == NULL) return 5;
    }
    if (ndocs == docs_cap) {
      docs_cap = docs_cap * 2 + 16;
      docs = realloc(docs, docs_cap * sizeof *docs);
      if (docs == NULL) return 5;
    }
    size_t vlen = tab ? len - klen - 1 : 0;
    docs[ndocs].bytes = copy(tab ? tab + 1 : "", vlen);
    docs[ndocs].len = vlen;
    if (docs[ndocs++].bytes == NULL) return 5;
  }
  if (key.bytes != NULL && emit(s, &key, docs, ndocs, &joined, &joined_cap) != 0) return 3;
  free(key.bytes);
  free(docs);
  free(joined);
  return rc == 0 && hshm_stream_close(s) == 0 ? 0 : 4;
}
