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

int pmap_grow_(struct pmap *m)
{
	uint64_t cap = m->slots ? ((uint64_t)m->mask + 1) * 2 : 16;
	struct pmap n = { .mask = (uint32_t)(cap - 1), .len = m->len };
	if (cap > UINT32_MAX || !(n.slots = calloc(cap, sizeof(*n.slots))))
		return ERR_NOMEM;
	for (uint32_t i = 0; m->slots && i <= m->mask; i++)
		if (m->slots[i].key)
			*pmap_find_(&n, m->slots[i].key) = m->slots[i];
	free(m->slots);
	*m = n;
	return 0;
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
