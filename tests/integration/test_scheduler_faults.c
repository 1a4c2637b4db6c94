/* csched's scheduler (in-process) talking to a real kube-apiserver through the fault proxy
 * (fault_proxy.h), one cluster and one scheduler for the group. Each test injects one fault while
 * a batch of pods is created, then checks: every pod is bound (the nodes have room for all), no
 * pod was bound twice (Binding POSTs the apiserver accepted, counted at the proxy: exactly one per
 * pod), none lost, and the scheduler's cache equals the server (pods per node, nothing assumed or
 * queued). Faults: latency on every request; 503 and 429 with Retry-After on binds; 500 on binds;
 * a bind stalled past the client's timeout (the apiserver did bind); a truncated bind answer;
 * watch streams cut mid-event; a watch ERROR event (500) mid-watch; the apiserver, then etcd,
 * killed and restarted mid-load; etcd compacted while watches are refused (410, relist). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "algorithm/framework.h"
#include "apiclient/api_client.h"
#include "config/config.h"
#include "fault_proxy.h"
#include "harness.h"
#include "scheduler/scheduler.h"
#include "testutil.h"

#define NODES 10  /* 4 cpu / 32Gi each: room for 400 pods of 100m / 500Mi */
#define BATCH 30
#define BIND_TIMEOUT_MS 2000 /* the proxied client's request timeout */

static struct harness_cluster cluster;
static struct api_client *direct, *proxied;
static struct api_conn *conn;
static struct fproxy *proxy;
static struct scheduler *sched;
static struct config cfg;

static int setup_flags(unsigned flags)
{
	struct err e = {0};
	memset(&cfg, 0, sizeof(cfg));
	if (harness_cluster_start(&cluster, flags, &e) < 0 || !(direct = harness_client_new(&cluster, NULL, &e)) ||
	    !(conn = api_conn_new(direct, &e)) || !(proxy = fproxy_start(&cluster, &e)) ||
	    !(proxied = fproxy_client_new(proxy, &cluster, NULL, BIND_TIMEOUT_MS, &e)) ||
	    harness_create_nodes(direct, "fn-", 0, NODES, &e) || config_init_default(&cfg, fw_registry(), &e) < 0) {
		fprintf(stderr, "setup: %s\n", e.msg);
		return -1;
	}
	struct sched_options o = {.cfg = &cfg, .client = proxied};
	if (!(sched = sched_new(&o, &e)) || sched_start_scheduling(sched, &e) < 0) {
		fprintf(stderr, "scheduler: %s\n", e.msg);
		return -1;
	}
	if (!sched_wait_synced(sched, 30000)) {
		fprintf(stderr, "scheduler: not synced in 30 s\n");
		return -1;
	}
	return 0;
}

static int setup(void **state)
{
	(void)state;
	return setup_flags(HARNESS_BENCH);
}

/* watches go to etcd: a compaction makes an old resourceVersion answer 410 */
static int setup_no_watch_cache(void **state)
{
	(void)state;
	return setup_flags(HARNESS_BENCH | HARNESS_NO_WATCH_CACHE);
}

static int teardown(void **state)
{
	(void)state;
	sched_free(sched);
	sched = NULL;
	config_free(&cfg);
	api_client_free(proxied);
	proxied = NULL;
	fproxy_stop(proxy);
	proxy = NULL;
	api_conn_free(conn);
	conn = NULL;
	api_client_free(direct);
	direct = NULL;
	harness_cluster_stop(&cluster);
	return 0;
}

static void create_pods(const char *prefix, int n)
{
	struct err e = {0};
	for (int i = 0; i < n; i++) {
		char body[1024];
		int len = snprintf(body, sizeof(body),
				   "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s%d\"},\"spec\":"
				   "{\"schedulerName\":\"csched\",\"containers\":[{\"name\":\"pause\",\"image\":"
				   "\"registry.k8s.io/pause:3.10\",\"resources\":{\"requests\":{\"cpu\":\"100m\","
				   "\"memory\":\"500Mi\"}}}]}}",
				   prefix, i);
		if (api_request(conn, "POST", "/api/v1/namespaces/default/pods", NULL, body, (size_t)len, NULL, &e))
			fail_msg("create %s%d: %s", prefix, i, e.msg);
	}
}

/* ---------- the server's view ---------- */

struct server_view {
	const char *prefix;
	int batch_bound, batch_seen, bound;
	int per_node[NODES];
};

