/* The benchmark "ceiling": a binder with no scheduling logic. It watches the unbound pods whose
 * spec.schedulerName is --scheduler-name and binds each to the next node in round-robin order as
 * fast as the API server accepts, with the same client-side rate limit (token bucket, qps/burst)
 * the schedulers get, so a scheduler's throughput can be reported as a fraction of what the
 * server, the watch path and an HTTP client allow on this machine.
 *
 * It talks HTTP with libcurl and parses JSON with yajl directly (no csched module), so it measures
 * the server rather than csched's own client code.
 *
 * Usage: bench_ceiling --server=https://127.0.0.1:PORT --token-file=FILE --cacert=FILE
 *                      [--scheduler-name=ceiling] [--kube-api-qps=5000] [--kube-api-burst=5000]
 *                      [--workers=64]
 * Runs until SIGTERM or SIGINT, then prints how many pods it bound.
 *
 * DESIGN: the main thread lists the nodes once (benchmarks create them before the ceiling starts),
 * starts one watch thread and --workers binder threads, then waits for a signal. The watch thread
 * lists the unbound pods, then streams a watch of them from the list's resourceVersion (after an
 * early end, from the last resourceVersion seen), and pushes each listed or ADDED pod onto a FIFO;
 * binders, each with its own curl handle (keep-
 * alive connection), pop pods and POST bindings. On a signal: the stop flag ends the watch (curl's
 * progress callback), the FIFO is closed, binders drain it and exit.
 * Lock order: fifo.mu and limiter.mu are never held together. */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <yajl/yajl_tree.h>

struct opts {
	const char *server, *token_file, *cacert, *sched_name;
	double qps;
	int burst, workers;
};

struct pod_ref {
	char *ns, *name;
};

struct pod_fifo {
	pthread_mutex_t mu; /* guards items, head, len, cap, closed */
	pthread_cond_t cv;  /* signalled on push and on close */
	struct pod_ref *items; /* ring buffer */
	size_t head, len, cap;
	bool closed;
};

struct limiter {
	pthread_mutex_t mu; /* guards tokens, last_ns */
	double qps, tokens;
	int burst;
	int64_t last_ns;
};

struct ceiling {
	struct opts o;
	char auth[4200]; /* "Authorization: Bearer ..." (never logged) */
	char **nodes;
	size_t n_nodes;
	struct pod_fifo fifo;
	struct limiter lim;
	atomic_bool stop;
	char rv[64]; /* resourceVersion of the last watch event; watch thread only ("" = none) */
	atomic_uint_fast64_t rr, bound, conflicts, failures, seen;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Token bucket as client-go's: qps tokens per second, at most burst stored. */
static void limiter_wait(struct limiter *l)
{
	if (l->qps <= 0)
		return;
	pthread_mutex_lock(&l->mu);
	int64_t now = now_ns();
	l->tokens += (double)(now - l->last_ns) / 1e9 * l->qps;
	if (l->tokens > l->burst)
		l->tokens = l->burst;
	l->last_ns = now;
	l->tokens -= 1;
	double wait_s = l->tokens < 0 ? -l->tokens / l->qps : 0;
	pthread_mutex_unlock(&l->mu);
	if (wait_s > 0) {
		struct timespec ts = { (time_t)wait_s, (long)((wait_s - (double)(time_t)wait_s) * 1e9) };
		nanosleep(&ts, NULL);
	}
}

/* ---------- HTTP ---------- */

struct buf {
	char *data;
	size_t len, cap;
};

static bool buf_append(struct buf *b, const char *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *d = realloc(b->data, cap);
		if (!d)
			return false;
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = 0;
	return true;
}

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
	return buf_append(ctx, p, size * n) ? size * n : 0;
}

static CURL *new_handle(struct ceiling *c, struct curl_slist **hdrs)
{
	CURL *h = curl_easy_init();
	if (!h)
		return NULL;
	*hdrs = curl_slist_append(NULL, c->auth);
	*hdrs = curl_slist_append(*hdrs, "Content-Type: application/json");
	*hdrs = curl_slist_append(*hdrs, "Accept: application/json");
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, *hdrs);
	curl_easy_setopt(h, CURLOPT_CAINFO, c->o.cacert);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L); /* loopback server, pinned by the CA */
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "csched-bench-ceiling");
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	/* HTTP/1.1 as csched's client: libcurl's HTTP/2 costs ~50% more CPU per request with one
	 * connection per thread, which would lower the ceiling rather than measure the server. */
	curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	return h;
}

