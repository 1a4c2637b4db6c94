/* scheduler/metrics.c, metrics_render.c, health.c and the pure part of scheduler/leader.c:
 * Prometheus text validity, counters, histogram buckets and their printed bounds (compared with
 * Go's own formatting of upstream's ExponentialBuckets), concurrency, the series cap, process
 * metrics, the health endpoints over HTTP, and the leader-election decision table. */
#include <arpa/inet.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "algorithm/framework.h"
#include "https_get.h"
#include "prom_text_check.h"
#include "scheduler/health.h"
#include "scheduler/leader.h"
#include "scheduler/metrics.h"

static char *render(struct sched_metrics *m)
{
	char *text = NULL;
	size_t len = 0;
	struct err e = {0};
	assert_int_equal(sched_metrics_render(m, &text, &len, &e), 0);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	return text;
}

static void assert_valid(const char *text)
{
	char why[512] = "";
	int n = 0;
	if (!prom_check_text(text, why, sizeof why, &n))
		fail_msg("invalid exposition: %s\n%s", why, text);
	assert_true(n > 0);
}

static double find(const char *text, const char *name, const char *const *pairs, int npairs)
{
	double v = -1;
	if (!prom_find(text, name, pairs, npairs, &v))
		fail_msg("sample %s (%d labels) not found", name, npairs);
	return v;
}

/* ---------- The checker itself rejects what it must (a checker that accepts all is useless) */

