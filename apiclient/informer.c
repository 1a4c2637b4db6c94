/* List + watch of one resource kind (contract in informer.h).
 *
 * DESIGN
 * One thread per informer, with its own api_conn. The loop is:
 *
 *   (re)LIST page by page (limit/continue) -> store diff -> handlers
 *        |  resourceVersion of the list
 *        v
 *   WATCH ?watch=1&resourceVersion=RV&allowWatchBookmarks=true&timeoutSeconds=rand[min,2min)
 *        each line: ADDED/MODIFIED/DELETED -> store -> handler; BOOKMARK -> RV; ERROR -> below
 *        stream ends normally (timeout)    -> WATCH again from RV, at once
 *        410 (HTTP status or ERROR event)  -> reLIST at once, deliver the difference
 *        anything else (transport, 5xx)    -> WATCH again from RV after a jittered
 *                                             exponential backoff 0.5 s .. 30 s
 *
 * Each page is parsed as it arrives (api__get_chunks into api__json with an item callback): an
 * item is decoded and delivered as soon as its closing brace is read, so neither the page's text
 * nor its tree is ever held whole. Watch events are parsed line by line by the same parser (one
 * per informer, used by its thread only); fields csched never reads are not even built.
 *
 * A (re)LIST stamps every item it sees with a new generation number; once the last page is in,
 * store entries with an older generation vanished while we were not watching and are delivered
 * as deletes. Items whose resourceVersion did not change produce no event.
 *
 * Only the informer thread writes the store, so it can call handlers without a lock while the
 * objects it passes stay alive (it owns the store's references and drops a replaced or removed
 * object only after the handler returned). Readers (get/len/foreach) take inf->lock.
 *
 * Stopping: api_informer_stop sets inf->stop, which api_stream checks at least every 200 ms and
 * the backoff sleep waits on (a condition variable), then joins. A LIST request in flight is
 * not interruptible: stop waits for it (bounded by the client's request timeout).
 * After stop, start resumes from the kept store and resourceVersion (no relist unless 410). */
#include "apiclient/informer.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yajl/yajl_tree.h>

#include "apiclient/api_internal.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/map.h"

#define INFORMER_DEFAULT_PAGE 500
#define INFORMER_DEFAULT_WATCH_S 300
#define INFORMER_BACKOFF_MIN_MS 500
#define INFORMER_BACKOFF_MAX_MS 30000
#define INFORMER_RV_MAX 64

/* A stored object; the key lives in the entry (the map borrows it). */
struct store_entry {
	void *obj;         /* one reference owned by the store */
	unsigned long gen; /* list generation that last saw the key */
	char key[];
};

struct api_informer {
	struct api_client *client; /* borrowed */
	enum api_kind kind;
	const char *resource;      /* "pods" / "nodes", for paths and logs */
	char *field_selector_q;    /* URL-escaped, or NULL */
	char *label_selector_q;
	int page_size;
	int min_watch_timeout_s;
	struct api_informer_handlers h;
	uint64_t rng; /* xorshift state; informer thread only */

	pthread_t thread;
	bool running; /* start/stop/free caller's thread only */
	atomic_bool stop;

	/* Informer-thread-only state (besides the store writes). */
	struct api__json *json; /* parses LIST pages (streamed) and watch events */
	unsigned long list_gen;
	bool have_rv; /* false: the next step is a (re)LIST */
	bool listed_once;
	char rv[INFORMER_RV_MAX]; /* last resourceVersion seen (also read under lock by stats) */

	/* lock guards: store, synced's condition, stats, rv (writes by the informer thread are made
	 * under it so that api_informer_stats can copy it), stats_rv. It is a leaf lock: nothing
	 * is called while it is held except map operations and (for foreach) the caller's fn. */
	pthread_mutex_t lock;
	pthread_cond_t cond; /* signalled on synced and on stop */
	struct map store;    /* key -> struct store_entry * */
	atomic_bool synced;
	struct api_informer_stats stats;
	char stats_rv[INFORMER_RV_MAX];
};

