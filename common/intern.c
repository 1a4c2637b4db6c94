/* DESIGN: one global open-addressing (linear probing) table of interned strings, guarded by
 * intern_lock. Each string is its own allocation, preceded by a header holding its hash (so
 * intern_hash is a load), its length, its counted references and whether it is pinned. A string
 * leaves the table (backward-shift deletion, so no tombstones) and is freed when its last counted
 * reference goes and it was never pinned: a churned pod's UID and labels do not outlive it. The
 * table halves when it falls under 1/4 full (it doubles at 1/2): a burst of pods does not keep
 * its slots. */
#include "common/intern.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct intern_hdr {
	uint32_t hash;
	uint32_t len;
	uint32_t refs;   /* counted references; guarded by intern_lock */
	uint32_t pinned; /* 1 once intern_str returned it (or refs would overflow); set under intern_lock,
			  * never cleared, read with atomics so intern_pinned needs no lock */
};

#define INTERN_MIN_CAP 4096

/* intern_lock guards every static below and every header's refs and pinned. Leaf lock: nothing
 * is called while holding it but malloc and free. */
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
static struct intern_hdr **table; /* the headers (so leak checkers see the strings as reachable) */
static size_t table_cap, table_len, n_pinned, bytes_held;

uint32_t intern_hash_bytes(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static struct intern_hdr *hdr_of(const char *s)
{
	return (struct intern_hdr *)(void *)(uintptr_t)(s - sizeof(struct intern_hdr));
}

static const char *str_of(const struct intern_hdr *h)
{
	return (const char *)(h + 1);
}

uint32_t intern_hash(const char *interned)
{
	return hdr_of(interned)->hash;
}

static int resize_locked(size_t cap)
{
	struct intern_hdr **t = calloc(cap, sizeof(*t));
	if (!t)
		return -1;
	for (size_t i = 0; i < table_cap; i++) {
		struct intern_hdr *h = table[i];
		if (!h)
			continue;
		size_t j = h->hash & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = h;
	}
	free(table);
	table = t;
	table_cap = cap;
	return 0;
}

static char *store(const char *s, size_t len, uint32_t h)
{
	size_t need = sizeof(struct intern_hdr) + len + 1;
	struct intern_hdr *hdr = malloc(need);
	if (!hdr)
		return NULL;
	*hdr = (struct intern_hdr){ .hash = h, .len = (uint32_t)len };
	char *p = (char *)(hdr + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	bytes_held += need;
	return p;
}

/* The canonical copy of s (found or stored), or NULL on out of memory (or, when !create, when
 * absent). */
static const char *lookup_locked(const char *s, size_t len, bool create)
{
	uint32_t h = intern_hash_bytes(s, len);
	if (create && table_len * 2 >= table_cap && resize_locked(table_cap ? table_cap * 2 : INTERN_MIN_CAP) != 0)
		return NULL;
	if (!table_cap)
		return NULL;
	size_t j = h & (table_cap - 1);
	for (; table[j]; j = (j + 1) & (table_cap - 1)) {
		const struct intern_hdr *hd = table[j];
		if (hd->hash == h && hd->len == len && memcmp(str_of(hd), s, len) == 0)
			return str_of(hd);
	}
	if (!create)
		return NULL;
	const char *out = store(s, len, h);
	if (out) {
		table[j] = hdr_of(out);
		table_len++;
	}
	return out;
}

const char *intern_strn(const char *s, size_t len)
{
	if (!s)
		return NULL;
	pthread_mutex_lock(&intern_lock);
	const char *out = lookup_locked(s, len, true);
	if (out && !hdr_of(out)->pinned) {
		__atomic_store_n(&hdr_of(out)->pinned, 1, __ATOMIC_RELAXED);
		n_pinned++;
	}
	pthread_mutex_unlock(&intern_lock);
	return out;
}

const char *intern_str(const char *s)
{
	return s ? intern_strn(s, strlen(s)) : NULL;
}

static void ref_locked(const char *s)
{
	struct intern_hdr *hd = hdr_of(s);
	if (hd->pinned)
		return;
	if (++hd->refs == UINT32_MAX) { /* cannot count further: keep it for good */
		__atomic_store_n(&hd->pinned, 1, __ATOMIC_RELAXED);
		n_pinned++;
	}
}

const char *intern_acquire(const char *s, size_t len)
{
	if (!s)
		return NULL;
	pthread_mutex_lock(&intern_lock);
	const char *out = lookup_locked(s, len, true);
	if (out)
		ref_locked(out);
	pthread_mutex_unlock(&intern_lock);
	return out;
}

const char *intern_ref(const char *interned)
{
	if (!interned)
		return NULL;
	pthread_mutex_lock(&intern_lock);
	ref_locked(interned);
	pthread_mutex_unlock(&intern_lock);
	return interned;
}

void intern_ref_n(const char *const *interned, size_t n)
{
	if (!n)
		return;
	pthread_mutex_lock(&intern_lock);
	for (size_t i = 0; i < n; i++)
		if (interned[i])
			ref_locked(interned[i]);
	pthread_mutex_unlock(&intern_lock);
}

/* Removes s from the table by backward-shift deletion and frees it. */
static void remove_locked(const char *s)
{
	struct intern_hdr *hs = hdr_of(s);
	size_t mask = table_cap - 1, i = hs->hash & mask;
	while (table[i] != hs)
		i = (i + 1) & mask;
	for (size_t j = i;;) {
		j = (j + 1) & mask;
		if (!table[j])
			break;
		size_t k = table[j]->hash & mask; /* table[j]'s home slot */
		/* table[j] may move to i only when its home is not in (i, j] (cyclically) */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		table[i] = table[j];
		i = j;
	}
	table[i] = NULL;
	table_len--;
	bytes_held -= sizeof(struct intern_hdr) + hs->len + 1;
	free(hs);
}

static void release_locked(const char *s)
{
	struct intern_hdr *hd = hdr_of(s);
	if (hd->pinned || hd->refs == 0) /* refs == 0: a release without a reference; ignore */
		return;
	if (--hd->refs == 0)
		remove_locked(s);
}

void intern_release_n(const char *const *interned, size_t n)
{
	if (!n)
		return;
	pthread_mutex_lock(&intern_lock);
	for (size_t i = 0; i < n; i++)
		if (interned[i])
			release_locked(interned[i]);
	if (table_cap > INTERN_MIN_CAP && table_len * 4 < table_cap)
		resize_locked(table_cap / 2); /* on failure the larger table stays, still valid */
	pthread_mutex_unlock(&intern_lock);
}

void intern_release(const char *interned)
{
	intern_release_n(&interned, interned ? 1 : 0);
}

bool intern_pinned(const char *interned)
{
	return __atomic_load_n(&hdr_of(interned)->pinned, __ATOMIC_RELAXED) != 0;
}

const char *intern_find(const char *s)
{
	if (!s)
		return NULL;
	pthread_mutex_lock(&intern_lock);
	const char *out = lookup_locked(s, strlen(s), false);
	pthread_mutex_unlock(&intern_lock);
	return out;
}

size_t intern_count(void)
{
	pthread_mutex_lock(&intern_lock);
	size_t n = table_len;
	pthread_mutex_unlock(&intern_lock);
	return n;
}

void intern_get_stats(struct intern_stats *out)
{
	pthread_mutex_lock(&intern_lock);
	*out = (struct intern_stats){ .count = table_len, .pinned = n_pinned, .bytes = bytes_held, .table_cap = table_cap };
	pthread_mutex_unlock(&intern_lock);
}
