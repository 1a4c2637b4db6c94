/* The informer against a real kube-apiserver + etcd (one cluster per test):
 *  - every add, update and delete of 1000 nodes and 5000 pods is delivered, and the store ends
 *    equal to a fresh LIST; LIST throughput for 5000 pods is printed;
 *  - a kill -9 and restart of the apiserver loses no event;
 *  - an etcd compaction during a gap forces 410, and the relist reports exactly the deletes
 *    made in the gap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "apiclient/informer.h"
#include "harness.h"
#include "testutil.h"

#define MAX_OBJS 8192

/* Per-object event counts, indexed by the number at the end of the name ("node-17" -> 17).
 * Handlers run on the informer threads; the test thread reads under the same lock. */
struct recorder {
	pthread_mutex_t lock; /* guards everything below; leaf lock */
	const char *prefix;   /* objects of interest: name starts with it */
	unsigned adds[MAX_OBJS], updates[MAX_OBJS], deletes[MAX_OBJS];
	unsigned long total_adds, total_updates, total_deletes, foreign;
	bool synced;
};

static void rec_init(struct recorder *r, const char *prefix)
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	r->prefix = prefix;
}

static int rec_index(const struct recorder *r, const char *name)
{
	size_t pl = strlen(r->prefix);
	if (strncmp(name, r->prefix, pl) != 0)
		return -1;
	char *end;
	long i = strtol(name + pl, &end, 10);
	return *end || i < 0 || i >= MAX_OBJS ? -1 : (int)i;
}

static const char *obj_name(enum api_kind k, const void *obj)
{
	return k == API_KIND_POD ? ((const struct api_pod *)obj)->meta.name : ((const struct api_node *)obj)->meta.name;
}

/* One recorder per kind: the ctx is the recorder, the kind is fixed per handler set. */
struct rec_ctx {
	struct recorder *r;
	enum api_kind kind;
};

static void rec_event(struct rec_ctx *c, const void *obj, unsigned *arr, unsigned long *total)
{
	struct recorder *r = c->r;
	int i = rec_index(r, obj_name(c->kind, obj));
	pthread_mutex_lock(&r->lock);
	if (i >= 0)
		arr[i]++;
	else
		r->foreign++;
	(*total)++;
	pthread_mutex_unlock(&r->lock);
}

static void on_add(void *ctx, void *obj)
{
	struct rec_ctx *c = ctx;
	rec_event(c, obj, c->r->adds, &c->r->total_adds);
}

static void on_update(void *ctx, void *old_obj, void *new_obj)
{
	struct rec_ctx *c = ctx;
	assert_string_equal(obj_name(c->kind, old_obj), obj_name(c->kind, new_obj));
	rec_event(c, new_obj, c->r->updates, &c->r->total_updates);
}

static void on_delete(void *ctx, void *obj)
{
	struct rec_ctx *c = ctx;
	rec_event(c, obj, c->r->deletes, &c->r->total_deletes);
}

static void on_synced(void *ctx)
{
	struct rec_ctx *c = ctx;
	pthread_mutex_lock(&c->r->lock);
	c->r->synced = true;
	pthread_mutex_unlock(&c->r->lock);
}

static struct api_informer *informer_new(struct api_client *cl, struct rec_ctx *rc, int watch_s)
{
	struct err e = {0};
	struct api_informer_handlers h = {on_add, on_update, on_delete, on_synced, rc};
	struct api_informer_options o = {.min_watch_timeout_s = watch_s};
	struct api_informer *inf = api_informer_new(cl, rc->kind, &o, &h, &e);
	if (!inf)
		fail_msg("api_informer_new: %s", e.msg);
	if (api_informer_start(inf, &e))
		fail_msg("api_informer_start: %s", e.msg);
	return inf;
}

/* ---------- store == server ---------- */

struct compare {
	struct api_informer *inf;
	enum api_kind kind;
	long server, mismatched;
	char first_diff[ERR_MSG_MAX + 64];
};