/* ---------- per-kind object operations ---------- */

static void *obj_decode(const struct api_informer *inf, const yajl_val v, struct err *e)
{
	return inf->kind == API_KIND_POD ? (void *)api_pod_decode(v, e) : (void *)api_node_decode(v, e);
}

static void obj_unref(const struct api_informer *inf, void *obj)
{
	if (inf->kind == API_KIND_POD)
		api_pod_unref(obj);
	else
		api_node_unref(obj);
}

static void *obj_ref(const struct api_informer *inf, void *obj)
{
	return inf->kind == API_KIND_POD ? (void *)api_pod_ref(obj) : (void *)api_node_ref(obj);
}

static const char *obj_rv(const struct api_informer *inf, const void *obj)
{
	const struct api_meta *m = inf->kind == API_KIND_POD ? &((const struct api_pod *)obj)->meta
							     : &((const struct api_node *)obj)->meta;
	return m->resource_version ? m->resource_version : "";
}

/* ---------- small helpers ---------- */

/* Query-string escape (libcurl >= 7.82 accepts a NULL handle); release with curl_free. */
static char *url_escape(const char *s)
{
	return curl_easy_escape(NULL, s, 0);
}

static uint64_t rng_next(struct api_informer *inf)
{
	uint64_t x = inf->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	inf->rng = x;
	return x;
}

static const char *str_at(yajl_val v, const char **path)
{
	yajl_val s = yajl_tree_get(v, path, yajl_t_string);
	return s ? YAJL_GET_STRING(s) : NULL;
}

static const char *meta_path_name[] = {"metadata", "name", NULL};
static const char *meta_path_ns[] = {"metadata", "namespace", NULL};
static const char *meta_path_rv[] = {"metadata", "resourceVersion", NULL};

/* "namespace/name" or "name" of a raw object, independent of the decoder, so that an object
 * that fails to decode can still be tracked (and deleted). false when it has no name. */
static bool raw_key(yajl_val obj, char *buf, size_t size)
{
	const char *name = str_at(obj, meta_path_name), *ns = str_at(obj, meta_path_ns);
	if (!name || !*name)
		return false;
	int n = ns && *ns ? snprintf(buf, size, "%s/%s", ns, name) : snprintf(buf, size, "%s", name);
	return n > 0 && (size_t)n < size;
}

static void set_rv(struct api_informer *inf, const char *rv)
{
	if (!rv || !*rv)
		return;
	pthread_mutex_lock(&inf->lock);
	snprintf(inf->rv, sizeof(inf->rv), "%s", rv);
	pthread_mutex_unlock(&inf->lock);
}

/* Waits up to ms for *flag (signalled on inf->cond, a CLOCK_MONOTONIC condvar); returns it. */
static bool wait_flag(struct api_informer *inf, atomic_bool *flag, long ms)
{
	struct timespec ts = ns_to_timespec(mono_ns() + (int64_t)ms * NSEC_PER_MSEC);
	pthread_mutex_lock(&inf->lock);
	while (!atomic_load(flag)) {
		if (pthread_cond_timedwait(&inf->cond, &inf->lock, &ts) == ETIMEDOUT)
			break;
	}
	bool set = atomic_load(flag);
	pthread_mutex_unlock(&inf->lock);
	return set;
}

/* Sleeps ms unless a stop request comes first; false when stopped. */
static bool sleep_unless_stopped(struct api_informer *inf, long ms)
{
	wait_flag(inf, &inf->stop, ms);
	return !atomic_load(&inf->stop);
}

/* ---------- store updates (informer thread) ---------- */