/* GET url into out; returns the HTTP status or -1 on a transport error. */
static long http_get(CURL *h, const char *url, struct buf *out)
{
	out->len = 0;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 120000L);
	CURLcode rc = curl_easy_perform(h);
	if (rc != CURLE_OK) {
		fprintf(stderr, "bench_ceiling: GET %s: %s\n", url, curl_easy_strerror(rc));
		return -1;
	}
	long status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	return status;
}

/* GET url and parse the 200 answer; NULL (after a message naming what) on any failure. The
 * caller frees the document with yajl_tree_free. */
static yajl_val get_json(CURL *h, const char *url, const char *what)
{
	struct buf b = { 0 };
	yajl_val doc = NULL;
	char err[256];
	long status = http_get(h, url, &b);
	if (status != 200) {
		if (status >= 0)
			fprintf(stderr, "bench_ceiling: GET %s: HTTP %ld\n", url, status);
	} else if (!(doc = yajl_tree_parse(b.data ? b.data : "", err, sizeof(err)))) {
		fprintf(stderr, "bench_ceiling: %s is not JSON: %s\n", what, err);
	}
	free(b.data);
	return doc;
}

/* ---------- FIFO ---------- */

static void fifo_push(struct pod_fifo *f, struct pod_ref r)
{
	pthread_mutex_lock(&f->mu);
	if (f->len == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 4096;
		struct pod_ref *items = malloc(cap * sizeof(*items));
		if (!items) {
			pthread_mutex_unlock(&f->mu);
			fprintf(stderr, "bench_ceiling: out of memory queueing %s/%s\n", r.ns, r.name);
			free(r.ns);
			free(r.name);
			return;
		}
		for (size_t i = 0; i < f->len; i++)
			items[i] = f->items[(f->head + i) % f->cap];
		free(f->items);
		f->items = items;
		f->head = 0;
		f->cap = cap;
	}
	f->items[(f->head + f->len) % f->cap] = r;
	f->len++;
	pthread_cond_signal(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

/* Blocks for the next pod; false once the FIFO is closed and empty. */
static bool fifo_pop(struct pod_fifo *f, struct pod_ref *out)
{
	bool ok = false;
	pthread_mutex_lock(&f->mu);
	while (!f->len && !f->closed)
		pthread_cond_wait(&f->cv, &f->mu);
	if (f->len) {
		*out = f->items[f->head];
		f->head = (f->head + 1) % f->cap;
		f->len--;
		ok = true;
	}
	pthread_mutex_unlock(&f->mu);
	return ok;
}

/* ---------- watch ---------- */

struct watch_ctx {
	struct ceiling *c;
	struct buf line; /* the partial line carried between callbacks */
};

static const char *str_at(yajl_val v, const char **path)
{
	yajl_val s = yajl_tree_get(v, path, yajl_t_string);
	return s ? YAJL_GET_STRING(s) : NULL;
}

static void watch_event(struct ceiling *c, const char *line)
{
	char err[128];
	yajl_val ev = yajl_tree_parse(line, err, sizeof(err));
	if (!ev) {
		fprintf(stderr, "bench_ceiling: watch event is not JSON: %s\n", err);
		return;
	}
	static const char *type_p[] = { "type", NULL };
	static const char *ns_p[] = { "object", "metadata", "namespace", NULL };
	static const char *name_p[] = { "object", "metadata", "name", NULL };
	static const char *node_p[] = { "object", "spec", "nodeName", NULL };
	const char *type = str_at(ev, type_p), *ns = str_at(ev, ns_p), *name = str_at(ev, name_p);
	const char *node = str_at(ev, node_p);
	static const char *rv_p[] = { "object", "metadata", "resourceVersion", NULL };
	const char *rv = str_at(ev, rv_p);
	if (type && !strcmp(type, "ERROR"))
		c->rv[0] = 0; /* e.g. 410 Gone: the next watch starts from the current state */
	else if (rv)
		snprintf(c->rv, sizeof(c->rv), "%s", rv);
	if (type && !strcmp(type, "ADDED") && ns && name && !(node && *node)) {
		struct pod_ref r = { strdup(ns), strdup(name) };
		if (r.ns && r.name) {
			atomic_fetch_add(&c->seen, 1);
			fifo_push(&c->fifo, r);
		} else {
			free(r.ns);
			free(r.name);
		}
	}
	yajl_tree_free(ev);
}

static size_t on_watch_body(char *p, size_t size, size_t n, void *ctx)
{
	struct watch_ctx *w = ctx;
	size_t len = size * n;
	for (size_t i = 0; i < len; i++) {
		if (p[i] != '\n') {
			if (!buf_append(&w->line, p + i, 1))
				return 0;
			continue;
		}
		if (w->line.len)
			watch_event(w->c, w->line.data);
		w->line.len = 0;
	}
	return len;
}

static int on_progress(void *ctx, curl_off_t a, curl_off_t b, curl_off_t c2, curl_off_t d)
{
	(void)a, (void)b, (void)c2, (void)d;
	struct ceiling *c = ctx;
	return atomic_load(&c->stop) ? 1 : 0;
}

/* LISTs the unbound pods of the selector, queues each, and sets c->rv to the list's
 * resourceVersion, from which the watch continues. A watch without a resourceVersion would send
 * the existing pods as ADDED events in key order, whose resourceVersions are not increasing:
 * resuming from the last one after the server ended such a watch early lost pods (measured: 16 of
 * 1000 initial pods never bound). Returns 0 or -1. */
static int list_pods(struct ceiling *c, CURL *h, const char *sel)
{
	char url[1024];
	int rc = -1;
	snprintf(url, sizeof(url), "%s/api/v1/pods?fieldSelector=%s", c->o.server, sel);
	yajl_val doc = get_json(h, url, "pod list");
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 0L); /* the watch that follows has none */
	if (!doc)
		goto out;
	static const char *items_p[] = { "items", NULL };
	static const char *rv_p[] = { "metadata", "resourceVersion", NULL };
	static const char *ns_p[] = { "metadata", "namespace", NULL };
	static const char *name_p[] = { "metadata", "name", NULL };
	const char *rv = str_at(doc, rv_p);
	yajl_val items = yajl_tree_get(doc, items_p, yajl_t_array);
	if (!rv || !items) {
		fprintf(stderr, "bench_ceiling: pod list without items or resourceVersion\n");
		goto out;
	}
	for (size_t i = 0; i < YAJL_GET_ARRAY(items)->len; i++) {
		yajl_val it = YAJL_GET_ARRAY(items)->values[i];
		const char *ns = str_at(it, ns_p), *name = str_at(it, name_p);
		if (!ns || !name)
			continue;
		struct pod_ref r = { strdup(ns), strdup(name) };
		if (r.ns && r.name) {
			atomic_fetch_add(&c->seen, 1);
			fifo_push(&c->fifo, r);
		} else {
			free(r.ns);
			free(r.name);
		}
	}
	snprintf(c->rv, sizeof(c->rv), "%s", rv);
	rc = 0;
out:
	yajl_tree_free(doc);
	return rc;
}

static void *watcher(void *arg)
{
	struct ceiling *c = arg;
	struct curl_slist *hdrs = NULL;
	CURL *h = new_handle(c, &hdrs);
	struct watch_ctx w = { c, { 0 } };
	char url[1024];
	char *sel = NULL;
	if (!h)
		goto out;
	char raw[512];
	snprintf(raw, sizeof(raw), "spec.schedulerName=%s,spec.nodeName=", c->o.sched_name);
	sel = curl_easy_escape(h, raw, 0);
	/* LIST, then WATCH from the list's resourceVersion. The server may end a watch (timeout, a
	 * slow consumer under load): it resumes from the last resourceVersion seen, so pods already
	 * queued are not replayed (bookmarks keep it fresh); after an ERROR (410 Gone) it lists
	 * again (a pod queued twice gets a 409 on its second binding, counted as a conflict). */
	while (!atomic_load(&c->stop)) {
		if (!c->rv[0] && (!sel || list_pods(c, h, sel) < 0)) {
			struct timespec ts = { 0, 500000000 };
			nanosleep(&ts, NULL);
			continue;
		}
		snprintf(url, sizeof(url), "%s/api/v1/pods?watch=1&allowWatchBookmarks=true&timeoutSeconds=3600"
			 "&fieldSelector=%s&resourceVersion=%s", c->o.server, sel, c->rv);
		curl_easy_setopt(h, CURLOPT_URL, url);
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_watch_body);
		curl_easy_setopt(h, CURLOPT_WRITEDATA, &w);
		curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(h, CURLOPT_XFERINFODATA, c);
		CURLcode rc = curl_easy_perform(h);
		if (atomic_load(&c->stop))
			break;
		fprintf(stderr, "bench_ceiling: watch ended (%s); restarting\n", curl_easy_strerror(rc));
		w.line.len = 0;
		struct timespec ts = { 0, 200000000 };
		nanosleep(&ts, NULL);
	}
out:
	curl_free(sel);
	free(w.line.data);
	if (h)
		curl_easy_cleanup(h);
	curl_slist_free_all(hdrs);
	return NULL;
}