static int compare_item(void *ctx, struct yajl_val_s *item)
{
	static const char *name_p[] = {"metadata", "name", NULL}, *ns_p[] = {"metadata", "namespace", NULL},
			  *rv_p[] = {"metadata", "resourceVersion", NULL};
	struct compare *c = ctx;
	yajl_val name = yajl_tree_get(item, name_p, yajl_t_string), ns = yajl_tree_get(item, ns_p, yajl_t_string),
		 rv = yajl_tree_get(item, rv_p, yajl_t_string);
	const char *sname = name ? YAJL_GET_STRING(name) : NULL, *srv = rv ? YAJL_GET_STRING(rv) : NULL;
	c->server++;
	if (!sname || !srv)
		return -1;
	void *obj = api_informer_get(c->inf, ns ? YAJL_GET_STRING(ns) : NULL, sname);
	const char *have = NULL;
	if (obj)
		have = c->kind == API_KIND_POD ? ((struct api_pod *)obj)->meta.resource_version
					       : ((struct api_node *)obj)->meta.resource_version;
	if (!have || strcmp(have, srv)) {
		if (!c->mismatched++)
			snprintf(c->first_diff, sizeof(c->first_diff), "%s: server rv %s, store %s", sname, srv,
				 have ? have : "(absent)");
	}
	if (obj) {
		if (c->kind == API_KIND_POD)
			api_pod_unref(obj);
		else
			api_node_unref(obj);
	}
	return 0;
}

struct eq_ctx {
	struct api_conn *conn;
	struct api_informer *inf;
	enum api_kind kind;
	struct compare last;
};

/* A fresh LIST equals the store: same size and the same resourceVersion for every object. */
static bool store_equals_server(void *ctx)
{
	struct eq_ctx *q = ctx;
	struct err e = {0};
	struct compare c = {.inf = q->inf, .kind = q->kind};
	int rc = harness_list(q->conn, q->kind == API_KIND_POD ? "/api/v1/pods" : "/api/v1/nodes", compare_item, &c,
			      NULL, &e);
	if (rc) {
		snprintf(c.first_diff, sizeof(c.first_diff), "list: %s", e.msg);
		c.mismatched = -1;
	}
	q->last = c;
	return rc == 0 && c.mismatched == 0 && (size_t)c.server == api_informer_len(q->inf);
}

static void assert_store_equals_server(struct api_conn *conn, struct api_informer *inf, enum api_kind kind,
				       long timeout_ms)
{
	struct eq_ctx q = {.conn = conn, .inf = inf, .kind = kind};
	if (!harness_wait_until(store_equals_server, &q, timeout_ms, 200))
		fail_msg("%s store != server after %ld ms: server %ld objects, store %zu, %ld mismatched (%s)",
			 kind == API_KIND_POD ? "pod" : "node", timeout_ms, q.last.server, api_informer_len(inf),
			 q.last.mismatched, q.last.first_diff);
}

struct count_wait {
	struct recorder *r;
	unsigned long *field;
	unsigned long want;
};

static bool count_reached(void *ctx)
{
	struct count_wait *w = ctx;
	pthread_mutex_lock(&w->r->lock);
	bool ok = *w->field >= w->want;
	pthread_mutex_unlock(&w->r->lock);
	return ok;
}

static void wait_count(struct recorder *r, unsigned long *field, unsigned long want, const char *what)
{
	struct count_wait w = {r, field, want};
	if (!harness_wait_until(count_reached, &w, 120000, 50)) {
		pthread_mutex_lock(&r->lock);
		unsigned long have = *field;
		pthread_mutex_unlock(&r->lock);
		fail_msg("%s: %lu of %lu events after 120 s", what, have, want);
	}
}

/* Asserts that objects [lo, hi) of r saw exactly `adds` adds and `deletes` deletes and at least
 * `min_updates` updates each. */
static void assert_range(struct recorder *r, int lo, int hi, unsigned adds, unsigned min_updates, unsigned deletes,
			 const char *what)
{
	pthread_mutex_lock(&r->lock);
	for (int i = lo; i < hi; i++) {
		if (r->adds[i] != adds || r->updates[i] < min_updates || r->deletes[i] != deletes) {
			unsigned a = r->adds[i], u = r->updates[i], d = r->deletes[i];
			pthread_mutex_unlock(&r->lock);
			fail_msg("%s: %s%d: adds %u (want %u), updates %u (want >= %u), deletes %u (want %u)", what,
				 r->prefix, i, a, adds, u, min_updates, d, deletes);
		}
	}
	pthread_mutex_unlock(&r->lock);
}

/* ---------- fixtures ---------- */

struct fixture {
	struct harness_cluster cluster;
	struct api_client *cl;
	struct api_conn *conn;
};

static int setup_flags(void **state, unsigned flags)
{
	struct err e = {0};
	struct fixture *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	if (harness_cluster_start(&f->cluster, flags, &e))
		fail_msg("cluster: %s", e.msg);
	fprintf(stderr, "[informer-it] cluster started in %.2f s\n", f->cluster.start_seconds);
	f->cl = harness_client_new(&f->cluster, "token", &e);
	if (!f->cl)
		fail_msg("client: %s", e.msg);
	f->conn = api_conn_new(f->cl, &e);
	if (!f->conn)
		fail_msg("conn: %s", e.msg);
	*state = f;
	return 0;
}

