#include "common/map.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/intern.h"

const char map_tombstone_[] = "<deleted>";

void map_init(struct map *m)
{
	memset(m, 0, sizeof(*m));
}

void map_release(struct map *m)
{
	free(m->slots);
	map_init(m);
}

static uint32_t key_hash(const char *key)
{
	return intern_hash_bytes(key, strlen(key));
}

static bool key_eq(const struct map_slot *s, const char *key, uint32_t h)
{
	return s->key != MAP_TOMBSTONE && s->hash == h && (s->key == key || strcmp(s->key, key) == 0);
}

/* Index of key's slot, or of the slot where it would go (first tombstone or empty). */
static size_t find(const struct map *m, const char *key, uint32_t h, bool *found)
{
	size_t mask = m->cap - 1, i = h & mask, tomb = SIZE_MAX;
	for (;; i = (i + 1) & mask) {
		const struct map_slot *s = &m->slots[i];
		if (!s->key) {
			*found = false;
			return tomb != SIZE_MAX ? tomb : i;
		}
		if (s->key == MAP_TOMBSTONE) {
			if (tomb == SIZE_MAX)
				tomb = i;
		} else if (key_eq(s, key, h)) {
			*found = true;
			return i;
		}
	}
}

void *map_get(const struct map *m, const char *key)
{
	if (!m->len)
		return NULL;
	bool found;
	size_t i = find(m, key, key_hash(key), &found);
	return found ? m->slots[i].value : NULL;
}

static int rehash(struct map *m, size_t cap)
{
	struct map_slot *slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return ERR_NOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		struct map_slot *s = &m->slots[i];
		if (!s->key || s->key == MAP_TOMBSTONE)
			continue;
		size_t j = s->hash & (cap - 1);
		while (slots[j].key)
			j = (j + 1) & (cap - 1);
		slots[j] = *s;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	m->used = m->len;
	return 0;
}

int map_put(struct map *m, const char *key, void *value, void **old)
{
	if (old)
		*old = NULL;
	if ((m->used + 1) * 4 >= m->cap * 3) {
		size_t cap = m->cap ? m->cap : 16;
		while ((m->len + 1) * 2 >= cap)
			cap *= 2;
		int rc = rehash(m, cap);
		if (rc)
			return rc;
	}
	uint32_t h = key_hash(key);
	bool found;
	size_t i = find(m, key, h, &found);
	struct map_slot *s = &m->slots[i];
	if (found) {
		if (old)
			*old = s->value;
		s->key = key; /* the new value may own a new copy of the key */
		s->value = value;
		return 0;
	}
	if (!s->key)
		m->used++;
	s->key = key;
	s->hash = h;
	s->value = value;
	m->len++;
	return 0;
}

void *map_del(struct map *m, const char *key)
{
	if (!m->len)
		return NULL;
	bool found;
	size_t i = find(m, key, key_hash(key), &found);
	if (!found)
		return NULL;
	void *v = m->slots[i].value;
	m->slots[i].key = MAP_TOMBSTONE;
	m->slots[i].value = NULL;
	m->len--;
	return v;
}

bool map_next(const struct map *m, size_t *iter, const char **key, void **value)
{
	for (size_t i = *iter; i < m->cap; i++) {
		const struct map_slot *s = &m->slots[i];
		if (s->key && s->key != MAP_TOMBSTONE) {
			if (key)
				*key = s->key;
			if (value)
				*value = s->value;
			*iter = i + 1;
			return true;
		}
	}
	*iter = m->cap;
	return false;
}
