/* The preemption executor (scheduler/preemption.c) against a fake API server (libmicrohttpd) that
 * records each request and fails some, on a scheduler that is never started (its queue and
 * metrics are real). Cases from upstream framework/preemption/executor_test.go:
 * TestAsyncPreemptionFailure (the last victim is attempted only when all before it were
 * preempted; the preemptor is activated exactly when the preemption failed), TestPrepareCandidate
 * (the API calls per victim: DisruptionTarget patch then delete, none for a victim already being
 * deleted, no patch when the condition is already there, NotFound tolerated on either call without
 * an event, a failed patch stops before the delete), TestIsPodRunningPreemption (preempting until
 * the last victim's deletion is under way). */
#include <microhttpd.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "scheduler/sched_internal.h"
#include "testobj.h"

/* ---------- the fake API server ---------- */

#define MAX_REQS 64

static struct {
	struct MHD_Daemon *d;
	int port;
	pthread_mutex_t lock; /* guards reqs, n */
	char reqs[MAX_REQS][160]; /* "METHOD PATH" */
	char bodies[MAX_REQS][4096];
	int n;
} srv;

struct req {
	char body[4096];
	size_t len;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	MHD_add_response_header(r, "Content-Type", "application/json");
	enum MHD_Result ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* Pods named fail-* fail their DELETE (500), patchfail-* their status PATCH (403), gone-* and
 * delgone-* answer 404 to the PATCH, respectively the DELETE. */
static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			       const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	(void)cls;
	(void)version;
	struct req *rq = *con_cls;
	if (!rq) {
		*con_cls = calloc(1, sizeof(*rq));
		return MHD_YES;
	}
	if (*upload_size) {
		size_t n = *upload_size;
		if (rq->len + n < sizeof(rq->body) - 1) {
			memcpy(rq->body + rq->len, upload, n);
			rq->len += n;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&srv.lock);
	if (srv.n < MAX_REQS) {
		snprintf(srv.reqs[srv.n], sizeof(srv.reqs[0]), "%s %s", method, url);
		snprintf(srv.bodies[srv.n], sizeof(srv.bodies[0]), "%s", rq->body);
		srv.n++;
	}
	pthread_mutex_unlock(&srv.lock);
	const char *name = strrchr(url, '/');
	bool status = name && strcmp(name, "/status") == 0;
	if (status) { /* .../pods/NAME/status */
		const char *end = name;
		name = end - 1;
		while (name > url && *name != '/')
			name--;
	}
	name = name ? name + 1 : "";
	static const char notfound[] = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"NotFound\","
				       "\"code\":404,\"message\":\"pods not found\"}";
	if (!strcmp(method, "DELETE") && !strncmp(name, "fail-", 5))
		return reply(c, 500, "{\"kind\":\"Status\",\"code\":500,\"message\":\"delete pod failed\"}");
	if (!strcmp(method, "DELETE") && !strncmp(name, "delgone-", 8))
		return reply(c, 404, notfound);
	if (!strcmp(method, "PATCH") && !strncmp(name, "patchfail-", 10))
		return reply(c, 403, "{\"kind\":\"Status\",\"code\":403,\"message\":\"forbidden\"}");
	if (!strcmp(method, "PATCH") && !strncmp(name, "gone-", 5))
		return reply(c, 404, notfound);
	return reply(c, 200, "{}");
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)c;
	(void)toe;
	free(*con_cls);
	*con_cls = NULL;
}

/* The requests so far, one per line (static buffer). */
static const char *requests(void)
{
	static char buf[MAX_REQS * 162];
	buf[0] = '\0';
	pthread_mutex_lock(&srv.lock);
	for (int i = 0; i < srv.n; i++) {
		strcat(buf, srv.reqs[i]);
		strcat(buf, "\n");
	}
	pthread_mutex_unlock(&srv.lock);
	return buf;
}

static bool requested(const char *line)
{
	bool found = false;
	pthread_mutex_lock(&srv.lock);
	for (int i = 0; i < srv.n; i++)
		found |= strcmp(srv.reqs[i], line) == 0;
	pthread_mutex_unlock(&srv.lock);
	return found;
}