static void test_checker_rejects(void **state)
{
	(void)state;
	static const struct {
		const char *text, *why;
	} bad[] = {
		{"# HELP a x\n# TYPE a counter\na 1", "no final newline"},
		{"a 1\n", "no HELP/TYPE"},
		{"# HELP a x\n# TYPE a counter\na{b=\"1} 1\n", "unterminated value"},
		{"# HELP a x\n# TYPE a counter\na{b=\"\\q\"} 1\n", "bad escape"},
		{"# HELP a x\n# TYPE a counter\na one\n", "bad value"},
		{"# HELP a x\n# TYPE a counter\nb 1\n", "sample of another family"},
		{"# HELP a x\n# TYPE a counter\na 1\n# HELP a x\n", "HELP after samples"},
		{"# HELP a x\n# TYPE a counter\n# HELP b x\n# TYPE b gauge\n# HELP a x\n", "family twice"},
		{"# HELP h x\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
		 "not cumulative"},
		{"# HELP h x\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n", "no +Inf"},
		{"# HELP h x\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 3\n", "count != +Inf"},
		{"# HELP h x\n# TYPE h histogram\nh_bucket{le=\"2\"} 1\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} "
		 "1\nh_sum 1\nh_count 1\n",
		 "le decreasing"},
		{"# HELP a x\n# TYPE a bogus\na 1\n", "unknown type"},
		{"# HELP a x\n# TYPE a counter\na{0b=\"1\"} 1\n", "bad label name"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char why[256];
		if (prom_check_text(bad[i].text, why, sizeof why, NULL))
			fail_msg("checker accepted %s", bad[i].why);
	}
	const char *good = "# HELP h x\n# TYPE h histogram\nh_bucket{a=\"x\",le=\"1\"} 1\nh_bucket{a=\"x\",le=\"+Inf\"} "
			   "2\nh_sum{a=\"x\"} 3.5\nh_count{a=\"x\"} 2\n# HELP c y\n# TYPE c counter\nc{q=\"a\\\"b\\\\\\n\"} "
			   "7 1700000000000\n";
	char why[256];
	if (!prom_check_text(good, why, sizeof why, NULL))
		fail_msg("checker rejected valid text: %s", why);
}

/* ---------- Rendering and counters ---------- */

static void pending(void *ctx, struct sched_metrics_pending *out)
{
	(void)ctx;
	out->active = 3;
	out->backoff = 2;
	out->unschedulable = 1;
	out->gated = 4;
}

static void sizes(void *ctx, struct sched_metrics_cache_size *out)
{
	(void)ctx;
	out->nodes = 5000;
	out->pods = 12;
	out->assumed_pods = 1;
}

/* The queue's counters and rejector counts, as the scheduler's sources hand them over; ctx
 * selects a second state to show what a later scrape sees. */
struct fake_queue {
	int round;
};

static void incoming(void *ctx, sched_metrics_emit_fn emit, void *ectx)
{
	const struct fake_queue *q = ctx;
	emit(ectx, "active", "PodAdd", q->round ? 5 : 2);
	emit(ectx, "backoff", "ScheduleAttemptFailure", 1);
	if (q->round)
		emit(ectx, "unschedulable", "ScheduleAttemptFailure", 1);
}

static void rejectors(void *ctx, sched_metrics_emit_fn emit, void *ectx)
{
	const struct fake_queue *q = ctx;
	if (!q->round) {
		emit(ectx, "NodeResourcesFit", "csched", 1);
		emit(ectx, "TaintToleration", "csched", 2);
	} else {
		emit(ectx, "TaintToleration", "csched", 1);
		emit(ectx, "Node\"Ports", "csched", 3); /* escaped in the output */
	}
}

static void test_render_valid_and_counts(void **state)
{
	(void)state;
	struct sched_metrics *m = sched_metrics_new();
	assert_non_null(m);
	struct fake_queue fq = {0};
	struct sched_metrics_sources src = {.ctx = &fq,
					    .pending_pods = pending,
					    .cache_size = sizes,
					    .queue_incoming = incoming,
					    .unschedulable_pods = rejectors};
	sched_metrics_set_sources(m, &src);

	for (int i = 0; i < 5; i++)
		sched_metrics_schedule_attempt(m, SCHED_METRICS_SCHEDULED, "csched", 0.003);
	sched_metrics_schedule_attempt(m, SCHED_METRICS_UNSCHEDULABLE, "csched", 0.02);
	sched_metrics_schedule_attempt(m, SCHED_METRICS_ERROR, "other", 0.5);
	sched_metrics_algorithm_duration(m, 0.0015);
	sched_metrics_pod_scheduled(m, 1, 0.05);
	sched_metrics_pod_scheduled(m, 3, 2.0);
	sched_metrics_pod_scheduled(m, 15, 9.0); /* upstream caps the label at "15+" */
	sched_metrics_pod_scheduled(m, 40, 9.0);
	sched_metrics_extension_point_duration(m, "Filter", "Success", "csched", 0.0002);
	sched_metrics_plugin_duration(m, "NodeResourcesFit", "Filter", "Success", 0.00003);
	/* a batch: 2 calls in the first bucket, 1 above the last bound */
	uint64_t batch[FW_PLUGIN_TIMING_BUCKETS + 1] = {[0] = 2, [FW_PLUGIN_TIMING_BUCKETS] = 1};
	sched_metrics_plugin_durations(m, "NodeResourcesFit", "Filter", "Unschedulable", batch, 21, 0.5);
	sched_metrics_plugin_durations(m, "NodeResourcesFit", "Filter", "Unschedulable", batch, 21, 0.5);
	sched_metrics_plugin_durations(m, "NodeResourcesFit", "Filter", "Error", batch, 20, 0.5); /* wrong shape */
	sched_metrics_preemption_attempt(m);
	sched_metrics_preemption_victims(m, 3);
	sched_metrics_set_leader(m, "csched", true);
	/* a profile name that needs escaping must still produce valid text */
	sched_metrics_schedule_attempt(m, SCHED_METRICS_SCHEDULED, "we\"ird\\pro\nfile", 0.001);

	char *text = render(m);
	assert_valid(text);

	static const struct {
		const char *name;
		const char *pairs[4];
		int n;
		double want;
	} cases[] = {
		{"scheduler_schedule_attempts_total", {"result=scheduled", "profile=csched"}, 2, 5},
		{"scheduler_schedule_attempts_total", {"result=unschedulable", "profile=csched"}, 2, 1},
		{"scheduler_schedule_attempts_total", {"result=error", "profile=other"}, 2, 1},
		{"scheduler_schedule_attempts_total", {"result=scheduled", "profile=we\"ird\\pro\nfile"}, 2, 1},
		{"scheduler_scheduling_attempt_duration_seconds_count", {"result=scheduled", "profile=csched"}, 2, 5},
		{"scheduler_scheduling_attempt_duration_seconds_bucket",
		 {"result=scheduled", "profile=csched", "le=0.004"},
		 3,
		 5},
		{"scheduler_scheduling_attempt_duration_seconds_bucket",
		 {"result=scheduled", "profile=csched", "le=0.002"},
		 3,
		 0},
		{"scheduler_scheduling_algorithm_duration_seconds_count", {0}, 0, 1},
		{"scheduler_pod_scheduling_sli_duration_seconds_count", {"attempts=3"}, 1, 1},
		{"scheduler_pod_scheduling_sli_duration_seconds_count", {"attempts=15+"}, 1, 2},
		{"scheduler_pod_scheduling_attempts_count", {0}, 0, 4},
		{"scheduler_pod_scheduling_attempts_bucket", {"le=2"}, 1, 1},
		{"scheduler_pod_scheduling_attempts_bucket", {"le=4"}, 1, 2},
		{"scheduler_pod_scheduling_attempts_bucket", {"le=16"}, 1, 3},
		{"scheduler_pod_scheduling_attempts_sum", {0}, 0, 59},
		{"scheduler_framework_extension_point_duration_seconds_count",
		 {"extension_point=Filter", "status=Success", "profile=csched"},
		 3,
		 1},
		{"scheduler_plugin_execution_duration_seconds_count",
		 {"plugin=NodeResourcesFit", "extension_point=Filter", "status=Success"},
		 3,
		 1},
		{"scheduler_plugin_execution_duration_seconds_count",
		 {"plugin=NodeResourcesFit", "extension_point=Filter", "status=Unschedulable"},
		 3,
		 6},
		{"scheduler_plugin_execution_duration_seconds_bucket",
		 {"plugin=NodeResourcesFit", "extension_point=Filter", "status=Unschedulable", "le=1e-05"},
		 4,
		 4},
		{"scheduler_plugin_execution_duration_seconds_bucket",
		 {"plugin=NodeResourcesFit", "extension_point=Filter", "status=Unschedulable", "le=0.02216837820053101"},
		 4,
		 4},
		{"scheduler_plugin_execution_duration_seconds_sum",
		 {"plugin=NodeResourcesFit", "extension_point=Filter", "status=Unschedulable"},
		 3,
		 1},
		{"scheduler_queue_incoming_pods_total", {"queue=active", "event=PodAdd"}, 2, 2},
		{"scheduler_queue_incoming_pods_total", {"queue=backoff", "event=ScheduleAttemptFailure"}, 2, 1},
		{"scheduler_preemption_attempts_total", {0}, 0, 1},
		{"scheduler_preemption_victims_bucket", {"le=2"}, 1, 0},
		{"scheduler_preemption_victims_bucket", {"le=4"}, 1, 1},
		{"scheduler_unschedulable_pods", {"plugin=NodeResourcesFit", "profile=csched"}, 2, 1},
		{"scheduler_unschedulable_pods", {"plugin=TaintToleration", "profile=csched"}, 2, 2},
		{"leader_election_master_status", {"name=csched"}, 1, 1},
		{"scheduler_pending_pods", {"queue=active"}, 1, 3},
		{"scheduler_pending_pods", {"queue=backoff"}, 1, 2},
		{"scheduler_pending_pods", {"queue=unschedulable"}, 1, 1},
		{"scheduler_pending_pods", {"queue=gated"}, 1, 4},
		{"scheduler_scheduler_cache_size", {"type=nodes"}, 1, 5000},
		{"scheduler_scheduler_cache_size", {"type=pods"}, 1, 12},
		{"scheduler_scheduler_cache_size", {"type=assumed_pods"}, 1, 1},
		{"csched_metrics_dropped_observations_total", {0}, 0, 1}, /* the wrong-shape batch */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double got = find(text, cases[i].name, cases[i].pairs, cases[i].n);
		if (got != cases[i].want)
			fail_msg("case %zu %s: got %g want %g", i, cases[i].name, got, cases[i].want);
	}
	/* sched_metrics_read agrees with the text */
	const char *lv[] = {"scheduled", "csched"};
	double v = 0;
	assert_true(sched_metrics_read(m, "scheduler_schedule_attempts_total", lv, 2, &v));
	assert_true(v == 5);
	assert_true(sched_metrics_read(m, "scheduler_scheduling_attempt_duration_seconds", lv, 2, &v));
	assert_true(v == 5);
	const char *nolv[] = {"scheduled", "nope"};
	assert_false(sched_metrics_read(m, "scheduler_schedule_attempts_total", nolv, 2, &v));
	assert_false(sched_metrics_read(m, "scheduler_schedule_attempts_total", lv, 1, &v));

	/* HELP and TYPE as upstream (component-base prefixes the stability level) */
	static const char *const headers[] = {
		"# TYPE scheduler_schedule_attempts_total counter\n",
		"# TYPE scheduler_scheduling_attempt_duration_seconds histogram\n",
		"# TYPE scheduler_pending_pods gauge\n",
		"# TYPE scheduler_unschedulable_pods gauge\n",
		"# TYPE leader_election_master_status gauge\n",
		"# TYPE process_cpu_seconds_total counter\n",
		"# TYPE process_resident_memory_bytes gauge\n",
		"# TYPE process_virtual_memory_bytes gauge\n",
		"# TYPE process_open_fds gauge\n",
		"# TYPE process_max_fds gauge\n",
		"# TYPE process_start_time_seconds gauge\n",
		"# HELP scheduler_schedule_attempts_total [STABLE] Number of attempts to schedule pods, by the result.",
		"# HELP scheduler_pod_scheduling_sli_duration_seconds [BETA] E2e latency",
	};
	for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++)
		if (!strstr(text, headers[i]))
			fail_msg("missing \"%s\"", headers[i]);
	/* an attempt counted once is one sample; a profile never seen has no series */
	assert_null(strstr(text, "profile=\"never\""));
	assert_null(strstr(text, "status=\"Error\""));
	free(text);

	/* a later scrape: counters follow the queue, a gauge no longer emitted reads 0 (upstream's
	 * gauges stay once seen), a new label value is escaped */
	fq.round = 1;
	text = render(m);
	assert_valid(text);
	assert_true(find(text, "scheduler_queue_incoming_pods_total", (const char *[]){"queue=active", "event=PodAdd"},
			 2) == 5);
	assert_true(find(text, "scheduler_queue_incoming_pods_total",
			 (const char *[]){"queue=unschedulable", "event=ScheduleAttemptFailure"}, 2) == 1);
	assert_true(find(text, "scheduler_unschedulable_pods",
			 (const char *[]){"plugin=NodeResourcesFit", "profile=csched"}, 2) == 0);
	assert_true(find(text, "scheduler_unschedulable_pods", (const char *[]){"plugin=TaintToleration", "profile=csched"},
			 2) == 1);
	assert_true(find(text, "scheduler_unschedulable_pods", (const char *[]){"plugin=Node\"Ports", "profile=csched"},
			 2) == 3);
	assert_non_null(strstr(text, "scheduler_unschedulable_pods{plugin=\"Node\\\"Ports\",profile=\"csched\"} 3\n"));
	const char *plv[] = {"TaintToleration", "csched"};
	assert_true(sched_metrics_read(m, "scheduler_unschedulable_pods", plv, 2, &v));
	assert_true(v == 1);
	free(text);

	/* without sources the callback families are absent, not zero */
	sched_metrics_set_sources(m, &(struct sched_metrics_sources){0});
	text = render(m);
	assert_valid(text);
	assert_null(strstr(text, "scheduler_pending_pods"));
	assert_null(strstr(text, "scheduler_scheduler_cache_size"));
	assert_null(strstr(text, "scheduler_queue_incoming_pods_total"));
	assert_null(strstr(text, "scheduler_unschedulable_pods"));
	free(text);
	sched_metrics_free(m);
}

