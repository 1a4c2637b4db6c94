/* Unit tests for the client-side token-bucket limiter (deterministic: synthetic timestamps fed
 * to api_limiter_reserve) and for the clock and RFC 3339 helpers of api_client.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "apiclient/api_client.h"

#define MS 1000000LL
#define S 1000000000LL

struct step {
	int64_t now_ns;
	int64_t want_wait_ns;
};

struct limiter_case {
	const char *name;
	double qps;
	int burst;
	struct step steps[16];
	int n;
};

static const struct limiter_case limiter_cases[] = {
	/* A full bucket of 3 lets 3 requests through at once; the 4th waits one interval (100 ms
	 * at 10 qps), the 5th two, and reservations keep stacking while nobody waits them out. */
	{"burst then steady", 10, 3,
	 {{0, 0}, {0, 0}, {0, 0}, {0, 100 * MS}, {0, 200 * MS}, {100 * MS, 200 * MS}, {300 * MS, 100 * MS}},
	 7},
	/* Requests that come at the rate never wait. */
	{"at the rate", 10, 1, {{0, 0}, {100 * MS, 0}, {200 * MS, 0}, {300 * MS, 0}, {350 * MS, 50 * MS}}, 5},
	/* Idle time refills the bucket, but never beyond burst. */
	{"refill capped at burst", 2, 2,
	 {{0, 0}, {0, 0}, {0, 500 * MS}, {10 * S, 0}, {10 * S, 0}, {10 * S, 500 * MS}},
	 6},
	/* Half a second of idleness after a drained bucket gives back exactly one token at 2 qps. */
	{"partial refill", 2, 4,
	 {{0, 0}, {0, 0}, {0, 0}, {0, 0}, {500 * MS, 0}, {500 * MS, 500 * MS}},
	 6},
	/* burst <= 0 behaves as 1 (a zero bucket would never let anything through). */
	{"burst zero", 1, 0, {{0, 0}, {0, 1 * S}, {2 * S, 0}}, 3},
	/* qps <= 0: unlimited. */
	{"unlimited", 0, 0, {{0, 0}, {0, 0}, {0, 0}, {0, 0}}, 4},
	{"unlimited negative", -5, 10, {{0, 0}, {0, 0}}, 2},
	/* A timestamp earlier than the last one (another thread's clock read) is not a refill. */
	{"time going back", 10, 1, {{1 * S, 0}, {500 * MS, 600 * MS}, {1 * S, 200 * MS}}, 3},
	/* The first request at any absolute time finds a full bucket. */
	{"starts full at any time", 100, 2, {{123456789 * MS, 0}, {123456789 * MS, 0}, {123456789 * MS, 10 * MS}}, 3},
};

static void test_limiter_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(limiter_cases) / sizeof(limiter_cases[0]); i++) {
		const struct limiter_case *t = &limiter_cases[i];
		struct api_limiter *l = api_limiter_new(t->qps, t->burst);
		assert_non_null(l);
		for (int j = 0; j < t->n; j++) {
			int64_t got = api_limiter_reserve(l, t->steps[j].now_ns);
			if (got != t->steps[j].want_wait_ns)
				fail_msg("%s: step %d at %lld ns: wait %lld ns, want %lld", t->name, j,
					 (long long)t->steps[j].now_ns, (long long)got, (long long)t->steps[j].want_wait_ns);
		}
		api_limiter_free(l);
	}
	api_limiter_free(NULL);
	assert_int_equal(api_limiter_reserve(NULL, 0), 0);
}

/* Over a long run the admitted rate converges to qps: 1000 back-to-back reservations at 50 qps
 * with burst 100 end (1000 - 100) / 50 = 18 s after the start. */
static void test_limiter_steady_rate(void **state)
{
	(void)state;
	struct api_limiter *l = api_limiter_new(50, 100);
	int64_t now = 5 * S, last_wait = 0;
	for (int i = 0; i < 1000; i++) {
		int64_t w = api_limiter_reserve(l, now);
		assert_true(w >= last_wait); /* nobody waited: each one waits longer */
		last_wait = w;
	}
	assert_int_equal(last_wait, (1000 - 100) * 20 * MS);
	api_limiter_free(l);
}

/* Threads sharing one limiter each get a distinct slot: the waits of N reservations at the same
 * instant are exactly {0.., k * interval} with no slot handed out twice. */
struct race {
	struct api_limiter *l;
	int64_t waits[250];
};

static void *race_thread(void *arg)
{
	struct race *r = arg;
	for (int i = 0; i < 250; i++)
		r->waits[i] = api_limiter_reserve(r->l, 0);
	return NULL;
}

static void test_limiter_threads(void **state)
{
	(void)state;
	struct race r[4];
	pthread_t th[4];
	struct api_limiter *l = api_limiter_new(1000, 1);
	for (int i = 0; i < 4; i++) {
		r[i].l = l;
		assert_int_equal(pthread_create(&th[i], NULL, race_thread, &r[i]), 0);
	}
	static unsigned char seen[1000];
	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		for (int j = 0; j < 250; j++) {
			int64_t slot = r[i].waits[j] / MS;
			assert_int_equal(r[i].waits[j] % MS, 0);
			assert_true(slot >= 0 && slot < 1000);
			assert_int_equal(seen[slot], 0);
			seen[slot] = 1;
		}
	}
	api_limiter_free(l);
}

/* api_limiter_wait really sleeps for the reserved time (a coarse bound, not a timing test). */
static void test_limiter_wait(void **state)
{
	(void)state;
	struct api_limiter *l = api_limiter_new(20, 1); /* 50 ms per token */
	int64_t t0 = api_now_ns();
	api_limiter_wait(l); /* full bucket: immediate */
	api_limiter_wait(l); /* waits ~50 ms */
	int64_t dt = api_now_ns() - t0;
	assert_true(dt >= 45 * MS);
	assert_true(dt < 2 * S);
	api_limiter_free(l);
}

/* ---------- time helpers ---------- */

/* api_parse_time / api_format_time wrap common/rfc3339.h, whose cases are in
 * test_common_time.c: here only the wrappers' return codes and a round trip. */
static void test_parse_time(void **state)
{
	(void)state;
	int64_t us = 42;
	assert_int_equal(api_parse_time("2026-11-23T08:49:36.5+02:00", &us), 0);
	assert_int_equal(us, 1795416576500000LL);
	assert_int_equal(api_parse_time("2023-02-29T00:00:00Z", &us), ERR_INVALID);
	assert_int_equal(api_parse_time(NULL, &us), ERR_INVALID);
}

static void test_format_time(void **state)
{
	(void)state;
	char buf[32];
	int64_t back = 0;
	api_format_time(1795416576123456LL, buf, sizeof(buf));
	assert_string_equal(buf, "2026-11-23T06:49:36.123456Z");
	assert_int_equal(api_parse_time(buf, &back), 0);
	assert_int_equal(back, 1795416576123456LL);
}

static void test_clocks(void **state)
{
	(void)state;
	int64_t a = api_now_ns(), b = api_now_ns();
	assert_true(b >= a);
	int64_t w = api_wall_us();
	assert_true(w > 1700000000LL * 1000000); /* after 2023: a real wall clock */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limiter_table),
		cmocka_unit_test(test_limiter_steady_rate),
		cmocka_unit_test(test_limiter_threads),
		cmocka_unit_test(test_limiter_wait),
		cmocka_unit_test(test_parse_time),
		cmocka_unit_test(test_format_time),
		cmocka_unit_test(test_clocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