static int setup(void **state) { return setup_flags(state, HARNESS_BENCH); }
static int setup_no_watch_cache(void **state) { return setup_flags(state, HARNESS_BENCH | HARNESS_NO_WATCH_CACHE); }

static int teardown(void **state)
{
	struct fixture *f = *state;
	if (!f)
		return 0;
	api_conn_free(f->conn);
	api_client_free(f->cl);
	harness_cluster_stop(&f->cluster);
	free(f);
	return 0;
}

static void must(int rc, const struct err *e, const char *what)
{
	if (rc)
		fail_msg("%s: %s", what, e->msg);
}

/* ---------- tests ---------- */

#define N_NODES 1000
#define N_PODS 5000

static void test_every_event_1000_nodes_5000_pods(void **state)
{
	struct fixture *f = *state;
	struct err e = {0};
	static struct recorder nr, pr;
	rec_init(&nr, "node-");
	rec_init(&pr, "pod-");
	struct rec_ctx nc = {&nr, API_KIND_NODE}, pc = {&pr, API_KIND_POD};

	/* Short watches (5..10 s) so that the run also crosses several watch restarts. */
	struct api_informer *ni = informer_new(f->cl, &nc, 5), *pi = informer_new(f->cl, &pc, 5);
	assert_true(api_informer_wait_synced(ni, 30000));
	assert_true(api_informer_wait_synced(pi, 30000));
	assert_true(nr.synced && pr.synced);

	int64_t t0 = harness_now_ms();
	must(harness_create_nodes(f->cl, "node-", 0, N_NODES, &e), &e, "create nodes");
	must(harness_create_pods(f->cl, "default", "pod-", 0, N_PODS, &e), &e, "create pods");
	fprintf(stderr, "[informer-it] created %d nodes + %d pods in %.1f s\n", N_NODES, N_PODS,
		(double)(harness_now_ms() - t0) / 1000.0);
	wait_count(&nr, &nr.total_adds, N_NODES, "node adds");
	wait_count(&pr, &pr.total_adds, N_PODS, "pod adds");

	/* LIST throughput: a second informer lists the 5000 pods from scratch. */
	{
		static struct recorder lr;
		rec_init(&lr, "pod-");
		struct rec_ctx lc = {&lr, API_KIND_POD};
		int64_t l0 = harness_now_ms();
		struct api_informer *li = informer_new(f->cl, &lc, 300);
		assert_true(api_informer_wait_synced(li, 60000));
		double s = (double)(harness_now_ms() - l0) / 1000.0;
		assert_int_equal(api_informer_len(li), N_PODS);
		assert_int_equal(lr.total_adds, N_PODS);
		printf("[informer-it] LIST throughput: %d pods in %.3f s = %.0f objects/s (page 500, decode + store + "
		       "handlers)\n",
		       N_PODS, s, N_PODS / s);
		api_informer_free(li);
	}

	must(harness_label_nodes(f->cl, "node-", 0, N_NODES, "v1", &e), &e, "label nodes");
	must(harness_label_pods(f->cl, "default", "pod-", 0, N_PODS, "v1", &e), &e, "label pods");
	wait_count(&nr, &nr.total_updates, N_NODES, "node updates");
	wait_count(&pr, &pr.total_updates, N_PODS, "pod updates");

	must(harness_delete_nodes(f->cl, "node-", 0, N_NODES / 2, &e), &e, "delete nodes");
	must(harness_delete_pods(f->cl, "default", "pod-", 0, N_PODS / 2, &e), &e, "delete pods");
	wait_count(&nr, &nr.total_deletes, N_NODES / 2, "node deletes");
	wait_count(&pr, &pr.total_deletes, N_PODS / 2, "pod deletes");

	assert_store_equals_server(f->conn, ni, API_KIND_NODE, 60000);
	assert_store_equals_server(f->conn, pi, API_KIND_POD, 60000);
	assert_int_equal(api_informer_len(ni), N_NODES / 2);
	assert_int_equal(api_informer_len(pi), N_PODS / 2);
	assert_range(&nr, 0, N_NODES / 2, 1, 1, 1, "deleted nodes");
	assert_range(&nr, N_NODES / 2, N_NODES, 1, 1, 0, "kept nodes");
	assert_range(&pr, 0, N_PODS / 2, 1, 1, 1, "deleted pods");
	assert_range(&pr, N_PODS / 2, N_PODS, 1, 1, 0, "kept pods");
	assert_int_equal(nr.foreign, 0);
	assert_int_equal(pr.foreign, 0);

	struct api_informer_stats st;
	api_informer_stats(pi, &st);
	fprintf(stderr, "[informer-it] pods: lists %lu relists %lu watches %lu errors %lu gone %lu bookmarks %lu rv %s\n",
		st.lists, st.relists, st.watches, st.watch_errors, st.gone, st.bookmarks, st.last_resource_version);
	assert_int_equal(st.decode_errors, 0);
	assert_int_equal(st.added, N_PODS);
	assert_int_equal(st.deleted, N_PODS / 2);
	assert_true(st.updated >= N_PODS);

	/* Stop is prompt even in the middle of a long watch. */
	int64_t s0 = harness_now_ms();
	api_informer_stop(ni);
	api_informer_stop(pi);
	assert_true(harness_now_ms() - s0 < 2000);
	api_informer_free(ni);
	api_informer_free(pi);
}