/* Puts obj (its reference moves to the store) under key and delivers add or update. */
static void store_upsert(struct api_informer *inf, const char *key, void *obj, unsigned long gen, bool from_list)
{
	void *old = NULL;
	bool add = false, unchanged = false;
	struct store_entry *ent;

	pthread_mutex_lock(&inf->lock);
	ent = map_get(&inf->store, key);
	if (!ent) {
		size_t kl = strlen(key) + 1;
		ent = malloc(sizeof(*ent) + kl);
		if (ent)
			memcpy(ent->key, key, kl);
		if (!ent || map_put(&inf->store, ent->key, ent, NULL)) {
			/* Out of memory: drop the object; the next relist retries it. */
			pthread_mutex_unlock(&inf->lock);
			LOG_ERROR("informer %s: out of memory storing %s", inf->resource, key);
			free(ent);
			obj_unref(inf, obj);
			return;
		}
		ent->obj = obj;
		add = true;
		inf->stats.added++;
	} else if (from_list && !strcmp(obj_rv(inf, ent->obj), obj_rv(inf, obj))) {
		unchanged = true;
	} else {
		old = ent->obj;
		ent->obj = obj;
		inf->stats.updated++;
	}
	ent->gen = gen;
	pthread_mutex_unlock(&inf->lock);

	if (unchanged) {
		obj_unref(inf, obj);
	} else if (add) {
		if (inf->h.on_add)
			inf->h.on_add(inf->h.ctx, obj);
	} else {
		if (inf->h.on_update)
			inf->h.on_update(inf->h.ctx, old, obj);
		obj_unref(inf, old);
	}
}

/* Removes key and delivers on_delete with final (if not NULL; its reference is consumed) or
 * the stored object. */
static void store_delete(struct api_informer *inf, const char *key, void *final)
{
	pthread_mutex_lock(&inf->lock);
	struct store_entry *ent = map_del(&inf->store, key);
	if (ent || final)
		inf->stats.deleted++;
	pthread_mutex_unlock(&inf->lock);

	void *deliver = final ? final : (ent ? ent->obj : NULL);
	if (deliver && inf->h.on_delete)
		inf->h.on_delete(inf->h.ctx, deliver);
	if (final)
		obj_unref(inf, final);
	if (ent) {
		obj_unref(inf, ent->obj);
		free(ent);
	}
}

/* Marks key as seen by list generation gen (for an item that failed to decode: it still
 * exists on the server, so the relist must not report it deleted). */
static void store_touch(struct api_informer *inf, const char *key, unsigned long gen)
{
	pthread_mutex_lock(&inf->lock);
	struct store_entry *ent = map_get(&inf->store, key);
	if (ent)
		ent->gen = gen;
	pthread_mutex_unlock(&inf->lock);
}

static void count_decode_error(struct api_informer *inf, const char *key, const struct err *e)
{
	pthread_mutex_lock(&inf->lock);
	inf->stats.decode_errors++;
	pthread_mutex_unlock(&inf->lock);
	LOG_ERROR("informer %s: skipping %s: %s", inf->resource, key, e->msg);
}

/* ---------- LIST ---------- */

static void list_item(struct api_informer *inf, yajl_val item, unsigned long gen)
{
	char key[512];
	struct err e = {0};
	if (!raw_key(item, key, sizeof(key))) {
		LOG_ERROR("informer %s: list item without metadata.name skipped", inf->resource);
		return;
	}
	void *obj = obj_decode(inf, item, &e);
	if (!obj) {
		count_decode_error(inf, key, &e);
		store_touch(inf, key, gen);
		return;
	}
	store_upsert(inf, key, obj, gen, true);
}

/* Delivers deletes for every entry the list with generation gen did not see. */
static int list_finish_deletes(struct api_informer *inf, unsigned long gen)
{
	char **stale = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	const char *k;
	void *v;

	pthread_mutex_lock(&inf->lock);
	for (size_t it = 0; map_next(&inf->store, &it, &k, &v);) {
		struct store_entry *ent = v;
		if (ent->gen == gen)
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			char **ns = realloc(stale, ncap * sizeof(*ns));
			if (!ns) {
				rc = ERR_NOMEM;
				break;
			}
			stale = ns;
			cap = ncap;
		}
		stale[n] = strdup(ent->key);
		if (!stale[n]) {
			rc = ERR_NOMEM;
			break;
		}
		n++;
	}
	pthread_mutex_unlock(&inf->lock);
	for (size_t i = 0; i < n; i++) {
		if (!rc)
			store_delete(inf, stale[i], NULL);
		free(stale[i]);
	}
	free(stale);
	return rc;
}