static int view_item(void *ctx, struct yajl_val_s *item)
{
	static const char *name_p[] = {"metadata", "name", NULL}, *node_p[] = {"spec", "nodeName", NULL};
	struct server_view *v = ctx;
	yajl_val name = yajl_tree_get(item, name_p, yajl_t_string), node = yajl_tree_get(item, node_p, yajl_t_string);
	const char *nn = node ? YAJL_GET_STRING(node) : NULL, *pn = name ? YAJL_GET_STRING(name) : NULL;
	bool mine = pn && !strncmp(pn, v->prefix, strlen(v->prefix));
	v->batch_seen += mine;
	if (!nn || !*nn)
		return 0;
	v->bound++;
	v->batch_bound += mine;
	if (!strncmp(nn, "fn-", 3)) {
		int i = atoi(nn + 3);
		if (i >= 0 && i < NODES)
			v->per_node[i]++;
	}
	return 0;
}

static bool server_view(const char *prefix, struct server_view *v)
{
	struct err e = {0};
	memset(v, 0, sizeof(*v));
	v->prefix = prefix;
	return harness_list(conn, "/api/v1/namespaces/default/pods", view_item, v, NULL, &e) == 0;
}

static bool batch_bound(void *ctx)
{
	struct server_view v;
	return server_view(ctx, &v) && v.batch_bound == BATCH;
}

struct cache_diff {
	char msg[256];
};

/* The cache equals the server: pods per node, every bound pod, nothing assumed, nothing queued. */
static bool cache_equals_server(void *ctx)
{
	struct cache_diff *d = ctx;
	struct server_view v;
	struct sched_stats st;
	if (!server_view("", &v))
		return snprintf(d->msg, sizeof(d->msg), "list failed"), false;
	sched_stats(sched, &st);
	for (int i = 0; i < NODES; i++) {
		char n[16];
		snprintf(n, sizeof(n), "fn-%d", i);
		int c = sched_cache_node_pods(sched, n);
		if (c != v.per_node[i]) {
			snprintf(d->msg, sizeof(d->msg), "%s: cache %d pods, server %d", n, c, v.per_node[i]);
			return false;
		}
	}
	if ((int)st.cache_pods != v.bound || st.cache_assumed || st.queue_pending || st.queue_in_flight) {
		snprintf(d->msg, sizeof(d->msg), "cache pods %u (server %d), assumed %u, queued %u, in flight %u",
			 st.cache_pods, v.bound, st.cache_assumed, st.queue_pending, st.queue_in_flight);
		return false;
	}
	return true;
}

struct accepted_wait {
	const char *prefix;
};

static bool all_binds_logged(void *ctx)
{
	struct accepted_wait *w = ctx;
	char path[128];
	snprintf(path, sizeof(path), "/pods/%s", w->prefix);
	return fproxy_count(proxy, "POST", path, 201) >= BATCH;
}

/* Runs one fault: rules added, optionally every open stream cut, a batch created, during() (if
 * not NULL) run; then the checks. exact_binds false: a bind whose answer died with the apiserver
 * may have been stored, so a pod may have no accepted Binding POST on record (never two). */
static void run_fault_during(const char *prefix, const struct fproxy_rule *rules, int nrules, bool cut_streams,
			     void (*during)(const int *rule_ids), bool exact_binds)
{
	int ids[4] = {0};
	struct sched_stats st0, st;
	sched_stats(sched, &st0);
	for (int i = 0; i < nrules; i++)
		assert_true((ids[i] = fproxy_add(proxy, &rules[i])) >= 0);
	if (cut_streams)
		fproxy_cut_streams(proxy);
	int64_t t0 = harness_now_ms();
	create_pods(prefix, BATCH);
	if (during)
		during(ids);
	if (!harness_wait_until(batch_bound, (void *)prefix, 120000, 100)) {
		struct server_view v;
		server_view(prefix, &v);
		fail_msg("%s: %d of %d pods bound after 120 s (%d exist)", prefix, v.batch_bound, BATCH, v.batch_seen);
	}
	int64_t ms = harness_now_ms() - t0;
	long fired = 0;
	for (int i = 0; i < nrules; i++)
		fired += fproxy_fired(proxy, ids[i]);
	fproxy_clear(proxy);

	struct cache_diff d = {""};
	if (!harness_wait_until(cache_equals_server, &d, 30000, 100))
		fail_msg("%s: cache != server after 30 s: %s", prefix, d.msg);

	/* none bound twice: exactly one accepted Binding POST per pod (a retry after a bind the
	 * client did not see succeed must meet 409, not bind again). A stalled answer is logged
	 * when the proxy has relayed it: wait for those first. */
	struct accepted_wait aw = {prefix};
	harness_wait_until(all_binds_logged, &aw, exact_binds ? 15000 : 0, 100);
	long accepted = 0, refused = 0;
	for (int i = 0; i < BATCH; i++) {
		char path[128];
		snprintf(path, sizeof(path), "/pods/%s%d/binding", prefix, i);
		long ok = fproxy_count(proxy, "POST", path, 201);
		if (ok > 1 || (exact_binds && ok != 1))
			fail_msg("%s%d: %ld accepted Binding POSTs", prefix, i, ok);
		accepted += ok;
		refused += fproxy_count(proxy, "POST", path, 0) - ok;
	}
	sched_stats(sched, &st);
	fprintf(stderr,
		"[faults-it] %s: %d pods bound in %lld ms; fault fired %ld times; bindings accepted %ld, "
		"failed or refused %ld; attempts %llu, bind failures %llu, dropped %llu\n",
		prefix, BATCH, (long long)ms, fired, accepted, refused,
		(unsigned long long)(st.attempts - st0.attempts), (unsigned long long)(st.bind_failures - st0.bind_failures),
		(unsigned long long)(st.dropped - st0.dropped));
	assert_true(fired >= 1 || !nrules);
}

