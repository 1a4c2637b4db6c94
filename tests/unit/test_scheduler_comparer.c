/* The cache comparer (scheduler/comparer.h): upstream's own tables for compareStrings through
 * CompareNodes / ComparePods, then a deliberately inconsistent cache and queue against the
 * informers' view, and a consistent one that reports nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <unistd.h>

#include "cache/cache.h"
#include "common/log.h"
#include "queue/queue.h"
#include "scheduler/comparer.h"
#include "testobj.h"

#define MAXS 8

struct strings {
	const char *v[MAXS];
	size_t n;
};
#define S(...) { { __VA_ARGS__ }, sizeof((const char *[]){ NULL, ##__VA_ARGS__ }) / sizeof(const char *) - 1 }

static void expect_strv(const struct sched_strv *got, const struct strings *want, const char *what, const char *name)
{
	if (got->n != want->n)
		fail_msg("%s: %s: %zu strings, want %zu", name, what, got->n, want->n);
	for (size_t i = 0; i < want->n; i++)
		if (strcmp(got->v[i], want->v[i]) != 0)
			fail_msg("%s: %s[%zu] = %s, want %s", name, what, i, got->v[i], want->v[i]);
}

/* upstream comparer_test.go TestCompareNodes and TestComparePods (cached + queued, as
 * ComparePods concatenates them), every row */
static void test_compare_strings_upstream_tables(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		struct strings actual, cached, queued, missing, redundant;
	} rows[] = {
		{ "nodes: redundant cached value", S("foo", "bar"), S("bar", "foo", "foobar"), S(), S(), S("foobar") },
		{ "nodes: missing cached value", S("foo", "bar", "foobar"), S("bar", "foo"), S(), S("foobar"), S() },
		{ "nodes: proper cache set", S("foo", "bar", "foobar"), S("bar", "foobar", "foo"), S(), S(), S() },
		{ "pods: redundant cached value", S("foo", "bar"), S("bar", "foo", "foobar"), S(), S(), S("foobar") },
		{ "pods: redundant and queued values", S("foo", "bar"), S("foo", "foobar"), S("bar"), S(), S("foobar") },
		{ "pods: missing cached value", S("foo", "bar", "foobar"), S("bar", "foo"), S(), S("foobar"), S() },
		{ "pods: missing and queued values", S("foo", "bar", "foobar"), S("foo"), S("bar"), S("foobar"), S() },
		{ "pods: correct cache set", S("foo", "bar", "foobar"), S("bar", "foobar", "foo"), S(), S(), S() },
		{ "pods: queued cache value", S("foo", "bar", "foobar"), S("foobar", "foo"), S("bar"), S(), S() },
	};
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		const char *cached[2 * MAXS];
		size_t nc = 0;
		for (size_t i = 0; i < rows[r].cached.n; i++)
			cached[nc++] = rows[r].cached.v[i];
		for (size_t i = 0; i < rows[r].queued.n; i++)
			cached[nc++] = rows[r].queued.v[i];
		struct sched_strv m, red;
		struct err e = { 0 };
		assert_int_equal(sched_compare_strings(rows[r].actual.v, rows[r].actual.n, cached, nc, &m, &red, &e), 0);
		expect_strv(&m, &rows[r].missing, "missed", rows[r].name);
		expect_strv(&red, &rows[r].redundant, "redundant", rows[r].name);
		sched_strv_release(&m);
		sched_strv_release(&red);
	}
}

struct world {
	struct cache *c;
	struct queue *q;
};

static void world_init(struct world *w)
{
	struct err e = { 0 };
	struct queue_options o = { 0 };
	w->c = cache_new();
	w->q = queue_new(&o, &e);
	assert_non_null(w->c);
	assert_non_null(w->q);
}

static void world_release(struct world *w)
{
	queue_close(w->q);
	queue_free(w->q);
	cache_free(w->c);
}

static void add_node(struct world *w, const char *name)
{
	struct err e = { 0 };
	struct api_node *n = TOBJ_NODE(.name = name);
	assert_int_equal(cache_add_node(w->c, n, &e), 0);
	api_node_unref(n);
}