/* ---------- binders ---------- */

static void *binder(void *arg)
{
	struct ceiling *c = arg;
	struct curl_slist *hdrs = NULL;
	CURL *h = new_handle(c, &hdrs);
	struct buf resp = { 0 };
	struct pod_ref r;
	if (!h) {
		fprintf(stderr, "bench_ceiling: curl_easy_init failed\n");
		return NULL;
	}
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &resp);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 60000L);
	while (fifo_pop(&c->fifo, &r)) {
		const char *node = c->nodes[atomic_fetch_add(&c->rr, 1) % c->n_nodes];
		char url[1024], body[1024];
		snprintf(url, sizeof(url), "%s/api/v1/namespaces/%s/pods/%s/binding", c->o.server, r.ns, r.name);
		int n = snprintf(body, sizeof(body),
				 "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\"},"
				 "\"target\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"%s\"}}",
				 r.name, r.ns, node);
		limiter_wait(&c->lim);
		resp.len = 0;
		curl_easy_setopt(h, CURLOPT_URL, url);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)n);
		CURLcode rc = curl_easy_perform(h);
		long status = 0;
		if (rc == CURLE_OK)
			curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
		if (status == 201 || status == 200)
			atomic_fetch_add(&c->bound, 1);
		else if (status == 409)
			atomic_fetch_add(&c->conflicts, 1);
		else {
			atomic_fetch_add(&c->failures, 1);
			fprintf(stderr, "bench_ceiling: binding %s/%s to %s: %s (HTTP %ld)\n", r.ns, r.name, node,
				rc == CURLE_OK ? "rejected" : curl_easy_strerror(rc), status);
		}
		free(r.ns);
		free(r.name);
	}
	free(resp.data);
	curl_easy_cleanup(h);
	curl_slist_free_all(hdrs);
	return NULL;
}