/* A batch binned by the framework lands in the same buckets as the same durations observed one
 * by one: the framework's bounds are the family's, including at each bound itself. */
static void test_plugin_batches_match_framework_bounds(void **state)
{
	(void)state;
	const double *bounds = fw_plugin_timing_bounds();
	struct sched_metrics *one = sched_metrics_new(), *batch = sched_metrics_new();
	uint64_t b[FW_PLUGIN_TIMING_BUCKETS + 1] = {0};
	double sum = 0;
	for (int i = 0; i < FW_PLUGIN_TIMING_BUCKETS; i++) {
		/* exactly on the bound (counted there), and just above it (counted in the next) */
		double vals[] = {bounds[i], bounds[i] * 1.0000001};
		for (int k = 0; k < 2; k++) {
			sched_metrics_plugin_duration(one, "P", "Score", "Success", vals[k]);
			b[i + k]++;
			sum += vals[k];
		}
	}
	sched_metrics_plugin_durations(batch, "P", "Score", "Success", b, FW_PLUGIN_TIMING_BUCKETS + 1, sum);
	char *t1 = render(one), *t2 = render(batch);
	/* the bucket lines are identical (the sums differ only in addition order) */
	const char *a = strstr(t1, "scheduler_plugin_execution_duration_seconds_bucket");
	const char *c = strstr(t2, "scheduler_plugin_execution_duration_seconds_bucket");
	assert_non_null(a);
	assert_non_null(c);
	size_t la = (size_t)(strstr(a, "_sum") - a), lc = (size_t)(strstr(c, "_sum") - c);
	if (la != lc || memcmp(a, c, la) != 0)
		fail_msg("one by one:\n%.*s\nbatched:\n%.*s", (int)la, a, (int)lc, c);
	assert_true(find(t2, "scheduler_plugin_execution_duration_seconds_count",
			 (const char *[]){"plugin=P", "extension_point=Score", "status=Success"}, 3) == 40);
	free(t1);
	free(t2);
	sched_metrics_free(one);
	sched_metrics_free(batch);
}

