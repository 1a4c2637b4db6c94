/* Unit tests for queue/: ordering, backoff, flushes on a fake clock, hints and events, the
 * no-lost-wake-up rule, gating, update/delete, nominations, blocking pop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/arena.h"
#include "common/intern.h"
#include "queue/queue.h"
#include "testobj.h"

#define SEC 1000000000LL

/* ---------- fixtures ---------- */

static int64_t fake_now;
static int64_t fake_clock(void *ctx)
{
	(void)ctx;
	return __atomic_load_n(&fake_now, __ATOMIC_RELAXED);
}

/* A pod of priority prio at resourceVersion rv with n_gates (0 to 2) scheduling gates. */
static struct api_pod *mkpod_rv(const char *name, int32_t prio, const char *rv, uint32_t n_gates)
{
	static const char *const gates[] = { NULL, "example.com/gate", "example.com/gate,example.com/gate" };
	char pr[16];
	snprintf(pr, sizeof(pr), "%d", prio);
	return TOBJ_POD(.name = name, .priority = pr, .rv = rv, .gates = gates[n_gates]);
}

static struct api_pod *mkpod(const char *name, int32_t prio)
{
	return mkpod_rv(name, prio, "1", 0);
}

/* A node with cpu millicores, labelled zone=label_value (NULL = no label). */
static struct api_node *mknode(const char *name, const char *label_value, int64_t cpu)
{
	char labels[64], alloc[32];
	snprintf(labels, sizeof(labels), "zone=%s", label_value ? label_value : "");
	snprintf(alloc, sizeof(alloc), "cpu=%lldm", (long long)cpu);
	return TOBJ_NODE(.name = name, .uid = name, .labels = label_value ? labels : NULL, .alloc = alloc);
}

/* Hints: NodeAffinity queues only for nodes labelled zone=good; NodeResourcesFit always. */
static int hint_calls;
static enum queue_hint hint_affinity(const void *ctx, const struct api_pod *pod, const void *old_obj, const void *new_obj)
{
	(void)ctx;
	(void)pod;
	(void)old_obj;
	__atomic_add_fetch(&hint_calls, 1, __ATOMIC_RELAXED);
	const struct api_node *n = new_obj;
	return n && n->meta.labels.n && strcmp(n->meta.labels.items[0].value, "good") == 0 ? QUEUE_HINT_QUEUE
											   : QUEUE_HINT_SKIP;
}
static enum queue_hint hint_error(const void *ctx, const struct api_pod *pod, const void *old_obj, const void *new_obj)
{
	(void)ctx;
	(void)pod;
	(void)old_obj;
	(void)new_obj;
	return QUEUE_HINT_ERROR;
}
static enum queue_hint hint_gates(const void *ctx, const struct api_pod *pod, const void *old_obj, const void *new_obj)
{
	(void)ctx;
	(void)old_obj;
	const struct api_pod *np = new_obj;
	return np && np->meta.uid == pod->meta.uid && np->n_scheduling_gates == 0 ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
}

static int pre_enqueue_calls;
static const char *gate_all_as; /* non-NULL: PreEnqueue gates every pod with this plugin */
static bool gate_pre_enqueue(void *ctx, const struct api_pod *pod, const char **plugin)
{
	(void)ctx;
	__atomic_add_fetch(&pre_enqueue_calls, 1, __ATOMIC_RELAXED);
	if (gate_all_as) {
		*plugin = gate_all_as;
		return false;
	}
	if (pod->n_scheduling_gates) {
		*plugin = "SchedulingGates";
		return false;
	}
	return true;
}

static const struct queue_hint_reg regs[] = {
	{ "NodeAffinity", { QUEUE_RES_NODE, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_LABEL, NULL }, hint_affinity, NULL },
	{ "NodeResourcesFit", { QUEUE_RES_NODE, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_ALLOCATABLE, NULL }, NULL, NULL },
	{ "NodeResourcesFit", { QUEUE_RES_POD, QUEUE_ACT_DELETE, NULL }, NULL, NULL },
	{ "Broken", { QUEUE_RES_NODE, QUEUE_ACT_ADD, NULL }, hint_error, NULL },
	{ "SchedulingGates", { QUEUE_RES_POD, QUEUE_ACT_UPDATE_POD_SCHEDULING_GATES_ELIMINATED, NULL }, hint_gates, NULL },
};

static struct queue *mkqueue(bool pop_from_backoff)
{
	static struct queue_profile prof = { "default-scheduler", regs, sizeof(regs) / sizeof(regs[0]),
					     gate_pre_enqueue, NULL };
	struct queue_options o = { 0 };
	o.now = fake_clock;
	o.no_pop_from_backoff = !pop_from_backoff;
	o.profiles = &prof;
	o.n_profiles = 1;
	fake_now = 1000 * SEC;
	struct err e = { 0 };
	struct queue *q = queue_new(&o, &e);
	assert_non_null(q);
	return q;
}

static void add_pod(struct queue *q, struct api_pod *p)
{
	struct err e = { 0 };
	assert_int_equal(queue_add(q, p, &e), 0);
	api_pod_unref(p);
}

static struct queue_pod_info *pop_now(struct queue *q)
{
	struct queue_pod_info *qpi = NULL;
	assert_int_equal(queue_try_pop(q, &qpi), 0);
	assert_non_null(qpi);
	return qpi;
}

static void fail_with(struct queue *q, struct queue_pod_info *qpi, const char *unsched, const char *pending)
{
	struct queue_failure f = { 0 };
	const char *u[1] = { unsched }, *p[1] = { pending };
	if (unsched) {
		f.unschedulable_plugins = u;
		f.n_unschedulable_plugins = 1;
	}
	if (pending) {
		f.pending_plugins = p;
		f.n_pending_plugins = 1;
	}
	struct err e = { 0 };
	assert_int_equal(queue_add_unschedulable_if_not_present(q, qpi, &f, &e), 0);
}

static void node_event(struct queue *q, uint32_t actions, const char *label_value)
{
	struct api_node *n = mknode("n1", label_value, 4000);
	struct queue_event ev = { QUEUE_RES_NODE, actions, NULL };
	queue_move_on_event(q, &ev, NULL, n, NULL, NULL);
	api_node_unref(n);
}

static enum queue_tier tier_of(struct queue *q, const char *name)
{
	char uid[96];
	snprintf(uid, sizeof(uid), "uid-%s", name);
	return queue_pod_tier(q, intern_str(uid));
}

/* ---------- tests ---------- */

static void test_priority_then_time(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int32_t prio;
		int64_t at; /* seconds after start */
	} adds[] = {
		{ "low-early", 0, 0 }, { "high-late", 100, 3 }, { "mid", 50, 1 }, { "high-early", 100, 2 },
		{ "low-late", 0, 4 },
	};
	static const char *const want[] = { "high-early", "high-late", "mid", "low-early", "low-late" };
	struct queue *q = mkqueue(true);
	for (size_t i = 0; i < sizeof(adds) / sizeof(adds[0]); i++) {
		fake_now = 1000 * SEC + adds[i].at * SEC;
		add_pod(q, mkpod(adds[i].name, adds[i].prio));
	}
	struct queue_counts c;
	queue_counts(q, &c);
	assert_int_equal(c.active, 5);
	for (size_t i = 0; i < 5; i++) {
		struct queue_pod_info *qpi = pop_now(q);
		assert_string_equal(qpi->pod->meta.name, want[i]);
		assert_int_equal(qpi->attempts, 1);
		assert_true(qpi->initial_attempt_timestamp > 0);
		queue_done(q, qpi->pod->meta.uid);
		queue_pod_info_free(qpi);
	}
	struct queue_pod_info *none = NULL;
	assert_int_equal(queue_try_pop(q, &none), ERR_NOT_FOUND);
	queue_free(q);
}

static void test_backoff_arithmetic(void **state)
{
	(void)state;
	static const struct {
		uint32_t attempts, unsched, errors;
		int64_t want_s;
	} cases[] = {
		{ 0, 0, 0, 0 },  { 1, 1, 0, 1 }, { 2, 2, 0, 2 },  { 3, 3, 0, 4 },  { 4, 4, 0, 8 },
		{ 5, 5, 0, 10 }, { 6, 6, 0, 10 }, { 60, 60, 0, 10 }, /* 1.34: errors counted apart, and win */
		{ 7, 6, 1, 1 },  { 8, 6, 2, 2 }, { 9, 6, 3, 4 },
	};
	struct queue *q = mkqueue(true);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(queue_backoff_duration(q, cases[i].attempts, cases[i].unsched, cases[i].errors),
				 cases[i].want_s * SEC);
	queue_free(q);
	/* a configured initial/max */
	struct queue_options o = { .initial_backoff_ns = 2 * SEC, .max_backoff_ns = 5 * SEC };
	q = queue_new(&o, NULL);
	assert_int_equal(queue_backoff_duration(q, 1, 1, 0), 2 * SEC);
	assert_int_equal(queue_backoff_duration(q, 2, 2, 0), 4 * SEC);
	assert_int_equal(queue_backoff_duration(q, 3, 3, 0), 5 * SEC);
	queue_free(q);
}

