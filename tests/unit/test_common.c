/* Unit tests for common/: err, arena, intern, map, pmap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/array.h"
#include "common/err.h"
#include "common/intern.h"
#include "common/map.h"
#include "common/pmap.h"

static void test_err_set_and_prefix(void **state)
{
	(void)state;
	struct err e = {0};
	assert_int_equal(err_set(&e, ERR_INVALID, "weight: must be %d..%d", 1, 100), ERR_INVALID);
	assert_string_equal(e.msg, "weight: must be 1..100");
	assert_int_equal(err_prefix(&e, "%s:%d:%d", "c.yaml", 12, 5), ERR_INVALID);
	assert_string_equal(e.msg, "c.yaml:12:5: weight: must be 1..100");
	assert_int_equal(err_set(NULL, ERR_GONE, "dropped"), ERR_GONE);
	/* A long prefix is cut to the buffer, never overflowing it. */
	char longp[2000];
	memset(longp, 'x', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = '\0';
	err_prefix(&e, "%s", longp);
	assert_int_equal(strlen(e.msg), ERR_MSG_MAX - 1);
	err_clear(&e);
	assert_int_equal(e.code, 0);
	assert_string_equal(e.msg, "");
	assert_string_equal(err_code_str(ERR_CONFLICT), "conflict");
}

static void test_arena(void **state)
{
	(void)state;
	struct arena *a = arena_new(64);
	assert_non_null(a);
	char *s = arena_strdup(a, "hello");
	assert_string_equal(s, "hello");
	/* Allocations larger than a block still succeed and are zeroed and aligned. */
	for (size_t n = 1; n < 5000; n = n * 3 + 1) {
		unsigned char *p = arena_alloc(a, n);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 16, 0);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(p[i], 0);
		memset(p, 0xab, n);
	}
	assert_string_equal(s, "hello"); /* earlier allocations survive growth */
	assert_int_equal(arena_used(a), 6 + 1 + 4 + 13 + 40 + 121 + 364 + 1093 + 3280);
	arena_reset(a);
	assert_int_equal(arena_used(a), 0);
	assert_non_null(arena_alloc(a, 10));
	arena_free(a);
	arena_free(NULL);
}

/* One sequence of allocations: structures (16-byte aligned) and strings (packed). */
static void arena_sequence(struct arena *a)
{
	static const size_t sizes[] = { 40, 3, 24, 7, 100, 1, 64, 200, 5, 16, 333, 2 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (i % 2) {
			char s[400];
			memset(s, 'x', sizes[i]);
			assert_non_null(arena_strndup(a, s, sizes[i]));
		} else {
			assert_non_null(arena_alloc(a, sizes[i]));
		}
	}
}

/* What the decoders rely on: strings are packed, the footprint of an arena that overflowed is a
 * first block that holds the same allocations without overflowing. */
static void test_arena_footprint(void **state)
{
	(void)state;
	struct arena *a = arena_new(256);
	char *s1 = arena_strdup(a, "ab"), *s2 = arena_strdup(a, "cd");
	assert_ptr_equal(s2, s1 + 3);
	assert_int_equal((uintptr_t)arena_alloc(a, 8) % 16, 0);
	assert_int_equal(arena_footprint(a), 16 + 8); /* the strings and the padding before the struct */
	assert_false(arena_overflowed(a));
	arena_reset(a);
	assert_int_equal(arena_footprint(a), 0);
	arena_free(a);

	for (size_t first = 16; first <= 1024; first += 8) {
		a = arena_new(first);
		arena_sequence(a);
		size_t need = arena_footprint(a);
		bool over = arena_overflowed(a);
		assert_true(over == (need > first));
		arena_free(a);
		if (!over)
			continue;
		a = arena_new(need);
		arena_sequence(a);
		assert_false(arena_overflowed(a));
		assert_true(arena_footprint(a) <= need);
		arena_free(a);
	}
}

static void test_intern_identity(void **state)
{
	(void)state;
	char buf[32];
	strcpy(buf, "topology.kubernetes.io/zone");
	const char *a = intern_str(buf);
	const char *b = intern_str("topology.kubernetes.io/zone");
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, buf);
	assert_ptr_equal(intern_strn("zone-a-long", 6), intern_str("zone-a"));
	assert_ptr_not_equal(intern_str("a"), intern_str("b"));
	assert_int_equal(intern_hash(a), intern_hash_bytes(buf, strlen(buf)));
	assert_null(intern_str(NULL));
	assert_string_equal(intern_str(""), "");
	/* Many strings force table growth; identity holds across it. */
	const char *first = intern_str("k0");
	for (int i = 0; i < 20000; i++) {
		snprintf(buf, sizeof(buf), "k%d", i);
		assert_string_equal(intern_str(buf), buf);
	}
	assert_ptr_equal(intern_str("k0"), first);
	assert_true(intern_count() >= 20000);
}