/* A fresh registry renders only the unlabelled families, at zero, and is valid. */
static void test_render_empty(void **state)
{
	(void)state;
	struct sched_metrics *m = sched_metrics_new();
	char *text = render(m);
	assert_valid(text);
	assert_true(find(text, "scheduler_preemption_attempts_total", NULL, 0) == 0);
	assert_true(find(text, "scheduler_scheduling_algorithm_duration_seconds_bucket", (const char *[]){"le=+Inf"},
			 1) == 0);
	assert_null(strstr(text, "scheduler_schedule_attempts_total"));
	free(text);
	sched_metrics_free(m);
	sched_metrics_free(NULL);
	/* a NULL registry is a no-op for observers */
	sched_metrics_schedule_attempt(NULL, SCHED_METRICS_SCHEDULED, "x", 1);
}

/* ---------- Histogram buckets ---------- */

/* The printed le bounds, as Go prints upstream's ExponentialBuckets (generated with
 * strconv.FormatFloat(v, 'g', -1, 64) from metrics.ExponentialBuckets). */
static void test_bucket_bounds_match_upstream(void **state)
{
	(void)state;
	static const struct {
		const char *bucket_sample;
		const char *bounds;
	} cases[] = {
		{"scheduler_scheduling_algorithm_duration_seconds_bucket",
		 "0.001 0.002 0.004 0.008 0.016 0.032 0.064 0.128 0.256 0.512 1.024 2.048 4.096 8.192 16.384 +Inf"},
		{"scheduler_scheduling_attempt_duration_seconds_bucket",
		 "0.001 0.002 0.004 0.008 0.016 0.032 0.064 0.128 0.256 0.512 1.024 2.048 4.096 8.192 16.384 +Inf"},
		{"scheduler_framework_extension_point_duration_seconds_bucket",
		 "0.0001 0.0002 0.0004 0.0008 0.0016 0.0032 0.0064 0.0128 0.0256 0.0512 0.1024 0.2048 +Inf"},
		{"scheduler_plugin_execution_duration_seconds_bucket",
		 "1e-05 1.5000000000000002e-05 2.2500000000000005e-05 3.375000000000001e-05 5.062500000000001e-05 "
		 "7.593750000000002e-05 0.00011390625000000003 0.00017085937500000006 0.0002562890625000001 "
		 "0.00038443359375000017 0.0005766503906250003 0.0008649755859375004 0.0012974633789062506 "
		 "0.0019461950683593758 0.0029192926025390638 0.004378938903808595 0.006568408355712893 "
		 "0.009852612533569338 0.014778918800354007 0.02216837820053101 +Inf"},
		{"scheduler_pod_scheduling_sli_duration_seconds_bucket",
		 "0.01 0.02 0.04 0.08 0.16 0.32 0.64 1.28 2.56 5.12 10.24 20.48 40.96 81.92 163.84 327.68 655.36 "
		 "1310.72 2621.44 5242.88 +Inf"},
		{"scheduler_pod_scheduling_attempts_bucket", "1 2 4 8 16 +Inf"},
		{"scheduler_preemption_victims_bucket", "1 2 4 8 16 32 64 +Inf"},
	};
	struct sched_metrics *m = sched_metrics_new();
	sched_metrics_schedule_attempt(m, SCHED_METRICS_SCHEDULED, "p", 0.1);
	sched_metrics_extension_point_duration(m, "Filter", "Success", "p", 0.1);
	sched_metrics_plugin_duration(m, "P", "Filter", "Success", 0.1);
	sched_metrics_pod_scheduled(m, 1, 0.1);
	char *text = render(m);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		/* collect this series' le values in order */
		char got[1024] = "";
		size_t glen = 0;
		const char *line = text;
		while ((line = strstr(line, cases[i].bucket_sample))) {
			const char *nl = strchr(line, '\n');
			char buf[1024];
			snprintf(buf, sizeof buf, "%.*s", (int)(nl - line), line);
			line = nl;
			struct prom_sample s;
			char why[256];
			if (!prom_parse_sample(buf, &s, why, sizeof why) || strcmp(s.name, cases[i].bucket_sample) != 0)
				continue;
			glen += (size_t)snprintf(got + glen, sizeof got - glen, "%s%s", glen ? " " : "",
						 prom_label(&s, "le"));
		}
		if (strcmp(got, cases[i].bounds) != 0)
			fail_msg("%s bounds:\n got  %s\n want %s", cases[i].bucket_sample, got, cases[i].bounds);
	}
	free(text);
	sched_metrics_free(m);
}

