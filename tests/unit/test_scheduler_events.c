/* The event recorder (scheduler/events.h) with a send hook in place of the server: aggregation
 * into series, series re-sends, the aggregation window, drop-oldest at capacity, the rate limit,
 * note truncation, the fields of the sent event and the yield to busy(). */
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "scheduler/events.h"
#include "testobj.h"

struct sent {
	char name[64], uid[64], ns[32], type[16], reason[32], action[32], note[1100], controller[32], instance[64],
		kind[8], apiv[8];
	int32_t count;
	int64_t first_us, last_us;
	int64_t at_ns;
};

struct sink {
	pthread_mutex_t lock; /* guards n and v */
	int n;
	struct sent v[64];
	int fail; /* answer errors to this many sends */
};

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int sink_send(void *ctx, const struct api_event *ev, struct err *e)
{
	struct sink *s = ctx;
	pthread_mutex_lock(&s->lock);
	if (s->fail > 0) {
		s->fail--;
		pthread_mutex_unlock(&s->lock);
		return err_set(e, ERR_HTTP, "refused");
	}
	if (s->n < 64) {
		struct sent *x = &s->v[s->n++];
		snprintf(x->name, sizeof(x->name), "%s", ev->regarding_name);
		snprintf(x->uid, sizeof(x->uid), "%s", ev->regarding_uid);
		snprintf(x->ns, sizeof(x->ns), "%s", ev->namespace);
		snprintf(x->type, sizeof(x->type), "%s", ev->type);
		snprintf(x->reason, sizeof(x->reason), "%s", ev->reason);
		snprintf(x->action, sizeof(x->action), "%s", ev->action);
		snprintf(x->note, sizeof(x->note), "%s", ev->note);
		snprintf(x->controller, sizeof(x->controller), "%s", ev->reporting_controller);
		snprintf(x->instance, sizeof(x->instance), "%s", ev->reporting_instance);
		snprintf(x->kind, sizeof(x->kind), "%s", ev->regarding_kind);
		snprintf(x->apiv, sizeof(x->apiv), "%s", ev->regarding_api_version);
		x->count = ev->count;
		x->first_us = ev->first_us;
		x->last_us = ev->last_us;
		x->at_ns = mono_ns();
	}
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static int sink_count(struct sink *s)
{
	pthread_mutex_lock(&s->lock);
	int n = s->n;
	pthread_mutex_unlock(&s->lock);
	return n;
}

static bool wait_count(struct sink *s, int n, long ms)
{
	for (long i = 0; i < ms / 10; i++) {
		if (sink_count(s) >= n)
			return true;
		usleep(10 * 1000);
	}
	return sink_count(s) >= n;
}

static struct sched_events *new_rec(struct sink *s, double qps, int burst, int cap, long window, long series)
{
	struct err e = { 0 };
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	struct sched_events_options o = { .qps = qps, .burst = burst, .capacity = cap, .window_ms = window,
					  .series_ms = series, .instance = "testhost", .send = sink_send,
					  .send_ctx = s };
	struct sched_events *ev = sched_events_new(&o, &e);
	assert_non_null(ev);
	return ev;
}

/* Identical observations recorded before the sender runs become one event with their count. */
static void test_aggregation_and_fields(void **state)
{
	(void)state;
	struct sink s;
	struct sched_events *ev = new_rec(&s, 0, 1, 16, 60000, 60000);
	struct api_pod *a = TOBJ_POD(.name = "a", .ns = "ns"), *b = TOBJ_POD(.name = "b", .ns = "ns");
	for (int i = 0; i < 5; i++) {
		sched_events_record(ev, a, "Warning", "FailedScheduling", "Scheduling", "csched",
				    "0/%d nodes are available: %d Insufficient cpu.", 3, 3);
		usleep(2000); /* distinct first and last observation times */
	}
	sched_events_record(ev, b, "Normal", "Scheduled", "Binding", "csched", "Successfully assigned ns/b to n1");
	/* same pod and reason, other note: a distinct event */
	sched_events_record(ev, a, "Warning", "FailedScheduling", "Scheduling", "csched", "other");
	/* a separator in the note stays in the note (the entry keeps it in its key) */
	sched_events_record(ev, b, "Warning", "FailedScheduling", "Scheduling", "csched", "x\x1fy");
	assert_int_equal(sched_events_start(ev, NULL), 0);
	assert_true(wait_count(&s, 4, 10000));
	usleep(100 * 1000);
	assert_int_equal(sink_count(&s), 4);

	const struct {
		const char *name, *type, *reason, *action, *note;
		int32_t count;
	} want[] = {
		{ "a", "Warning", "FailedScheduling", "Scheduling", "0/3 nodes are available: 3 Insufficient cpu.", 5 },
		{ "b", "Normal", "Scheduled", "Binding", "Successfully assigned ns/b to n1", 1 },
		{ "a", "Warning", "FailedScheduling", "Scheduling", "other", 1 },
		{ "b", "Warning", "FailedScheduling", "Scheduling", "x\x1fy", 1 },
	};
	for (size_t i = 0; i < 4; i++) {
		char uid[64];
		snprintf(uid, sizeof uid, "uid-%s", want[i].name);
		assert_string_equal(s.v[i].name, want[i].name);
		assert_string_equal(s.v[i].uid, uid);
		assert_string_equal(s.v[i].ns, "ns");
		assert_string_equal(s.v[i].type, want[i].type);
		assert_string_equal(s.v[i].reason, want[i].reason);
		assert_string_equal(s.v[i].action, want[i].action);
		assert_string_equal(s.v[i].note, want[i].note);
		assert_int_equal(s.v[i].count, want[i].count);
		assert_string_equal(s.v[i].controller, "csched");
		assert_string_equal(s.v[i].instance, "csched-testhost");
		assert_string_equal(s.v[i].kind, "Pod");
		assert_string_equal(s.v[i].apiv, "v1");
		assert_true(s.v[i].first_us <= s.v[i].last_us);
	}
	assert_true(s.v[0].first_us < s.v[0].last_us);
	struct sched_events_stats st;
	sched_events_stats(ev, &st);
	assert_int_equal(st.recorded, 8);
	assert_int_equal(st.aggregated, 4);
	assert_int_equal(st.sent, 4);
	assert_int_equal(st.dropped, 0);
	sched_events_free(ev);
	api_pod_unref(a);
	api_pod_unref(b);
}

/* A sent event observed again becomes a series, re-sent once the series interval has passed. */
static void test_series_resent_after_interval(void **state)
{
	(void)state;
	struct sink s;
	struct sched_events *ev = new_rec(&s, 0, 1, 16, 60000, 300);
	struct api_pod *a = TOBJ_POD(.name = "a", .ns = "ns");
	assert_int_equal(sched_events_start(ev, NULL), 0);
	int64_t t0 = mono_ns();
	sched_events_record(ev, a, "Warning", "FailedScheduling", "Scheduling", "csched", "no fit");
	assert_true(wait_count(&s, 1, 10000));
	for (int i = 0; i < 3; i++)
		sched_events_record(ev, a, "Warning", "FailedScheduling", "Scheduling", "csched", "no fit");
	assert_true(wait_count(&s, 2, 10000));
	usleep(1500 * 1000); /* nothing more: the count did not grow again */
	assert_int_equal(sink_count(&s), 2);
	assert_int_equal(s.v[0].count, 1);
	assert_int_equal(s.v[1].count, 4);
	assert_int_equal(s.v[1].first_us, s.v[0].first_us);
	assert_true(s.v[1].last_us > s.v[0].last_us);
	assert_true(s.v[1].at_ns - t0 >= 300 * 1000000LL); /* not before the series interval */
	sched_events_free(ev);
	api_pod_unref(a);
}

/* After the aggregation window the same event starts a new object with count 1. */
static void test_window_expiry_starts_new_event(void **state)
{
	(void)state;
	struct sink s;
	struct sched_events *ev = new_rec(&s, 0, 1, 16, 100, 60000);
	struct api_pod *a = TOBJ_POD(.name = "a", .ns = "ns");
	assert_int_equal(sched_events_start(ev, NULL), 0);
	sched_events_record(ev, a, "Warning", "FailedScheduling", "Scheduling", "csched", "no fit");
	assert_true(wait_count(&s, 1, 10000));
	usleep(250 * 1000);
	sched_events_record(ev, a, "Warning", "FailedScheduling", "Scheduling", "csched", "no fit");
	assert_true(wait_count(&s, 2, 10000));
	assert_int_equal(s.v[1].count, 1);
	assert_true(s.v[1].first_us > s.v[0].first_us);
	sched_events_free(ev);
	api_pod_unref(a);
}

/* At capacity the oldest waiting event is dropped and counted. */
static void test_drop_oldest_when_full(void **state)
{
	(void)state;
	struct sink s;
	struct sched_events *ev = new_rec(&s, 0, 1, 3, 60000, 60000);
	char name[8];
	struct api_pod *p[5];
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		p[i] = TOBJ_POD(.name = name, .ns = "ns");
		sched_events_record(ev, p[i], "Normal", "Scheduled", "Binding", "csched", "bound");
	}
	struct sched_events_stats st;
	sched_events_stats(ev, &st);
	assert_int_equal(st.queued, 3);
	assert_int_equal(st.dropped, 2);
	assert_int_equal(sched_events_start(ev, NULL), 0);
	assert_true(wait_count(&s, 3, 10000));
	usleep(100 * 1000);
	assert_int_equal(sink_count(&s), 3);
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "p%d", i + 2);
		assert_string_equal(s.v[i].name, name);
	}
	sched_events_free(ev);
	for (int i = 0; i < 5; i++)
		api_pod_unref(p[i]);
}