/* ---------- setup ---------- */

static int list_nodes(struct ceiling *c)
{
	struct curl_slist *hdrs = NULL;
	CURL *h = new_handle(c, &hdrs);
	yajl_val doc = NULL;
	int rc = -1;
	char url[1024];
	if (!h)
		goto out;
	snprintf(url, sizeof(url), "%s/api/v1/nodes", c->o.server);
	if (!(doc = get_json(h, url, "node list")))
		goto out;
	static const char *items_p[] = { "items", NULL };
	static const char *name_p[] = { "metadata", "name", NULL };
	yajl_val items = yajl_tree_get(doc, items_p, yajl_t_array);
	size_t n = items ? YAJL_GET_ARRAY(items)->len : 0;
	if (!n) {
		fprintf(stderr, "bench_ceiling: the cluster has no node\n");
		goto out;
	}
	if (!(c->nodes = calloc(n, sizeof(*c->nodes))))
		goto out;
	for (size_t i = 0; i < n; i++) {
		const char *name = str_at(YAJL_GET_ARRAY(items)->values[i], name_p);
		if (name && (c->nodes[c->n_nodes] = strdup(name)))
			c->n_nodes++;
	}
	rc = c->n_nodes ? 0 : -1;
out:
	yajl_tree_free(doc);
	if (h)
		curl_easy_cleanup(h);
	curl_slist_free_all(hdrs);
	return rc;
}

static int read_token(struct ceiling *c)
{
	FILE *f = fopen(c->o.token_file, "r");
	char tok[4096];
	if (!f) {
		fprintf(stderr, "bench_ceiling: %s: cannot open\n", c->o.token_file);
		return -1;
	}
	size_t n = fread(tok, 1, sizeof(tok) - 1, f);
	fclose(f);
	while (n && (tok[n - 1] == '\n' || tok[n - 1] == '\r' || tok[n - 1] == ' '))
		n--;
	tok[n] = 0;
	if (!n) {
		fprintf(stderr, "bench_ceiling: %s: empty token\n", c->o.token_file);
		return -1;
	}
	snprintf(c->auth, sizeof(c->auth), "Authorization: Bearer %s", tok);
	return 0;
}

