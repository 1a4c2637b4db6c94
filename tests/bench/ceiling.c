/* The benchmark "ceiling": a binder with no scheduling logic. It watches the unbound pods whose
 * spec.schedulerName is --scheduler-name and binds each to the next node in round-robin order as
 * fast as the API server accepts, with the same client-side rate limit (token bucket, qps/burst)
 * the schedulers get, so a scheduler's throughput can be reported as a fraction of what the
 * server, the watch path and an HTTP client allow on this machine.
 *
 * It talks HTTP with libcurl and parses JSON with yajl directly (no csched module), so it measures
 * the server rather than csched's own client code. With --kube-api-content-type=
 * application/vnd.kubernetes.protobuf it lists and watches the pods in protobuf, as csched's and
 * upstream's informers do by default (the server encodes each watch event once per format it is
 * asked for), reading only the few fields it needs from the wire format; bindings stay JSON.
 *
 * Usage: bench_ceiling --server=https://127.0.0.1:PORT --token-file=FILE --cacert=FILE
 *                      [--scheduler-name=ceiling] [--kube-api-qps=5000] [--kube-api-burst=5000]
 *                      [--workers=64] [--kube-api-content-type=application/json]
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

#define PB_MEDIA "application/vnd.kubernetes.protobuf"

struct opts {
	const char *server, *token_file, *cacert, *sched_name;
	double qps;
	int burst, workers;
	bool protobuf; /* list and watch the pods in protobuf */
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

/* ---------- protobuf (just what the ceiling reads) ----------
 *
 * apimachinery's envelope: a body is "k8s\0" + runtime.Unknown{2: raw}; a watch stream is frames
 * of a 4-byte big-endian length + metav1.WatchEvent{1: type, 2: RawExtension{1: raw = envelope}}.
 * Read: PodList{1: ListMeta{2: resourceVersion}, 2: items}; Pod{1: ObjectMeta{1: name, 3:
 * namespace, 6: resourceVersion}, 2: PodSpec{10: nodeName}} (the field numbers of the pinned
 * k8s.io/api and apimachinery generated.proto). */

struct pb_slice {
	const unsigned char *p;
	size_t n;
};