/* Errors (no rejector) back off 1, 2, 4 s... measured from the failure; flush moves them on time. */
static void test_backoff_flush_timing(void **state)
{
	(void)state;
	struct queue *q = mkqueue(false);
	add_pod(q, mkpod("p", 0));
	static const int64_t want_backoff[] = { 1, 2, 4, 8, 10, 10 };
	for (size_t i = 0; i < sizeof(want_backoff) / sizeof(want_backoff[0]); i++) {
		struct queue_pod_info *qpi = pop_now(q);
		assert_int_equal(qpi->attempts, i + 1);
		fail_with(q, qpi, NULL, NULL); /* an error: always after backoff */
		assert_int_equal(tier_of(q, "p"), QUEUE_TIER_BACKOFF);
		int64_t failed = fake_now;
		fake_now = failed + want_backoff[i] * SEC - 1;
		queue_flush_backoff_completed(q);
		assert_int_equal(tier_of(q, "p"), QUEUE_TIER_BACKOFF);
		struct queue_pod_info *none = NULL;
		assert_int_equal(queue_try_pop(q, &none), ERR_NOT_FOUND);
		/* upstream isEntityBackingoff: !boTime.Before(now), so equality still backs off */
		fake_now = failed + want_backoff[i] * SEC;
		queue_flush_backoff_completed(q);
		assert_int_equal(tier_of(q, "p"), QUEUE_TIER_BACKOFF);
		fake_now = failed + want_backoff[i] * SEC + 1;
		queue_flush_backoff_completed(q);
		assert_int_equal(tier_of(q, "p"), QUEUE_TIER_ACTIVE);
	}
	queue_free(q);
}

/* upstream backoff_queue_test.go TestBackoffQueue_calculateBackoffDuration (entity size 1: csched
 * has no pod groups) and TestBackoffQueue_getBackoffTime's counts ("no backoff", "backoff by
 * UnschedulableCount", "backoff is calculated with ConsecutiveErrorsCount"). */
static void test_backoff_duration_upstream(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		int64_t initial, max;
		uint32_t attempts, unsched, errors;
		int64_t want;
	} cases[] = {
		{ "no backoff", 1, 32, 1, 0, 0, 0 }, /* popped once, yet no failure counted: none */
		{ "normal", 3, 1000, 5, 5, 0, 48 },
		{ "hitting max backoff duration", 1, 32, 16, 16, 0, 32 },
		{ "overflow_32bit", 1, INT32_MAX, 32, 32, 0, INT32_MAX },
		{ "overflow_64bit", 1, INT64_MAX, 64, 64, 0, INT64_MAX },
		{ "getBackoffTime: by UnschedulableCount", SEC, 32 * SEC, 16, 16, 0, 32 * SEC },
		{ "getBackoffTime: with ConsecutiveErrorsCount", SEC, 32 * SEC, 21, 5, 16, 32 * SEC },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct queue_options o = { .initial_backoff_ns = cases[i].initial, .max_backoff_ns = cases[i].max };
		struct queue *q = queue_new(&o, NULL);
		assert_non_null(q);
		int64_t got = queue_backoff_duration(q, cases[i].attempts, cases[i].unsched, cases[i].errors);
		if (got != cases[i].want)
			fail_msg("%s: got %lld, want %lld", cases[i].name, (long long)got, (long long)cases[i].want);
		queue_free(q);
	}
}

/* upstream scheduling_queue_test.go TestBackOffFlow, both SchedulerPopFromBackoffQ settings, on a
 * clock that is not at a whole second (upstream's fake clock starts at time.Now()). With the
 * ordering windows (backoff_queue.go getBackoffTime / alignToWindow / isEntityBackingoff) the
 * expiry is truncated to its second and the pod stays until the next second begins: the actual
 * backoff is "backoff.Truncate(window) + window" of the test. Without windows it leaves once the
 * clock is past the exact expiry. */
static void test_backoff_flow_windows(void **state)
{
	(void)state;
	static const int64_t want_backoff_s[] = { 1, 2, 4, 8, 10, 10, 10 };
	for (int windows = 1; windows >= 0; windows--) {
		struct queue *q = mkqueue(windows);
		fake_now = 1000 * SEC + 250 * 1000000LL; /* x.25 s */
		add_pod(q, mkpod("p", 0));
		for (size_t i = 0; i < sizeof(want_backoff_s) / sizeof(want_backoff_s[0]); i++) {
			int64_t timestamp = fake_now;
			struct queue_pod_info *qpi = pop_now(q);
			assert_int_equal(qpi->attempts, i + 1);
			fail_with(q, qpi, "unsched-plugin", NULL);
			struct queue_event ev = { QUEUE_RES_WILDCARD, QUEUE_ACT_ALL, "UnschedulableTimeout" };
			queue_move_on_event(q, &ev, NULL, NULL, NULL, NULL);
			assert_int_equal(tier_of(q, "p"), QUEUE_TIER_BACKOFF);
			int64_t expiry = timestamp + want_backoff_s[i] * SEC;
			/* the first instant the pod may leave */
			int64_t release = windows ? expiry - expiry % SEC + SEC : expiry + 1;
			fake_now = timestamp + SEC / 2; /* an early flush */
			queue_flush_backoff_completed(q);
			assert_int_equal(tier_of(q, "p"), QUEUE_TIER_BACKOFF);
			fake_now = release - 1;
			queue_flush_backoff_completed(q);
			if (tier_of(q, "p") != QUEUE_TIER_BACKOFF)
				fail_msg("windows=%d step %zu: left backoff 1 ns before %lld", windows, i,
					 (long long)release);
			fake_now = release;
			queue_flush_backoff_completed(q);
			assert_int_equal(tier_of(q, "p"), QUEUE_TIER_ACTIVE);
		}
		queue_free(q);
	}
}

/* Unschedulable pods come back after 5 minutes, as a wildcard event. */
static void test_unschedulable_leftover_flush(void **state)
{
	(void)state;
	struct queue *q = mkqueue(true);
	add_pod(q, mkpod("p", 0));
	struct queue_pod_info *qpi = pop_now(q);
	fail_with(q, qpi, "NodeAffinity", NULL);
	assert_int_equal(tier_of(q, "p"), QUEUE_TIER_UNSCHEDULABLE);
	int64_t failed = fake_now;
	fake_now = failed + 300 * SEC;
	queue_flush_unschedulable_leftover(q);
	assert_int_equal(tier_of(q, "p"), QUEUE_TIER_UNSCHEDULABLE); /* not older than 5 min yet */
	fake_now = failed + 300 * SEC + 1;
	queue_flush_unschedulable_leftover(q);
	assert_int_equal(tier_of(q, "p"), QUEUE_TIER_ACTIVE); /* backoff long over */
	queue_free(q);
}

/* A node update only moves pods whose rejector's hint says Queue: no stampede. */
static void test_event_moves_only_hinted_pods(void **state)
{
	(void)state;
	struct queue *q = mkqueue(true);
	enum { N = 1000 };
	char name[32];
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "aff-%d", i);
		add_pod(q, mkpod(name, 0));
	}
	add_pod(q, mkpod("fit", 0));
	for (int i = 0; i < N + 1; i++) {
		struct queue_pod_info *qpi = pop_now(q);
		bool fit = strcmp(qpi->pod->meta.name, "fit") == 0;
		fail_with(q, qpi, fit ? "NodeResourcesFit" : "NodeAffinity", NULL);
	}
	struct queue_counts c;
	queue_counts(q, &c);
	assert_int_equal(c.unschedulable, N + 1);
	assert_int_equal(c.in_flight, 0);
	assert_int_equal(c.in_flight_events, 0);

	static const struct {
		uint32_t actions;
		const char *label;
		uint32_t want_unsched;
		int want_hint_calls;
	} steps[] = {
		/* allocatable grew: only NodeResourcesFit cares; NodeAffinity pods are not even asked */
		{ QUEUE_ACT_UPDATE_NODE_ALLOCATABLE, "bad", N, 0 },
		/* a label change to a non-matching node: asked, all say Skip */
		{ QUEUE_ACT_UPDATE_NODE_LABEL, "bad", N, N },
		/* conditions: nobody registered */
		{ QUEUE_ACT_UPDATE_NODE_CONDITION, "good", N, 0 },
		/* a matching label: everybody goes */
		{ QUEUE_ACT_UPDATE_NODE_LABEL, "good", 0, N },
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		hint_calls = 0;
		node_event(q, steps[i].actions, steps[i].label);
		queue_counts(q, &c);
		assert_int_equal(c.unschedulable, steps[i].want_unsched);
		assert_int_equal(hint_calls, steps[i].want_hint_calls);
		if (i == 0)
			assert_int_equal(tier_of(q, "fit"), QUEUE_TIER_BACKOFF);
	}
	/* moved pods had failed once: after backoff */
	assert_int_equal(c.backoff, N + 1);
	queue_free(q);
}

