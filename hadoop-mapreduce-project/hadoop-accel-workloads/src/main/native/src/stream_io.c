#include "stream_io.h"

#include <stdlib.h>
#include <string.h>

int lr_init(line_reader *r, FILE *in) {
  memset(r, 0, sizeof(*r));
  r->in = in;
  r->cap = STREAM_BUFFER_SIZE;
  r->buf = malloc(r->cap + 1); /* +1: room for the NUL of a last line that fills the buffer */
  return r->buf ? 0 : -1;
}

void lr_free(line_reader *r) {
  free(r->buf);
  r->buf = NULL;
}

int lr_next(line_reader *r, char **line, size_t *len) {
  size_t scanned = r->start;
  for (;;) {
    char *nl = memchr(r->buf + scanned, '\n', r->end - scanned);
    if (nl) {
      *line = r->buf + r->start;
      *len = (size_t)(nl - *line);
      *nl = '\0';
      r->start = (size_t)(nl - r->buf) + 1;
      return 1;
    }
    if (r->eof) {
      if (r->start == r->end) {
        return r->error ? -1 : 0;
      }
      *line = r->buf + r->start;
      *len = r->end - r->start;
      r->buf[r->end] = '\0';
      r->start = r->end;
      return 1;
    }
    /* No newline in the buffered bytes: keep the partial line, make room, read more. */
    size_t partial = r->end - r->start;
    if (r->start > 0) {
      memmove(r->buf, r->buf + r->start, partial);
      r->start = 0;
      r->end = partial;
    }
    if (r->end == r->cap) {
      size_t cap = r->cap * 2;
      char *grown = realloc(r->buf, cap + 1);
      if (!grown) {
        return -1;
      }
      r->buf = grown;
      r->cap = cap;
    }
    scanned = r->end;
    size_t n = fread(r->buf + r->end, 1, r->cap - r->end, r->in);
    r->end += n;
    if (n == 0) {
      r->eof = 1;
      r->error = ferror(r->in) != 0;
    }
  }
}

int ob_init(out_buffer *o, FILE *out) {
  memset(o, 0, sizeof(*o));
  o->out = out;
  o->cap = STREAM_BUFFER_SIZE;
  o->buf = malloc(o->cap);
  return o->buf ? 0 : -1;
}

static void ob_flush(out_buffer *o) {
  if (o->len > 0 && fwrite(o->buf, 1, o->len, o->out) != o->len) {
    o->error = 1;
  }
  o->len = 0;
}

void ob_write(out_buffer *o, const char *data, size_t len) {
  while (len > 0) {
    if (o->len == o->cap) {
      ob_flush(o);
    }
    size_t n = o->cap - o->len;
    if (n > len) {
      n = len;
    }
    memcpy(o->buf + o->len, data, n);
    o->len += n;
    data += n;
    len -= n;
  }
}

void ob_char(out_buffer *o, char c) {
  if (o->len == o->cap) {
    ob_flush(o);
  }
  o->buf[o->len++] = c;
}

void ob_u64(out_buffer *o, unsigned long long v) {
  char digits[24];
  size_t n = 0;
  do {
    digits[sizeof(digits) - 1 - n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  ob_write(o, digits + sizeof(digits) - n, n);
}

int ob_close(out_buffer *o) {
  ob_flush(o);
  if (fflush(o->out) != 0 || ferror(o->out)) {
    o->error = 1;
  }
  free(o->buf);
  o->buf = NULL;
  return o->error ? -1 : 0;
}