static void *intern_worker(void *arg)
{
	const char **out = arg;
	char buf[16];
	for (int i = 0; i < 2000; i++) {
		snprintf(buf, sizeof(buf), "t%d", i);
		out[i] = intern_str(buf);
	}
	return NULL;
}

static void test_intern_threads(void **state)
{
	(void)state;
	static const char *r[4][2000];
	pthread_t th[4];
	for (int t = 0; t < 4; t++)
		assert_int_equal(pthread_create(&th[t], NULL, intern_worker, r[t]), 0);
	for (int t = 0; t < 4; t++)
		pthread_join(th[t], NULL);
	for (int i = 0; i < 2000; i++)
		for (int t = 1; t < 4; t++)
			assert_ptr_equal(r[0][i], r[t][i]);
}

/* Issue 18 defect 4: counted references free a string with its last release; deletion keeps
 * every other string findable (linear probing: backward shift), the table shrinks back, and a
 * pinned string outlives its counted references. */
static void test_intern_release(void **state)
{
	(void)state;
	struct intern_stats base, mid, now;
	intern_get_stats(&base);
	enum { N = 30000 };
	static const char *p[N];
	char buf[32];
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "rel-%d", i);
		assert_non_null(p[i] = intern_acquire(buf, strlen(buf)));
		assert_false(intern_pinned(p[i]));
	}
	assert_ptr_equal(intern_acquire("rel-7", 5), p[7]); /* a second reference */
	assert_ptr_equal(intern_ref(p[8]), p[8]);
	intern_get_stats(&mid);
	assert_int_equal(mid.count, base.count + N);
	assert_true(mid.table_cap > base.table_cap);
	/* release the even ones (in a scattered order): the odd ones are still found, by content */
	for (int i = 0; i < N; i += 2) {
		int k = (int)(((long)i * 7919) % N) & ~1;
		if (p[k]) {
			intern_release(p[k]);
			p[k] = k == 8 ? p[k] : NULL; /* p[8] still has its extra reference */
		}
	}
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "rel-%d", i);
		if (i % 2 && i != 7)
			assert_ptr_equal(intern_find(buf), p[i]);
		else if (i != 8)
			assert_true(i % 2 || intern_find(buf) == p[i]);
	}
	assert_ptr_equal(intern_find("rel-8"), p[8]);
	intern_release(p[8]);
	assert_null(intern_find("rel-8"));
	for (int i = 1; i < N; i += 2)
		intern_release(p[i]);
	assert_ptr_equal(intern_find("rel-7"), p[7]); /* its second reference */
	intern_release(p[7]);
	assert_null(intern_find("rel-7"));
	intern_get_stats(&now);
	assert_int_equal(now.count, base.count);
	assert_int_equal(now.bytes, base.bytes);
	assert_int_equal(now.table_cap, base.table_cap);

	/* pinned: a counted holder's release does not free it, and it is the same pointer */
	const char *c = intern_acquire("rel-pinned", 10);
	const char *pin = intern_str("rel-pinned");
	assert_ptr_equal(c, pin);
	assert_true(intern_pinned(pin));
	intern_release(c);
	assert_ptr_equal(intern_find("rel-pinned"), pin);
	intern_release(NULL);
	assert_null(intern_acquire(NULL, 0));
}

static void test_map(void **state)
{
	(void)state;
	struct map m;
	map_init(&m);
	assert_null(map_get(&m, "x"));
	assert_null(map_del(&m, "x"));
	static char keys[3000][8];
	for (int i = 0; i < 3000; i++) {
		snprintf(keys[i], sizeof(keys[i]), "n%d", i);
		assert_int_equal(map_put(&m, keys[i], (void *)(intptr_t)(i + 1), NULL), 0);
	}
	assert_int_equal(map_len(&m), 3000);
	void *old;
	assert_int_equal(map_put(&m, "n7", (void *)(intptr_t)70, &old), 0);
	assert_int_equal((intptr_t)old, 8);
	assert_int_equal(map_len(&m), 3000);
	for (int i = 0; i < 3000; i += 2)
		assert_int_equal((intptr_t)map_del(&m, keys[i]), i == 6 ? 7 : i + 1);
	assert_int_equal(map_len(&m), 1500);
	for (int i = 0; i < 3000; i++) {
		intptr_t want = i % 2 ? (i == 7 ? 70 : i + 1) : 0;
		assert_int_equal((intptr_t)map_get(&m, keys[i]), want);
	}
	/* Re-inserting deleted keys reuses tombstones; iteration sees each live key once. */
	for (int i = 0; i < 3000; i += 2)
		map_put(&m, keys[i], (void *)(intptr_t)1, NULL);
	size_t it = 0, seen = 0;
	const char *k;
	void *v;
	while (map_next(&m, &it, &k, &v))
		seen++;
	assert_int_equal(seen, 3000);
	map_release(&m);
	assert_int_equal(map_len(&m), 0);
}