/* The no-lost-wake-up rule: only events after the pod's pop count. */
static void test_in_flight_events(void **state)
{
	(void)state;
	static const struct {
		const char *desc;
		bool event_before_pop, event_during;
		uint32_t actions;
		const char *label, *unsched, *pending;
		enum queue_tier want;
	} cases[] = {
		{ "no event: parked", false, false, 0, NULL, "NodeResourcesFit", NULL, QUEUE_TIER_UNSCHEDULABLE },
		{ "event before pop: parked", true, false, QUEUE_ACT_ADD, "good", "NodeResourcesFit", NULL,
		  QUEUE_TIER_UNSCHEDULABLE },
		{ "event during attempt: backoff", false, true, QUEUE_ACT_ADD, "good", "NodeResourcesFit", NULL,
		  QUEUE_TIER_BACKOFF },
		{ "hint Skip during attempt: parked", false, true, QUEUE_ACT_UPDATE_NODE_LABEL, "bad", "NodeAffinity",
		  NULL, QUEUE_TIER_UNSCHEDULABLE },
		{ "unrelated plugin's event: parked", false, true, QUEUE_ACT_UPDATE_NODE_ALLOCATABLE, "good",
		  "NodeAffinity", NULL, QUEUE_TIER_UNSCHEDULABLE },
		{ "pending plugin: active now", false, true, QUEUE_ACT_ADD, "good", NULL, "NodeResourcesFit",
		  QUEUE_TIER_ACTIVE },
		{ "hint error counts as Queue", false, true, QUEUE_ACT_ADD, "bad", "Broken", NULL, QUEUE_TIER_BACKOFF },
		/* upstream v1.37 buildQueueingHintMap adds no UpdateNodeTaint to a Node Add registration */
		{ "Node Add does not imply UpdateNodeTaint", false, true, QUEUE_ACT_UPDATE_NODE_TAINT, "bad",
		  "NodeAffinity", NULL, QUEUE_TIER_UNSCHEDULABLE },
		{ "error (no rejector): backoff", false, false, 0, NULL, NULL, NULL, QUEUE_TIER_BACKOFF },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct queue *q = mkqueue(true);
		/* another pod, popped first, keeps events recorded before p's pop */
		add_pod(q, mkpod("other", 10));
		add_pod(q, mkpod("p", 0));
		struct queue_pod_info *other = pop_now(q);
		assert_string_equal(other->pod->meta.name, "other");
		if (cases[i].event_before_pop)
			node_event(q, cases[i].actions, cases[i].label);
		struct queue_pod_info *qpi = pop_now(q);
		assert_string_equal(qpi->pod->meta.name, "p");
		if (cases[i].event_during)
			node_event(q, cases[i].actions, cases[i].label);
		fail_with(q, qpi, cases[i].unsched, cases[i].pending);
		if (tier_of(q, "p") != cases[i].want)
			fail_msg("%s: tier %d, want %d", cases[i].desc, tier_of(q, "p"), cases[i].want);
		queue_done(q, other->pod->meta.uid);
		queue_pod_info_free(other);
		struct queue_counts c;
		queue_counts(q, &c);
		assert_int_equal(c.in_flight, 0);
		assert_int_equal(c.in_flight_events, 0); /* done trimmed the list */
		queue_free(q);
	}
}

/* Events seen while two pods are in flight: the later pod ignores events before its own pop;
 * events are kept until no in-flight pod precedes them. */
static void test_in_flight_list_trimming(void **state)
{
	(void)state;
	struct queue *q = mkqueue(true);
	add_pod(q, mkpod("a", 10));
	add_pod(q, mkpod("b", 0));
	struct queue_pod_info *a = pop_now(q);
	node_event(q, QUEUE_ACT_ADD, "good"); /* after a's pop, before b's */
	struct queue_pod_info *b = pop_now(q);
	struct queue_counts c;
	queue_counts(q, &c);
	assert_int_equal(c.in_flight, 2);
	assert_int_equal(c.in_flight_events, 1);
	fail_with(q, b, "NodeResourcesFit", NULL);
	assert_int_equal(tier_of(q, "b"), QUEUE_TIER_UNSCHEDULABLE);
	queue_counts(q, &c);
	assert_int_equal(c.in_flight_events, 1); /* a still needs it */
	fail_with(q, a, "NodeResourcesFit", NULL);
	assert_int_equal(tier_of(q, "a"), QUEUE_TIER_BACKOFF);
	queue_counts(q, &c);
	assert_int_equal(c.in_flight_events, 0);
	/* with nobody in flight, events are not recorded */
	node_event(q, QUEUE_ACT_ADD, "bad");
	queue_counts(q, &c);
	assert_int_equal(c.in_flight_events, 0);
	queue_free(q);
}

static void test_gated_until_ungated(void **state)
{
	(void)state;
	struct queue *q = mkqueue(true);
	struct api_pod *gated = mkpod_rv("g", 0, "1", 2);
	struct err e = { 0 };
	assert_int_equal(queue_add(q, gated, &e), 0);
	assert_int_equal(tier_of(q, "g"), QUEUE_TIER_GATED);
	struct queue_counts c;
	queue_counts(q, &c);
	assert_int_equal(c.gated, 1);
	assert_int_equal(c.active, 0);
	struct queue_pod_info *none = NULL;
	assert_int_equal(queue_try_pop(q, &none), ERR_NOT_FOUND);
	/* cluster events do not even re-run PreEnqueue for a SchedulingGates-gated pod; a wildcard
	 * (the 5-minute flush included) does, and the pod stays gated (upstream v1.37
	 * moveEntitiesToActiveOrBackoffQueue: "wildcard events ... always trigger re-evaluation") */
	pre_enqueue_calls = 0;
	node_event(q, QUEUE_ACT_ADD, "good");
	assert_int_equal(pre_enqueue_calls, 0);
	struct queue_event wild = { QUEUE_RES_WILDCARD, QUEUE_ACT_ALL, NULL };
	queue_move_on_event(q, &wild, NULL, NULL, NULL, NULL);
	assert_int_equal(pre_enqueue_calls, 1);
	fake_now += 600 * SEC;
	queue_flush_unschedulable_leftover(q);
	assert_int_equal(tier_of(q, "g"), QUEUE_TIER_GATED);
	assert_int_equal(pre_enqueue_calls, 2);
	/* an update keeping one gate changes nothing */
	struct api_pod *one = mkpod_rv("g", 0, "2", 1);
	assert_int_equal(queue_update(q, gated, one, &e), 0);
	assert_int_equal(tier_of(q, "g"), QUEUE_TIER_GATED);
	/* removing the last gate lets it in */
	struct api_pod *open = mkpod_rv("g", 0, "3", 0);
	assert_int_equal(queue_update(q, one, open, &e), 0);
	assert_int_equal(tier_of(q, "g"), QUEUE_TIER_ACTIVE);
	struct queue_pod_info *qpi = pop_now(q);
	assert_ptr_equal(qpi->pod, open);
	assert_null(qpi->gating_plugin);
	queue_pod_info_free(qpi);
	api_pod_unref(gated);
	api_pod_unref(one);
	api_pod_unref(open);
	queue_free(q);
}

static void test_update_and_delete(void **state)
{
	(void)state;
	struct queue *q = mkqueue(true);
	struct err e = { 0 };
	struct api_pod *v1 = mkpod_rv("p", 0, "1", 0);
	struct api_pod *v1b = mkpod_rv("p", 99, "1", 0); /* same resourceVersion: ignored */
	struct api_pod *v2 = mkpod_rv("p", 5, "2", 0);
	assert_int_equal(queue_add(q, v1, &e), 0);
	add_pod(q, mkpod("q", 3));
	assert_int_equal(queue_update(q, v1, v1b, &e), 0);
	assert_int_equal(queue_update(q, v1, v2, &e), 0);
	struct queue_counts c;
	queue_counts(q, &c);
	assert_int_equal(c.active, 2);
	struct queue_pod_info *qpi = pop_now(q);
	assert_ptr_equal(qpi->pod, v2); /* replaced in place, and re-sorted by its priority */

	/* an update while in flight is recorded, not queued */
	struct api_pod *v3 = mkpod_rv("p", 5, "3", 0);
	v3->meta.labels.items = arena_alloc(v3->arena, sizeof(struct api_kv));
	v3->meta.labels.items[0] = (struct api_kv){ intern_str("app"), intern_str("x") };
	v3->meta.labels.n = 1;
	assert_int_equal(queue_update(q, v2, v3, &e), 0);
	queue_counts(q, &c);
	assert_int_equal(c.active, 1);
	assert_int_equal(c.in_flight_events, 1);
	assert_int_equal(tier_of(q, "p"), QUEUE_TIER_IN_FLIGHT);

	/* deleted while in flight: its requeue is dropped */
	queue_delete(q, v3);
	fail_with(q, qpi, "NodeResourcesFit", NULL);
	assert_int_equal(tier_of(q, "p"), QUEUE_TIER_NONE);

	/* delete from activeQ */
	struct api_pod *qp = mkpod("q", 3);
	queue_delete(q, qp);
	queue_counts(q, &c);
	assert_int_equal(c.active + c.backoff + c.unschedulable + c.gated, 0);

	/* delete from unschedulable, and a requeue of an already queued pod is refused */
	add_pod(q, mkpod("r", 0));
	qpi = pop_now(q);
	fail_with(q, qpi, "NodeAffinity", NULL);
	assert_int_equal(tier_of(q, "r"), QUEUE_TIER_UNSCHEDULABLE);
	struct api_pod *rp = mkpod("r", 0);
	queue_delete(q, rp);
	assert_int_equal(tier_of(q, "r"), QUEUE_TIER_NONE);

	api_pod_unref(rp);
	api_pod_unref(qp);
	api_pod_unref(v1);
	api_pod_unref(v1b);
	api_pod_unref(v2);
	api_pod_unref(v3);
	queue_free(q);
}

static void test_requeue_conflict(void **state)
{
	(void)state;
	struct queue *q = mkqueue(true);
	add_pod(q, mkpod("p", 0));
	struct queue_pod_info *qpi = pop_now(q);
	struct api_pod *again = mkpod_rv("p", 0, "2", 0);
	struct err e = { 0 };
	assert_int_equal(queue_add(q, again, &e), 0); /* an add while in flight: recorded */
	assert_int_equal(tier_of(q, "p"), QUEUE_TIER_IN_FLIGHT);
	queue_done(q, qpi->pod->meta.uid);
	assert_int_equal(queue_add(q, again, &e), 0);
	assert_int_equal(tier_of(q, "p"), QUEUE_TIER_ACTIVE);
	struct queue_failure f = { 0 };
	assert_int_equal(queue_add_unschedulable_if_not_present(q, qpi, &f, &e), ERR_CONFLICT);
	assert_non_null(strstr(e.msg, "already queued"));
	api_pod_unref(again);
	queue_free(q);
}

