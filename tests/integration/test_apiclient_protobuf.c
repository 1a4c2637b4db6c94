/* Informers reading protobuf (api_config.protobuf, csched's default clientConnection.contentType)
 * against a real kube-apiserver + etcd: with a streaming list and with paged LISTs, through
 * creates, updates and deletes, each protobuf informer's store ends equal to the store of a JSON
 * informer on the same server (every object: resourceVersion, node, labels, containers' requests)
 * and to a fresh LIST (the same objects); the server really answered in protobuf (stats), and no
 * object failed to decode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "apiclient/informer.h"
#include "harness.h"
#include "testutil.h"

#define N_NODES 200
#define N_PODS 2000

struct fixture {
	struct harness_cluster cluster;
	struct api_client *json, *pb;
};

static int setup(void **state)
{
	struct err e = {0};
	struct fixture *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	if (harness_cluster_start(&f->cluster, HARNESS_BENCH, &e))
		fail_msg("cluster: %s", e.msg);
	f->json = harness_client_new(&f->cluster, "token", &e);
	if (!f->json)
		fail_msg("client: %s", e.msg);
	struct api_config cfg = {0};
	if (api_config_load_kubeconfig(&cfg, f->cluster.kubeconfig, "token", &e))
		fail_msg("kubeconfig: %s", e.msg);
	cfg.protobuf = true;
	if (!(f->pb = api_client_new(&cfg, &e)))
		fail_msg("client: %s", e.msg);
	api_config_release(&cfg);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	api_client_free(f->json);
	api_client_free(f->pb);
	harness_cluster_stop(&f->cluster);
	free(f);
	return 0;
}

static void must(int rc, const struct err *e, const char *what)
{
	if (rc)
		fail_msg("%s: %s", what, e->msg);
}

static struct api_informer *start(struct api_client *cl, enum api_kind kind, bool paged)
{
	struct err e = {0};
	struct api_informer_options o = {.paged_list = paged, .page_size = paged ? 300 : 0};
	struct api_informer *inf = api_informer_new(cl, kind, &o, NULL, &e);
	if (!inf)
		fail_msg("informer: %s", e.msg);
	must(api_informer_start(inf, &e), &e, "informer start");
	return inf;
}

/* ---------- store vs store ---------- */

struct cmp {
	struct api_informer *other;
	enum api_kind kind;
	long mismatched;
	char first[512];
};

static bool same_res(const struct api_resources *a, const struct api_resources *b)
{
	return a->cpu == b->cpu && a->memory == b->memory && a->has_cpu == b->has_cpu && a->has_memory == b->has_memory &&
	       a->n_scalar == b->n_scalar;
}