static void add_bound_pod(struct world *w, const char *name, const char *node)
{
	struct err e = { 0 };
	struct api_pod *p = TOBJ_POD(.name = name, .node = node);
	assert_int_equal(cache_add_pod(w->c, p, &e), 0);
	api_pod_unref(p);
}

static void assume_pod(struct world *w, const char *name, const char *node)
{
	struct err e = { 0 };
	struct api_pod *p = TOBJ_POD(.name = name);
	assert_int_equal(cache_assume_pod(w->c, p, node, &e), 0);
	api_pod_unref(p);
}

static void queue_pod(struct world *w, const char *name)
{
	struct err e = { 0 };
	struct api_pod *p = TOBJ_POD(.name = name);
	assert_int_equal(queue_add(w->q, p, &e), 0);
	api_pod_unref(p);
}

/* The informers hold nodes n1, n3 and pods a (bound to n1), c (pending), d; the cache holds nodes
 * n1, n2 (a deleted node the cache kept), pod a and an assumed pod b the server never saw, and the
 * queue c: n3 and d are missed, n2 and b redundant. */
static void test_inconsistent_cache_reported(void **state)
{
	(void)state;
	struct world w;
	world_init(&w);
	add_node(&w, "n1");
	add_node(&w, "n2");
	add_bound_pod(&w, "a", "n1");
	assume_pod(&w, "b", "n2");
	queue_pod(&w, "c");
	const char *nodes[] = { "n3", "n1" };
	const char *pods[] = { "uid-d", "uid-c", "uid-a" };
	struct sched_cache_diff d;
	struct err e = { 0 };
	assert_int_equal(sched_cache_compare_with(w.c, w.q, nodes, 2, pods, 3, &d, &e), 0);
	assert_false(sched_cache_diff_empty(&d));
	expect_strv(&d.missed_nodes, &(struct strings)S("n3"), "missed nodes", "inconsistent");
	expect_strv(&d.redundant_nodes, &(struct strings)S("n2"), "redundant nodes", "inconsistent");
	expect_strv(&d.missed_pods, &(struct strings)S("uid-d"), "missed pods", "inconsistent");
	expect_strv(&d.redundant_pods, &(struct strings)S("uid-b"), "redundant pods", "inconsistent");

	/* upstream Compare: logger.Info("Cache mismatch", "missedNodes", missed, "redundantNodes",
	 * redundant), then the pods; klog's text format writes a []string as JSON */
	FILE *f = tmpfile();
	assert_non_null(f);
	log_set_fd(fileno(f));
	sched_cache_diff_log(&d);
	log_set_fd(2);
	char buf[1024] = "";
	rewind(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	const char *l1 = strstr(buf, "] \"Cache mismatch\" missedNodes=[\"n3\"] redundantNodes=[\"n2\"]\n");
	const char *l2 = strstr(buf, "] \"Cache mismatch\" missedPods=[\"uid-d\"] redundantPods=[\"uid-b\"]\n");
	if (!l1 || !l2 || l2 < l1 || buf[0] != 'I')
		fail_msg("log:\n%s", buf);
	sched_cache_diff_release(&d);
	world_release(&w);
}

/* The same cache seen by informers that agree: nothing to report. */
static void test_consistent_cache_empty(void **state)
{
	(void)state;
	struct world w;
	world_init(&w);
	add_node(&w, "n1");
	add_node(&w, "n2");
	add_bound_pod(&w, "a", "n1");
	assume_pod(&w, "b", "n2");
	queue_pod(&w, "c");
	const char *nodes[] = { "n2", "n1" };
	const char *pods[] = { "uid-b", "uid-c", "uid-a" };
	struct sched_cache_diff d;
	struct err e = { 0 };
	assert_int_equal(sched_cache_compare_with(w.c, w.q, nodes, 2, pods, 3, &d, &e), 0);
	assert_true(sched_cache_diff_empty(&d));
	sched_cache_diff_release(&d);
	world_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_strings_upstream_tables),
		cmocka_unit_test(test_inconsistent_cache_reported),
		cmocka_unit_test(test_consistent_cache_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
