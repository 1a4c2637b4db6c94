#include "common/pmap.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

void pmap_init(struct pmap *m)
{
	memset(m, 0, sizeof(*m));
}

void pmap_release(struct pmap *m)
{
	free(m->slots);
	pmap_init(m);
}

void pmap_clear(struct pmap *m)
{
	if (m->slots)
		memset(m->slots, 0, ((size_t)m->mask + 1) * sizeof(*m->slots));
	m->len = 0;
}

/* Fibonacci hashing of the address: its high bits, where the low (alignment) bits have mixed in. */
static uint32_t hash(const void *key)
{
	return (uint32_t)(((uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull) >> 32);
}

/* key's slot, or the empty slot where it would go (the table has one: at most 3/4 full). */
static struct pmap_slot *find(const struct pmap *m, const void *key)
{
	for (uint32_t i = hash(key) & m->mask;; i = (i + 1) & m->mask)
		if (m->slots[i].key == key || !m->slots[i].key)
			return &m->slots[i];
}

void *pmap_get(const struct pmap *m, const void *key)
{
	return m->len ? find(m, key)->value : NULL;
}

static int grow(struct pmap *m)
{
	uint64_t cap = m->slots ? ((uint64_t)m->mask + 1) * 2 : 16;
	struct pmap n = { .mask = (uint32_t)(cap - 1), .len = m->len };
	if (cap > UINT32_MAX || !(n.slots = calloc(cap, sizeof(*n.slots))))
		return ERR_NOMEM;
	for (uint32_t i = 0; m->slots && i <= m->mask; i++)
		if (m->slots[i].key)
			*find(&n, m->slots[i].key) = m->slots[i];
	free(m->slots);
	*m = n;
	return 0;
}

void **pmap_ref(struct pmap *m, const void *key, bool *added)
{
	if ((!m->slots || 4 * ((uint64_t)m->len + 1) > 3 * ((uint64_t)m->mask + 1)) && grow(m) < 0)
		return NULL;
	struct pmap_slot *sl = find(m, key);
	bool add = !sl->key;
	if (add) {
		*sl = (struct pmap_slot){ key, NULL };
		m->len++;
	}
	if (added)
		*added = add;
	return &sl->value;
}

int pmap_put(struct pmap *m, const void *key, void *value)
{
	void **v = pmap_ref(m, key, NULL);
	if (!v)
		return ERR_NOMEM;
	*v = value;
	return 0;
}

bool pmap_next(const struct pmap *m, size_t *iter, const void **key, void **value)
{
	for (size_t i = *iter; m->slots && i <= m->mask; i++) {
		if (m->slots[i].key) {
			*key = m->slots[i].key;
			*value = m->slots[i].value;
			*iter = i + 1;
			return true;
		}
	}
	return false;
}
