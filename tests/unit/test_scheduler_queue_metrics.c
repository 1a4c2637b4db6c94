/* scheduler_queue_incoming_pods_total as /metrics renders it from a real queue: the queue and
 * event labels of upstream v1.37, checked with the Prometheus text checker. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prom_text_check.h"
#include "queue/queue.h"
#include "scheduler/metrics.h"
#include "testobj.h"

#define SEC 1000000000LL
#define FAMILY "scheduler_queue_incoming_pods_total"

static int64_t fake_now;
static int64_t fake_clock(void *ctx)
{
	(void)ctx;
	return fake_now;
}

struct emit_adapter {
	sched_metrics_emit_fn emit;
	void *ctx;
};

static void emit_count(void *ctx, const char *queue, const char *event, uint64_t count)
{
	const struct emit_adapter *a = ctx;
	a->emit(a->ctx, queue, event, (double)count);
}

/* what scheduler.c's source does */
static void src_incoming(void *ctx, sched_metrics_emit_fn emit, void *emit_ctx)
{
	struct emit_adapter a = { emit, emit_ctx };
	queue_incoming_foreach(ctx, emit_count, &a);
}

/* ---------- operations (upstream scheduling_queue_test.go, applied to each pod in turn) ---------- */

enum op { ADD, POP_REQUEUE_UNSCHEDULABLE, POP_REQUEUE_BACKOFF, MOVE_ALL, MOVE_CLOCK, FLUSH_BACKOFF, OP_END };

static void pop_and_requeue(struct queue *q, struct api_pod *pod, const char *plugin)
{
	struct err e = { 0 };
	assert_int_equal(queue_add(q, pod, &e), 0);
	struct queue_pod_info *qpi = NULL;
	assert_int_equal(queue_try_pop(q, &qpi), 0);
	assert_ptr_equal(qpi->pod, pod);
	const char *u[1] = { plugin };
	struct queue_failure f = { .unschedulable_plugins = u, .n_unschedulable_plugins = plugin ? 1 : 0 };
	assert_int_equal(queue_add_unschedulable_if_not_present(q, qpi, &f, &e), 0);
}

static void run_op(struct queue *q, enum op op, struct api_pod *pod)
{
	struct err e = { 0 };
	struct queue_event timeout = { QUEUE_RES_WILDCARD, QUEUE_ACT_ALL, "UnschedulableTimeout" };
	switch (op) {
	case ADD:
		assert_int_equal(queue_add(q, pod, &e), 0);
		break;
	case POP_REQUEUE_UNSCHEDULABLE:
		pop_and_requeue(q, pod, "unschedulable_plugin");
		break;
	case POP_REQUEUE_BACKOFF: /* no known rejector: an error, always after backoff */
		pop_and_requeue(q, pod, NULL);
		break;
	case MOVE_ALL:
		queue_move_on_event(q, &timeout, NULL, NULL, NULL, NULL);
		break;
	case MOVE_CLOCK:
		fake_now += 3 * SEC;
		break;
	case FLUSH_BACKOFF:
		fake_now += 3 * SEC;
		queue_flush_backoff_completed(q);
		break;
	default:
		break;
	}
}

/* The family's samples in text as "queue/event=value" lines, sorted, into out. */
static void family_samples(const char *text, char *out, size_t size)
{
	char lines[16][160];
	int n = 0;
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		struct prom_sample s;
		char why[128];
		if (line[0] != '#' && prom_parse_sample(line, &s, why, sizeof(why)) && strcmp(s.name, FAMILY) == 0) {
			assert_true(n < 16);
			snprintf(lines[n++], sizeof(lines[0]), "%s/%s=%g", prom_label(&s, "queue"), prom_label(&s, "event"),
				 s.value);
		}
		p += len + (nl ? 1 : 0);
	}
	qsort(lines, (size_t)n, sizeof(lines[0]), (int (*)(const void *, const void *))strcmp);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		strncat(out, lines[i], size - strlen(out) - 1);
		strncat(out, "\n", size - strlen(out) - 1);
	}
}

/* upstream backend/queue/scheduling_queue_test.go TestIncomingPodsMetrics: its cases and expected
 * series (three pods; expected lines sorted here). */