/* ---------- fixture ---------- */

struct fixture {
	struct api_client *client;
	struct scheduler *s;
	struct sched_metrics *m;
	struct api_informer_handlers h;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct err e = { 0 };
	assert_int_equal(api_global_init(&e), 0);
	memset(&srv, 0, sizeof(srv));
	pthread_mutex_init(&srv.lock, NULL);
	srv.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL, NULL, handler,
				 NULL, MHD_OPTION_NOTIFY_COMPLETED, on_done, NULL, MHD_OPTION_END);
	assert_non_null(srv.d);
	srv.port = MHD_get_daemon_info(srv.d, MHD_DAEMON_INFO_BIND_PORT)->port;
	struct api_config cfg = { 0 };
	char url[64];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", srv.port);
	cfg.server = strdup(url);
	f->client = api_client_new(&cfg, &e);
	assert_non_null(f->client);
	f->m = sched_metrics_new();
	struct sched_options o = { .client = f->client, .binders = 1, .metrics = f->m };
	f->s = sched_new(&o, &e);
	if (!f->s)
		fail_msg("sched_new: %s", e.msg);
	sched_pod_handlers(f->s, &f->h);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	sched_free(f->s);
	sched_metrics_free(f->m);
	api_client_free(f->client);
	MHD_stop_daemon(srv.d);
	pthread_mutex_destroy(&srv.lock);
	free(f);
	return 0;
}

#define POD(n, prio, ...) TOBJ_POD(.name = n, .scheduler = "csched", .priority = prio, __VA_ARGS__)

/* The preemptor, queued and failed: it waits in unschedulable for an event (or an activation). */
static struct api_pod *park_preemptor(struct fixture *f)
{
	struct err e = { 0 };
	struct api_pod *pod = POD("preemptor", "1000");
	f->h.on_add(f->h.ctx, pod);
	struct queue_pod_info *qpi = NULL;
	assert_int_equal(queue_try_pop(f->s->queue, &qpi), 0);
	const char *u[1] = { "NodeResourcesFit" };
	struct queue_failure fl = { .unschedulable_plugins = u, .n_unschedulable_plugins = 1 };
	assert_int_equal(queue_add_unschedulable_if_not_present(f->s->queue, qpi, &fl, &e), 0);
	return pod;
}

/* scheduler_preemption_goroutines_execution_total, both results: the preemptions that ended
 * (counted after the activation). */
static long goroutines_done(struct fixture *f)
{
	char *text = NULL;
	size_t len = 0;
	struct err e = { 0 };
	long total = 0, v = 0;
	assert_int_equal(sched_metrics_render(f->m, &text, &len, &e), 0);
	static const char *const keys[] = { "scheduler_preemption_goroutines_execution_total{result=\"error\"} ",
					    "scheduler_preemption_goroutines_execution_total{result=\"success\"} " };
	for (int i = 0; i < 2; i++) {
		const char *at = strstr(text, keys[i]);
		if (at && sscanf(at + strlen(keys[i]), "%ld", &v) == 1)
			total += v;
	}
	free(text);
	return total;
}

/* Actuates a candidate on node1 with victims named names (NULL-terminated; a name starting with
 * "deleting-" is being deleted), then waits until the preemptor leaves the preempting set. */
