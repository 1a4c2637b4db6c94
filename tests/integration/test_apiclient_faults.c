/* The informer through the fault proxy (fault_proxy.h) in front of a real kube-apiserver (one
 * cluster for the group). After each fault the store must equal a fresh LIST made directly:
 *  - a watch ERROR event that is not 410, sent every time the informer watches from one
 *    resourceVersion (a 504 "Too large resource version" as the apiserver words it, a 500
 *    InternalError): client-go's reflector relists, so must csched (issue 18 defect 6; before
 *    the fix it watched again from the same resourceVersion forever and missed every change);
 *  - a 429 ERROR event: watch again from the same resourceVersion, no relist;
 *  - watch streams cut mid-event, many times;
 *  - an expired continue token during a paginated LIST: the list starts over;
 *  - 503 and 429 answers with Retry-After to the LIST: waited out, not a failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yajl/yajl_tree.h>

#include "apiclient/informer.h"
#include "fault_proxy.h"
#include "harness.h"
#include "testutil.h"

struct fixture {
	struct harness_cluster cluster;
	struct api_client *direct; /* straight to the apiserver */
	struct api_conn *conn;
	struct fproxy *proxy;
	struct api_client *proxied; /* through the proxy */
};

static void must(int rc, const struct err *e, const char *what)
{
	if (rc)
		fail_msg("%s: %s", what, e->msg);
}

/* ---------- store == server (pods) ---------- */

struct compare {
	struct api_informer *inf;
	long server, mismatched;
	char first_diff[ERR_MSG_MAX + 64];
};

static int compare_item(void *ctx, struct yajl_val_s *item)
{
	static const char *name_p[] = {"metadata", "name", NULL}, *ns_p[] = {"metadata", "namespace", NULL},
			  *rv_p[] = {"metadata", "resourceVersion", NULL}, *uid_p[] = {"metadata", "uid", NULL};
	struct compare *c = ctx;
	yajl_val name = yajl_tree_get(item, name_p, yajl_t_string), ns = yajl_tree_get(item, ns_p, yajl_t_string),
		 rv = yajl_tree_get(item, rv_p, yajl_t_string), uid = yajl_tree_get(item, uid_p, yajl_t_string);
	const char *sname = name ? YAJL_GET_STRING(name) : NULL, *srv = rv ? YAJL_GET_STRING(rv) : NULL,
		   *suid = uid ? YAJL_GET_STRING(uid) : NULL;
	c->server++;
	if (!sname || !srv || !suid)
		return -1;
	struct api_pod *p = api_informer_get(c->inf, ns ? YAJL_GET_STRING(ns) : NULL, sname);
	const char *prv = p && p->meta.resource_version ? p->meta.resource_version : "";
	const char *puid = p && p->meta.uid ? p->meta.uid : "";
	if (!p || strcmp(prv, srv) || strcmp(puid, suid)) {
		if (!c->mismatched++)
			snprintf(c->first_diff, sizeof(c->first_diff), "%s: server rv %s, store %s", sname, srv,
				 p ? prv : "(absent)");
	}
	api_pod_unref(p);
	return 0;
}

struct eq_ctx {
	struct api_conn *conn;
	struct api_informer *inf;
	struct compare last;
};

static bool store_equals_server(void *ctx)
{
	struct eq_ctx *q = ctx;
	struct err e = {0};
	struct compare c = {.inf = q->inf};
	int rc = harness_list(q->conn, "/api/v1/pods", compare_item, &c, NULL, &e);
	if (rc)
		snprintf(c.first_diff, sizeof(c.first_diff), "list: %s", e.msg);
	q->last = c;
	return rc == 0 && c.mismatched == 0 && (size_t)c.server == api_informer_len(q->inf);
}