static void run_fault(const char *prefix, const struct fproxy_rule *rules, int nrules, bool cut_streams)
{
	run_fault_during(prefix, rules, nrules, cut_streams, NULL, true);
}

/* ---------- the faults ---------- */

static void test_latency_everywhere(void **state)
{
	(void)state;
	struct fproxy_rule r = {.fault = FP_DELAY, .ms = 150};
	run_fault("lat-", &r, 1, false);
}

/* client-go rest: a 429 or 5xx with Retry-After is waited out and retried (with_retry.go checkWait) */
static void test_bind_503_retry_after(void **state)
{
	(void)state;
	struct fproxy_rule r = {.method = "POST", .path = "/binding", .times = 5, .fault = FP_REPLY, .status = 503,
				.retry_after_s = 1};
	run_fault("r503-", &r, 1, false);
}

static void test_bind_429_retry_after(void **state)
{
	(void)state;
	struct fproxy_rule r = {.method = "POST", .path = "/binding", .times = 5, .fault = FP_REPLY, .status = 429,
				.retry_after_s = 1};
	run_fault("r429-", &r, 1, false);
}

/* no Retry-After: the bind fails, the pod is requeued and bound later */
static void test_bind_500(void **state)
{
	(void)state;
	struct fproxy_rule r = {.method = "POST", .path = "/binding", .times = 5, .fault = FP_REPLY, .status = 500};
	run_fault("e500-", &r, 1, false);
}

/* the apiserver binds, the answer comes after the client gave up */
static void test_bind_stalled_past_timeout(void **state)
{
	(void)state;
	struct fproxy_rule r = {.method = "POST", .path = "/binding", .times = 3, .fault = FP_STALL,
				.ms = BIND_TIMEOUT_MS + 1500};
	run_fault("stall-", &r, 1, false);
}

/* the apiserver binds, the answer is cut short */
static void test_bind_answer_truncated(void **state)
{
	(void)state;
	struct fproxy_rule r = {.method = "POST", .path = "/binding", .times = 3, .fault = FP_CUT, .after = 20};
	run_fault("trunc-", &r, 1, false);
}

static void test_watch_cut_mid_event(void **state)
{
	(void)state;
	struct fproxy_rule r = {.method = "GET", .path = "watch=1", .times = 6, .fault = FP_CUT, .after = 700};
	run_fault("wcut-", &r, 1, true);
}

static void test_watch_error_event_mid_watch(void **state)
{
	(void)state;
	/* after one event of some watch (pods, nodes, PVCs): an ERROR the informer must recover from */
	struct fproxy_rule r = {
		.method = "GET", .path = "watch=1", .times = 2, .fault = FP_INJECT, .after = 1,
		.line = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
			"\"status\":\"Failure\",\"message\":\"Internal error occurred: etcdserver: request timed out\","
			"\"reason\":\"InternalError\",\"code\":500}}"};
	run_fault("werr-", &r, 1, true);
}

/* ---------- the apiserver and etcd ---------- */

static void kill_and_restart_apiserver(const int *rule_ids)
{
	(void)rule_ids;
	struct err e = {0};
	if (harness_apiserver_kill(&cluster, SIGKILL, &e))
		fail_msg("kill -9 apiserver: %s", e.msg);
	usleep(1500 * 1000); /* the informers and binders fail and back off meanwhile */
	if (harness_apiserver_restart(&cluster, &e))
		fail_msg("restart apiserver: %s", e.msg);
	api_conn_free(conn); /* its connection died with the server */
	if (!(conn = api_conn_new(direct, &e)))
		fail_msg("conn: %s", e.msg);
}