static void test_survives_apiserver_kill9(void **state)
{
	struct fixture *f = *state;
	struct err e = {0};
	static struct recorder nr, pr;
	rec_init(&nr, "node-");
	rec_init(&pr, "pod-");
	struct rec_ctx nc = {&nr, API_KIND_NODE}, pc = {&pr, API_KIND_POD};

	must(harness_create_nodes(f->cl, "node-", 0, 200, &e), &e, "create nodes");
	must(harness_create_pods(f->cl, "default", "pod-", 0, 200, &e), &e, "create pods");
	struct api_informer *ni = informer_new(f->cl, &nc, 300), *pi = informer_new(f->cl, &pc, 300);
	assert_true(api_informer_wait_synced(ni, 30000));
	assert_true(api_informer_wait_synced(pi, 30000));
	assert_store_equals_server(f->conn, ni, API_KIND_NODE, 30000);

	must(harness_apiserver_kill(&f->cluster, SIGKILL, &e), &e, "kill -9 apiserver");
	/* Let the informers notice and back off a few times while the server is away. */
	struct timespec ts = {1, 500000000L};
	nanosleep(&ts, NULL);
	must(harness_apiserver_restart(&f->cluster, &e), &e, "restart apiserver");
	/* Changes made right after the restart, while the informers are still in backoff. */
	api_conn_free(f->conn); /* its connection died with the server */
	f->conn = api_conn_new(f->cl, &e);
	assert_non_null(f->conn);
	must(harness_create_nodes(f->cl, "node-", 200, 100, &e), &e, "create nodes after restart");
	must(harness_create_pods(f->cl, "default", "pod-", 200, 300, &e), &e, "create pods after restart");
	must(harness_label_nodes(f->cl, "node-", 0, 50, "after", &e), &e, "label nodes");
	must(harness_delete_nodes(f->cl, "node-", 50, 50, &e), &e, "delete nodes");
	must(harness_delete_pods(f->cl, "default", "pod-", 0, 100, &e), &e, "delete pods");

	assert_store_equals_server(f->conn, ni, API_KIND_NODE, 90000);
	assert_store_equals_server(f->conn, pi, API_KIND_POD, 90000);
	assert_range(&nr, 0, 50, 1, 1, 0, "labelled nodes");
	assert_range(&nr, 50, 100, 1, 0, 1, "deleted nodes");
	assert_range(&nr, 100, 300, 1, 0, 0, "other nodes");
	assert_range(&pr, 0, 100, 1, 0, 1, "deleted pods");
	assert_range(&pr, 100, 500, 1, 0, 0, "other pods");

	struct api_informer_stats st;
	api_informer_stats(ni, &st);
	fprintf(stderr, "[informer-it] nodes after kill -9: lists %lu relists %lu watches %lu errors %lu gone %lu\n",
		st.lists, st.relists, st.watches, st.watch_errors, st.gone);
	assert_true(st.watch_errors + st.gone >= 1); /* it did see the server go away */
	api_informer_free(ni);
	api_informer_free(pi);
}