/* qps 20, burst 1: six events take at least 5/20 s. */
static void test_rate_limit(void **state)
{
	(void)state;
	struct sink s;
	struct sched_events *ev = new_rec(&s, 20, 1, 16, 60000, 60000);
	struct api_pod *a = TOBJ_POD(.name = "a", .ns = "ns");
	for (int i = 0; i < 6; i++)
		sched_events_record(ev, a, "Normal", "Scheduled", "Binding", "csched", "event %d", i);
	int64_t t0 = mono_ns();
	assert_int_equal(sched_events_start(ev, NULL), 0);
	assert_true(wait_count(&s, 6, 10000));
	int64_t took = s.v[5].at_ns - t0;
	assert_true(took >= 240 * 1000000LL);
	assert_true(took < 5000 * 1000000LL);
	sched_events_free(ev);
	api_pod_unref(a);
}

/* Notes over 1 kB end in " ..." (upstream truncateMessage); failed sends are counted. */
static void test_truncation_and_errors(void **state)
{
	(void)state;
	char buf[SCHED_EVENTS_NOTE_MAX + 1];
	const struct {
		size_t len;
		size_t want_len;
		bool dots;
	} cases[] = { { 10, 10, false }, { 1024, 1024, false }, { 1025, 1024, true }, { 1500, 1024, true } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *msg = malloc(cases[i].len + 1);
		memset(msg, 'x', cases[i].len);
		msg[cases[i].len] = 0;
		sched_events_truncate(msg, buf, SCHED_EVENTS_NOTE_MAX);
		assert_int_equal(strlen(buf), cases[i].want_len);
		assert_int_equal(strcmp(buf + strlen(buf) - 4, " ...") == 0, cases[i].dots);
		free(msg);
	}

	struct sink s;
	struct sched_events *ev = new_rec(&s, 0, 1, 16, 60000, 60000);
	s.fail = 1;
	struct api_pod *a = TOBJ_POD(.name = "a", .ns = "ns");
	char *big = malloc(1500);
	memset(big, 'y', 1499);
	big[1499] = 0;
	sched_events_record(ev, a, "Warning", "FailedScheduling", "Scheduling", "csched", "first");
	sched_events_record(ev, a, "Warning", "FailedScheduling", "Scheduling", "csched", "%s", big);
	free(big);
	assert_int_equal(sched_events_start(ev, NULL), 0);
	assert_true(wait_count(&s, 1, 10000));
	assert_int_equal(strlen(s.v[0].note), 1024);
	struct sched_events_stats st;
	sched_events_stats(ev, &st);
	assert_int_equal(st.errors, 1);
	assert_int_equal(st.sent, 1);
	sched_events_free(ev);
	api_pod_unref(a);
}