static char *build_path(const struct api_informer *inf, const char *fmt_tail, const char *a, const char *b,
			const char *cont)
{
	char *path = NULL;
	char tail[256];
	snprintf(tail, sizeof(tail), fmt_tail, a, b);
	if (asprintf(&path, "/api/v1/%s?%s%s%s%s%s%s%s", inf->resource, tail,
		     inf->field_selector_q ? "&fieldSelector=" : "", inf->field_selector_q ? inf->field_selector_q : "",
		     inf->label_selector_q ? "&labelSelector=" : "", inf->label_selector_q ? inf->label_selector_q : "",
		     cont ? "&continue=" : "", cont ? cont : "") < 0)
		return NULL;
	return path;
}

/* One LIST page, parsed as it arrives: each item is decoded and delivered as soon as it is
 * complete, so a page never exists whole in memory (neither as text nor as a tree). */
struct list_page {
	struct api_informer *inf;
	unsigned long gen;
	size_t items;
	int parse_rc; /* ERR_INVALID / ERR_NOMEM from the parser */
	char ebuf[256];
};

static int page_item(void *ctx, yajl_val item)
{
	struct list_page *pg = ctx;
	list_item(pg->inf, item, pg->gen);
	pg->items++;
	return 0;
}

static int page_data(void *ctx, const char *buf, size_t len)
{
	struct list_page *pg = ctx;
	int rc = api__json_feed(pg->inf->json, buf, len, pg->ebuf, sizeof(pg->ebuf));
	if (rc)
		pg->parse_rc = rc;
	return rc;
}

static int do_list(struct api_informer *inf, struct api_conn *conn, struct err *e)
{
	static const char *cont_path[] = {"metadata", "continue", NULL};
	char page[16], rv[INFORMER_RV_MAX] = "";
	char *cont = NULL, *path = NULL; /* cont: escaped continue token (curl_free) */
	int rc = 0, restarts = 0;
	unsigned long gen = ++inf->list_gen;
	int64_t t0 = api_now_ns();
	size_t total = 0;

	snprintf(page, sizeof(page), "%d", inf->page_size);
	for (;;) {
		struct list_page pg = {.inf = inf, .gen = gen};
		yajl_val root = NULL;

		if (atomic_load(&inf->stop)) {
			rc = err_set(e, ERR_STOPPED, "informer %s: list stopped", inf->resource);
			goto out;
		}
		free(path);
		path = build_path(inf, "limit=%s%s", page, "", cont);
		if (!path) {
			rc = err_set(e, ERR_NOMEM, "informer %s: list path", inf->resource);
			goto out;
		}
		if ((rc = api__json_begin(inf->json, page_item, &pg))) {
			err_set(e, rc, "informer %s: list: out of memory", inf->resource);
			goto out;
		}
		rc = api__get_chunks(conn, path, page_data, &pg, e);
		total += pg.items;
		if (rc == ERR_GONE && cont && restarts++ < 3) {
			/* The continue token expired (compaction during a long list): start over. */
			LOG_WARN("informer %s: list continuation expired, restarting the list", inf->resource);
			curl_free(cont);
			cont = NULL;
			gen = ++inf->list_gen;
			continue;
		}
		if (!rc && !pg.parse_rc)
			pg.parse_rc = api__json_end(inf->json, &root, pg.ebuf, sizeof(pg.ebuf));
		if (pg.parse_rc) {
			rc = err_set(e, pg.parse_rc, "informer %s: GET %s: %s%s", inf->resource, path,
				     pg.parse_rc == ERR_NOMEM ? "out of memory" : "invalid JSON: ", pg.ebuf);
			goto out;
		}
		if (rc) {
			err_prefix(e, "informer %s: GET %s", inf->resource, path);
			goto out;
		}
		const char *v = str_at(root, meta_path_rv);
		if (v)
			snprintf(rv, sizeof(rv), "%s", v);
		const char *c = str_at(root, cont_path);
		curl_free(cont);
		cont = c && *c ? url_escape(c) : NULL;
		bool more = c && *c;
		if (more && !cont) {
			rc = err_set(e, ERR_NOMEM, "informer %s: continue token", inf->resource);
			goto out;
		}
		if (!more)
			break;
	}
	if (!rv[0]) {
		rc = err_set(e, ERR_INVALID, "informer %s: list without metadata.resourceVersion", inf->resource);
		goto out;
	}
	rc = list_finish_deletes(inf, gen);
	if (rc) {
		err_set(e, rc, "informer %s: out of memory delivering deletes", inf->resource);
		goto out;
	}
	set_rv(inf, rv);
	inf->have_rv = true;
	pthread_mutex_lock(&inf->lock);
	inf->stats.lists++;
	if (inf->listed_once)
		inf->stats.relists++;
	pthread_mutex_unlock(&inf->lock);
	inf->listed_once = true;
	{
		double s = (double)(api_now_ns() - t0) / 1e9;
		LOG_V(2, "informer %s: listed %zu objects at resourceVersion %s in %.3f s (%.0f objects/s)",
		      inf->resource, total, rv, s, s > 0 ? (double)total / s : 0.0);
	}
out:
	curl_free(cont);
	free(path);
	return rc;
}