static void assert_store_equals_server(struct fixture *f, struct api_informer *inf, long timeout_ms)
{
	struct eq_ctx q = {.conn = f->conn, .inf = inf};
	if (!harness_wait_until(store_equals_server, &q, timeout_ms, 200))
		fail_msg("pod store != server after %ld ms: server %ld objects, store %zu, %ld mismatched (%s)", timeout_ms,
			 q.last.server, api_informer_len(inf), q.last.mismatched, q.last.first_diff);
}

/* ---------- fixture ---------- */

static int setup(void **state)
{
	struct err e = {0};
	struct fixture *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	if (harness_cluster_start(&f->cluster, HARNESS_BENCH, &e))
		fail_msg("cluster: %s", e.msg);
	if (!(f->direct = harness_client_new(&f->cluster, "token", &e)) || !(f->conn = api_conn_new(f->direct, &e)) ||
	    !(f->proxy = fproxy_start(&f->cluster, &e)) || !(f->proxied = fproxy_client_new(f->proxy, &f->cluster, "token", 0, &e)))
		fail_msg("setup: %s", e.msg);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	if (!f)
		return 0;
	api_client_free(f->proxied);
	fproxy_stop(f->proxy);
	api_conn_free(f->conn);
	api_client_free(f->direct);
	harness_cluster_stop(&f->cluster);
	free(f);
	return 0;
}

/* page_size > 0: sync with paged LISTs of that size only (no streaming list); 0: the default */
static struct api_informer *pod_informer(struct fixture *f, int page_size)
{
	struct err e = {0};
	struct api_informer_options o = {.page_size = page_size, .paged_list = page_size > 0, .min_watch_timeout_s = 300};
	struct api_informer *inf = api_informer_new(f->proxied, API_KIND_POD, &o, NULL, &e);
	if (!inf || api_informer_start(inf, &e))
		fail_msg("informer: %s", e.msg);
	if (!api_informer_wait_synced(inf, 60000))
		fail_msg("informer not synced after 60 s");
	return inf;
}

struct fired_wait {
	struct fproxy *p;
	int id;
	long want;
};

static bool fired_enough(void *ctx)
{
	struct fired_wait *w = ctx;
	return fproxy_fired(w->p, w->id) >= w->want;
}

/* ---------- a watch ERROR at one resourceVersion, every time ---------- */

/* captured from the real apiserver (tests/unit/test_apiclient_informer_errors.c has the request) */
#define STATUS_TOO_LARGE                                                                                      \
	"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Timeout: Too " \
	"large resource version: 999999999, current: 221\",\"reason\":\"Timeout\",\"details\":{\"causes\":[{\"reason\":" \
	"\"ResourceVersionTooLarge\",\"message\":\"Too large resource version\"}],\"retryAfterSeconds\":1},\"code\":504}"
/* apimachinery NewInternalError */
#define STATUS_INTERNAL                                                                                     \
	"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Internal error " \
	"occurred: etcdserver: request timed out\",\"reason\":\"InternalError\",\"details\":{\"causes\":[{\"message\":" \
	"\"etcdserver: request timed out\"}]},\"code\":500}"
#define STATUS_429                                                                                           \
	"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Too many requests, " \
	"please try again later.\",\"reason\":\"TooManyRequests\",\"details\":{\"retryAfterSeconds\":1},\"code\":429}"

/* Syncs an informer, then makes every watch from its resourceVersion answer `status` as an ERROR
 * event (times: 0 = for ever), cuts the running watch, changes pods, and checks the store. */