/* pmap: keys by address, not content: two equal strings at different addresses are two keys;
 * values survive growth; pmap_ref inserts NULL once; pmap_clear empties and the map is reusable. */
static void test_pmap(void **state)
{
	(void)state;
	struct pmap m;
	pmap_init(&m);
	static char keys[3000][8], twin[8];
	assert_null(pmap_get(&m, keys[0]));
	for (int i = 0; i < 3000; i++) {
		snprintf(keys[i], sizeof(keys[i]), "n%d", i);
		assert_int_equal(pmap_put(&m, keys[i], (void *)(intptr_t)(i + 1)), 0);
	}
	assert_int_equal(pmap_len(&m), 3000);
	snprintf(twin, sizeof(twin), "n7");
	assert_null(pmap_get(&m, twin)); /* same bytes as keys[7], another address */
	assert_int_equal(pmap_put(&m, keys[7], (void *)(intptr_t)70), 0);
	assert_int_equal(pmap_len(&m), 3000);
	for (int i = 0; i < 3000; i++)
		assert_int_equal((intptr_t)pmap_get(&m, keys[i]), i == 7 ? 70 : i + 1);
	bool added = true;
	void **v = pmap_ref(&m, keys[9], &added);
	assert_false(added);
	assert_int_equal((intptr_t)*v, 10);
	v = pmap_ref(&m, twin, &added);
	assert_true(added);
	assert_null(*v);
	*v = (void *)(intptr_t)-1;
	assert_int_equal((intptr_t)pmap_get(&m, twin), -1);
	assert_int_equal(pmap_len(&m), 3001);
	size_t it = 0, seen = 0;
	intptr_t sum = 0;
	const void *k;
	void *val;
	while (pmap_next(&m, &it, &k, &val))
		seen++, sum += (intptr_t)val;
	assert_int_equal(seen, 3001);
	assert_int_equal(sum, 3000 * 3001 / 2 + 62 - 1);
	pmap_clear(&m);
	assert_int_equal(pmap_len(&m), 0);
	assert_null(pmap_get(&m, keys[1]));
	it = 0;
	assert_false(pmap_next(&m, &it, &k, &val));
	assert_int_equal(pmap_put(&m, keys[1], keys[2]), 0);
	assert_ptr_equal(pmap_get(&m, keys[1]), keys[2]);
	pmap_release(&m);
	assert_int_equal(pmap_len(&m), 0);
	assert_null(pmap_get(&m, keys[1]));
}

/* ARRAY_RESERVE: room for element n; capacity doubles from min; nothing moves when there is room. */
static void test_array_reserve(void **state)
{
	(void)state;
	struct pair {
		int a, b;
	} *v = NULL;
	size_t cap = 0;
	static const size_t want_cap[] = { 4, 4, 4, 4, 8, 8, 8, 8, 16 };
	for (size_t n = 0; n < sizeof(want_cap) / sizeof(want_cap[0]); n++) {
		struct pair *before = v;
		assert_int_equal(ARRAY_RESERVE(v, n, cap, 4), 0);
		assert_int_equal(cap, want_cap[n]);
		if (n && n < 4)
			assert_ptr_equal(v, before);
		v[n] = (struct pair){ (int)n, -(int)n };
	}
	for (int n = 0; n < 9; n++)
		assert_true(v[n].a == n && v[n].b == -n);
	/* a capacity the caller set below n still ends above n */
	size_t small = 2;
	assert_int_equal(ARRAY_RESERVE(v, 9, small, 4), 0);
	assert_true(small > 9);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_err_set_and_prefix),
		cmocka_unit_test(test_arena),
		cmocka_unit_test(test_arena_footprint),
		cmocka_unit_test(test_intern_identity),
		cmocka_unit_test(test_intern_threads),
		cmocka_unit_test(test_intern_release),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_pmap),
		cmocka_unit_test(test_array_reserve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