static void test_pop_from_backoff_when_idle(void **state)
{
	(void)state;
	struct queue *q = mkqueue(true);
	add_pod(q, mkpod("p", 0));
	struct queue_pod_info *qpi = pop_now(q);
	node_event(q, QUEUE_ACT_ADD, "good");
	fail_with(q, qpi, "NodeResourcesFit", NULL);
	assert_int_equal(tier_of(q, "p"), QUEUE_TIER_BACKOFF);
	qpi = pop_now(q); /* activeQ empty: the plugin backoff heap is popped early */
	assert_int_equal(qpi->attempts, 2);
	assert_int_equal(qpi->n_unschedulable_plugins, 0); /* cleared at pop */
	fail_with(q, qpi, NULL, NULL); /* an error: the error heap is never popped early */
	struct queue_pod_info *none = NULL;
	assert_int_equal(queue_try_pop(q, &none), ERR_NOT_FOUND);
	queue_free(q);
}

struct popper {
	struct queue *q;
	int rc;
	char name[32];
};

static void *pop_thread(void *arg)
{
	struct popper *p = arg;
	struct queue_pod_info *qpi = NULL;
	p->rc = queue_pop(p->q, &qpi);
	if (p->rc == 0) {
		snprintf(p->name, sizeof(p->name), "%s", qpi->pod->meta.name);
		queue_done(p->q, qpi->pod->meta.uid);
		queue_pod_info_free(qpi);
	}
	return NULL;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
}

static void test_pop_blocks_and_close_wakes(void **state)
{
	(void)state;
	struct queue *q = mkqueue(true);
	struct popper p = { q, 1, "" };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, pop_thread, &p), 0);
	sleep_ms(50);
	assert_int_equal(__atomic_load_n(&p.rc, __ATOMIC_SEQ_CST), 1); /* still blocked */
	add_pod(q, mkpod("woken", 0));
	pthread_join(t, NULL);
	assert_int_equal(p.rc, 0);
	assert_string_equal(p.name, "woken");

	struct popper p2 = { q, 1, "" };
	assert_int_equal(pthread_create(&t, NULL, pop_thread, &p2), 0);
	sleep_ms(50);
	queue_close(q);
	pthread_join(t, NULL);
	assert_int_equal(p2.rc, ERR_STOPPED);
	queue_free(q);
}