static void preempt(struct fixture *f, const struct api_pod *preemptor, const char *const *names)
{
	struct api_pod *v[8];
	uint32_t n = 0;
	for (; names[n]; n++)
		v[n] = !strncmp(names[n], "deleting-", 9)
			       ? POD(names[n], "100", .node = "node1", .spec = "\"terminationGracePeriodSeconds\":30",
				     .status = "\"phase\":\"Running\"")
			       : POD(names[n], "100", .node = "node1");
	for (uint32_t i = 0; i < n; i++)
		if (!strncmp(names[i], "deleting-", 9))
			v[i]->meta.being_deleted = true; /* as decoded from a deletionTimestamp */
	bool job = false; /* a victim not being deleted: the executor runs */
	for (uint32_t i = 0; i < n; i++)
		job |= !v[i]->meta.being_deleted;
	long done = goroutines_done(f);
	struct fw_preemption c = { "node1", n, v, 0 };
	struct fw_status st;
	fw_status_reset(&st);
	assert_int_equal(sched_preempt_actuate(f->s, preemptor, &c, &st), FW_SUCCESS);
	for (uint32_t i = 0; i < n; i++)
		api_pod_unref(v[i]); /* borrowed for the call */
	for (int i = 0; i < 500 && sched_preempt_is_running(f->s, preemptor->meta.uid); i++)
		usleep(10 * 1000);
	assert_false(sched_preempt_is_running(f->s, preemptor->meta.uid));
	/* the activation follows the set's removal (upstream's deferred calls): wait for the metric */
	for (int i = 0; i < 500 && job && goroutines_done(f) == done; i++)
		usleep(10 * 1000);
	assert_int_equal(goroutines_done(f), done + (job ? 1 : 0));
}

static bool activated(struct fixture *f, const struct api_pod *p)
{
	return queue_pod_tier(f->s->queue, p->meta.uid) == QUEUE_TIER_ACTIVE;
}

/* ---------- tests ---------- */

/* upstream TestAsyncPreemptionFailure. */
static void test_async_preemption_failure(void **state)
{
	struct fixture *f = *state;
	static const struct {
		const char *name;
		const char *victims[4];
		bool success, last_attempted;
	} cases[] = {
		{ "Failure with a single victim", { "fail-victim" }, false, true },
		{ "Success with a single victim", { "victim1" }, true, true },
		{ "Failure in first of three victims", { "fail-victim", "victim2", "victim3" }, false, false },
		{ "Failure in second of three victims", { "victim1", "fail-victim", "victim3" }, false, false },
		{ "Failure in first two of three victims", { "fail-victim1", "fail-victim2", "victim3" }, false, false },
		{ "Failure in third of three victims", { "victim1", "victim2", "fail-victim" }, false, true },
		{ "Success with three victims", { "victim1", "victim2", "victim3" }, true, true },
	};
	sched_preempt_start(f->s->preempt);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pthread_mutex_lock(&srv.lock);
		srv.n = 0;
		pthread_mutex_unlock(&srv.lock);
		struct api_pod *pre = park_preemptor(f);
		preempt(f, pre, cases[i].victims);
		size_t nv = 0;
		while (cases[i].victims[nv])
			nv++;
		char line[160];
		snprintf(line, sizeof(line), "DELETE /api/v1/namespaces/default/pods/%s", cases[i].victims[nv - 1]);
		bool last_attempted = requested(line);
		if (last_attempted != cases[i].last_attempted)
			fail_msg("%s: last victim attempted %d, want %d\n%s", cases[i].name, last_attempted,
				 cases[i].last_attempted, requests());
		if (activated(f, pre) == cases[i].success)
			fail_msg("%s: preemptor activated %d, want %d", cases[i].name, activated(f, pre), !cases[i].success);
		f->h.on_delete(f->h.ctx, pre); /* out of the queue for the next case */
		api_pod_unref(pre);
	}
	/* upstream's goroutine metric: 2 successes, 5 failures */
	char *text = NULL;
	size_t len = 0;
	struct err e = { 0 };
	assert_int_equal(sched_metrics_render(f->m, &text, &len, &e), 0);
	assert_non_null(strstr(text, "scheduler_preemption_goroutines_execution_total{result=\"error\"} 5\n"));
	assert_non_null(strstr(text, "scheduler_preemption_goroutines_execution_total{result=\"success\"} 2\n"));
	assert_non_null(strstr(text, "scheduler_preemption_victims_count 7\n"));
	free(text);
}