static void error_at_rv(struct fixture *f, const char *prefix, const char *status, int times, bool want_relist)
{
	struct err e = {0};
	char line[1024], path[96];
	must(harness_create_pods(f->direct, "default", prefix, 0, 20, &e), &e, "create pods");
	struct api_informer *inf = pod_informer(f, 0);
	struct api_informer_stats st;
	api_informer_stats(inf, &st);
	snprintf(path, sizeof(path), "resourceVersion=%s&", st.last_resource_version);
	snprintf(line, sizeof(line), "{\"type\":\"ERROR\",\"object\":%s}", status);
	unsigned long lists0 = st.lists;
	int id = fproxy_add(f->proxy, &(struct fproxy_rule){.method = "GET", .path = path, .times = times,
							    .fault = FP_INJECT, .after = 0, .line = line});
	assert_true(id >= 0);
	fproxy_cut_streams(f->proxy); /* the informer watches again, from that resourceVersion */
	struct fired_wait w = {f->proxy, id, times > 0 ? times : 1};
	if (!harness_wait_until(fired_enough, &w, 30000, 20))
		fail_msg("the ERROR was injected %ld times in 30 s", fproxy_fired(f->proxy, id));

	must(harness_create_pods(f->direct, "default", prefix, 20, 10, &e), &e, "create more pods");
	must(harness_delete_pods(f->direct, "default", prefix, 0, 5, &e), &e, "delete pods");
	must(harness_label_pods(f->direct, "default", prefix, 5, 5, "after", &e), &e, "label pods");
	assert_store_equals_server(f, inf, 30000);

	api_informer_stats(inf, &st);
	fprintf(stderr, "[faults-it] %s: injected %ld, lists %lu, watches %lu, watch errors %lu, gone %lu\n", prefix,
		fproxy_fired(f->proxy, id), st.lists, st.watches, st.watch_errors, st.gone);
	if (want_relist)
		assert_true(st.lists > lists0);
	else
		assert_int_equal(st.lists, lists0);
	fproxy_clear(f->proxy);
	api_informer_free(inf);
	must(harness_delete_pods(f->direct, "default", prefix, 0, 30, &e), &e, "clean up");
}

/* upstream reflector: watch() ends on it, the next ListAndWatch relists after the backoff */
static void test_watch_error_too_large_rv_relists(void **state)
{
	error_at_rv(*state, "toolarge-", STATUS_TOO_LARGE, 0, true);
}

/* upstream reflector watch(): any other error ends ListAndWatch; the next one lists */
static void test_watch_error_internal_relists(void **state)
{
	error_at_rv(*state, "internal-", STATUS_INTERNAL, 0, true);
}

/* upstream reflector watch(): 429 backs off and watches again from the same resourceVersion */
static void test_watch_error_429_rewatches(void **state)
{
	error_at_rv(*state, "tmr-", STATUS_429, 2, false);
}

/* ---------- streams cut mid-event ---------- */

static void test_watch_cut_mid_event(void **state)
{
	struct fixture *f = *state;
	struct err e = {0};
	must(harness_create_pods(f->direct, "default", "cut-", 0, 20, &e), &e, "create pods");
	struct api_informer *inf = pod_informer(f, 0);
	/* 300 bytes: inside the first event (a pod is ~1.5 KB), three watches in a row */
	int id = fproxy_add(f->proxy, &(struct fproxy_rule){.method = "GET", .path = "watch=1", .times = 3,
							    .fault = FP_CUT, .after = 300});
	fproxy_cut_streams(f->proxy);
	for (int round = 0; round < 3; round++) {
		char v[16];
		snprintf(v, sizeof(v), "r%d", round);
		must(harness_label_pods(f->direct, "default", "cut-", 0, 20, v, &e), &e, "label pods");
	}
	must(harness_delete_pods(f->direct, "default", "cut-", 0, 5, &e), &e, "delete pods");
	assert_store_equals_server(f, inf, 60000);
	fprintf(stderr, "[faults-it] cuts: %ld\n", fproxy_fired(f->proxy, id));
	assert_true(fproxy_fired(f->proxy, id) >= 1);
	fproxy_clear(f->proxy);
	api_informer_free(inf);
	must(harness_delete_pods(f->direct, "default", "cut-", 0, 20, &e), &e, "clean up");
}

/* ---------- LIST faults ---------- */