/* ---------- WATCH ---------- */

struct watch_ctx {
	struct api_informer *inf;
	unsigned long events;
	struct err *e;
};

static int watch_line(void *ctx, char *line, size_t len)
{
	static const char *type_path[] = {"type", NULL};
	static const char *obj_path[] = {"object", NULL};
	static const char *code_path[] = {"code", NULL};
	static const char *msg_path[] = {"message", NULL};
	struct watch_ctx *w = ctx;
	struct api_informer *inf = w->inf;
	char ebuf[256], key[512];
	int rc = 0;

	if (len == 0)
		return 0;
	yajl_val root = NULL;
	rc = api__json_parse(inf->json, line, len, &root, ebuf, sizeof(ebuf));
	if (rc == ERR_NOMEM)
		return err_set(w->e, rc, "informer %s: watch event: out of memory", inf->resource);
	if (rc)
		return err_set(w->e, ERR_INVALID, "informer %s: watch event: invalid JSON: %s", inf->resource, ebuf);
	const char *type = str_at(root, type_path);
	yajl_val obj = yajl_tree_get(root, obj_path, yajl_t_object);
	if (!type || !obj) {
		rc = err_set(w->e, ERR_INVALID, "informer %s: watch event without type or object", inf->resource);
		goto out;
	}
	w->events++;
	if (!strcmp(type, "ERROR")) {
		yajl_val code = yajl_tree_get(obj, code_path, yajl_t_number);
		const char *msg = str_at(obj, msg_path);
		long long c = code && YAJL_IS_INTEGER(code) ? YAJL_GET_INTEGER(code) : 0;
		rc = err_set(w->e, c == 410 ? ERR_GONE : ERR_HTTP, "informer %s: watch ERROR %lld: %s", inf->resource,
			     c, msg ? msg : "");
		if (w->e)
			w->e->http_status = (int)c;
		goto out;
	}
	const char *rv = str_at(obj, meta_path_rv);
	if (!strcmp(type, "BOOKMARK")) {
		pthread_mutex_lock(&inf->lock);
		inf->stats.bookmarks++;
		pthread_mutex_unlock(&inf->lock);
		set_rv(inf, rv);
		goto out;
	}
	bool is_add = !strcmp(type, "ADDED"), is_mod = !strcmp(type, "MODIFIED"), is_del = !strcmp(type, "DELETED");
	if (!is_add && !is_mod && !is_del) {
		LOG_WARN("informer %s: ignoring watch event of type %s", inf->resource, type);
		goto out;
	}
	if (!raw_key(obj, key, sizeof(key))) {
		LOG_ERROR("informer %s: %s event without metadata.name skipped", inf->resource, type);
		set_rv(inf, rv);
		goto out;
	}
	struct err de = {0};
	void *o = obj_decode(inf, obj, &de);
	if (!o)
		count_decode_error(inf, key, &de);
	if (is_del)
		store_delete(inf, key, o);
	else if (o)
		store_upsert(inf, key, o, inf->list_gen, false);
	/* The event is applied: resume after it even if its object could not be decoded. */
	set_rv(inf, rv);
out:
	return rc; /* root lives in inf->json until the next event */
}