/* Events still queued at stop are sent within the drain time. */
static void test_stop_drains(void **state)
{
	(void)state;
	struct sink s;
	struct sched_events *ev = new_rec(&s, 0, 1, 16, 60000, 60000);
	struct api_pod *a = TOBJ_POD(.name = "a", .ns = "ns");
	assert_int_equal(sched_events_start(ev, NULL), 0);
	for (int i = 0; i < 10; i++)
		sched_events_record(ev, a, "Normal", "Scheduled", "Binding", "csched", "e%d", i);
	sched_events_stop(ev, 1000);
	assert_int_equal(sink_count(&s), 10);
	/* recording after stop is dropped, not queued */
	sched_events_record(ev, a, "Normal", "Scheduled", "Binding", "csched", "late");
	struct sched_events_stats st;
	sched_events_stats(ev, &st);
	assert_int_equal(st.dropped, 1);
	assert_int_equal(st.queued, 0);
	sched_events_free(ev);
	api_pod_unref(a);
}

static bool flag_busy(void *ctx)
{
	return atomic_load((atomic_bool *)ctx);
}

/* While busy() says yes, one event goes out per busy interval and the others wait, unsent and
 * not dropped; once it says no they all go out. */
static void test_yields_while_busy(void **state)
{
	(void)state;
	struct sink s;
	struct err e = { 0 };
	atomic_bool busy = true;
	memset(&s, 0, sizeof(s));
	pthread_mutex_init(&s.lock, NULL);
	struct sched_events_options o = { .qps = 0, .burst = 1, .capacity = 16, .window_ms = 60000,
					  .series_ms = 60000, .instance = "testhost", .busy = flag_busy,
					  .busy_ctx = &busy, .busy_interval_ms = 60000, .send = sink_send,
					  .send_ctx = &s };
	struct sched_events *ev = sched_events_new(&o, &e);
	assert_non_null(ev);
	struct api_pod *a = TOBJ_POD(.name = "a", .ns = "ns");
	for (int i = 0; i < 5; i++)
		sched_events_record(ev, a, "Normal", "Scheduled", "Binding", "csched", "e%d", i);
	assert_int_equal(sched_events_start(ev, NULL), 0);
	assert_true(wait_count(&s, 1, 10000)); /* the first: nothing was sent for an interval */
	usleep(300 * 1000);
	assert_int_equal(sink_count(&s), 1);
	struct sched_events_stats st;
	sched_events_stats(ev, &st);
	assert_true(st.deferred > 0);
	assert_int_equal(st.queued, 4);
	assert_int_equal(st.dropped, 0);
	atomic_store(&busy, false);
	assert_true(wait_count(&s, 5, 10000));
	for (int i = 0; i < 5; i++) { /* in order */
		char want[8];
		snprintf(want, sizeof(want), "e%d", i);
		assert_string_equal(s.v[i].note, want);
	}
	sched_events_free(ev);
	api_pod_unref(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aggregation_and_fields),   cmocka_unit_test(test_series_resent_after_interval),
		cmocka_unit_test(test_window_expiry_starts_new_event), cmocka_unit_test(test_drop_oldest_when_full),
		cmocka_unit_test(test_rate_limit),               cmocka_unit_test(test_truncation_and_errors),
		cmocka_unit_test(test_stop_drains),              cmocka_unit_test(test_yields_while_busy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
