/* Bump allocator: many small allocations, one free.
 *
 * Used for decoded API objects (one arena per object, freed when its last reference goes) and
 * for per-cycle scratch memory (reset once per scheduling cycle). Not thread-safe: an arena
 * belongs to one thread at a time. */
#ifndef CSCHED_ARENA_H
#define CSCHED_ARENA_H

#include <stdbool.h>
#include <stddef.h>

struct arena;

/* first_block: size of the first block in bytes (0 = a default); the arena header and the first
 * block are one allocation. Later blocks double in size. NULL on out of memory. */
struct arena *arena_new(size_t first_block);
void arena_free(struct arena *a); /* NULL is a no-op */

/* Returns zeroed memory aligned for any type (16 bytes), or NULL on out of memory. */
void *arena_alloc(struct arena *a, size_t n);
/* Copies s (len bytes plus a NUL) into the arena, unaligned (strings are packed). */
char *arena_strndup(struct arena *a, const char *s, size_t len);
char *arena_strdup(struct arena *a, const char *s);

/* Forgets every allocation but keeps the first block for reuse. */
void arena_reset(struct arena *a);

/* Bytes handed out since creation or the last reset (for metrics and tests). */
size_t arena_used(const struct arena *a);
/* Bytes of block space taken since creation or the last reset, alignment padding included: the
 * first-block size that would have held everything. */
size_t arena_footprint(const struct arena *a);
/* true when the first block was too small and a second block was allocated. */
bool arena_overflowed(const struct arena *a);

#endif
