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

/* Probes are inline: the plugins' hot loops call them per node and per pod. */
static inline uint32_t pmap_hash_(const void *key)
{
	/* Fibonacci hashing of the address: its high bits, where the low (alignment) bits mixed in */
	return (uint32_t)(((uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull) >> 32);
}

/* key's slot, or the empty slot where it would go (the table is at most 3/4 full). */
static inline struct pmap_slot *pmap_find_(const struct pmap *m, const void *key)
{
	for (uint32_t i = pmap_hash_(key) & m->mask;; i = (i + 1) & m->mask)
		if (m->slots[i].key == key || !m->slots[i].key)
			return &m->slots[i];
}

int pmap_grow_(struct pmap *m); /* doubles the table; ERR_NOMEM */

void pmap_init(struct pmap *m);
void pmap_release(struct pmap *m); /* frees the table, not keys or values */
void pmap_clear(struct pmap *m);   /* removes every entry, keeps the table */

/* key's value, or NULL when absent (or stored as NULL). */
static inline void *pmap_get(const struct pmap *m, const void *key)
{
	return m->len ? pmap_find_(m, key)->value : NULL;
}

/* key's value slot, inserted with value NULL when absent (*added, if not NULL, says so); NULL on
 * out of memory. The slot is valid until the next insert. key must not be NULL. */
static inline void **pmap_ref(struct pmap *m, const void *key, bool *added)
{
	if ((!m->slots || 4 * ((uint64_t)m->len + 1) > 3 * ((uint64_t)m->mask + 1)) && pmap_grow_(m) < 0)
		return NULL;
	struct pmap_slot *sl = pmap_find_(m, key);
	bool add = !sl->key;
	if (add) {
		*sl = (struct pmap_slot){ key, NULL };
		m->len++;
	}
	if (added)
		*added = add;
	return &sl->value;
}
/* Inserts or replaces. Returns 0, or ERR_NOMEM. */
int pmap_put(struct pmap *m, const void *key, void *value);
static inline size_t pmap_len(const struct pmap *m) { return m->len; }

/* Iteration: for (size_t i = 0; pmap_next(m, &i, &k, &v);) ... ; the map must not change meanwhile. */
bool pmap_next(const struct pmap *m, size_t *iter, const void **key, void **value);

#endif