static void test_timer_thread_flushes(void **state)
{
	(void)state;
	/* 200 ms of backoff: long enough to land in backoffQ, short enough for the first 1 s tick */
	struct queue_options o = { .initial_backoff_ns = SEC / 5, .max_backoff_ns = SEC / 5, .no_pop_from_backoff = true };
	struct queue *q = queue_new(&o, NULL);
	assert_non_null(q);
	struct err e = { 0 };
	assert_int_equal(queue_start_timers(q, &e), 0);
	assert_int_equal(queue_start_timers(q, &e), ERR_INVALID);
	add_pod(q, mkpod("p", 0));
	struct queue_pod_info *qpi = NULL;
	assert_int_equal(queue_pop(q, &qpi), 0);
	fail_with(q, qpi, NULL, NULL);
	assert_int_equal(tier_of(q, "p"), QUEUE_TIER_BACKOFF);
	/* only the timer thread's flush can move it back; pop blocks until then */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(queue_pop(q, &qpi), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	int64_t waited = (t1.tv_sec - t0.tv_sec) * SEC + (t1.tv_nsec - t0.tv_nsec);
	assert_true(waited >= SEC / 10);
	assert_int_equal(qpi->attempts, 2);
	queue_pod_info_free(qpi);
	queue_free(q); /* joins the timer */
}

static void test_nominated(void **state)
{
	(void)state;
	struct queue *q = mkqueue(true);
	struct err e = { 0 };
	struct api_pod *hi = mkpod("hi", 100), *lo = mkpod("lo", 1), *other = mkpod("other", 100);
	assert_int_equal(queue_add_nominated_pod(q, hi, "n1", &e), 0);
	assert_int_equal(queue_add_nominated_pod(q, lo, "n1", &e), 0);
	assert_int_equal(queue_add_nominated_pod(q, other, "n2", &e), 0);
	assert_int_equal(queue_add_nominated_pod(q, other, "n2", &e), 0); /* replaces */
	static const struct {
		const char *node;
		int32_t min_prio;
		const char *exclude;
		uint32_t want;
	} cases[] = {
		{ "n1", 0, NULL, 2 },  { "n1", 50, NULL, 1 }, { "n1", 0, "uid-hi", 1 },
		{ NULL, 0, NULL, 3 }, { "n3", 0, NULL, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct queue_nominated *v;
		uint32_t n;
		assert_int_equal(queue_nominated_pods(q, cases[i].node, cases[i].min_prio, cases[i].exclude, &v, &n, &e), 0);
		assert_int_equal(n, cases[i].want);
		for (uint32_t j = 0; j < n; j++)
			if (cases[i].node)
				assert_string_equal(v[j].node_name, cases[i].node);
		queue_nominated_release(v, n);
	}
	assert_string_equal(queue_nominated_node(q, hi->meta.uid), "n1");
	queue_delete_nominated_pod(q, hi->meta.uid);
	assert_null(queue_nominated_node(q, hi->meta.uid));
	/* a pod added with status.nominatedNodeName is nominated; deleting it drops that */
	struct api_pod *st = mkpod("st", 7);
	st->nominated_node_name = intern_str("n9");
	assert_int_equal(queue_add(q, st, &e), 0);
	assert_string_equal(queue_nominated_node(q, st->meta.uid), "n9");
	queue_delete(q, st);
	assert_null(queue_nominated_node(q, st->meta.uid));
	struct queue_counts c;
	queue_counts(q, &c);
	assert_int_equal(c.nominated, 2);
	api_pod_unref(hi);
	api_pod_unref(lo);
	api_pod_unref(other);
	api_pod_unref(st);
	queue_free(q);
}

static void test_event_matching_and_labels(void **state)
{
	(void)state;
	static const struct {
		struct queue_event reg, in;
		bool want;
	} cases[] = {
		{ { QUEUE_RES_WILDCARD, QUEUE_ACT_ALL, NULL }, { QUEUE_RES_NODE, QUEUE_ACT_ADD, NULL }, true },
		{ { QUEUE_RES_POD, QUEUE_ACT_DELETE, NULL }, { QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_DELETE, NULL }, true },
		{ { QUEUE_RES_POD, QUEUE_ACT_DELETE, NULL }, { QUEUE_RES_UNSCHEDULED_POD, QUEUE_ACT_DELETE, NULL }, true },
		{ { QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_DELETE, NULL }, { QUEUE_RES_POD, QUEUE_ACT_DELETE, NULL }, false },
		{ { QUEUE_RES_NODE, QUEUE_ACT_UPDATE, NULL }, { QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_LABEL, NULL }, true },
		{ { QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_LABEL, NULL }, { QUEUE_RES_NODE, QUEUE_ACT_UPDATE, NULL }, false },
		{ { QUEUE_RES_NODE, QUEUE_ACT_ADD, NULL }, { QUEUE_RES_POD, QUEUE_ACT_ADD, NULL }, false },
		{ { QUEUE_RES_NODE, QUEUE_ACT_ALL, NULL }, { QUEUE_RES_NODE, QUEUE_ACT_DELETE, NULL }, true },
		{ { QUEUE_RES_NODE, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_TAINT, NULL },
		  { QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_TAINT, NULL }, true },
		{ { QUEUE_RES_NODE, QUEUE_ACT_ADD, NULL }, { QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_LABEL, NULL }, false },
		/* the registered bits must cover every incoming bit */
		{ { QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_LABEL, NULL },
		  { QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_LABEL | QUEUE_ACT_UPDATE_NODE_TAINT, NULL }, false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (queue_event_matches(&cases[i].reg, &cases[i].in) != cases[i].want)
			fail_msg("case %zu", i);
	char buf[64];
	struct queue_event ev = { QUEUE_RES_NODE, QUEUE_ACT_ADD, NULL };
	assert_string_equal(queue_event_label(&ev, buf, sizeof(buf)), "NodeAdd");
	ev = (struct queue_event){ QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_DELETE, NULL };
	assert_string_equal(queue_event_label(&ev, buf, sizeof(buf)), "AssignedPodDelete");
	ev = (struct queue_event){ QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_TAINT, NULL };
	assert_string_equal(queue_event_label(&ev, buf, sizeof(buf)), "NodeUpdateNodeTaint");
}

static void test_node_and_pod_update_events(void **state)
{
	(void)state;
	struct api_node *base = mknode("n", "a", 4000);
	struct api_node *same = mknode("n", "a", 4000);
	struct api_node *alloc = mknode("n", "a", 8000);
	struct api_node *label = mknode("n", "b", 4000);
	struct api_node *both = mknode("n", "b", 8000);
	struct api_node *cordoned = mknode("n", "a", 4000);
	cordoned->unschedulable = true;
	struct queue_event out[QUEUE_NODE_UPDATE_EVENTS_MAX];
	assert_int_equal(queue_node_update_events(base, same, out), 0);
	assert_int_equal(queue_node_update_events(base, alloc, out), 1);
	assert_int_equal(out[0].actions, QUEUE_ACT_UPDATE_NODE_ALLOCATABLE);
	assert_int_equal(queue_node_update_events(base, both, out), 2);
	assert_int_equal(out[0].actions, QUEUE_ACT_UPDATE_NODE_ALLOCATABLE);
	assert_int_equal(out[1].actions, QUEUE_ACT_UPDATE_NODE_LABEL);
	assert_int_equal(queue_node_update_events(base, label, out), 1);
	assert_int_equal(queue_node_update_events(base, cordoned, out), 0); /* only true -> false counts */
	assert_int_equal(queue_node_update_events(cordoned, base, out), 1);
	assert_int_equal(out[0].actions, QUEUE_ACT_UPDATE_NODE_TAINT);

	/* Annotations live in each node's arena (not interned): equal text is no change even
	 * though the pointers differ; another value or another key is UpdateNodeAnnotation. */
	static const char *const annot[][2][2] = {
		{ { "k", "v" }, { "k", "v" } }, { { "k", "v" }, { "k", "w" } }, { { "k", "v" }, { "j", "v" } },
	};
	static const uint32_t annot_events[] = { 0, 1, 1 };
	for (size_t i = 0; i < sizeof(annot) / sizeof(annot[0]); i++) {
		struct api_node *an[2];
		for (int k = 0; k < 2; k++) {
			an[k] = mknode("n", "a", 4000);
			struct api_kv *kv = arena_alloc(an[k]->arena, sizeof(*kv));
			kv->key = arena_strdup(an[k]->arena, annot[i][k][0]);
			kv->value = arena_strdup(an[k]->arena, annot[i][k][1]);
			an[k]->meta.annotations = (struct api_labels){ 1, kv };
		}
		assert_int_equal(queue_node_update_events(an[0], an[1], out), annot_events[i]);
		if (annot_events[i])
			assert_int_equal(out[0].actions, QUEUE_ACT_UPDATE_NODE_ANNOTATION);
		assert_int_equal(queue_node_update_events(base, an[1], out), 1); /* none -> one */
		api_node_unref(an[0]);
		api_node_unref(an[1]);
	}

	/* upstream events.go extractNodeFeaturesChange: slices.Equal on status.declaredFeatures, so
	 * adding, removing or reordering a feature is UpdateNodeDeclaredFeature, last in the list */
	static const char *const feats[][2] = {
		{ "[\"A\"]", "[\"A\"]" }, { NULL, "[\"A\"]" }, { "[\"A\"]", NULL }, { "[\"A\",\"B\"]", "[\"B\",\"A\"]" },
	};
	static const uint32_t feat_events[] = { 0, 1, 1, 1 };
	for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		struct api_node *fn[2];
		for (int k = 0; k < 2; k++) {
			char st[64];
			snprintf(st, sizeof(st), "\"declaredFeatures\":%s", feats[i][k] ? feats[i][k] : "[]");
			fn[k] = TOBJ_NODE(.name = "n", .uid = "n", .labels = k ? "zone=b" : "zone=a", .status = st);
		}
		assert_int_equal(queue_node_update_events(fn[0], fn[1], out), 1 + feat_events[i]);
		assert_int_equal(out[0].actions, QUEUE_ACT_UPDATE_NODE_LABEL);
		if (feat_events[i])
			assert_int_equal(out[1].actions, QUEUE_ACT_UPDATE_NODE_DECLARED_FEATURE);
		api_node_unref(fn[0]);
		api_node_unref(fn[1]);
	}
	char lbl[64];
	struct queue_event fev = { QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_DECLARED_FEATURE, NULL };
	assert_string_equal(queue_event_label(&fev, lbl, sizeof(lbl)), "NodeUpdateNodeDeclaredFeature");

	struct api_pod *gated = mkpod_rv("p", 0, "1", 1), *open = mkpod_rv("p", 0, "2", 0);
	struct queue_event pe[QUEUE_POD_UPDATE_EVENTS_MAX];
	assert_int_equal(queue_pod_update_events(gated, open, NULL, false, pe), 1);
	assert_int_equal(pe[0].resource, QUEUE_RES_UNSCHEDULED_POD);
	assert_int_equal(pe[0].actions, QUEUE_ACT_UPDATE_POD_SCHEDULING_GATES_ELIMINATED);
	assert_int_equal(queue_pod_update_events(open, open, NULL, false, pe), 1);
	assert_int_equal(pe[0].actions, QUEUE_ACT_UPDATE);
	struct api_node *nodes[] = { base, same, alloc, label, both, cordoned };
	for (size_t i = 0; i < 6; i++)
		api_node_unref(nodes[i]);
	api_pod_unref(gated);
	api_pod_unref(open);
}

/* upstream kube-scheduler framework/types.go ClusterEvent.Label ("%v%v" of EventResource and
 * ActionType.String, which is "" for an unnamed combination) and the EventResource strings; the
 * special labels of framework/events.go; v1.37 ActionType values. */
static void test_event_labels_upstream(void **state)
{
	(void)state;
	static const struct {
		struct queue_event ev;
		const char *want;
	} cases[] = {
		{ { QUEUE_RES_UNSCHEDULED_POD, QUEUE_ACT_ADD, NULL }, "UnscheduledPodAdd" }, /* EventUnscheduledPodAdd */
		{ { QUEUE_RES_UNSCHEDULED_POD, QUEUE_ACT_UPDATE, NULL }, "UnscheduledPodUpdate" },
		{ { QUEUE_RES_UNSCHEDULED_POD, QUEUE_ACT_DELETE, NULL }, "UnscheduledPodDelete" },
		{ { QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_ADD, NULL }, "AssignedPodAdd" },
		{ { QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_DELETE, NULL }, "AssignedPodDelete" },
		{ { QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_UPDATE_POD_SCALE_DOWN, NULL }, "AssignedPodUpdatePodScaleDown" },
		{ { QUEUE_RES_TARGET_POD, QUEUE_ACT_UPDATE, NULL }, "TargetPodUpdate" }, /* EventTargetPodUpdate */
		{ { QUEUE_RES_TARGET_POD, QUEUE_ACT_UPDATE_POD_SCALE_UP, NULL }, "TargetPodUpdatePodScaleUp" },
		{ { QUEUE_RES_POD, QUEUE_ACT_ALL, NULL }, "PodAll" },
		{ { QUEUE_RES_NODE, QUEUE_ACT_ADD, NULL }, "NodeAdd" },
		{ { QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_TAINT, NULL }, "NodeUpdateNodeTaint" },
		{ { QUEUE_RES_NODE, QUEUE_ACT_UPDATE_NODE_DECLARED_FEATURE, NULL }, "NodeUpdateNodeDeclaredFeature" },
		{ { QUEUE_RES_NODE, QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_TAINT, NULL }, "Node" },
		{ { QUEUE_RES_PERSISTENT_VOLUME_CLAIM, QUEUE_ACT_ADD, NULL }, "PersistentVolumeClaimAdd" },
		{ { QUEUE_RES_CSI_NODE, QUEUE_ACT_UPDATE, NULL }, "storage.k8s.io/CSINodeUpdate" },
		{ { QUEUE_RES_STORAGE_CLASS, QUEUE_ACT_ADD, NULL }, "storage.k8s.io/StorageClassAdd" },
		{ { QUEUE_RES_DEVICE_CLASS, QUEUE_ACT_DELETE, NULL }, "resource.k8s.io/DeviceClassDelete" },
		{ { QUEUE_RES_WILDCARD, QUEUE_ACT_ALL, "UnschedulableTimeout" }, "UnschedulableTimeout" },
		{ { QUEUE_RES_WILDCARD, QUEUE_ACT_ALL, "ForceActivate" }, "ForceActivate" },
		{ { QUEUE_RES_WILDCARD, QUEUE_ACT_ALL, NULL }, "*All" },
	};
	char buf[96];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(queue_event_label(&cases[i].ev, buf, sizeof(buf)), cases[i].want);
	assert_int_equal(QUEUE_ACT_UPDATE_NODE_ANNOTATION, 64);
	assert_int_equal(QUEUE_ACT_UPDATE_POD_LABEL, 512);
	assert_int_equal(QUEUE_ACT_UPDATE_POD_SCHEDULING_GATES_ELIMINATED, 8192);
	assert_int_equal(QUEUE_ACT_ALL, 32767);
}

/* upstream framework/types_test.go TestClusterEventMatching */
static void test_cluster_event_matching_upstream(void **state)
{
	(void)state;
	enum { W = QUEUE_RES_WILDCARD, P = QUEUE_RES_POD, A = QUEUE_RES_ASSIGNED_POD, U = QUEUE_RES_UNSCHEDULED_POD,
	       T = QUEUE_RES_TARGET_POD };
	const uint32_t lbl = QUEUE_ACT_UPDATE_NODE_LABEL, tnt = QUEUE_ACT_UPDATE_NODE_TAINT;
	const struct {
		const char *name;
		struct queue_event reg, in;
		bool want;
	} cases[] = {
		{ "wildcard event matches with all kinds of coming events", { W, QUEUE_ACT_ALL, NULL }, { P, lbl, NULL }, true },
		{ "event with resource = 'Pod' matching with coming events carries matching actionType", { P, lbl | tnt, NULL },
		  { P, lbl, NULL }, true },
		{ "event with resource = 'Pod' also matches event with 'UnscheduledPod' resource and matching actionType",
		  { P, lbl | tnt, NULL }, { U, lbl, NULL }, true },
		{ "event with resource = '*' matching with coming events carries same actionType", { W, lbl, NULL },
		  { P, lbl, NULL }, true },
		{ "event with resource = '*' matching with coming events carries different actionType", { W, lbl, NULL },
		  { P, QUEUE_ACT_UPDATE_NODE_ALLOCATABLE, NULL }, false },
		{ "event matching with coming events carries '*' resources", { P, lbl, NULL }, { W, lbl, NULL }, false },
		{ "event with resource = '*' matching with coming events carrying a too broad actionType", { W, lbl, NULL },
		  { P, QUEUE_ACT_UPDATE, NULL }, false },
		{ "event with resource = '*' matching with coming events carrying a more specific actionType",
		  { W, QUEUE_ACT_UPDATE, NULL }, { P, lbl, NULL }, true },
		{ "event with resource = 'Pod' also matches event with AssignedPod resource and same actionType",
		  { P, lbl, NULL }, { A, lbl, NULL }, true },
		{ "event with resource = 'Pod' also matches event with 'TargetPod' resource and same actionType",
		  { P, tnt, NULL }, { T, tnt, NULL }, true },
		{ "event with resource 'AssignedPod' does not match event with 'UnscheduledPod' resource and same actionType",
		  { A, QUEUE_ACT_ADD, NULL }, { U, QUEUE_ACT_ADD, NULL }, false },
		{ "event with resource 'AssignedPod' does not match event with 'TargetPod' resource and same actionType",
		  { A, QUEUE_ACT_UPDATE, NULL }, { T, QUEUE_ACT_UPDATE, NULL }, false },
		{ "event with resource 'TargetPod' does not match event with 'AssignedPod' resource and same actionType",
		  { T, QUEUE_ACT_UPDATE, NULL }, { A, QUEUE_ACT_UPDATE, NULL }, false },
		{ "event with resource 'AssignedPod' does not match with broad 'Pod' resource and same actionType",
		  { A, QUEUE_ACT_ADD, NULL }, { P, QUEUE_ACT_ADD, NULL }, false },
		{ "event with resource 'AssignedPod' does not match with 'WildCard' resource and same actionType",
		  { A, QUEUE_ACT_ADD, NULL }, { W, QUEUE_ACT_ADD, NULL }, false },
		{ "event with resource 'UnscheduledPod' does not match with broad 'Pod' resource and same actionType",
		  { U, QUEUE_ACT_ADD, NULL }, { P, QUEUE_ACT_ADD, NULL }, false },
		{ "WildCard matches with a pod sub-type resource 'TargetPod' and any actionType", { W, QUEUE_ACT_ALL, NULL },
		  { T, QUEUE_ACT_UPDATE, NULL }, true },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (queue_event_matches(&cases[i].reg, &cases[i].in) != cases[i].want)
			fail_msg("%s", cases[i].name);
}

/* A stand-in for node_res_scaled_down (cache/, not linked here): the first container's cpu
 * request, as upstream extractPodScaleDown compares requests. */
static bool cpu_scaled_down(const struct api_pod *old_pod, const struct api_pod *new_pod)
{
	const struct api_resources *o = &old_pod->containers[0].requests, *n = &new_pod->containers[0].requests;
	return o->has_cpu && (!n->has_cpu || o->cpu > n->cpu);
}

/* upstream framework/events_test.go Test_podSchedulingPropertiesChange (the DRA claim status
 * cases: test_pod_update_events_dra). */
static void test_pod_update_events_upstream(void **state)
{
	(void)state;
	struct api_pod *big = TOBJ_POD(.containers = { { .req = "cpu=101m" } });
	struct api_pod *small = TOBJ_POD(.containers = { { .req = "cpu=100m" } });
	struct api_pod *small_label = TOBJ_POD(.labels = "foo=bar", .containers = { { .req = "cpu=100m" } });
	struct api_pod *a_bar = TOBJ_POD(.labels = "foo=bar", .node = "node", .containers = { { .req = "" } });
	struct api_pod *a_bar2 = TOBJ_POD(.labels = "foo=bar2", .node = "node", .containers = { { .req = "" } });
	struct api_pod *u_bar = TOBJ_POD(.labels = "foo=bar", .containers = { { .req = "" } });
	struct api_pod *u_bar2 = TOBJ_POD(.labels = "foo=bar2", .containers = { { .req = "" } });
	struct api_pod *plain = TOBJ_POD(.containers = { { .req = "" } });
	struct api_pod *gate_foo = TOBJ_POD(.gates = "foo", .containers = { { .req = "" } });
	struct api_pod *gate_foo_bar = TOBJ_POD(.gates = "foo,bar", .containers = { { .req = "" } });
	struct api_pod *tol1 = TOBJ_POD(.tolerations = "key:", .containers = { { .req = "" } });
	struct api_pod *tol2 = TOBJ_POD(.tolerations = "key:,key2:", .containers = { { .req = "" } });
	const struct {
		const char *name;
		struct api_pod *new_pod, *old_pod;
		bool target;
		uint32_t n;
		struct queue_event want[2];
	} cases[] = {
		{ "assigned pod is updated", a_bar, a_bar2, false, 1, { { QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_UPDATE_POD_LABEL, NULL } } },
		{ "unscheduled pod label is updated", u_bar, u_bar2, false, 1,
		  { { QUEUE_RES_UNSCHEDULED_POD, QUEUE_ACT_UPDATE_POD_LABEL, NULL } } },
		{ "pod's resource request is scaled down", small, big, false, 1,
		  { { QUEUE_RES_UNSCHEDULED_POD, QUEUE_ACT_UPDATE_POD_SCALE_DOWN, NULL } } },
		{ "pod's resource request is scaled up", big, small, false, 1,
		  { { QUEUE_RES_UNSCHEDULED_POD, QUEUE_ACT_UPDATE_POD_SCALE_UP, NULL } } },
		{ "both pod's resource request and label are updated", small_label, big, false, 2,
		  { { QUEUE_RES_UNSCHEDULED_POD, QUEUE_ACT_UPDATE_POD_LABEL, NULL },
		    { QUEUE_RES_UNSCHEDULED_POD, QUEUE_ACT_UPDATE_POD_SCALE_DOWN, NULL } } },
		{ "untracked properties of pod is updated", plain, plain, false, 1,
		  { { QUEUE_RES_UNSCHEDULED_POD, QUEUE_ACT_UPDATE, NULL } } },
		{ "scheduling gate is eliminated", plain, gate_foo, true, 1,
		  { { QUEUE_RES_TARGET_POD, QUEUE_ACT_UPDATE_POD_SCHEDULING_GATES_ELIMINATED, NULL } } },
		{ "scheduling gate is removed, but not completely eliminated", gate_foo, gate_foo_bar, true, 1,
		  { { QUEUE_RES_TARGET_POD, QUEUE_ACT_UPDATE, NULL } } },
		{ "pod's tolerations are updated", tol2, tol1, true, 1,
		  { { QUEUE_RES_TARGET_POD, QUEUE_ACT_UPDATE_POD_TOLERATION, NULL } } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct queue_event got[QUEUE_POD_UPDATE_EVENTS_MAX];
		uint32_t n = queue_pod_update_events(cases[i].old_pod, cases[i].new_pod, cpu_scaled_down, cases[i].target, got);
		if (n != cases[i].n)
			fail_msg("%s: %u events, want %u", cases[i].name, n, cases[i].n);
		for (uint32_t j = 0; j < n; j++)
			if (got[j].resource != cases[i].want[j].resource || got[j].actions != cases[i].want[j].actions)
				fail_msg("%s: event %u is {%u, %u}, want {%u, %u}", cases[i].name, j, got[j].resource,
					 got[j].actions, cases[i].want[j].resource, cases[i].want[j].actions);
	}
	struct api_pod *all[] = { big, small, small_label, a_bar, a_bar2, u_bar, u_bar2, plain, gate_foo, gate_foo_bar,
				  tol1, tol2 };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		api_pod_unref(all[i]);
}

static struct api_pod *pod_json(const char *status)
{
	char buf[512];
	struct err e = { 0 };
	int n = snprintf(buf, sizeof(buf), "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"uid\":\"u\"},"
					   "\"spec\":{\"containers\":[{\"name\":\"c\"}]},\"status\":%s}", status);
	struct api_pod *p = api_pod_decode_json(buf, (size_t)n, &e);
	if (!p)
		fail_msg("%s", e.msg);
	return p;
}

/* upstream framework/events_test.go Test_podSchedulingPropertiesChange, its claim status cases
 * with DRA enabled (the default): extractPodGeneratedResourceClaimChange. */
static void test_pod_update_events_dra(void **state)
{
	(void)state;
#define CLAIM_A "{\"name\":\"my-claim\",\"resourceClaimName\":\"claim\"}"
#define CLAIM_B "{\"name\":\"my-claim-2\",\"resourceClaimName\":\"claim-2\"}"
#define EXT(c) "{\"extendedResourceClaimStatus\":{\"requestMappings\":[{\"requestName\":\"request\",\"containerName\":\"c\"," \
	       "\"resourceName\":\"example.com/gpu\"}],\"resourceClaimName\":\"" c "\"}}"
	struct api_pod *plain = pod_json("{}"), *a = pod_json("{\"resourceClaimStatuses\":[" CLAIM_A "]}"),
		       *ab = pod_json("{\"resourceClaimStatuses\":[" CLAIM_A "," CLAIM_B "]}"),
		       *ba = pod_json("{\"resourceClaimStatuses\":[" CLAIM_B "," CLAIM_A "]}"), *ext_a = pod_json(EXT("claim")),
		       *ext_b = pod_json(EXT("claim-2")), *ext_a2 = pod_json(EXT("claim"));
#undef CLAIM_A
#undef CLAIM_B
#undef EXT
	const struct {
		const char *name;
		struct api_pod *new_pod, *old_pod;
		uint32_t actions;
	} cases[] = {
		{ "pod claim statuses change, feature enabled", a, plain, QUEUE_ACT_UPDATE_POD_GENERATED_RESOURCE_CLAIM },
		{ "pod claim statuses swapped", ab, ba, QUEUE_ACT_UPDATE_POD_GENERATED_RESOURCE_CLAIM },
		{ "pod extended resource claim status change, feature enabled", ext_a, plain,
		  QUEUE_ACT_UPDATE_POD_GENERATED_RESOURCE_CLAIM },
		{ "pod extended resource claim status swapped", ext_b, ext_a, QUEUE_ACT_UPDATE_POD_GENERATED_RESOURCE_CLAIM },
		/* not upstream cases: equal statuses are no change */
		{ "same claim statuses", ab, ab, QUEUE_ACT_UPDATE },
		{ "same extended status", ext_a2, ext_a, QUEUE_ACT_UPDATE },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct queue_event got[QUEUE_POD_UPDATE_EVENTS_MAX];
		uint32_t n = queue_pod_update_events(cases[i].old_pod, cases[i].new_pod, NULL, true, got);
		if (n != 1 || got[0].resource != QUEUE_RES_TARGET_POD || got[0].actions != cases[i].actions)
			fail_msg("%s: %u events, first {%u, %u}, want {%u, %u}", cases[i].name, n, got[0].resource,
				 got[0].actions, QUEUE_RES_TARGET_POD, cases[i].actions);
	}
	struct api_pod *all[] = { plain, a, ab, ba, ext_a, ext_b, ext_a2 };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		api_pod_unref(all[i]);
}

static const char *nominated_on(struct queue *q, const struct api_pod *pod)
{
	return queue_nominated_node(q, pod->meta.uid);
}

/* upstream scheduling_queue_test.go TestPriorityQueue_AddNominatedGatedPod: addPod records the
 * nomination of a pod PreEnqueue gates. */
static void test_nominated_gated_pod(void **state)
{
	(void)state;
	struct queue *q = mkqueue(true);
	struct api_pod *gated = TOBJ_POD(.name = "pod-gated", .ns = "ns1", .uid = "pod-gated", .gates = "g",
					 .nominated = "node1");
	struct err e = { 0 };
	assert_int_equal(queue_add(q, gated, &e), 0);
	assert_int_equal(queue_pod_tier(q, gated->meta.uid), QUEUE_TIER_GATED);
	assert_non_null(nominated_on(q, gated));
	assert_string_equal(nominated_on(q, gated), "node1");
	api_pod_unref(gated);
	queue_free(q);
}

/* upstream scheduling_queue_test.go TestPriorityQueue_UpdateNominatedPodForNode (the nominator's
 * pod-lister checks are the caller's in csched: scheduler/attempt.c update_nomination) and
 * TestPriorityQueue_NominatedNodeNameEmptyNodeKey: Override replaces, Override "" clears, Noop
 * (node NULL) takes the pod's status.nominatedNodeName; popping keeps nominations. */
static void test_nominations_upstream(void **state)
{
	(void)state;
	struct queue *q = mkqueue(true);
	struct err e = { 0 };
	struct api_pod *mpp = TOBJ_POD(.name = "mpp", .ns = "ns2", .uid = "mppns2", .priority = "2", .nominated = "node1");
	struct api_pod *up = TOBJ_POD(.name = "up", .ns = "ns1", .uid = "upns1", .priority = "1", .nominated = "node1");
	struct api_pod *hpp = TOBJ_POD(.name = "hpp", .ns = "ns1", .uid = "hppns1", .priority = "3");
	struct api_pod *hpp2 = TOBJ_POD(.name = "hpp", .ns = "ns1", .uid = "hppns1", .priority = "3", .nominated = "node2");
	assert_int_equal(queue_add(q, mpp, &e), 0);
	assert_int_equal(queue_add_nominated_pod(q, up, "node5", &e), 0);
	assert_int_equal(queue_add_nominated_pod(q, hpp, "node2", &e), 0);
	assert_string_equal(nominated_on(q, mpp), "node1");
	assert_string_equal(nominated_on(q, hpp), "node2");
	assert_string_equal(nominated_on(q, up), "node5");
	struct queue_pod_info *qpi = pop_now(q);
	assert_ptr_equal(qpi->pod, mpp);
	assert_string_equal(nominated_on(q, mpp), "node1"); /* unchanged by the pop */
	assert_int_equal(queue_add_nominated_pod(q, hpp, "node4", &e), 0);
	assert_string_equal(nominated_on(q, hpp), "node4");
	queue_delete_nominated_pod(q, hpp->meta.uid);
	assert_null(nominated_on(q, hpp));
	/* NominatedNodeNameEmptyNodeKey: "nominated then cleared with ModeOverride empty" */
	assert_int_equal(queue_add_nominated_pod(q, hpp, "node1", &e), 0);
	assert_int_equal(queue_add_nominated_pod(q, hpp, "", &e), 0);
	assert_null(nominated_on(q, hpp));
	/* "nominated then cleared with ModeNoop empty" */
	assert_int_equal(queue_add_nominated_pod(q, hpp, "node1", &e), 0);
	assert_int_equal(queue_add_nominated_pod(q, hpp, NULL, &e), 0);
	assert_null(nominated_on(q, hpp));
	/* "ModeNoop empty nominatingInfo NNN with non-empty pod NNN" */
	assert_int_equal(queue_add_nominated_pod(q, hpp2, NULL, &e), 0);
	assert_string_equal(nominated_on(q, hpp2), "node2");
	struct queue_nominated *v;
	uint32_t n;
	assert_int_equal(queue_nominated_pods(q, "", INT32_MIN, NULL, &v, &n, &e), 0);
	assert_int_equal(n, 0); /* never keyed by "" */
	queue_pod_info_free(qpi);
	api_pod_unref(mpp);
	api_pod_unref(up);
	api_pod_unref(hpp);
	api_pod_unref(hpp2);
	queue_free(q);
}

/* upstream nominator.go UpdateNominatedPod through scheduling_queue.go Update: an update that
 * removes or changes status.nominatedNodeName replaces the nomination; one that carries none
 * keeps the in-memory nomination only when the old pod carried none either. Delete drops it. */
static void test_nomination_on_update_and_delete(void **state)
{
	(void)state;
	struct queue *q = mkqueue(true);
	struct err e = { 0 };
	struct api_pod *v1 = TOBJ_POD(.name = "p", .rv = "1", .nominated = "n1");
	struct api_pod *v2 = TOBJ_POD(.name = "p", .rv = "2"); /* nomination removed */
	struct api_pod *v3 = TOBJ_POD(.name = "p", .rv = "3", .nominated = "n3");
	struct api_pod *v4 = TOBJ_POD(.name = "p", .rv = "4", .nominated = "n4"); /* changed */
	struct api_pod *v5 = TOBJ_POD(.name = "p", .rv = "5");
	struct api_pod *v6 = TOBJ_POD(.name = "p", .rv = "6");
	assert_int_equal(queue_add(q, v1, &e), 0);
	assert_string_equal(nominated_on(q, v1), "n1");
	assert_int_equal(queue_update(q, v1, v2, &e), 0);
	assert_null(nominated_on(q, v1));
	assert_int_equal(queue_update(q, v2, v3, &e), 0);
	assert_string_equal(nominated_on(q, v1), "n3");
	assert_int_equal(queue_update(q, v3, v4, &e), 0);
	assert_string_equal(nominated_on(q, v1), "n4");
	assert_int_equal(queue_update(q, v4, v5, &e), 0);
	assert_null(nominated_on(q, v1));
	/* preemption nominated it in memory; an update carrying no nomination (old had none) keeps it */
	assert_int_equal(queue_add_nominated_pod(q, v5, "n9", &e), 0);
	assert_int_equal(queue_update(q, v5, v6, &e), 0);
	assert_string_equal(nominated_on(q, v1), "n9");
	queue_delete(q, v6);
	assert_null(nominated_on(q, v1));
	struct api_pod *all[] = { v1, v2, v3, v4, v5, v6 };
	for (size_t i = 0; i < 6; i++)
		api_pod_unref(all[i]);
	queue_free(q);
}

struct flush_count {
	uint64_t n;
};
static void flush_cb(void *ctx, const char *queue, const char *event, uint64_t count)
{
	if (!strcmp(queue, "unschedulable") && !strcmp(event, "UnschedulableTimeout"))
		((struct flush_count *)ctx)->n = count;
}

/* upstream scheduling_queue_test.go TestGatedPodFlushFrequency: a gated pod is flushed after the
 * maximum unschedulable time, then again only when that much time has passed since its last
 * flush (FlushTimestamp); each flush re-runs PreEnqueue and, the pod gated again, counts it under
 * {unschedulable, UnschedulableTimeout} (unschedulableEntities.addOrUpdate of a deleted entry). */
static void test_gated_pod_flush_frequency(void **state)
{
	(void)state;
	struct queue *q = mkqueue(true);
	struct api_pod *gated = mkpod_rv("g", 0, "1", 1);
	struct err e = { 0 };
	assert_int_equal(queue_add(q, gated, &e), 0);
	static const struct {
		int64_t step; /* seconds */
		int want_calls;
		uint64_t want_flushes;
	} steps[] = {
		{ 5 * 60 + 1, 1, 1 }, /* T=5:01 */
		{ 4 * 60, 0, 1 },     /* T=9:01: not 5 minutes since the last flush */
		{ 60 + 1, 1, 2 },     /* T=10:02 */
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		fake_now += steps[i].step * SEC;
		pre_enqueue_calls = 0;
		queue_flush_unschedulable_leftover(q);
		assert_int_equal(tier_of(q, "g"), QUEUE_TIER_GATED);
		assert_int_equal(pre_enqueue_calls, steps[i].want_calls);
		struct flush_count fc = { 0 };
		queue_incoming_foreach(q, flush_cb, &fc);
		if (fc.n != steps[i].want_flushes)
			fail_msg("step %zu: %llu flushes counted, want %llu", i, (unsigned long long)fc.n,
				 (unsigned long long)steps[i].want_flushes);
	}
	api_pod_unref(gated);
	queue_free(q);
}

struct inc {
	uint64_t active_add, unsched_failure, backoff_complete;
};
static void inc_cb(void *ctx, const char *queue, const char *event, uint64_t count)
{
	struct inc *x = ctx;
	if (!strcmp(queue, "active") && !strcmp(event, "UnscheduledPodAdd"))
		x->active_add = count;
	if (!strcmp(queue, "unschedulable") && !strcmp(event, "ScheduleAttemptFailure"))
		x->unsched_failure = count;
	if (!strcmp(queue, "active") && !strcmp(event, "BackoffComplete"))
		x->backoff_complete = count;
}

static void test_incoming_counters(void **state)
{
	(void)state;
	struct queue *q = mkqueue(false);
	add_pod(q, mkpod("a", 0));
	add_pod(q, mkpod("b", 0));
	fail_with(q, pop_now(q), "NodeAffinity", NULL);
	fail_with(q, pop_now(q), NULL, NULL);
	fake_now += 2 * SEC;
	queue_flush_backoff_completed(q);
	struct inc x = { 0 };
	queue_incoming_foreach(q, inc_cb, &x);
	assert_int_equal(x.active_add, 2);
	assert_int_equal(x.unsched_failure, 1);
	assert_int_equal(x.backoff_complete, 1);
	queue_free(q);
}

struct rejectors {
	int calls;
	uint64_t affinity, fit, gates;
};
static void rejector_cb(void *ctx, const char *plugin, const char *profile, uint64_t count)
{
	struct rejectors *x = ctx;
	assert_string_equal(profile, "default-scheduler");
	assert_true(count > 0);
	x->calls++;
	if (!strcmp(plugin, "NodeAffinity"))
		x->affinity = count;
	else if (!strcmp(plugin, "NodeResourcesFit"))
		x->fit = count;
	else if (!strcmp(plugin, "SchedulingGates"))
		x->gates = count;
	else
		fail_msg("unexpected plugin %s", plugin);
}

static struct rejectors rejector_counts(struct queue *q)
{
	struct rejectors x = { 0 };
	queue_rejector_counts(q, rejector_cb, &x);
	return x;
}

/* scheduler_unschedulable_pods: queued pods by the plugins that rejected them (unschedulable and
 * pending sets as one, the gating plugin too), from the failure until the next pop. */
static void test_rejector_counts(void **state)
{
	(void)state;
	struct queue *q = mkqueue(false);
	struct err e = { 0 };
	add_pod(q, mkpod("a", 0));
	add_pod(q, mkpod("b", 0));
	add_pod(q, mkpod("c", 0));
	struct rejectors x = rejector_counts(q);
	assert_int_equal(x.calls, 0);
	fail_with(q, pop_now(q), "NodeAffinity", NULL);
	fail_with(q, pop_now(q), "NodeResourcesFit", "NodeAffinity");
	struct queue_pod_info *c = pop_now(q); /* in flight: not counted */
	struct api_pod *gated = mkpod_rv("g", 0, "1", 1);
	assert_int_equal(queue_add(q, gated, &e), 0);
	x = rejector_counts(q);
	assert_int_equal(x.calls, 3);
	assert_int_equal(x.affinity, 2);
	assert_int_equal(x.fit, 1);
	assert_int_equal(x.gates, 1);
	/* a plugin in both sets counts the pod once */
	fail_with(q, c, "NodeResourcesFit", "NodeResourcesFit");
	x = rejector_counts(q);
	assert_int_equal(x.fit, 2);
	/* moved by an event, a pod still counts until it is popped */
	node_event(q, QUEUE_ACT_ADD, "good");
	x = rejector_counts(q);
	assert_int_equal(x.affinity, 2);
	fake_now += 20 * SEC;
	queue_flush_backoff_completed(q);
	struct queue_pod_info *qpi;
	while (queue_try_pop(q, &qpi) == 0) {
		queue_done(q, qpi->pod->meta.uid);
		queue_pod_info_free(qpi);
	}
	x = rejector_counts(q);
	assert_int_equal(x.affinity, 0);
	assert_int_equal(x.fit, 0);
	assert_int_equal(x.gates, 1);
	/* a deleted pod is gone from the count */
	queue_delete(q, gated);
	x = rejector_counts(q);
	assert_int_equal(x.calls, 0);
	api_pod_unref(gated);
	queue_free(q);
}

/* upstream scheduling_queue_test.go TestPriorityQueue_Activate: an unschedulable or backing-off
 * pod goes to activeQ; one in activeQ stays; an unknown one stays out; an in-flight one gets the
 * ForceActivate event, so its failed attempt goes back in (after backoff, as for any wildcard
 * event) instead of parking in unschedulable. */
static void test_activate(void **state)
{
	(void)state;
	static const struct {
		const char *desc;
		int setup; /* 0 active, 1 unschedulable, 2 backoff, 3 unknown, 4 in flight */
		enum queue_tier want;
	} cases[] = {
		{ "pod already in activeQ", 0, QUEUE_TIER_ACTIVE },
		{ "pod in unschedulableEntities", 1, QUEUE_TIER_ACTIVE },
		{ "pod in backoffQ", 2, QUEUE_TIER_ACTIVE },
		{ "pod not in unschedulableEntities/backoffQ and not in-flight", 3, QUEUE_TIER_NONE },
		{ "pod not in unschedulableEntities/backoffQ but in-flight", 4, QUEUE_TIER_BACKOFF },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct queue *q = mkqueue(true);
		if (cases[i].setup != 3) {
			add_pod(q, mkpod("p", 0));
			if (cases[i].setup != 0) {
				struct queue_pod_info *qpi = pop_now(q);
				if (cases[i].setup == 4) {
					queue_activate(q, qpi->pod->meta.uid); /* during the attempt */
					fail_with(q, qpi, "NodeResourcesFit", NULL);
				} else {
					fail_with(q, qpi, cases[i].setup == 1 ? "NodeResourcesFit" : NULL, NULL);
				}
			}
		}
		if (cases[i].setup != 4)
			queue_activate(q, intern_str("uid-p"));
		if (tier_of(q, "p") != cases[i].want)
			fail_msg("%s: tier %d, want %d", cases[i].desc, tier_of(q, "p"), cases[i].want);
		queue_free(q);
	}
}

/* queue_activate_gated: only a pod the named plugin gates is re-run through PreEnqueue */
static void test_activate_gated(void **state)
{
	(void)state;
	struct queue *q = mkqueue(true);
	gate_all_as = "DefaultPreemption";
	add_pod(q, mkpod("g", 0));
	gate_all_as = NULL;
	add_pod(q, mkpod("u", 0));
	fail_with(q, pop_now(q), "NodeResourcesFit", NULL); /* u: unschedulable, not gated */
	assert_int_equal(tier_of(q, "g"), QUEUE_TIER_GATED);
	assert_int_equal(tier_of(q, "u"), QUEUE_TIER_UNSCHEDULABLE);
	pre_enqueue_calls = 0;
	queue_activate_gated(q, intern_str("uid-g"), "SchedulingGates"); /* another plugin's gate */
	queue_activate_gated(q, intern_str("uid-u"), "DefaultPreemption");
	assert_int_equal(pre_enqueue_calls, 0);
	assert_int_equal(tier_of(q, "g"), QUEUE_TIER_GATED);
	assert_int_equal(tier_of(q, "u"), QUEUE_TIER_UNSCHEDULABLE);
	gate_all_as = "DefaultPreemption"; /* still gating: stays */
	queue_activate_gated(q, intern_str("uid-g"), "DefaultPreemption");
	gate_all_as = NULL;
	assert_int_equal(pre_enqueue_calls, 1);
	assert_int_equal(tier_of(q, "g"), QUEUE_TIER_GATED);
	queue_activate_gated(q, intern_str("uid-g"), "DefaultPreemption");
	assert_int_equal(tier_of(q, "g"), QUEUE_TIER_ACTIVE);
	queue_free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_priority_then_time),
		cmocka_unit_test(test_backoff_arithmetic),
		cmocka_unit_test(test_backoff_flush_timing),
		cmocka_unit_test(test_backoff_duration_upstream),
		cmocka_unit_test(test_backoff_flow_windows),
		cmocka_unit_test(test_unschedulable_leftover_flush),
		cmocka_unit_test(test_event_moves_only_hinted_pods),
		cmocka_unit_test(test_in_flight_events),
		cmocka_unit_test(test_in_flight_list_trimming),
		cmocka_unit_test(test_gated_until_ungated),
		cmocka_unit_test(test_update_and_delete),
		cmocka_unit_test(test_requeue_conflict),
		cmocka_unit_test(test_pop_from_backoff_when_idle),
		cmocka_unit_test(test_pop_blocks_and_close_wakes),
		cmocka_unit_test(test_timer_thread_flushes),
		cmocka_unit_test(test_nominated),
		cmocka_unit_test(test_event_matching_and_labels),
		cmocka_unit_test(test_node_and_pod_update_events),
		cmocka_unit_test(test_incoming_counters),
		cmocka_unit_test(test_event_labels_upstream),
		cmocka_unit_test(test_cluster_event_matching_upstream),
		cmocka_unit_test(test_pod_update_events_upstream),
		cmocka_unit_test(test_pod_update_events_dra),
		cmocka_unit_test(test_nominated_gated_pod),
		cmocka_unit_test(test_gated_pod_flush_frequency),
		cmocka_unit_test(test_nominations_upstream),
		cmocka_unit_test(test_nomination_on_update_and_delete),
		cmocka_unit_test(test_rejector_counts),
		cmocka_unit_test(test_activate),
		cmocka_unit_test(test_activate_gated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