static bool pb_varint(struct pb_slice *r, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64 && r->n; shift += 7) {
		unsigned char b = *r->p++;
		r->n--;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* The next field of r: 1 with its number and, for a length-delimited one, its bytes in *val
 * (others are skipped, *val empty); 0 at the end; -1 on malformed input. */
static int pb_next(struct pb_slice *r, uint32_t *field, struct pb_slice *val)
{
	uint64_t key, len;
	if (!r->n)
		return 0;
	if (!pb_varint(r, &key) || key >> 3 == 0 || key >> 3 > UINT32_MAX)
		return -1;
	*field = (uint32_t)(key >> 3);
	*val = (struct pb_slice){ NULL, 0 };
	switch (key & 7) {
	case 0:
		return pb_varint(r, &len) ? 1 : -1;
	case 1:
	case 5: {
		size_t w = (key & 7) == 1 ? 8 : 4;
		if (r->n < w)
			return -1;
		r->p += w;
		r->n -= w;
		return 1;
	}
	case 2:
		if (!pb_varint(r, &len) || len > r->n)
			return -1;
		*val = (struct pb_slice){ r->p, (size_t)len };
		r->p += len;
		r->n -= len;
		return 1;
	default:
		return -1;
	}
}

/* The first length-delimited field number f of msg (empty when absent). */
static struct pb_slice pb_get(struct pb_slice msg, uint32_t f)
{
	struct pb_slice v;
	uint32_t got;
	while (pb_next(&msg, &got, &v) > 0)
		if (got == f && v.p)
			return v;
	return (struct pb_slice){ NULL, 0 };
}

/* The object inside an envelope ("k8s\0" + Unknown): its raw bytes; empty when not one. */
static struct pb_slice pb_unwrap(struct pb_slice env)
{
	if (env.n < 4 || memcmp(env.p, "k8s\0", 4) != 0)
		return (struct pb_slice){ NULL, 0 };
	return pb_get((struct pb_slice){ env.p + 4, env.n - 4 }, 2);
}

/* ---------- watch ---------- */

struct watch_ctx {
	struct ceiling *c;
	struct buf line; /* the partial line (JSON) or frame (protobuf) carried between callbacks */
};

static const char *str_at(yajl_val v, const char **path)
{
	yajl_val s = yajl_tree_get(v, path, yajl_t_string);
	return s ? YAJL_GET_STRING(s) : NULL;
}

/* Queues ns/name (copied) for a binder. */
static void queue_pod(struct ceiling *c, const char *ns, size_t ns_len, const char *name, size_t name_len)
{
	struct pod_ref r = { strndup(ns, ns_len), strndup(name, name_len) };
	if (r.ns && r.name) {
		atomic_fetch_add(&c->seen, 1);
		fifo_push(&c->fifo, r);
	} else {
		free(r.ns);
		free(r.name);
	}
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
	if (type && !strcmp(type, "ADDED") && ns && name && !(node && *node))
		queue_pod(c, ns, strlen(ns), name, strlen(name));
	yajl_tree_free(ev);
}

/* One protobuf WatchEvent (a frame's payload), as watch_event. */
static void watch_event_pb(struct ceiling *c, struct pb_slice ev)
{
	struct pb_slice type = pb_get(ev, 1);
	struct pb_slice pod = pb_unwrap(pb_get(pb_get(ev, 2), 1));
	struct pb_slice meta = pb_get(pod, 1);
	struct pb_slice ns = pb_get(meta, 3), name = pb_get(meta, 1), rv = pb_get(meta, 6);
	struct pb_slice node = pb_get(pb_get(pod, 2), 10);
	if (type.n == 5 && !memcmp(type.p, "ERROR", 5))
		c->rv[0] = 0; /* e.g. 410 Gone: the next watch starts from the current state */
	else if (rv.n && rv.n < sizeof(c->rv))
		snprintf(c->rv, sizeof(c->rv), "%.*s", (int)rv.n, (const char *)rv.p);
	if (type.n == 5 && !memcmp(type.p, "ADDED", 5) && ns.n && name.n && !node.n)
		queue_pod(c, (const char *)ns.p, ns.n, (const char *)name.p, name.n);
}

/* Protobuf watch stream: frames of a 4-byte big-endian length and a WatchEvent. */
static size_t on_watch_frames(char *p, size_t size, size_t n, void *ctx)
{
	struct watch_ctx *w = ctx;
	size_t len = size * n, off = 0;
	if (!buf_append(&w->line, p, len))
		return 0;
	while (w->line.len - off >= 4) {
		const unsigned char *f = (const unsigned char *)w->line.data + off;
		size_t flen = (size_t)f[0] << 24 | (size_t)f[1] << 16 | (size_t)f[2] << 8 | f[3];
		if (flen > 64u << 20) {
			fprintf(stderr, "bench_ceiling: watch frame of %zu bytes\n", flen);
			return 0;
		}
		if (w->line.len - off - 4 < flen)
			break;
		watch_event_pb(w->c, (struct pb_slice){ f + 4, flen });
		off += 4 + flen;
	}
	memmove(w->line.data, w->line.data + off, w->line.len - off);
	w->line.len -= off;
	return len;
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
static int list_pods_pb(struct ceiling *c, CURL *h, const char *url)
{
	struct buf b = { 0 };
	int rc = -1;
	long status = http_get(h, url, &b);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 0L); /* the watch that follows has none */
	if (status != 200) {
		if (status >= 0)
			fprintf(stderr, "bench_ceiling: GET %s: HTTP %ld\n", url, status);
		goto out;
	}
	struct pb_slice list = pb_unwrap((struct pb_slice){ (const unsigned char *)b.data, b.len });
	struct pb_slice rv = pb_get(pb_get(list, 1), 2), it;
	uint32_t f;
	int more;
	if (!list.p || !rv.n || rv.n >= sizeof(c->rv)) {
		fprintf(stderr, "bench_ceiling: pod list is not a protobuf PodList with a resourceVersion\n");
		goto out;
	}
	while ((more = pb_next(&list, &f, &it)) > 0) {
		if (f != 2 || !it.p)
			continue;
		struct pb_slice meta = pb_get(it, 1), ns = pb_get(meta, 3), name = pb_get(meta, 1);
		if (ns.n && name.n)
			queue_pod(c, (const char *)ns.p, ns.n, (const char *)name.p, name.n);
	}
	if (more < 0) {
		fprintf(stderr, "bench_ceiling: malformed protobuf pod list\n");
		goto out;
	}
	snprintf(c->rv, sizeof(c->rv), "%.*s", (int)rv.n, (const char *)rv.p);
	rc = 0;
out:
	free(b.data);
	return rc;
}

static int list_pods(struct ceiling *c, CURL *h, const char *sel)
{
	char url[1024];
	int rc = -1;
	snprintf(url, sizeof(url), "%s/api/v1/pods?fieldSelector=%s", c->o.server, sel);
	if (c->o.protobuf)
		return list_pods_pb(c, h, url);
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
		if (ns && name)
			queue_pod(c, ns, strlen(ns), name, strlen(name));
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
	if (c->o.protobuf) {
		/* this handle only lists and watches: protobuf answers, as client-go's protobuf clients ask */
		curl_slist_free_all(hdrs);
		hdrs = curl_slist_append(NULL, c->auth);
		hdrs = curl_slist_append(hdrs, "Accept: " PB_MEDIA ", application/json");
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	}
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
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, c->o.protobuf ? on_watch_frames : on_watch_body);
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
		else if ((v = flag_value(argv[i], "--kube-api-content-type")) &&
			 (!strcmp(v, PB_MEDIA) || !strcmp(v, "application/json")))
			o->protobuf = !strcmp(v, PB_MEDIA);
		else {
			fprintf(stderr, "bench_ceiling: unknown argument '%s'\n", argv[i]);
			return -1;
		}
	}
	if (!o->server || !o->token_file || !o->cacert || o->workers < 1 || o->workers > 1024 || o->burst < 1) {
		fprintf(stderr, "usage: bench_ceiling --server=URL --token-file=FILE --cacert=FILE [--scheduler-name=N] "
				"[--kube-api-qps=Q] [--kube-api-burst=B >= 1] [--workers=1..1024] "
				"[--kube-api-content-type=application/json|" PB_MEDIA "]\n");
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
			"(qps %.0f, burst %d; pods watched in %s)\n", c->o.sched_name, c->n_nodes, c->o.workers, c->o.qps,
		c->o.burst, c->o.protobuf ? "protobuf" : "JSON");
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
