/* The examples' tokenizer: whitespace-separated words of a line, as Java's WordCount splits. */
#ifndef HSHM_EXAMPLES_WORDS_H
#define HSHM_EXAMPLES_WORDS_H

#include <ctype.h>
#include <stddef.h>

/* Finds the next word of line[*at, len): 1 with *word / *word_len set and *at past it,
 * 0 when the line has no more words. */
static inline int next_word(const char *line, size_t len, size_t *at, const char **word,
                            size_t *word_len) {
  size_t i = *at;
  while (i < len && isspace((unsigned char)line[i])) i++;
  size_t start = i;
  while (i < len && !isspace((unsigned char)line[i])) i++;
  *at = i;
  *word = line + start;
  *word_len = i - start;
  return i > start;
}

#endif