static bool same_labels(const struct api_labels *a, const struct api_labels *b)
{
	if (a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (strcmp(a->items[i].key, b->items[i].key) || strcmp(a->items[i].value, b->items[i].value))
			return false;
	return true;
}

static void cmp_one(void *ctx, void *obj)
{
	struct cmp *c = ctx;
	bool ok;
	const struct api_meta *m = c->kind == API_KIND_POD ? &((struct api_pod *)obj)->meta : &((struct api_node *)obj)->meta;
	void *o = api_informer_get(c->other, c->kind == API_KIND_POD ? m->namespace : NULL, m->name);
	if (!o) {
		ok = false;
	} else if (c->kind == API_KIND_POD) {
		const struct api_pod *a = obj, *b = o;
		ok = !strcmp(a->meta.resource_version, b->meta.resource_version) && !strcmp(a->meta.uid, b->meta.uid) &&
		     !strcmp(a->node_name, b->node_name) && same_labels(&a->meta.labels, &b->meta.labels) &&
		     a->n_containers == b->n_containers && a->meta.creation_timestamp == b->meta.creation_timestamp &&
		     !strcmp(a->scheduler_name, b->scheduler_name) && !strcmp(a->phase, b->phase);
		for (uint32_t i = 0; ok && i < a->n_containers; i++)
			ok = !strcmp(a->containers[i].name, b->containers[i].name) &&
			     same_res(&a->containers[i].requests, &b->containers[i].requests);
		api_pod_unref(o);
	} else {
		const struct api_node *a = obj, *b = o;
		ok = !strcmp(a->meta.resource_version, b->meta.resource_version) &&
		     same_labels(&a->meta.labels, &b->meta.labels) && same_res(&a->allocatable, &b->allocatable) &&
		     same_res(&a->capacity, &b->capacity) && a->n_taints == b->n_taints &&
		     a->meta.creation_timestamp == b->meta.creation_timestamp;
		api_node_unref(o);
	}
	if (!ok && !c->mismatched++)
		snprintf(c->first, sizeof(c->first), "%s/%s rv %s", m->namespace, m->name, m->resource_version);
}

struct eq {
	struct api_informer *a, *b;
	enum api_kind kind;
	size_t want;
	struct cmp last;
};

static bool stores_equal(void *ctx)
{
	struct eq *q = ctx;
	struct cmp c = {.other = q->b, .kind = q->kind};
	api_informer_foreach(q->a, cmp_one, &c);
	q->last = c;
	return c.mismatched == 0 && api_informer_len(q->a) == api_informer_len(q->b) && api_informer_len(q->a) == q->want;
}

static void assert_stores_equal(struct api_informer *pb, struct api_informer *json, enum api_kind kind, size_t want)
{
	/* both stores may lag the last events: until both hold what the server does */
	struct eq q = {.a = pb, .b = json, .kind = kind, .want = want};
	if (!harness_wait_until(stores_equal, &q, 60000, 200))
		fail_msg("%s: protobuf store (%zu) != JSON store (%zu), want %zu: %ld mismatched (first %s)",
			 kind == API_KIND_POD ? "pods" : "nodes", api_informer_len(pb), api_informer_len(json), want,
			 q.last.mismatched, q.last.first);
}

/* ---------- store vs server ---------- */

struct srv {
	struct api_informer *inf;
	long server, missing;
};

static int srv_item(void *ctx, yajl_val item)
{
	static const char *ns_path[] = {"metadata", "namespace", NULL}, *name_path[] = {"metadata", "name", NULL},
			  *rv_path[] = {"metadata", "resourceVersion", NULL};
	struct srv *s = ctx;
	s->server++;
	yajl_val ns = yajl_tree_get(item, ns_path, yajl_t_string), name = yajl_tree_get(item, name_path, yajl_t_string),
		 rv = yajl_tree_get(item, rv_path, yajl_t_string);
	struct api_pod *p = ns && name ? api_informer_get(s->inf, ns->u.string, name->u.string) : NULL;
	if (!p || !rv || strcmp(p->meta.resource_version, rv->u.string))
		s->missing++;
	api_pod_unref(p);
	return 0;
}

static void assert_pods_equal_server(struct api_client *cl, struct api_informer *inf)
{
	struct err e = {0};
	struct api_conn *conn = api_conn_new(cl, &e);
	assert_non_null(conn);
	struct srv s = {.inf = inf};
	must(harness_list(conn, "/api/v1/pods", srv_item, &s, NULL, &e), &e, "list");
	assert_int_equal(s.missing, 0);
	assert_int_equal((size_t)s.server, api_informer_len(inf));
	api_conn_free(conn);
}

static void assert_protobuf(struct api_informer *inf, bool want)
{
	struct api_informer_stats st;
	api_informer_stats(inf, &st);
	assert_int_equal(st.decode_errors, 0);
	if (want ? st.protobuf_responses == 0 : st.protobuf_responses != 0)
		fail_msg("protobuf_responses %lu, want %s", st.protobuf_responses, want ? "> 0" : "0");
}

static void test_protobuf_informers_equal_json(void **state)
{
	struct fixture *f = *state;
	struct err e = {0};
	must(harness_create_nodes(f->json, "node-", 0, N_NODES, &e), &e, "create nodes");
	must(harness_create_pods(f->json, "default", "pod-", 0, N_PODS / 2, &e), &e, "create pods");

	/* synced from what exists: streaming lists, and paged LISTs (pages of 300) */
	struct api_informer *jn = start(f->json, API_KIND_NODE, false), *jp = start(f->json, API_KIND_POD, false);
	struct api_informer *pn = start(f->pb, API_KIND_NODE, false), *pp = start(f->pb, API_KIND_POD, false);
	struct api_informer *pl = start(f->pb, API_KIND_POD, true);
	int64_t t0 = harness_now_ms();
	assert_true(api_informer_wait_synced(pp, 60000));
	fprintf(stderr, "[protobuf-it] protobuf streaming list of %d pods synced in %.3f s\n", N_PODS / 2,
		(double)(harness_now_ms() - t0) / 1000.0);
	assert_true(api_informer_wait_synced(pl, 60000));
	assert_true(api_informer_wait_synced(jp, 60000));
	assert_true(api_informer_wait_synced(pn, 60000));
	assert_true(api_informer_wait_synced(jn, 60000));
	assert_stores_equal(pn, jn, API_KIND_NODE, N_NODES);
	assert_stores_equal(pp, jp, API_KIND_POD, N_PODS / 2);
	assert_stores_equal(pl, jp, API_KIND_POD, N_PODS / 2);
	struct api_informer_stats st;
	api_informer_stats(pl, &st);
	assert_int_equal(st.streamed_lists, 0);
	assert_true(st.lists >= 1);

	/* watch events: adds, updates, deletes */
	must(harness_create_pods(f->json, "default", "pod-", N_PODS / 2, N_PODS / 2, &e), &e, "create more pods");
	must(harness_label_pods(f->json, "default", "pod-", 0, N_PODS / 2, "v1", &e), &e, "label pods");
	must(harness_label_nodes(f->json, "node-", 0, N_NODES, "v1", &e), &e, "label nodes");
	must(harness_delete_pods(f->json, "default", "pod-", 0, N_PODS / 4, &e), &e, "delete pods");
	must(harness_delete_nodes(f->json, "node-", 0, N_NODES / 4, &e), &e, "delete nodes");
	size_t want_pods = N_PODS - N_PODS / 4;
	assert_stores_equal(pp, jp, API_KIND_POD, want_pods);
	assert_stores_equal(pl, jp, API_KIND_POD, want_pods);
	assert_stores_equal(pn, jn, API_KIND_NODE, N_NODES - N_NODES / 4);
	assert_pods_equal_server(f->json, pp);
	assert_pods_equal_server(f->json, pl);

	assert_protobuf(pn, true);
	assert_protobuf(pp, true);
	assert_protobuf(pl, true);
	assert_protobuf(jn, false);
	assert_protobuf(jp, false);
	api_informer_stats(pp, &st);
	fprintf(stderr, "[protobuf-it] pods: lists %lu streamed %lu watches %lu protobuf responses %lu added %lu updated %lu deleted %lu\n",
		st.lists, st.streamed_lists, st.watches, st.protobuf_responses, st.added, st.updated, st.deleted);
	assert_true(st.streamed_lists >= 1);
	assert_int_equal(st.added, N_PODS);
	assert_int_equal(st.deleted, N_PODS / 4);
	assert_true(st.updated >= N_PODS / 2);

	api_informer_free(pl);
	api_informer_free(pp);
	api_informer_free(pn);
	api_informer_free(jp);
	api_informer_free(jn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_protobuf_informers_equal_json, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