static const char *flag_value(const char *arg, const char *name)
{
	size_t n = strlen(name);
	return strncmp(arg, name, n) == 0 && arg[n] == '=' ? arg + n + 1 : NULL;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	const char *v;
	/* 64 workers: as many binds in flight as csched's binder pool at most (SCHED_DEFAULT_BINDERS).
	 * With 16, the ceiling fell seconds behind the pod creation on a loaded machine. */
	*o = (struct opts){ .sched_name = "ceiling", .qps = 5000, .burst = 5000, .workers = 64 };
	for (int i = 1; i < argc; i++) {
		if ((v = flag_value(argv[i], "--server")))
			o->server = v;
		else if ((v = flag_value(argv[i], "--token-file")))
			o->token_file = v;
		else if ((v = flag_value(argv[i], "--cacert")))
			o->cacert = v;
		else if ((v = flag_value(argv[i], "--scheduler-name")))
			o->sched_name = v;
		else if ((v = flag_value(argv[i], "--kube-api-qps")))
			o->qps = atof(v);
		else if ((v = flag_value(argv[i], "--kube-api-burst")))
			o->burst = atoi(v);
		else if ((v = flag_value(argv[i], "--workers")))
			o->workers = atoi(v);
		else {
			fprintf(stderr, "bench_ceiling: unknown argument '%s'\n", argv[i]);
			return -1;
		}
	}
	if (!o->server || !o->token_file || !o->cacert || o->workers < 1 || o->workers > 1024 || o->burst < 1) {
		fprintf(stderr, "usage: bench_ceiling --server=URL --token-file=FILE --cacert=FILE [--scheduler-name=N] "
				"[--kube-api-qps=Q] [--kube-api-burst=B >= 1] [--workers=1..1024]\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ceiling *c = calloc(1, sizeof(*c));
	if (!c || parse_args(argc, argv, &c->o) < 0) {
		free(c);
		return 2;
	}
	/* Signals are taken by sigwait in the main thread only: block them before threads start. */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	int rc = 1, started = 0;
	bool watching = false, curl_ok = false;
	pthread_t *threads = NULL, watch_thread;
	pthread_mutex_init(&c->fifo.mu, NULL);
	pthread_cond_init(&c->fifo.cv, NULL);
	pthread_mutex_init(&c->lim.mu, NULL);
	c->lim.qps = c->o.qps;
	c->lim.burst = c->o.burst;
	c->lim.tokens = c->o.burst;
	c->lim.last_ns = now_ns();

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "bench_ceiling: curl_global_init failed\n");
		goto out;
	}
	curl_ok = true;
	if (read_token(c) < 0 || list_nodes(c) < 0)
		goto out;
	if (!(threads = calloc((size_t)c->o.workers, sizeof(*threads))))
		goto out;
	for (; started < c->o.workers; started++)
		if (pthread_create(&threads[started], NULL, binder, c) != 0) {
			fprintf(stderr, "bench_ceiling: pthread_create failed\n");
			goto out;
		}
	if (pthread_create(&watch_thread, NULL, watcher, c) != 0) {
		fprintf(stderr, "bench_ceiling: pthread_create failed\n");
		goto out;
	}
	watching = true;
	fprintf(stderr, "bench_ceiling: binding pods of scheduler %s round-robin over %zu nodes with %d binders "
			"(qps %.0f, burst %d)\n", c->o.sched_name, c->n_nodes, c->o.workers, c->o.qps, c->o.burst);
	int sig = 0;
	while (sigwait(&sigs, &sig) != 0)
		;
	rc = 0;
out:
	atomic_store(&c->stop, true);
	if (watching)
		pthread_join(watch_thread, NULL);
	pthread_mutex_lock(&c->fifo.mu);
	c->fifo.closed = true;
	pthread_cond_broadcast(&c->fifo.cv);
	pthread_mutex_unlock(&c->fifo.mu);
	for (int i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	fprintf(stderr, "bench_ceiling: saw %" PRIuFAST64 " unbound pods, bound %" PRIuFAST64 " (%" PRIuFAST64
			" conflicts, %" PRIuFAST64 " failures)\n",
		atomic_load(&c->seen), atomic_load(&c->bound), atomic_load(&c->conflicts), atomic_load(&c->failures));
	free(threads);
	for (size_t i = 0; i < c->fifo.len; i++) {
		free(c->fifo.items[(c->fifo.head + i) % c->fifo.cap].ns);
		free(c->fifo.items[(c->fifo.head + i) % c->fifo.cap].name);
	}
	free(c->fifo.items);
	for (size_t i = 0; i < c->n_nodes; i++)
		free(c->nodes[i]);
	free(c->nodes);
	if (curl_ok)
		curl_global_cleanup();
	pthread_cond_destroy(&c->fifo.cv);
	pthread_mutex_destroy(&c->fifo.mu);
	pthread_mutex_destroy(&c->lim.mu);
	free(c);
	return rc;
}