static int do_watch(struct api_informer *inf, struct api_conn *conn, unsigned long *events, struct err *e)
{
	char rv[INFORMER_RV_MAX], tmo[16];
	int lo = inf->min_watch_timeout_s;
	snprintf(tmo, sizeof(tmo), "%d", lo + (int)(rng_next(inf) % (uint64_t)lo));
	pthread_mutex_lock(&inf->lock);
	snprintf(rv, sizeof(rv), "%s", inf->rv);
	inf->stats.watches++;
	pthread_mutex_unlock(&inf->lock);
	char *path = build_path(inf, "watch=1&allowWatchBookmarks=true&resourceVersion=%s&timeoutSeconds=%s", rv, tmo,
				NULL);
	if (!path)
		return err_set(e, ERR_NOMEM, "informer %s: watch path", inf->resource);
	LOG_V(3, "informer %s: watching from resourceVersion %s", inf->resource, rv);
	struct watch_ctx w = {.inf = inf, .e = e};
	int rc = api_stream(conn, path, watch_line, &w, &inf->stop, e);
	*events = w.events;
	free(path);
	return rc;
}

/* ---------- the thread ---------- */

static void mark_synced(struct api_informer *inf)
{
	if (atomic_load(&inf->synced))
		return;
	if (inf->h.on_synced)
		inf->h.on_synced(inf->h.ctx);
	pthread_mutex_lock(&inf->lock);
	atomic_store(&inf->synced, true);
	pthread_cond_broadcast(&inf->cond);
	pthread_mutex_unlock(&inf->lock);
	LOG_V(1, "informer %s: synced", inf->resource);
}