/* upstream pager.go: an Expired continuation -> the list again (here paged, from the start) */
static void test_list_continue_expired_restarts(void **state)
{
	struct fixture *f = *state;
	struct err e = {0};
	must(harness_create_pods(f->direct, "default", "cont-", 0, 30, &e), &e, "create pods");
	int id = fproxy_add(f->proxy, &(struct fproxy_rule){.method = "GET", .path = "&continue=", .times = 1,
							    .fault = FP_REPLY, .status = 410});
	struct api_informer *inf = pod_informer(f, 7);
	assert_int_equal(fproxy_fired(f->proxy, id), 1);
	assert_store_equals_server(f, inf, 10000);
	struct api_informer_stats st;
	api_informer_stats(inf, &st);
	assert_int_equal(st.lists, 1); /* one list, restarted inside, not a failed one */
	fproxy_clear(f->proxy);
	api_informer_free(inf);
	must(harness_delete_pods(f->direct, "default", "cont-", 0, 30, &e), &e, "clean up");
}

/* client-go rest: a 429 or 5xx with Retry-After is retried after that many seconds */
static void test_list_retry_after(void **state)
{
	struct fixture *f = *state;
	int a = fproxy_add(f->proxy, &(struct fproxy_rule){.method = "GET", .path = "/api/v1/pods?limit=", .times = 1,
							   .fault = FP_REPLY, .status = 503, .retry_after_s = 1});
	int b = fproxy_add(f->proxy, &(struct fproxy_rule){.method = "GET", .path = "/api/v1/pods?limit=", .times = 1,
							   .fault = FP_REPLY, .status = 429, .retry_after_s = 2});
	int64_t t0 = harness_now_ms();
	struct api_informer *inf = pod_informer(f, 500);
	int64_t ms = harness_now_ms() - t0;
	struct api_informer_stats st;
	api_informer_stats(inf, &st);
	fprintf(stderr, "[faults-it] list through 503+429 with Retry-After 1 s, 2 s: synced in %lld ms\n", (long long)ms);
	assert_int_equal(fproxy_fired(f->proxy, a), 1);
	assert_int_equal(fproxy_fired(f->proxy, b), 1);
	assert_true(ms >= 3000);  /* both waits honoured */
	assert_true(ms < 6000);   /* and not the informer's own backoff on top */
	assert_int_equal(st.lists, 1);
	assert_store_equals_server(f, inf, 10000);
	fproxy_clear(f->proxy);
	api_informer_free(inf);
}

/* ---------- streaming lists (WatchList) ---------- */

static struct api_informer_stats stats_of(struct api_informer *inf)
{
	struct api_informer_stats st;
	api_informer_stats(inf, &st);
	return st;
}

/* The watch from st's resourceVersion answers 410 once (as after a compaction): the informer
 * relists. Returns once the 410 was sent. */
static void force_relist(struct fixture *f, const struct api_informer_stats *st)
{
	char path[96];
	snprintf(path, sizeof(path), "resourceVersion=%s&", st->last_resource_version);
	int gone = fproxy_add(f->proxy, &(struct fproxy_rule){.method = "GET", .path = path, .times = 1,
							      .fault = FP_REPLY, .status = 410});
	fproxy_cut_streams(f->proxy);
	struct fired_wait w = {f->proxy, gone, 1};
	assert_true(harness_wait_until(fired_enough, &w, 30000, 20));
}

/* the default: one streaming list, no LIST request; later changes arrive on the same stream */
static void test_stream_list_syncs_without_list(void **state)
{
	struct fixture *f = *state;
	struct err e = {0};
	must(harness_create_pods(f->direct, "default", "sl-", 0, 25, &e), &e, "create pods");
	long lists0 = fproxy_count(f->proxy, "GET", "/api/v1/pods?limit=", 0);
	struct api_informer *inf = pod_informer(f, 0);
	assert_store_equals_server(f, inf, 10000);
	struct api_informer_stats st = stats_of(inf);
	assert_int_equal(st.lists, 1);
	assert_int_equal(st.streamed_lists, 1);
	assert_int_equal(fproxy_count(f->proxy, "GET", "/api/v1/pods?limit=", 0), lists0);
	must(harness_delete_pods(f->direct, "default", "sl-", 0, 5, &e), &e, "delete pods");
	must(harness_label_pods(f->direct, "default", "sl-", 5, 5, "after", &e), &e, "label pods");
	assert_store_equals_server(f, inf, 10000);
	assert_int_equal(stats_of(inf).watches, 1); /* the stream went on as the watch */
	api_informer_free(inf);
	must(harness_delete_pods(f->direct, "default", "sl-", 0, 25, &e), &e, "clean up");
}