/* upstream TestPrepareCandidate: the requests each victim causes, and the Preempted events. */
static void test_prepare_candidate(void **state)
{
	struct fixture *f = *state;
#define P(n) "PATCH /api/v1/namespaces/default/pods/" n "/status"
#define D(n) "DELETE /api/v1/namespaces/default/pods/" n
	static const struct {
		const char *name;
		const char *victims[3];
		const char *want[4]; /* the requests, in order */
		int events;
		bool success;
	} cases[] = {
		{ "one victim without condition", { "victim1" }, { P("victim1"), D("victim1") }, 1, true },
		{ "one victim, but victim is already being deleted", { "deleting-victim" }, { NULL }, 0, true },
		{ "one victim, not-found victim error is ignored when patching", { "gone-victim" }, { P("gone-victim") }, 0,
		  true },
		{ "one victim, but pod deletion failed", { "fail-victim" }, { P("fail-victim"), D("fail-victim") }, 0, false },
		{ "one victim, not-found victim error is ignored when deleting", { "delgone-victim" },
		  { P("delgone-victim"), D("delgone-victim") }, 0, true },
		{ "one victim, but patch pod failed", { "patchfail-victim" }, { P("patchfail-victim") }, 0, false },
		{ "two victims without condition, one passes successfully and the second fails", { "victim1", "fail-victim" },
		  { P("victim1"), D("victim1"), P("fail-victim"), D("fail-victim") }, 1, false },
	};
#undef P
#undef D
	sched_preempt_start(f->s->preempt);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pthread_mutex_lock(&srv.lock);
		srv.n = 0;
		pthread_mutex_unlock(&srv.lock);
		struct sched_events_stats before, after;
		sched_events_stats(f->s->events, &before);
		struct api_pod *pre = park_preemptor(f);
		preempt(f, pre, cases[i].victims);
		int n = 0;
		while (n < 4 && cases[i].want[n])
			n++;
		pthread_mutex_lock(&srv.lock);
		bool ok = srv.n == n;
		for (int k = 0; ok && k < n; k++)
			ok = strcmp(srv.reqs[k], cases[i].want[k]) == 0;
		pthread_mutex_unlock(&srv.lock);
		if (!ok)
			fail_msg("%s: requests\n%s", cases[i].name, requests());
		sched_events_stats(f->s->events, &after);
		if ((int)(after.recorded - before.recorded) != cases[i].events)
			fail_msg("%s: %d events, want %d", cases[i].name, (int)(after.recorded - before.recorded),
				 cases[i].events);
		if (activated(f, pre) == cases[i].success)
			fail_msg("%s: preemptor activated %d, want %d", cases[i].name, activated(f, pre), !cases[i].success);
		f->h.on_delete(f->h.ctx, pre);
		api_pod_unref(pre);
	}
	/* the DisruptionTarget patch of the first case: upstream's condition (oracle bodies in
	 * test_apiclient_status_patch.c) */
	assert_non_null(strstr(srv.bodies[0], "\"message\":\"csched: preempting to accommodate a higher priority pod\""));
}

/* upstream PreemptPod's event, as kube-scheduler v1.37.2 sent it for one victim (captured from
 * the real binary on tests/cluster: reason Preempted, action Preempting, type Normal, note
 * "Preempted by pod <preemptor uid> on node <node>", regarding the victim, reportingController the
 * scheduler name, related null). */
static void test_preempted_event(void **state)
{
	struct fixture *f = *state;
	struct err e = { 0 };
	assert_int_equal(sched_events_start(f->s->events, &e), 0);
	sched_preempt_start(f->s->preempt);
	struct api_pod *pre = park_preemptor(f);
	preempt(f, pre, (const char *const[]){ "victim1", NULL });
	char body[4096] = "";
	for (int i = 0; i < 500 && !body[0]; i++) {
		pthread_mutex_lock(&srv.lock);
		for (int k = 0; k < srv.n; k++)
			if (!strcmp(srv.reqs[k], "POST /apis/events.k8s.io/v1/namespaces/default/events"))
				snprintf(body, sizeof(body), "%s", srv.bodies[k]);
		pthread_mutex_unlock(&srv.lock);
		usleep(10 * 1000);
	}
	static const char *const want[] = {
		"\"reportingController\":\"csched\"",
		"\"action\":\"Preempting\"",
		"\"reason\":\"Preempted\"",
		"\"note\":\"Preempted by pod uid-preemptor on node node1\"",
		"\"type\":\"Normal\"",
		"\"regarding\":{\"kind\":\"Pod\",\"namespace\":\"default\",\"name\":\"victim1\",\"uid\":\"uid-victim1\"",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(body, want[i]))
			fail_msg("event lacks %s:\n%s", want[i], body);
	assert_null(strstr(body, "related"));
	api_pod_unref(pre);
}