/* Where one observation lands: the first bucket whose bound is >= the value ("le"). */
static void test_bucket_placement(void **state)
{
	(void)state;
	enum { ALGO, VICTIMS, PLUGIN };
	static const struct {
		int family;
		double value;
		const char *le; /* the first bucket counting it */
	} cases[] = {
		{ALGO, 0, "0.001"},          {ALGO, 0.0005, "0.001"},  {ALGO, 0.001, "0.001"},
		{ALGO, 0.0010001, "0.002"},  {ALGO, 0.1, "0.128"},     {ALGO, 16.384, "16.384"},
		{ALGO, 16.385, "+Inf"},      {ALGO, 1e9, "+Inf"},      {ALGO, -1, "0.001"},
		{VICTIMS, 1, "1"},           {VICTIMS, 3, "4"},        {VICTIMS, 64, "64"},
		{VICTIMS, 65, "+Inf"},       {PLUGIN, 1e-05, "1e-05"}, {PLUGIN, 1.2e-05, "1.5000000000000002e-05"},
		{PLUGIN, 0.03, "+Inf"},
	};
	static const char *const names[] = {"scheduler_scheduling_algorithm_duration_seconds_bucket",
					    "scheduler_preemption_victims_bucket",
					    "scheduler_plugin_execution_duration_seconds_bucket"};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sched_metrics *m = sched_metrics_new();
		if (cases[i].family == ALGO)
			sched_metrics_algorithm_duration(m, cases[i].value);
		else if (cases[i].family == VICTIMS)
			sched_metrics_preemption_victims(m, (int)cases[i].value);
		else
			sched_metrics_plugin_duration(m, "P", "Filter", "Success", cases[i].value);
		char *text = render(m);
		assert_valid(text);
		/* walk the buckets: the first with count 1 must be the expected one */
		const char *line = text, *first = NULL;
		char firstle[64] = "";
		while ((line = strstr(line, names[cases[i].family])) && !first) {
			const char *nl = strchr(line, '\n');
			char buf[1024];
			snprintf(buf, sizeof buf, "%.*s", (int)(nl - line), line);
			struct prom_sample s;
			char why[256];
			if (prom_parse_sample(buf, &s, why, sizeof why) && s.value == 1) {
				first = line;
				snprintf(firstle, sizeof firstle, "%s", prom_label(&s, "le"));
			}
			line = nl;
		}
		if (strcmp(firstle, cases[i].le) != 0)
			fail_msg("case %zu: %g landed in le=%s, want %s", i, cases[i].value, firstle, cases[i].le);
		free(text);
		sched_metrics_free(m);
	}
}

/* ---------- Concurrency and limits ---------- */

enum { THREADS = 4, PER_THREAD = 50000 };

static void *hammer(void *arg)
{
	struct sched_metrics *m = arg;
	char prof[16];
	for (int i = 0; i < PER_THREAD; i++) {
		snprintf(prof, sizeof prof, "p%d", i % 3);
		sched_metrics_schedule_attempt(m, SCHED_METRICS_SCHEDULED, prof, 0.002);
		sched_metrics_extension_point_duration(m, "Filter", "Success", "csched", 0.0003);
	}
	return NULL;
}