/* a server without WatchList refuses sendInitialEvents (422): paged LISTs from then on */
static void test_stream_list_refused_falls_back(void **state)
{
	struct fixture *f = *state;
	struct err e = {0};
	must(harness_create_pods(f->direct, "default", "slr-", 0, 12, &e), &e, "create pods");
	int id = fproxy_add(f->proxy, &(struct fproxy_rule){.method = "GET", .path = "sendInitialEvents=true",
							    .fault = FP_REPLY, .status = 422});
	struct api_informer *inf = pod_informer(f, 0);
	assert_store_equals_server(f, inf, 10000);
	assert_int_equal(fproxy_fired(f->proxy, id), 1);
	struct api_informer_stats st = stats_of(inf);
	assert_int_equal(st.lists, 1);
	assert_int_equal(st.streamed_lists, 0);
	/* a relist (after a cut at a compacted resourceVersion, say) does not ask again */
	force_relist(f, &st);
	must(harness_delete_pods(f->direct, "default", "slr-", 0, 4, &e), &e, "delete pods");
	assert_store_equals_server(f, inf, 30000);
	assert_int_equal(fproxy_fired(f->proxy, id), 1);
	assert_true(stats_of(inf).lists >= 2);
	assert_int_equal(stats_of(inf).streamed_lists, 0);
	fproxy_clear(f->proxy);
	api_informer_free(inf);
	must(harness_delete_pods(f->direct, "default", "slr-", 0, 12, &e), &e, "clean up");
}

/* a stream cut inside its initial events: this sync is a paged LIST (nothing lost or doubled),
 * the next relist streams again */
static void test_stream_list_cut_falls_back_once(void **state)
{
	struct fixture *f = *state;
	struct err e = {0};
	must(harness_create_pods(f->direct, "default", "slc-", 0, 20, &e), &e, "create pods");
	int id = fproxy_add(f->proxy, &(struct fproxy_rule){.method = "GET", .path = "sendInitialEvents=true",
							    .times = 1, .fault = FP_CUT, .after = 3000});
	struct api_informer *inf = pod_informer(f, 0);
	assert_store_equals_server(f, inf, 10000);
	assert_int_equal(fproxy_fired(f->proxy, id), 1);
	struct api_informer_stats st = stats_of(inf);
	assert_int_equal(st.lists, 1);
	assert_int_equal(st.streamed_lists, 0);
	force_relist(f, &st);
	must(harness_label_pods(f->direct, "default", "slc-", 0, 5, "after", &e), &e, "label pods");
	assert_store_equals_server(f, inf, 30000);
	st = stats_of(inf);
	assert_int_equal(st.streamed_lists, 1);
	assert_int_equal(st.relists, 1);
	fproxy_clear(f->proxy);
	api_informer_free(inf);
	must(harness_delete_pods(f->direct, "default", "slc-", 0, 20, &e), &e, "clean up");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_watch_error_too_large_rv_relists),
		cmocka_unit_test(test_watch_error_internal_relists),
		cmocka_unit_test(test_watch_error_429_rewatches),
		cmocka_unit_test(test_watch_cut_mid_event),
		cmocka_unit_test(test_list_continue_expired_restarts),
		cmocka_unit_test(test_list_retry_after),
		cmocka_unit_test(test_stream_list_syncs_without_list),
		cmocka_unit_test(test_stream_list_refused_falls_back),
		cmocka_unit_test(test_stream_list_cut_falls_back_once),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
