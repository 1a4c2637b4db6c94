/* Unit tests for common/rfc3339.h and common/clock.h. The RFC 3339 cases follow Go's
 * time.Parse(time.RFC3339, ...) (time/format_rfc3339.go and its tests): what Go accepts is
 * accepted with the same instant; what RFC 3339 rejects is rejected. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/clock.h"
#include "common/macros.h"
#include "common/rfc3339.h"

static void test_rfc3339_parse(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		bool ok;
		int64_t us;
	} cases[] = {
		/* valid */
		{"1970-01-01T00:00:00Z", true, 0},
		{"2026-11-23T06:49:36Z", true, 1795416576000000LL},
		{"2026-11-23T06:49:36.123456Z", true, 1795416576123456LL},
		{"2026-11-23T06:49:36.5Z", true, 1795416576500000LL},
		{"2026-11-23T06:49:36.123456789Z", true, 1795416576123456LL}, /* ns truncated to us */
		{"2026-11-23T06:49:36.1234567891234Z", true, 1795416576123456LL}, /* Go: any length */
		{"2026-11-23T08:49:36+02:00", true, 1795416576000000LL},
		{"2026-11-23T01:19:36-05:30", true, 1795416576000000LL},
		{"2026-11-23T06:49:36.25+00:00", true, 1795416576250000LL},
		{"2026-11-23T06:49:36-00:00", true, 1795416576000000LL},
		{"2026-11-24T06:48:36+23:59", true, 1795416576000000LL},
		{"2024-02-29T00:00:00Z", true, 1709164800000000LL}, /* leap year */
		{"2000-02-29T00:00:00Z", true, 951782400000000LL},  /* divisible by 400 */
		{"2026-12-31T23:59:59Z", true, 1798761599000000LL},
		{"1969-12-31T23:59:59.5Z", true, -500000LL},
		{"0000-01-01T00:00:00Z", true, -62167219200000000LL},
		{"9999-12-31T23:59:59Z", true, 253402300799000000LL},
		/* invalid: ranges */
		{"2023-02-29T00:00:00Z", false, 0}, /* not a leap year */
		{"1900-02-29T00:00:00Z", false, 0}, /* divisible by 100, not by 400 */
		{"2026-04-31T00:00:00Z", false, 0}, /* April has 30 days */
		{"2026-01-32T00:00:00Z", false, 0},
		{"2026-00-01T00:00:00Z", false, 0},
		{"2026-13-01T00:00:00Z", false, 0},
		{"2026-11-00T00:00:00Z", false, 0},
		{"2026-11-23T24:00:00Z", false, 0},
		{"2026-11-23T06:60:36Z", false, 0},
		{"2026-11-23T06:49:60Z", false, 0}, /* Go has no leap seconds */
		{"2026-11-23T06:49:36+24:00", false, 0},
		{"2026-11-23T06:49:36+02:60", false, 0},
		/* invalid: shape */
		{"2026-11-23t06:49:36Z", false, 0}, /* Go: 'T' and 'Z' are upper case */
		{"2026-11-23T06:49:36z", false, 0},
		{"2026-11-23 06:49:36Z", false, 0},
		{"2026-11-23T6:49:36Z", false, 0},   /* one-digit hour */
		{"2026-11-23T06:49:36,5Z", false, 0}, /* ',' before the fraction */
		{"2026-11-23T06:49:36.Z", false, 0},  /* fraction without digits */
		{"2026-11-23T06:49:36", false, 0},    /* no zone */
		{"2026-11-23T06:49:36+0200", false, 0},
		{"2026-11-23T06:49:36+02", false, 0},
		{"2026-11-23T06:49:36+02:00:00", false, 0},
		{"2026-11-23T06:49:36 Z", false, 0},
		{"2026-11-23T06:49:36Zjunk", false, 0},
		{"26-11-23T06:49:36Z", false, 0},
		{"+2026-11-23T06:49:36Z", false, 0},
		{"2026-1-23T06:49:36Z", false, 0},
		{"2026/11/23T06:49:36Z", false, 0},
		{"2026-11-23T06-49-36Z", false, 0},
		{"2026-11-2aT06:49:36Z", false, 0},
		{"2026-11-23", false, 0},
		{"", false, 0},
		{"garbage", false, 0},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int64_t us = 42;
		bool ok = rfc3339_parse(cases[i].s, &us);
		if (ok != cases[i].ok)
			fail_msg("\"%s\": %s, want %s", cases[i].s, ok ? "ok" : "invalid", cases[i].ok ? "ok" : "invalid");
		if (ok && us != cases[i].us)
			fail_msg("\"%s\": %lld want %lld", cases[i].s, (long long)us, (long long)cases[i].us);
		if (!ok && us != 42)
			fail_msg("\"%s\": output written on failure", cases[i].s);
	}
	int64_t us;
	assert_false(rfc3339_parse(NULL, &us));
}

static void test_rfc3339_format(void **state)
{
	(void)state;
	static const struct {
		int64_t us;
		const char *want;
	} cases[] = {
		{0, "1970-01-01T00:00:00.000000Z"},
		{1795416576123456LL, "2026-11-23T06:49:36.123456Z"},
		{1709164800000001LL, "2024-02-29T00:00:00.000001Z"},
		{-1, "1969-12-31T23:59:59.999999Z"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char buf[RFC3339_MICRO_SIZE];
		rfc3339_format_micro(cases[i].us, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].want);
		int64_t back = 0;
		assert_true(rfc3339_parse(buf, &back));
		assert_int_equal(back, cases[i].us); /* round trip */
	}
}

static void test_clock(void **state)
{
	(void)state;
	int64_t a = mono_ns(), b = mono_ns();
	assert_true(b >= a);
	assert_true(wall_us() > 1700000000LL * 1000000); /* after 2023: a real wall clock */
	struct timespec ts = ns_to_timespec(3 * NSEC_PER_SEC + 250 * NSEC_PER_MSEC);
	assert_int_equal(ts.tv_sec, 3);
	assert_int_equal(ts.tv_nsec, 250000000L);
	/* a mono_cond_init condvar takes mono_ns deadlines: on a wall-clock one this deadline (the
	 * machine's uptime as seconds since 1970) would lie in the past and return at once */
	pthread_cond_t c;
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	assert_int_equal(mono_cond_init(&c), 0);
	pthread_mutex_lock(&mu);
	a = mono_ns();
	ts = ns_to_timespec(a + 20 * NSEC_PER_MSEC);
	int rc;
	while ((rc = pthread_cond_timedwait(&c, &mu, &ts)) == 0)
		;
	assert_int_equal(rc, ETIMEDOUT);
	assert_true(mono_ns() - a >= 20 * NSEC_PER_MSEC);
	pthread_mutex_unlock(&mu);
	pthread_cond_destroy(&c);
	a = mono_ns();
	sleep_ns(2 * NSEC_PER_MSEC);
	sleep_ns(-1); /* no-op */
	assert_true(mono_ns() - a >= 2 * NSEC_PER_MSEC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc3339_parse),
		cmocka_unit_test(test_rfc3339_format),
		cmocka_unit_test(test_clock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