static void test_apiserver_kill9_mid_load(void **state)
{
	(void)state;
	run_fault_during("kill-", NULL, 0, false, kill_and_restart_apiserver, false);
}

/* etcd dies under the apiserver: binds fail (500 or time out) while the watch cache keeps the
 * streams open, then etcd comes back with its data and the apiserver reconnects by itself */
static void kill_and_restart_etcd(const int *rule_ids)
{
	(void)rule_ids;
	struct err e = {0};
	if (harness_etcd_kill(&cluster, SIGKILL, &e))
		fail_msg("kill -9 etcd: %s", e.msg);
	usleep(1500 * 1000);
	if (harness_etcd_restart(&cluster, &e))
		fail_msg("restart etcd: %s", e.msg);
}

static void test_etcd_kill9_mid_load(void **state)
{
	(void)state;
	run_fault_during("ekill-", NULL, 0, false, kill_and_restart_etcd, false);
}

/* While every watch is refused with 429 (the informers keep their resourceVersion and retry),
 * pods come and go and etcd is compacted past them: when watches are let through again they
 * start from compacted revisions, get 410 and must relist. */
static bool watches_refused(void *ctx)
{
	/* pods, nodes, PVCs, namespaces, and the default profile's Services, RCs, ReplicaSets and
	 * StatefulSets (PodTopologySpread's default constraints), and its PodDisruptionBudgets when it
	 * runs DefaultPreemption (scheduler/pdbs.c) */
	int informers = 8 + config_profile_runs(&cfg.profiles[0], CFG_EP_POST_FILTER, "DefaultPreemption", NULL);
	return fproxy_fired(proxy, *(const int *)ctx) >= informers;
}

static bool gap_node_known(void *ctx)
{
	(void)ctx;
	return sched_cache_node_pods(sched, "gap-2") >= 0;
}

static void gap_compact_then_release(const int *rule_ids)
{
	struct err e = {0};
	int64_t rev = 0;
	/* the gap starts when every informer has been refused once (their backoff after the cut
	 * decides when; on a loaded machine later than the changes below would take) */
	if (!harness_wait_until(watches_refused, (void *)&rule_ids[0], 30000, 20))
		fail_msg("gap: the informers did not try to watch within 30 s");
	if (harness_create_nodes(direct, "gap-", 0, 3, &e) || harness_delete_nodes(direct, "gap-", 0, 2, &e) ||
	    harness_etcd_revision(&cluster, &rev, &e) || harness_etcd_compact(&cluster, rev, &e))
		fail_msg("gap: %s", e.msg);
	fproxy_clear(proxy);
}

/* pod (re)lists made: paged LISTs and streaming lists (status 0: answered or not) */
static long pod_lists(void)
{
	return fproxy_count(proxy, "GET", "/api/v1/pods?limit=", 0) +
	       fproxy_count(proxy, "GET", "/api/v1/pods?watch=1&sendInitialEvents=true", 0);
}

static void test_etcd_compaction_forces_410(void **state)
{
	(void)state;
	long lists0 = pod_lists();
	struct fproxy_rule r = {.method = "GET", .path = "watch=1", .fault = FP_REPLY, .status = 429};
	run_fault_during("gap-", &r, 1, true, gap_compact_then_release, true);
	long lists = pod_lists() - lists0;
	fprintf(stderr, "[faults-it] pod relists after the compaction: %ld\n", lists);
	assert_true(lists >= 1);
	/* the node made in the gap is known once the node informer has relisted (each informer
	 * relists on its own schedule after the gap) */
	assert_true(harness_wait_until(gap_node_known, NULL, 30000, 20));
	assert_int_equal(sched_cache_node_pods(sched, "gap-0"), -1); /* the deleted ones are not */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latency_everywhere),
		cmocka_unit_test(test_bind_503_retry_after),
		cmocka_unit_test(test_bind_429_retry_after),
		cmocka_unit_test(test_bind_500),
		cmocka_unit_test(test_bind_stalled_past_timeout),
		cmocka_unit_test(test_bind_answer_truncated),
		cmocka_unit_test(test_watch_cut_mid_event),
		cmocka_unit_test(test_watch_error_event_mid_watch),
		cmocka_unit_test(test_apiserver_kill9_mid_load),
		cmocka_unit_test(test_etcd_kill9_mid_load),
	};
	const struct CMUnitTest etcd_tests[] = {
		cmocka_unit_test(test_etcd_compaction_forces_410),
	};
	int failed = cmocka_run_group_tests(tests, setup, teardown);
	return failed + cmocka_run_group_tests(etcd_tests, setup_no_watch_cache, teardown);
}