static void test_compaction_410_relist_reports_gap_deletes(void **state)
{
	struct fixture *f = *state;
	struct err e = {0};
	static struct recorder nr;
	rec_init(&nr, "node-");
	struct rec_ctx nc = {&nr, API_KIND_NODE};

	must(harness_create_nodes(f->cl, "node-", 0, 300, &e), &e, "create nodes");
	struct api_informer *ni = informer_new(f->cl, &nc, 300);
	assert_true(api_informer_wait_synced(ni, 30000));
	assert_store_equals_server(f->conn, ni, API_KIND_NODE, 30000);

	/* The gap: the informer keeps its store and resourceVersion but does not watch. */
	api_informer_stop(ni);
	must(harness_delete_nodes(f->cl, "node-", 0, 100, &e), &e, "delete nodes");
	must(harness_label_nodes(f->cl, "node-", 100, 50, "gap", &e), &e, "label nodes");
	must(harness_create_nodes(f->cl, "node-", 300, 50, &e), &e, "create nodes");
	/* recreated under the same names (new UIDs): a delete and an add each, never an update
	 * (issue 18 defect 1: the update left the old object in the scheduler's cache) */
	must(harness_delete_nodes(f->cl, "node-", 150, 10, &e), &e, "delete nodes to recreate");
	must(harness_create_nodes(f->cl, "node-", 150, 10, &e), &e, "recreate nodes");
	int64_t rev = 0;
	must(harness_etcd_revision(&f->cluster, &rev, &e), &e, "etcd revision");
	must(harness_etcd_compact(&f->cluster, rev, &e), &e, "etcd compaction");

	struct api_informer_stats before, after;
	api_informer_stats(ni, &before);
	must(api_informer_start(ni, &e), &e, "restart informer"); /* resumes from the old resourceVersion */
	assert_store_equals_server(f->conn, ni, API_KIND_NODE, 60000);
	api_informer_stats(ni, &after);
	fprintf(stderr, "[informer-it] compaction at etcd revision %lld: gone %lu relists %lu\n", (long long)rev,
		after.gone, after.relists);
	assert_true(after.gone > before.gone);
	assert_true(after.relists > before.relists);
	/* Exactly the objects deleted in the gap were reported deleted, once each. */
	assert_int_equal(nr.total_deletes, 110);
	assert_range(&nr, 0, 100, 1, 0, 1, "deleted in the gap");
	assert_range(&nr, 100, 150, 1, 1, 0, "updated in the gap");
	assert_range(&nr, 150, 160, 2, 0, 1, "recreated in the gap");
	assert_range(&nr, 160, 300, 1, 0, 0, "untouched");
	assert_range(&nr, 300, 350, 1, 0, 0, "created in the gap");
	pthread_mutex_lock(&nr.lock);
	unsigned long updates = nr.total_updates;
	pthread_mutex_unlock(&nr.lock);
	assert_int_equal(updates, 50); /* unchanged objects produce no update on relist */
	api_informer_free(ni);

	/* Selectors reach the server: a label selector and a field selector. */
	static const struct {
		const char *label, *field;
		size_t want;
		const char *one; /* a name that must be in the store */
	} sel[] = {
		{"csched-test=gap", NULL, 50, "node-120"},
		{"csched-test in (gap),kubernetes.io/hostname!=node-100", NULL, 49, "node-149"},
		{NULL, "metadata.name=node-7", 0, NULL}, /* deleted in the gap */
		{NULL, "metadata.name=node-320", 1, "node-320"},
		{"kubernetes.io/hostname=node-200", "metadata.name=node-200", 1, "node-200"},
	};
	for (size_t i = 0; i < sizeof(sel) / sizeof(sel[0]); i++) {
		struct api_informer_options o = {.label_selector = sel[i].label, .field_selector = sel[i].field};
		struct api_informer *si = api_informer_new(f->cl, API_KIND_NODE, &o, NULL, &e);
		assert_non_null(si);
		must(api_informer_start(si, &e), &e, "start selector informer");
		assert_true(api_informer_wait_synced(si, 30000));
		if (api_informer_len(si) != sel[i].want)
			fail_msg("selector %zu (label %s, field %s): %zu objects, want %zu", i,
				 sel[i].label ? sel[i].label : "-", sel[i].field ? sel[i].field : "-",
				 api_informer_len(si), sel[i].want);
		if (sel[i].one) {
			struct api_node *n = api_informer_get(si, NULL, sel[i].one);
			assert_non_null(n);
			assert_string_equal(n->meta.name, sel[i].one);
			api_node_unref(n);
		}
		api_informer_free(si);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_event_1000_nodes_5000_pods, setup, teardown),
		cmocka_unit_test_setup_teardown(test_survives_apiserver_kill9, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compaction_410_relist_reports_gap_deletes, setup_no_watch_cache,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
