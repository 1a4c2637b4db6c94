/* A growable, always NUL-terminated byte string (git's strbuf, reduced).
 *
 * Embedded: `struct strbuf sb = STRBUF_INIT;` ... strbuf_release(&sb). data is NULL until the
 * first add; after one it is NUL-terminated (the NUL not counted in len). Running out of memory
 * is sticky: `oom` stays set and every later add fails, so a writer can add many pieces and check
 * once at the end. Not thread-safe. */
#ifndef CSCHED_COMMON_STRBUF_H
#define CSCHED_COMMON_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf {
	char *data; /* owned; take it with strbuf_detach */
	size_t len, cap;
	bool oom;
};
#define STRBUF_INIT {0}

/* Room for `more` bytes and the NUL without a further allocation; false on out of memory. */
bool strbuf_grow(struct strbuf *sb, size_t more);
/* Appends n bytes; false on out of memory (sb->oom set) or when sb would pass max bytes (then
 * nothing is added and oom stays clear). */
bool strbuf_add_max(struct strbuf *sb, const void *p, size_t n, size_t max);
bool strbuf_add(struct strbuf *sb, const void *p, size_t n);
bool strbuf_puts(struct strbuf *sb, const char *s);
bool strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The string, now the caller's to free (NULL if nothing was ever added); sb is empty again. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_release(struct strbuf *sb);

#endif