static void *informer_main(void *arg)
{
	struct api_informer *inf = arg;
	struct err e = {0};
	long backoff_ms = 0;
	struct api_conn *conn = NULL;

	while (!atomic_load(&inf->stop)) {
		int rc;
		if (!conn) {
			err_clear(&e);
			conn = api_conn_new(inf->client, &e);
			if (conn && api__conn_bulk(conn, &e) < 0) {
				api_conn_free(conn);
				conn = NULL;
			}
			if (!conn) {
				LOG_ERROR("informer %s: %s", inf->resource, e.msg);
				goto backoff;
			}
		}
		if (!inf->have_rv) {
			err_clear(&e);
			rc = do_list(inf, conn, &e);
			if (rc == ERR_STOPPED || atomic_load(&inf->stop))
				break;
			if (rc) {
				LOG_WARN("informer %s: list failed: %s", inf->resource, e.msg);
				goto backoff;
			}
			mark_synced(inf);
			backoff_ms = 0;
		}

		err_clear(&e);
		unsigned long events = 0;
		int64_t t0 = api_now_ns();
		rc = do_watch(inf, conn, &events, &e);
		if (rc == ERR_STOPPED || atomic_load(&inf->stop))
			break;
		/* A watch that worked for a while or delivered events proves the server healthy. */
		if (events > 0 || api_now_ns() - t0 > 10LL * 1000000000LL)
			backoff_ms = 0;
		if (rc == 0 && (events > 0 || api_now_ns() - t0 >= 1000000000LL))
			continue; /* the server ended the watch (timeoutSeconds): resume */
		if (rc == 0) {
			/* Ended at once without a single event: something between us and the server
			 * cuts watches; do not spin. */
			LOG_WARN("informer %s: very short watch (no event, < 1 s)", inf->resource);
			goto backoff;
		}
		if (rc == ERR_GONE) {
			LOG_INFO("informer %s: resourceVersion too old (%s): relisting", inf->resource, e.msg);
			pthread_mutex_lock(&inf->lock);
			inf->stats.gone++;
			pthread_mutex_unlock(&inf->lock);
			inf->have_rv = false;
			continue;
		}
		pthread_mutex_lock(&inf->lock);
		inf->stats.watch_errors++;
		pthread_mutex_unlock(&inf->lock);
		LOG_WARN("informer %s: watch broken: %s", inf->resource, e.msg);
		if (rc == ERR_TRANSPORT) {
			/* A fresh connection next time: the old one may be half-dead. */
			api_conn_free(conn);
			conn = NULL;
		}
	backoff:
		backoff_ms = backoff_ms ? backoff_ms * 2 : INFORMER_BACKOFF_MIN_MS;
		if (backoff_ms > INFORMER_BACKOFF_MAX_MS * 2 / 3)
			backoff_ms = INFORMER_BACKOFF_MAX_MS * 2 / 3;
		{
			/* Sleep in [b, 1.5 b] (0.5 s .. 30 s): informers that failed together do not
			 * retry together. */
			long d = backoff_ms + (long)(rng_next(inf) % (uint64_t)(backoff_ms / 2 + 1));
			LOG_V(2, "informer %s: retrying in %ld ms", inf->resource, d);
			if (!sleep_unless_stopped(inf, d))
				break;
		}
	}
	api_conn_free(conn);
	return NULL;
}

/* ---------- public API ---------- */

struct api_informer *api_informer_new(struct api_client *c, enum api_kind kind, const struct api_informer_options *opt,
				      const struct api_informer_handlers *h, struct err *e)
{
	struct api_informer *inf = NULL;
	if (!c || (kind != API_KIND_POD && kind != API_KIND_NODE)) {
		err_set(e, ERR_INVALID, "api_informer_new: %s", !c ? "no client" : "unknown kind");
		return NULL;
	}
	inf = calloc(1, sizeof(*inf));
	if (!inf || !(inf->json = api__json_new()))
		goto nomem;
	inf->client = c;
	inf->kind = kind;
	inf->resource = kind == API_KIND_POD ? "pods" : "nodes";
	if (h)
		inf->h = *h;
	inf->page_size = opt && opt->page_size > 0 ? opt->page_size : INFORMER_DEFAULT_PAGE;
	inf->min_watch_timeout_s = opt && opt->min_watch_timeout_s > 0 ? opt->min_watch_timeout_s
								       : INFORMER_DEFAULT_WATCH_S;
	if (opt && opt->field_selector && *opt->field_selector &&
	    !(inf->field_selector_q = url_escape(opt->field_selector)))
		goto nomem;
	if (opt && opt->label_selector && *opt->label_selector &&
	    !(inf->label_selector_q = url_escape(opt->label_selector)))
		goto nomem;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	inf->rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)inf;
	if (!inf->rng)
		inf->rng = 0x9e3779b97f4a7c15ULL;
	atomic_init(&inf->stop, false);
	atomic_init(&inf->synced, false);
	map_init(&inf->store);
	pthread_mutex_init(&inf->lock, NULL);
	pthread_condattr_t ca; /* deadlines on the monotonic clock: a wall clock jump stretches none */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&inf->cond, &ca);
	pthread_condattr_destroy(&ca);
	return inf;