static void test_concurrent_observe_and_render(void **state)
{
	(void)state;
	struct sched_metrics *m = sched_metrics_new();
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, hammer, m), 0);
	for (int i = 0; i < 20; i++) { /* scrapes racing the observers stay valid */
		char *text = render(m);
		assert_valid(text);
		free(text);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	char *text = render(m);
	assert_valid(text);
	double total = 0;
	for (int p = 0; p < 3; p++) {
		char prof[32];
		snprintf(prof, sizeof prof, "profile=p%d", p);
		total += find(text, "scheduler_schedule_attempts_total", (const char *[]){"result=scheduled", prof}, 2);
	}
	assert_true(total == THREADS * PER_THREAD);
	assert_true(find(text, "scheduler_framework_extension_point_duration_seconds_count",
			 (const char *[]){"extension_point=Filter", "status=Success", "profile=csched"},
			 3) == THREADS * PER_THREAD);
	/* the sum of 200000 observations of 0.002 */
	double sum = find(text, "scheduler_scheduling_attempt_duration_seconds_sum",
			  (const char *[]){"result=scheduled", "profile=p0"}, 2);
	double cnt = find(text, "scheduler_scheduling_attempt_duration_seconds_count",
			  (const char *[]){"result=scheduled", "profile=p0"}, 2);
	assert_true(fabs(sum - cnt * 0.002) < 1e-6);
	free(text);
	sched_metrics_free(m);
}

static void test_series_cap(void **state)
{
	(void)state;
	struct sched_metrics *m = sched_metrics_new();
	char name[32];
	for (int i = 0; i < SCHED_METRICS_MAX_SERIES + 10; i++) {
		snprintf(name, sizeof name, "p%d", i);
		sched_metrics_schedule_attempt(m, SCHED_METRICS_SCHEDULED, name, 0.01);
	}
	char *text = render(m);
	assert_valid(text);
	/* the attempt counter and the attempt histogram each dropped 10 */
	assert_true(find(text, "csched_metrics_dropped_observations_total", NULL, 0) == 20);
	assert_true(find(text, "scheduler_schedule_attempts_total", (const char *[]){"result=scheduled", "profile=p0"},
			 2) == 1);
	/* every series of the full table found again (slots spread over all the chunks) */
	for (int i = 0; i < SCHED_METRICS_MAX_SERIES; i++) {
		snprintf(name, sizeof name, "p%d", i);
		sched_metrics_schedule_attempt(m, SCHED_METRICS_SCHEDULED, name, 0.01);
	}
	free(text);
	text = render(m);
	assert_true(find(text, "scheduler_schedule_attempts_total", (const char *[]){"result=scheduled", "profile=p4095"},
			 2) == 2);
	assert_true(find(text, "scheduler_schedule_attempts_total", (const char *[]){"result=scheduled", "profile=p2047"},
			 2) == 2);
	assert_true(find(text, "csched_metrics_dropped_observations_total", NULL, 0) == 20);
	double v;
	assert_false(prom_find(text, "scheduler_schedule_attempts_total",
			       (const char *[]){"result=scheduled", "profile=p4100"}, 2, &v));
	free(text);
	sched_metrics_free(m);
}

static void test_process_metrics(void **state)
{
	(void)state;
	struct sched_metrics_process p;
	struct err e = {0};
	assert_int_equal(sched_metrics_read_process(&p, &e), 0);
	assert_true(p.cpu_seconds >= 0 && p.cpu_seconds < 3600);
	assert_true(p.resident_bytes > 1024 * 1024);
	assert_true(p.virtual_bytes >= p.resident_bytes);
	assert_true(p.open_fds >= 3);
	assert_true(p.max_fds >= p.open_fds);
	double now = (double)time(NULL);
	assert_true(p.start_time_seconds <= now + 1 && p.start_time_seconds > now - 3600);
}

