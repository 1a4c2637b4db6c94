/* Bump allocator: many small allocations, one free.
 *
 * Used for decoded API objects (one arena per object, freed when its last reference goes) and
 * for per-cycle scratch memory (reset once per scheduling cycle). Not thread-safe: an arena
 * belongs to one thread at a time. */
#ifndef CSCHED_ARENA_H
#define CSCHED_ARENA_H

#include <stddef.h>

struct arena;

/* first_block: size of the first block in bytes (0 = a default). NULL on out of memory. */
struct arena *arena_new(size_t first_block);
void arena_free(struct arena *a); /* NULL is a no-op */

/* Returns zeroed memory aligned for any type, or NULL on out of memory. */
void *arena_alloc(struct arena *a, size_t n);
/* Copies s (len bytes plus a NUL) into the arena. */
char *arena_strndup(struct arena *a, const char *s, size_t len);
char *arena_strdup(struct arena *a, const char *s);

/* Forgets every allocation but keeps the first block for reuse. */
void arena_reset(struct arena *a);

/* Bytes handed out since creation or the last reset (for metrics and tests). */
size_t arena_used(const struct arena *a);

#endif
