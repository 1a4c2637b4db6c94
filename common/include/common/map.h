/* Open-addressing hash map from string keys to pointers.
 *
 * Keys are borrowed: the caller keeps each key alive while it is in the map (interned strings,
 * or a string inside the value). Not thread-safe: the owner's lock guards it. */
#ifndef CSCHED_MAP_H
#define CSCHED_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct map_slot {
	const char *key; /* NULL = empty; MAP_TOMBSTONE = deleted */
	uint32_t hash;
	void *value;
};

struct map {
	struct map_slot *slots;
	size_t cap; /* power of two, or 0 */
	size_t len; /* live entries */
	size_t used; /* live + tombstones */
};

extern const char map_tombstone_[];
#define MAP_TOMBSTONE (map_tombstone_)

void map_init(struct map *m);
void map_release(struct map *m); /* frees the table, not keys or values */

void *map_get(const struct map *m, const char *key);
/* Inserts or replaces. Returns 0, or ERR_NOMEM. *old (if not NULL) receives the replaced value or NULL. */
int map_put(struct map *m, const char *key, void *value, void **old);
/* Removes key; returns its value or NULL. */
void *map_del(struct map *m, const char *key);
static inline size_t map_len(const struct map *m) { return m->len; }

/* Iteration: for (size_t i = 0; map_next(m, &i, &k, &v);) ... ; the map must not change meanwhile
 * except by map_del of the current key. */
bool map_next(const struct map *m, size_t *iter, const char **key, void **value);

#endif