static void test_incoming_pods_metrics_upstream(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		enum op ops[4];
		const char *want;
	} cases[] = {
		{ "add pods to activeQ", { ADD, OP_END }, "active/UnscheduledPodAdd=3\n" },
		{ "add unscheduled pods then make them unschedulable", { POP_REQUEUE_UNSCHEDULABLE, OP_END },
		  "active/UnscheduledPodAdd=3\nunschedulable/ScheduleAttemptFailure=3\n" },
		{ "add unscheduled pods, make them unschedulable, and move them to backoffQ",
		  { POP_REQUEUE_UNSCHEDULABLE, MOVE_ALL, OP_END },
		  "active/UnscheduledPodAdd=3\nbackoff/UnschedulableTimeout=3\nunschedulable/ScheduleAttemptFailure=3\n" },
		{ "add unscheduled pods, make them unschedulable, and move them to activeQ",
		  { POP_REQUEUE_UNSCHEDULABLE, MOVE_CLOCK, MOVE_ALL, OP_END },
		  "active/UnschedulableTimeout=3\nactive/UnscheduledPodAdd=3\nunschedulable/ScheduleAttemptFailure=3\n" },
		{ "make some pods subject to backoff and add them to backoffQ, then flush backoffQ",
		  { POP_REQUEUE_BACKOFF, MOVE_CLOCK, FLUSH_BACKOFF, OP_END },
		  "active/BackoffComplete=3\nactive/UnscheduledPodAdd=3\nbackoff/ScheduleAttemptFailure=3\n" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fake_now = 1000 * SEC;
		struct queue_options o = { .now = fake_clock };
		struct err e = { 0 };
		struct queue *q = queue_new(&o, &e);
		assert_non_null(q);
		struct api_pod *pods[3] = {
			TOBJ_POD(.name = "test-pod-1", .ns = "ns1", .uid = "tp-1"),
			TOBJ_POD(.name = "test-pod-2", .ns = "ns2", .uid = "tp-2"),
			TOBJ_POD(.name = "test-pod-3", .ns = "ns3", .uid = "tp-3"),
		};
		for (int k = 0; cases[i].ops[k] != OP_END; k++)
			for (int j = 0; j < 3; j++)
				run_op(q, cases[i].ops[k], pods[j]);

		struct sched_metrics *m = sched_metrics_new();
		assert_non_null(m);
		struct sched_metrics_sources src = { .ctx = q, .queue_incoming = src_incoming };
		sched_metrics_set_sources(m, &src);
		char *text = NULL;
		size_t len = 0;
		assert_int_equal(sched_metrics_render(m, &text, &len, &e), 0);
		char why[256];
		if (!prom_check_text(text, why, sizeof(why), NULL))
			fail_msg("invalid exposition: %s", why);
		char got[1024];
		family_samples(text, got, sizeof(got));
		if (strcmp(got, cases[i].want) != 0)
			fail_msg("%s:\ngot\n%swant\n%s", cases[i].name, got, cases[i].want);
		free(text);
		sched_metrics_free(m);
		queue_free(q);
		for (int j = 0; j < 3; j++)
			api_pod_unref(pods[j]);
	}
}

/* upstream unschedulable_entities.go addOrUpdate records a gated pod under queue "unschedulable"
 * (recordIncomingEntitiesMetrics("unschedulable", ...)); there is no "gated" queue label. */
static bool gate_all(void *ctx, const struct api_pod *pod, const char **plugin)
{
	(void)ctx;
	(void)pod;
	*plugin = "SchedulingGates";
	return false;
}

static void test_gated_pod_counted_unschedulable(void **state)
{
	(void)state;
	fake_now = 1000 * SEC;
	struct queue_profile prof = { .scheduler_name = "default-scheduler", .pre_enqueue = gate_all };
	struct queue_options o = { .now = fake_clock, .profiles = &prof, .n_profiles = 1 };
	struct err e = { 0 };
	struct queue *q = queue_new(&o, &e);
	assert_non_null(q);
	struct api_pod *pod = TOBJ_POD(.name = "gated", .gates = "g");
	assert_int_equal(queue_add(q, pod, &e), 0);
	struct sched_metrics *m = sched_metrics_new();
	assert_non_null(m);
	struct sched_metrics_sources src = { .ctx = q, .queue_incoming = src_incoming };
	sched_metrics_set_sources(m, &src);
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(sched_metrics_render(m, &text, &len, &e), 0);
	char got[1024];
	family_samples(text, got, sizeof(got));
	assert_string_equal(got, "unschedulable/UnscheduledPodAdd=1\n");
	free(text);
	sched_metrics_free(m);
	queue_free(q);
	api_pod_unref(pod);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_incoming_pods_metrics_upstream),
		cmocka_unit_test(test_gated_pod_counted_unschedulable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
