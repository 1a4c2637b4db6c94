/* The cache comparer (contract in comparer.h; upstream backend/cache/debugger/comparer.go).
 * Names and UIDs are copied out of the stores, the cache and the queue under their own locks, one
 * at a time, then compared unlocked: the snapshot is not atomic across them, as upstream's is
 * not (it lists, then dumps, then reads the queue). */
#include "scheduler/comparer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cache.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "queue/queue.h"
#include "sched_internal.h"

void sched_strv_release(struct sched_strv *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* Appends a copy of str; false when out of memory. */
static bool strv_push(struct sched_strv *s, const char *str)
{
	char *copy = strdup(str ? str : "");
	char **v = copy ? realloc(s->v, (s->n + 1) * sizeof *v) : NULL;
	if (!v) {
		free(copy);
		return false;
	}
	v[s->n++] = copy;
	s->v = v;
	return true;
}

/* A collector for the foreach callbacks: stops copying after the first failure. */
struct collect {
	struct sched_strv *into;
	bool oom;
};

static void collect_one(void *ctx, const char *s)
{
	struct collect *c = ctx;
	if (!c->oom && !strv_push(c->into, s))
		c->oom = true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int sched_compare_strings(const char *const *actual, size_t n_actual, const char *const *cached, size_t n_cached,
			  struct sched_strv *missed, struct sched_strv *redundant, struct err *e)
{
	int rc = 0;
	const char **a = malloc((n_actual + 1) * sizeof *a), **c = malloc((n_cached + 1) * sizeof *c);
	memset(missed, 0, sizeof *missed);
	memset(redundant, 0, sizeof *redundant);
	if (!a || !c)
		goto nomem;
	if (n_actual)
		memcpy(a, actual, n_actual * sizeof *a);
	if (n_cached)
		memcpy(c, cached, n_cached * sizeof *c);
	qsort(a, n_actual, sizeof *a, cmp_str);
	qsort(c, n_cached, sizeof *c, cmp_str);
	for (size_t i = 0, j = 0; i < n_actual || j < n_cached;) {
		int d = i == n_actual ? 1 : j == n_cached ? -1 : strcmp(a[i], c[j]);
		if (d == 0) {
			i++;
			j++;
		} else if (d < 0) {
			if (!strv_push(missed, a[i++]))
				goto nomem;
		} else if (!strv_push(redundant, c[j++])) {
			goto nomem;
		}
	}
	goto out;
nomem:
	sched_strv_release(missed);
	sched_strv_release(redundant);
	rc = err_set(e, ERR_NOMEM, "cache comparer: out of memory");
out:
	free(a);
	free(c);
	return rc;
}

int sched_cache_compare_with(struct cache *c, struct queue *q, const char *const *nodes, size_t n_nodes,
			     const char *const *pods, size_t n_pods, struct sched_cache_diff *out, struct err *e)
{
	struct sched_strv cached_nodes = { 0 }, cached_pods = { 0 };
	struct collect cn = { &cached_nodes, false }, cp = { &cached_pods, false };
	int rc;
	memset(out, 0, sizeof *out);
	/* one context for both callbacks would mix nodes and pods: two passes */
	cache_foreach_key(c, collect_one, NULL, &cn);
	cache_foreach_key(c, NULL, collect_one, &cp);
	if (q)
		queue_pending_foreach(q, collect_one, &cp);
	if (cn.oom || cp.oom) {
		rc = err_set(e, ERR_NOMEM, "cache comparer: out of memory");
		goto out;
	}
	rc = sched_compare_strings(nodes, n_nodes, (const char *const *)cached_nodes.v, cached_nodes.n,
				   &out->missed_nodes, &out->redundant_nodes, e);
	if (!rc)
		rc = sched_compare_strings(pods, n_pods, (const char *const *)cached_pods.v, cached_pods.n,
					   &out->missed_pods, &out->redundant_pods, e);
	if (rc)
		sched_cache_diff_release(out);
out:
	sched_strv_release(&cached_nodes);
	sched_strv_release(&cached_pods);
	return rc;
}

static void collect_node(void *ctx, void *obj)
{
	collect_one(ctx, ((const struct api_node *)obj)->meta.name);
}

static void collect_pod(void *ctx, void *obj)
{
	collect_one(ctx, ((const struct api_pod *)obj)->meta.uid);
}

/* klog's JSON of a []string (encoding/json: HTML-safe escapes included). */
static void json_strings(struct strbuf *b, const struct sched_strv *s)
{
	strbuf_add(b, &(char){'['}, 1);
	for (size_t i = 0; i < s->n; i++) {
		strbuf_puts(b, i ? ",\"" : "\"");
		for (const unsigned char *p = (const unsigned char *)s->v[i]; *p; p++) {
			if (*p == '"' || *p == '\\')
				strbuf_addf(b, "\\%c", *p);
			else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
				strbuf_addf(b, "\\u%04x", *p);
			else
				strbuf_add(b, &(char){(char)*p}, 1);
		}
		strbuf_add(b, &(char){'"'}, 1);
	}
	strbuf_add(b, &(char){']'}, 1);
}

/* upstream: logger.Info("Cache mismatch", k1, v1, k2, v2) */
static void log_mismatch(const char *k1, const struct sched_strv *v1, const char *k2, const struct sched_strv *v2)
{
	if (v1->n + v2->n == 0)
		return;
	struct strbuf b = STRBUF_INIT;
	strbuf_addf(&b, "\"Cache mismatch\" %s=", k1);
	json_strings(&b, v1);
	strbuf_addf(&b, " %s=", k2);
	json_strings(&b, v2);
	LOG_INFO("%s", b.data ? b.data : "\"Cache mismatch\"");
	strbuf_release(&b);
}

void sched_cache_diff_log(const struct sched_cache_diff *d)
{
	log_mismatch("missedNodes", &d->missed_nodes, "redundantNodes", &d->redundant_nodes);
	log_mismatch("missedPods", &d->missed_pods, "redundantPods", &d->redundant_pods);
}

/* The comparison without the log lines. */
static int compare(struct scheduler *s, struct sched_cache_diff *out, struct err *e)
{
	struct sched_strv nodes = { 0 }, pods = { 0 };
	struct collect cn = { &nodes, false }, cp = { &pods, false };
	int rc;
	memset(out, 0, sizeof *out);
	api_informer_foreach(s->node_inf, collect_node, &cn);
	api_informer_foreach(s->pod_inf, collect_pod, &cp);
	if (cn.oom || cp.oom) {
		rc = err_set(e, ERR_NOMEM, "cache comparer: out of memory");
		goto out;
	}
	rc = sched_cache_compare_with(s->cache, s->queue, (const char *const *)nodes.v, nodes.n,
				      (const char *const *)pods.v, pods.n, out, e);
out:
	sched_strv_release(&nodes);
	sched_strv_release(&pods);
	return rc;
}

int sched_cache_compare(struct scheduler *s, struct sched_cache_diff *out, struct err *e)
{
	LOG_V(3, "\"Cache comparer started\"");
	int rc = compare(s, out, e);
	if (!rc)
		sched_cache_diff_log(out);
	LOG_V(3, "\"Cache comparer finished\"");
	return rc;
}

int sched_cache_wait_consistent(struct scheduler *s, long timeout_ms, struct sched_cache_diff *out, struct err *e)
{
	int64_t end = mono_ns() + (int64_t)timeout_ms * 1000000;
	for (;;) {
		int rc = compare(s, out, e);
		if (rc || sched_cache_diff_empty(out))
			return rc;
		if (mono_ns() >= end)
			break;
		sched_cache_diff_release(out);
		sleep_ns(100 * 1000000LL);
	}
	sched_cache_diff_log(out);
	return err_set(e, ERR_CONFLICT, "cache and API server differ: %zu/%zu nodes, %zu/%zu pods missed/redundant",
		       out->missed_nodes.n, out->redundant_nodes.n, out->missed_pods.n, out->redundant_pods.n);
}

bool sched_cache_diff_empty(const struct sched_cache_diff *d)
{
	return !d->missed_nodes.n && !d->redundant_nodes.n && !d->missed_pods.n && !d->redundant_pods.n;
}

void sched_cache_diff_release(struct sched_cache_diff *d)
{
	if (!d)
		return;
	sched_strv_release(&d->missed_nodes);
	sched_strv_release(&d->redundant_nodes);
	sched_strv_release(&d->missed_pods);
	sched_strv_release(&d->redundant_pods);
}
