/* Open-addressing hash map from pointer keys to pointers: keys are hashed and compared by address
 * only, never read. For keys whose address is their identity: interned strings (two equal
 * interned strings are one pointer), objects. map.h is the map for strings by content.
 *
 * No deletion (pmap_clear empties it). Not thread-safe: concurrent pmap_get on a map nobody
 * changes is fine. */
#ifndef CSCHED_PMAP_H
#define CSCHED_PMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmap_slot {
	const void *key; /* NULL = empty */
	void *value;
};

struct pmap {
	struct pmap_slot *slots; /* malloc'd, mask + 1 of them; NULL before the first insert */
	uint32_t mask;
	uint32_t len;
};

void pmap_init(struct pmap *m);
void pmap_release(struct pmap *m); /* frees the table, not keys or values */
void pmap_clear(struct pmap *m);   /* removes every entry, keeps the table */

/* key's value, or NULL when absent (or stored as NULL). */
void *pmap_get(const struct pmap *m, const void *key);
/* key's value slot, inserted with value NULL when absent (*added, if not NULL, says so); NULL on
 * out of memory. The slot is valid until the next insert. key must not be NULL. */
void **pmap_ref(struct pmap *m, const void *key, bool *added);
/* Inserts or replaces. Returns 0, or ERR_NOMEM. */
int pmap_put(struct pmap *m, const void *key, void *value);
static inline size_t pmap_len(const struct pmap *m) { return m->len; }

/* Iteration: for (size_t i = 0; pmap_next(m, &i, &k, &v);) ... ; the map must not change meanwhile. */
bool pmap_next(const struct pmap *m, size_t *iter, const void **key, void **value);

#endif
