/* Issue 18 defect 4: a churned pod's interned strings (UID, labels, node name, image) are given
 * back when its last reference goes, through decoding, the cache (assume, confirm, forget,
 * remove) and its snapshots, so the intern table's size and bytes return to their baseline.
 * Asserts on the counters common/intern exposes (intern_get_stats), not on timing or RSS. Also:
 * interned strings still compare by pointer, pinned and counted alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cache.h"
#include "cache/snapshot.h"
#include "common/intern.h"
#include "testobj.h"

#define N_PODS 2000

/* Pod i: its own UID, name, label value, node and image; a label shared by all. */
static struct api_pod *churn_pod(const char *tag, int i, const char *node)
{
	char name[64], uid[64], labels[128], image[64];
	snprintf(name, sizeof(name), "%s-pod-%d", tag, i);
	snprintf(uid, sizeof(uid), "%s-6f1c2a9e-0000-4000-8000-%012d", tag, i);
	snprintf(labels, sizeof(labels), "app=churn,run=%s-run-%d", tag, i);
	snprintf(image, sizeof(image), "registry.example/%s-img-%d:1", tag, i);
	return TOBJ_POD(.name = name, .uid = uid, .labels = labels, .node = node,
			.containers = { { .image = image, .req = "cpu=100m,memory=64Mi,example.com/dev-1=1" } });
}

static struct api_node *churn_node(const char *tag, int i)
{
	char name[64], labels[160];
	snprintf(name, sizeof(name), "%s-node-%d", tag, i);
	snprintf(labels, sizeof(labels), "topology.kubernetes.io/zone=%s-zone-%d,kubernetes.io/hostname=%s", tag, i,
		 name);
	return TOBJ_NODE(.name = name, .labels = labels, .alloc = "cpu=4,memory=32Gi,pods=110",
			 .images = "registry.example/base:1=100000000");
}

/* Interns whatever the decoder pins once (defaults, well-known names) before the baseline. */
static void warm_up(void)
{
	char node[32] = "warm-node-0";
	api_pod_unref(churn_pod("warm", 0, node));
	api_node_unref(churn_node("warm", 0));
}

static void assert_baseline(const struct intern_stats *base)
{
	struct intern_stats now;
	intern_get_stats(&now);
	assert_int_equal(now.count, base->count);
	assert_int_equal(now.bytes, base->bytes);
	assert_int_equal(now.pinned, base->pinned);
	assert_int_equal(now.table_cap, base->table_cap);
}

static void test_decode_churn_returns_to_baseline(void **state)
{
	(void)state;
	warm_up();
	struct intern_stats base, mid;
	intern_get_stats(&base);
	static struct api_pod *pods[N_PODS];
	for (int i = 0; i < N_PODS; i++) {
		char node[32];
		snprintf(node, sizeof(node), "dec-node-%d", i);
		pods[i] = churn_pod("dec", i, node);
	}
	intern_get_stats(&mid);
	/* UID, run label value, node name, image: 4 new strings per pod, all interned */
	assert_true(mid.count >= base.count + 4 * N_PODS);
	assert_true(mid.bytes >= base.bytes + 4 * N_PODS * 16);
	assert_ptr_equal(pods[0]->meta.namespace, pods[1]->meta.namespace);
	for (int i = 0; i < N_PODS; i++)
		api_pod_unref(pods[i]);
	struct intern_stats after;
	intern_get_stats(&after);
	print_message("interned bytes per pod: %zu while held, %zu after release\n", (mid.bytes - base.bytes) / N_PODS,
		      (after.bytes - base.bytes) / N_PODS);
	assert_baseline(&base);
}

/* One node and pod through the cache: the node added, the pod assumed, forgotten, re-assumed and
 * confirmed, snapshots taken in between (their node_infos hold names), the node removed (a ghost
 * keeps the pod counted), then the pod. */