/* upstream TestRemoveNominatedNodeName ({"status":{"nominatedNodeName":null}} for a pod whose status
 * has a nomination, no request when it has none) over getLowerPriorityNominatedPods: only pods of
 * lower priority than the preemptor, nominated on the candidate's node. */
static void test_clear_lower_priority_nominations(void **state)
{
	struct fixture *f = *state;
	struct err e = { 0 };
	static const struct {
		const char *name, *prio, *status_node, *nominated;
		bool patched;
	} noms[] = {
		{ "low-on-node1", "500", "node1", "node1", true },
		{ "low-cleared-status", "500", NULL, "node1", false }, /* nominated in memory only */
		{ "equal-on-node1", "1000", "node1", "node1", false },
		{ "low-on-node2", "500", "node2", "node2", false },
	};
	struct api_pod *pods[4];
	for (int i = 0; i < 4; i++) {
		pods[i] = POD(noms[i].name, noms[i].prio, .nominated = noms[i].status_node);
		f->h.on_add(f->h.ctx, pods[i]);
		assert_int_equal(queue_add_nominated_pod(f->s->queue, pods[i], noms[i].nominated, &e), 0);
	}
	sched_preempt_start(f->s->preempt);
	struct api_pod *pre = park_preemptor(f);
	preempt(f, pre, (const char *const[]){ "victim1", NULL });
	for (int i = 0; i < 4; i++) {
		char line[160];
		snprintf(line, sizeof(line), "PATCH /api/v1/namespaces/default/pods/%s/status", noms[i].name);
		if (requested(line) != noms[i].patched)
			fail_msg("%s: patched %d, want %d\n%s", noms[i].name, requested(line), noms[i].patched, requests());
	}
	pthread_mutex_lock(&srv.lock);
	for (int k = 0; k < srv.n; k++)
		if (strstr(srv.reqs[k], "low-on-node1"))
			assert_string_equal(srv.bodies[k], "{\"status\":{\"nominatedNodeName\":null}}");
	pthread_mutex_unlock(&srv.lock);
	for (int i = 0; i < 4; i++)
		api_pod_unref(pods[i]);
	api_pod_unref(pre);
}

/* upstream TestIsPodRunningPreemption: a queued preemption (no worker yet) is running; none is
 * running for another pod; once the preemption ended it is not. */
static void test_is_running(void **state)
{
	struct fixture *f = *state;
	struct api_pod *pre = park_preemptor(f);
	struct api_pod *v = POD("victim1", "100", .node = "node1");
	struct fw_preemption c = { "node1", 1, &v, 0 };
	struct fw_status st;
	fw_status_reset(&st);
	assert_false(sched_preempt_is_running(f->s, pre->meta.uid));
	assert_int_equal(sched_preempt_actuate(f->s, pre, &c, &st), FW_SUCCESS); /* executor not started */
	assert_true(sched_preempt_is_running(f->s, pre->meta.uid));
	assert_false(sched_preempt_is_running(f->s, "other-uid"));
	/* stop drops the queued job: the preemptor is no longer preempting */
	sched_preempt_stop(f->s->preempt);
	assert_false(sched_preempt_is_running(f->s, pre->meta.uid));
	assert_int_equal(srv.n, 0);
	api_pod_unref(v);
	api_pod_unref(pre);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_async_preemption_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prepare_candidate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preempted_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clear_lower_priority_nominations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_is_running, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