nomem:
	if (inf) {
		api__json_free(inf->json);
		curl_free(inf->field_selector_q);
		curl_free(inf->label_selector_q);
		free(inf);
	}
	err_set(e, ERR_NOMEM, "api_informer_new: out of memory");
	return NULL;
}

int api_informer_start(struct api_informer *inf, struct err *e)
{
	if (!inf)
		return err_set(e, ERR_INVALID, "api_informer_start: NULL informer");
	if (inf->running)
		return err_set(e, ERR_INVALID, "api_informer_start: informer %s already running", inf->resource);
	atomic_store(&inf->stop, false);
	int rc = pthread_create(&inf->thread, NULL, informer_main, inf);
	if (rc)
		return err_set(e, ERR_NOMEM, "api_informer_start: pthread_create: %s", strerror(rc));
	inf->running = true;
	return 0;
}

void api_informer_stop(struct api_informer *inf)
{
	if (!inf || !inf->running)
		return;
	pthread_mutex_lock(&inf->lock);
	atomic_store(&inf->stop, true);
	pthread_cond_broadcast(&inf->cond);
	pthread_mutex_unlock(&inf->lock);
	pthread_join(inf->thread, NULL);
	inf->running = false;
}

void api_informer_free(struct api_informer *inf)
{
	if (!inf)
		return;
	api_informer_stop(inf);
	const char *k;
	void *v;
	for (size_t it = 0; map_next(&inf->store, &it, &k, &v);) {
		struct store_entry *ent = v;
		obj_unref(inf, ent->obj);
		free(ent);
	}
	map_release(&inf->store);
	pthread_cond_destroy(&inf->cond);
	pthread_mutex_destroy(&inf->lock);
	api__json_free(inf->json);
	curl_free(inf->field_selector_q);
	curl_free(inf->label_selector_q);
	free(inf);
}

bool api_informer_synced(const struct api_informer *inf)
{
	return inf && atomic_load(&((struct api_informer *)inf)->synced);
}

bool api_informer_wait_synced(struct api_informer *inf, long timeout_ms)
{
	if (!inf)
		return false;
	return wait_flag(inf, &inf->synced, timeout_ms);
}

void *api_informer_get(struct api_informer *inf, const char *ns, const char *name)
{
	char key[512];
	void *obj = NULL;
	if (!inf || !name)
		return NULL;
	int n = ns && *ns ? snprintf(key, sizeof(key), "%s/%s", ns, name) : snprintf(key, sizeof(key), "%s", name);
	if (n < 0 || (size_t)n >= sizeof(key))
		return NULL;
	pthread_mutex_lock(&inf->lock);
	struct store_entry *ent = map_get(&inf->store, key);
	if (ent)
		obj = obj_ref(inf, ent->obj);
	pthread_mutex_unlock(&inf->lock);
	return obj;
}

size_t api_informer_len(struct api_informer *inf)
{
	if (!inf)
		return 0;
	pthread_mutex_lock(&inf->lock);
	size_t n = map_len(&inf->store);
	pthread_mutex_unlock(&inf->lock);
	return n;
}

void api_informer_foreach(struct api_informer *inf, void (*fn)(void *ctx, void *obj), void *ctx)
{
	const char *k;
	void *v;
	if (!inf || !fn)
		return;
	pthread_mutex_lock(&inf->lock);
	for (size_t it = 0; map_next(&inf->store, &it, &k, &v);)
		fn(ctx, ((struct store_entry *)v)->obj);
	pthread_mutex_unlock(&inf->lock);
}

void api_informer_stats(struct api_informer *inf, struct api_informer_stats *out)
{
	if (!inf || !out)
		return;
	pthread_mutex_lock(&inf->lock);
	*out = inf->stats;
	snprintf(inf->stats_rv, sizeof(inf->stats_rv), "%s", inf->rv);
	out->last_resource_version = inf->stats_rv;
	pthread_mutex_unlock(&inf->lock);
}
