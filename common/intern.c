/* DESIGN: one global open-addressing table of interned strings, guarded by intern_lock.
 * Strings are copied into large chunks that are never freed (the chunk list keeps them
 * reachable, so leak checkers see them as still reachable, not lost). Each string is preceded
 * by its hash so that intern_hash is a load. */
#include "common/intern.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct intern_hdr {
	uint32_t hash;
	uint32_t len;
};

struct intern_chunk {
	struct intern_chunk *next;
	size_t used, size;
	_Alignas(8) char data[];
};

#define INTERN_CHUNK (256 * 1024)

/* intern_lock guards every static below. Leaf lock: nothing is called while holding it. */
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
static const char **table; /* pointers to the strings (after their header) */
static size_t table_cap, table_len;
static struct intern_chunk *chunks;

uint32_t intern_hash_bytes(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static const struct intern_hdr *hdr_of(const char *s)
{
	return (const struct intern_hdr *)(const void *)(s - sizeof(struct intern_hdr));
}

uint32_t intern_hash(const char *interned)
{
	return hdr_of(interned)->hash;
}

static int grow_locked(void)
{
	size_t cap = table_cap ? table_cap * 2 : 4096;
	const char **t = calloc(cap, sizeof(*t));
	if (!t)
		return -1;
	for (size_t i = 0; i < table_cap; i++) {
		const char *s = table[i];
		if (!s)
			continue;
		size_t j = hdr_of(s)->hash & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = s;
	}
	free(table);
	table = t;
	table_cap = cap;
	return 0;
}

static char *store_locked(const char *s, size_t len, uint32_t h)
{
	size_t need = (sizeof(struct intern_hdr) + len + 1 + 7) & ~(size_t)7;
	if (!chunks || chunks->size - chunks->used < need) {
		size_t size = need > INTERN_CHUNK ? need : INTERN_CHUNK;
		struct intern_chunk *c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->next = chunks;
		c->used = 0;
		c->size = size;
		chunks = c;
	}
	struct intern_hdr *hdr = (struct intern_hdr *)(void *)(chunks->data + chunks->used);
	chunks->used += need;
	hdr->hash = h;
	hdr->len = (uint32_t)len;
	char *p = (char *)(hdr + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

const char *intern_strn(const char *s, size_t len)
{
	if (!s)
		return NULL;
	uint32_t h = intern_hash_bytes(s, len);
	const char *out = NULL;
	pthread_mutex_lock(&intern_lock);
	if (table_len * 2 >= table_cap && grow_locked() != 0)
		goto out;
	size_t j = h & (table_cap - 1);
	for (; table[j]; j = (j + 1) & (table_cap - 1)) {
		const struct intern_hdr *hd = hdr_of(table[j]);
		if (hd->hash == h && hd->len == len && memcmp(table[j], s, len) == 0) {
			out = table[j];
			goto out;
		}
	}
	out = store_locked(s, len, h);
	if (out) {
		table[j] = out;
		table_len++;
	}
out:
	pthread_mutex_unlock(&intern_lock);
	return out;
}

const char *intern_str(const char *s)
{
	return s ? intern_strn(s, strlen(s)) : NULL;
}

size_t intern_count(void)
{
	pthread_mutex_lock(&intern_lock);
	size_t n = table_len;
	pthread_mutex_unlock(&intern_lock);
	return n;
}