static void cache_round(struct cache *c, struct snapshot *snap, int k)
{
	struct err e = { 0 };
	struct api_node *n = churn_node("cache", k);
	assert_int_equal(cache_add_node(c, n, &e), 0);
	struct api_pod *pending = churn_pod("cache", k, NULL);
	assert_int_equal(cache_assume_pod(c, pending, n->meta.name, &e), 0);
	assert_int_equal(cache_update_snapshot(c, snap, &e), 0);
	assert_int_equal(cache_forget_pod(c, pending, n->meta.name, &e), 0);
	assert_int_equal(cache_assume_pod(c, pending, n->meta.name, &e), 0);
	/* the bound pod as the informer sees it: a new object, same UID */
	struct api_pod *bound = churn_pod("cache", k, n->meta.name);
	assert_int_equal(cache_add_pod(c, bound, &e), 0);
	assert_int_equal(cache_update_snapshot(c, snap, &e), 0);
	assert_int_equal(cache_remove_node(c, n, &e), 0);
	api_node_unref(n);
	assert_int_equal(cache_remove_pod(c, bound, &e), 0);
	api_pod_unref(bound);
	api_pod_unref(pending);
}

static void test_cache_churn_returns_to_baseline(void **state)
{
	(void)state;
	warm_up();
	struct err e = { 0 };
	struct cache *c = cache_new();
	struct snapshot *snap = snapshot_new();
	assert_non_null(c);
	assert_non_null(snap);
	cache_round(c, snap, -1); /* the cache's own well-known names are pinned on first use */
	assert_int_equal(cache_update_snapshot(c, snap, &e), 0);
	struct intern_stats base;
	intern_get_stats(&base);
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 200; i++)
			cache_round(c, snap, round * 1000 + i);
		assert_int_equal(cache_update_snapshot(c, snap, &e), 0);
		assert_baseline(&base); /* steady state: nothing kept while the cache lives on */
	}
	snapshot_free(snap);
	cache_free(c);
	assert_baseline(&base);
}

/* Pointer equality across counted and pinned references, and across the release of one holder. */
static void test_pointer_equality_kept(void **state)
{
	(void)state;
	warm_up();
	struct intern_stats base;
	intern_get_stats(&base);
	struct api_pod *a = churn_pod("eq", 1, "eq-node");
	struct api_pod *b = churn_pod("eq", 2, "eq-node");
	assert_ptr_equal(a->node_name, b->node_name);
	const char *node = a->node_name;
	api_pod_unref(a);
	/* b still holds it: the same string, found by content */
	assert_ptr_equal(intern_find("eq-node"), node);
	struct api_pod *c = churn_pod("eq", 3, "eq-node");
	assert_ptr_equal(c->node_name, b->node_name);
	api_pod_unref(b);
	api_pod_unref(c);
	assert_null(intern_find("eq-node"));
	assert_baseline(&base);

	/* a pinned string stays when its counted holders go, and is the one they compared with */
	const char *pinned = intern_str("eq-pinned-node");
	struct api_pod *d = churn_pod("eq", 4, "eq-pinned-node");
	assert_ptr_equal(d->node_name, pinned);
	api_pod_unref(d);
	assert_ptr_equal(intern_find("eq-pinned-node"), pinned);
	assert_true(intern_pinned(pinned));
}

/* Informer threads decode and release concurrently with overlapping strings. */
static void *churn_thread(void *arg)
{
	int t = (int)(intptr_t)arg;
	for (int i = 0; i < 500; i++) {
		char node[32];
		snprintf(node, sizeof(node), "thr-node-%d", i % 7); /* shared between threads */
		struct api_pod *p = churn_pod(t % 2 ? "thr-odd" : "thr-even", i, node);
		struct api_pod *q = churn_pod("thr-shared", i, node);
		api_pod_unref(p);
		api_pod_unref(q);
	}
	return NULL;
}

static void test_threads_churn_returns_to_baseline(void **state)
{
	(void)state;
	warm_up();
	struct intern_stats base;
	intern_get_stats(&base);
	pthread_t th[4];
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&th[i], NULL, churn_thread, (void *)(intptr_t)i), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	assert_baseline(&base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_churn_returns_to_baseline),
		cmocka_unit_test(test_cache_churn_returns_to_baseline),
		cmocka_unit_test(test_pointer_equality_kept),
		cmocka_unit_test(test_threads_churn_returns_to_baseline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