/* Go's FormatFloat for values the renderer prints (sums, process metrics). */
static void test_float_format(void **state)
{
	(void)state;
	static const struct {
		double v;
		const char *want;
	} cases[] = {
		{100000, "100000"}, {1e6, "1e+06"}, {1234567, "1.234567e+06"}, {123.456, "123.456"}, {3, "3"}, {0, "0"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sched_metrics *m = sched_metrics_new();
		sched_metrics_algorithm_duration(m, cases[i].v);
		char *text = render(m);
		char want[128];
		snprintf(want, sizeof want, "scheduler_scheduling_algorithm_duration_seconds_sum %s\n", cases[i].want);
		if (!strstr(text, want))
			fail_msg("%g: want \"%s\"", cases[i].v, want);
		free(text);
		sched_metrics_free(m);
	}
}

/* ---------- Health endpoints over HTTPS ---------- */

static void http(int port, const char *method, const char *path, struct http_reply *r)
{
	if (https_request(port, NULL, method, path, NULL, r) != 0)
		fail_msg("%s %s: %s", method, path, r->body);
}

struct probe_state {
	bool alive, synced;
};

static bool probe_alive(void *ctx)
{
	return __atomic_load_n(&((struct probe_state *)ctx)->alive, __ATOMIC_ACQUIRE);
}

static bool probe_synced(void *ctx)
{
	return __atomic_load_n(&((struct probe_state *)ctx)->synced, __ATOMIC_ACQUIRE);
}

static void test_health_endpoints(void **state)
{
	(void)state;
	struct probe_state ps = {true, true};
	struct sched_metrics *m = sched_metrics_new();
	sched_metrics_schedule_attempt(m, SCHED_METRICS_SCHEDULED, "csched", 0.01);
	/* every path always allowed: these cases are about the endpoints (auth: test_scheduler_health) */
	struct sched_auth_options ao = {.always_allow_paths = "/*"};
	struct sched_auth *open_auth = sched_auth_new(&ao, NULL);
	assert_non_null(open_auth);
	struct sched_health_options o = {
		.auth = open_auth,
		.bind_address = "127.0.0.1",
		.port = SCHED_HEALTH_PORT_EPHEMERAL,
		.metrics = m,
		.ctx = &ps,
		.loop_alive = probe_alive,
		.synced = probe_synced,
	};
	struct err e = {0};
	struct sched_metrics_process before, after;
	assert_int_equal(sched_metrics_read_process(&before, &e), 0);
	struct sched_health *h = sched_health_start(&o, &e);
	if (!h)
		fail_msg("sched_health_start: %s", e.msg);
	int port = sched_health_port(h);
	assert_true(port > 0);

	static const struct {
		bool alive, synced;
		const char *method, *path;
		int status;
		const char *body_has;
		const char *body_lacks;
	} cases[] = {
		{true, true, "GET", "/healthz", 200, "ok", "check"},
		{true, true, "GET", "/livez", 200, "ok", NULL},
		{true, true, "GET", "/readyz", 200, "ok", NULL},
		{false, true, "GET", "/livez", 500, "[-]scheduling-loop failed: reason withheld\nlivez check failed\n",
		 NULL},
		{false, true, "GET", "/healthz", 500, "[+]ping ok\n[-]scheduling-loop failed", NULL},
		{true, false, "GET", "/livez", 200, "ok", NULL}, /* sync is a readiness matter only */
		{true, false, "GET", "/readyz", 500, "[-]sched-handler-sync failed: reason withheld", NULL},
		{true, true, "GET", "/readyz?verbose", 200, "[+]ping ok\n[+]scheduling-loop ok\n[+]sched-handler-sync "
							    "ok\nreadyz check passed\n",
		 NULL},
		{true, true, "GET", "/livez?verbose", 200, "livez check passed", "sched-handler-sync"},
		{false, true, "GET", "/livez?exclude=scheduling-loop", 200, "ok", NULL},
		{false, true, "GET", "/livez/ping", 200, "ok", NULL},
		{false, true, "GET", "/livez/scheduling-loop", 500, "internal server error: scheduling-loop check failed",
		 NULL},
		{true, true, "GET", "/livez/leaderElection", 404, "404 page not found", NULL}, /* no elector */
		{true, true, "GET", "/livez/sched-handler-sync", 404, NULL, NULL},
		{true, true, "GET", "/nope", 404, "404 page not found", NULL},
		{true, true, "POST", "/healthz", 405, NULL, NULL},
		{true, true, "HEAD", "/healthz", 200, NULL, NULL},
		{true, true, "GET", "/metrics", 200, "scheduler_schedule_attempts_total{result=\"scheduled\",profile=\"csched\"} 1\n",
		 NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		__atomic_store_n(&ps.alive, cases[i].alive, __ATOMIC_RELEASE);
		__atomic_store_n(&ps.synced, cases[i].synced, __ATOMIC_RELEASE);
		struct http_reply r;
		http(port, cases[i].method, cases[i].path, &r);
		if (r.status != cases[i].status)
			fail_msg("case %zu %s %s: status %d want %d: %s", i, cases[i].method, cases[i].path, r.status,
				 cases[i].status, r.body);
		if (cases[i].body_has && !strstr(r.body, cases[i].body_has))
			fail_msg("case %zu %s: body lacks \"%s\":\n%s", i, cases[i].path, cases[i].body_has, r.body);
		if (cases[i].body_lacks && strstr(r.body, cases[i].body_lacks))
			fail_msg("case %zu %s: body has \"%s\":\n%s", i, cases[i].path, cases[i].body_lacks, r.body);
	}
	struct http_reply r;
	http(port, "GET", "/metrics", &r);
	assert_non_null(strstr(r.head, "Content-Type: text/plain; version=0.0.4"));
	assert_valid(r.body);
	sched_health_stop(h);
	sched_health_stop(NULL);
	sched_auth_free(open_auth);
	/* the listening socket and MHD's descriptors are closed */
	assert_int_equal(sched_metrics_read_process(&after, &e), 0);
	assert_true(after.open_fds == before.open_fds);
	sched_metrics_free(m);
}

static void test_health_start_errors(void **state)
{
	(void)state;
	struct sched_health_options base = {.bind_address = "127.0.0.1", .port = SCHED_HEALTH_PORT_EPHEMERAL};
	struct err e = {0};
	struct sched_health *busy = sched_health_start(&base, &e);
	assert_non_null(busy);
	static const struct {
		const char *addr;
		int port; /* -2: the busy port */
		const char *msg;
	} cases[] = {
		{"127.0.0.1", 0, "--secure-port 0 must be between 0 and 65535"},
		{"127.0.0.1", 70000, "--secure-port 70000 must be between 0 and 65535"},
		{"not-an-ip", 10251, "--bind-address: \"not-an-ip\""},
		{"127.0.0.1", -2, "Address already in use"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sched_health_options o = base;
		o.bind_address = cases[i].addr;
		o.port = cases[i].port == -2 ? sched_health_port(busy) : cases[i].port;
		err_clear(&e);
		struct sched_health *h = sched_health_start(&o, &e);
		assert_null(h);
		if (!strstr(e.msg, cases[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, e.msg, cases[i].msg);
	}
	sched_health_stop(busy);
	/* IPv6 loopback works when the host has it; the port is released after stop */
	struct sched_health_options v6 = {.bind_address = "::1", .port = SCHED_HEALTH_PORT_EPHEMERAL};
	struct sched_health *h6 = sched_health_start(&v6, &e);
	if (h6)
		sched_health_stop(h6);
	assert_null(sched_health_start(NULL, &e));
}

/* ---------- Leader election: the pure decision ---------- */

static void test_leader_decide(void **state)
{
	(void)state;
	const int64_t S = 1000000000LL;
	static char me[] = "host-a_1", other[] = "host-b_2", empty[] = "";
	static const struct {
		bool absent;
		char *holder;
		int32_t duration_s;
		int64_t observed_ago_ns; /* now - observed */
		enum sched_leader_action want;
	} cases[] = {
		{true, NULL, 0, 0, SCHED_LEADER_CREATE},
		{false, me, 15, 0, SCHED_LEADER_RENEW},
		{false, me, 15, 100 * 1000000000LL, SCHED_LEADER_RENEW}, /* ours even if expired */
		{false, other, 15, 1 * 1000000000LL, SCHED_LEADER_WAIT},
		{false, other, 15, 14 * 1000000000LL + 999999999LL, SCHED_LEADER_WAIT},
		{false, other, 15, 15 * 1000000000LL, SCHED_LEADER_ACQUIRE}, /* observed + duration == now: expired */
		{false, other, 15, 16 * 1000000000LL, SCHED_LEADER_ACQUIRE},
		{false, empty, 15, 0, SCHED_LEADER_ACQUIRE}, /* released */
		{false, NULL, 15, 0, SCHED_LEADER_ACQUIRE},
		{false, empty, 1, 0, SCHED_LEADER_ACQUIRE}, /* client-go's release record */
		{false, other, 0, 0, SCHED_LEADER_ACQUIRE},
		{false, other, 1, 500000000LL, SCHED_LEADER_WAIT},
	};
	int64_t now = 1000 * S;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct api_lease l = {.holder_identity = cases[i].holder,
				      .lease_duration_seconds = cases[i].duration_s,
				      /* renewTime is deliberately far in the past: only the observed time counts */
				      .renew_time_us = 1,
				      .lease_transitions = 3};
		enum sched_leader_action got =
			sched_leader_decide(cases[i].absent ? NULL : &l, now - cases[i].observed_ago_ns, now, me);
		if (got != cases[i].want)
			fail_msg("case %zu: got %s want %s", i, sched_leader_action_str(got),
				 sched_leader_action_str(cases[i].want));
	}
}

static void test_leader_config_errors(void **state)
{
	(void)state;
	static const struct {
		const char *ns, *name;
		int64_t lease, renew, retry;
		const char *msg;
	} cases[] = {
		{NULL, "csched", 0, 0, 0, "resourceNamespace: required"},
		{"kube-system", "", 0, 0, 0, "resourceName: required"},
		{"kube-system", "csched", 10000, 10000, 2000, "leaseDuration > renewDeadline"},
		{"kube-system", "csched", 15000, 2400, 2000, "1.2 * retryPeriod"},
		{"kube-system", "csched", 1500, 1000, 200, "whole number of seconds"},
		{"kube-system", "csched", 0, 0, 0, "client and config are required"}, /* valid config, no client */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sched_leader_config c = {.lease_namespace = cases[i].ns,
						.lease_name = cases[i].name,
						.lease_duration_ms = cases[i].lease,
						.renew_deadline_ms = cases[i].renew,
						.retry_period_ms = cases[i].retry};
		struct err e = {0};
		assert_null(sched_leader_new(NULL, &c, &e));
		if (!strstr(e.msg, cases[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, e.msg, cases[i].msg);
	}
	/* NULL-safe accessors */
	assert_false(sched_leader_is_leader(NULL));
	assert_true(sched_leader_healthy(NULL));
	sched_leader_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker_rejects),
		cmocka_unit_test(test_render_valid_and_counts),
		cmocka_unit_test(test_render_empty),
		cmocka_unit_test(test_bucket_bounds_match_upstream),
		cmocka_unit_test(test_bucket_placement),
		cmocka_unit_test(test_plugin_batches_match_framework_bounds),
		cmocka_unit_test(test_concurrent_observe_and_render),
		cmocka_unit_test(test_series_cap),
		cmocka_unit_test(test_process_metrics),
		cmocka_unit_test(test_float_format),
		cmocka_unit_test(test_health_endpoints),
		cmocka_unit_test(test_health_start_errors),
		cmocka_unit_test(test_leader_decide),
		cmocka_unit_test(test_leader_config_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
