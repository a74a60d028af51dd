/*
 * Buffered byte input and output on stdio for the streaming programs (C17, no POSIX I/O):
 * whole-buffer fread/fwrite instead of per-record stdio calls, which lock the stream each time.
 */
#ifndef ACCEL_STREAM_IO_H
#define ACCEL_STREAM_IO_H

#include <stddef.h>
#include <stdio.h>

#ifndef STREAM_BUFFER_SIZE
#define STREAM_BUFFER_SIZE (64 * 1024)
#endif

/* Reads lines of any length; the buffer grows to hold the longest line. */
typedef struct {
  FILE *in;
  char *buf;
  size_t cap;
  size_t start; /* first unconsumed byte */
  size_t end;   /* one past the last byte read */
  int eof;
  int error;
} line_reader;

/* Output buffer flushed with fwrite when full. */
typedef struct {
  FILE *out;
  char *buf;
  size_t cap;
  size_t len;
  int error;
} out_buffer;

int lr_init(line_reader *r, FILE *in);
void lr_free(line_reader *r);
/*
 * The next line, without its '\n', in *line (writable, NUL-terminated in place) and *len.
 * A last line without '\n' is returned too. Returns 1 for a line, 0 at end of input, -1 on a
 * read or allocation error.
 */
int lr_next(line_reader *r, char **line, size_t *len);

int ob_init(out_buffer *o, FILE *out);
void ob_write(out_buffer *o, const char *data, size_t len);
void ob_char(out_buffer *o, char c);
void ob_u64(out_buffer *o, unsigned long long v);
/* Flushes and reports whether every write succeeded (0) or not (-1). Frees the buffer. */
int ob_close(out_buffer *o);

/* The bytes split on by all WordCount implementations: space, \t, \n, \v, \f, \r. */
static inline int stream_is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

#endif
