/* LIST (page by page, streamed) and WATCH of an informer (DESIGN in informer.c). Informer thread only. */
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

#include "informer_internal.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/map.h"

static const char *meta_path_rv[] = {"metadata", "resourceVersion", NULL};

/* ---------- errors: a Status and what to do about it ---------- */

/* apimachinery's knownReasons (pkg/api/errors/errors.go): a code stands for its reason only
 * when the reason is not one of these (IsGone, IsTimeout ...; IsTooManyRequests always). */
static bool known_reason(const char *r)
{
	static const char *const known[] = {"Unauthorized", "Forbidden", "NotFound", "AlreadyExists", "Conflict",
					    "Gone", "Invalid", "ServerTimeout", "StorageReadError", "Timeout",
					    "TooManyRequests", "BadRequest", "MethodNotAllowed", "NotAcceptable",
					    "RequestEntityTooLarge", "UnsupportedMediaType", "InternalError", "Expired",
					    "ServiceUnavailable"};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(r, known[i]))
			return true;
	return false;
}

static bool status_is(const struct api__inf_status *st, const char *reason, long code)
{
	return !strcmp(st->reason, reason) || (!known_reason(st->reason) && st->code == code);
}

void api__inf_status_parse(yajl_val status, long http_status, struct api__inf_status *out)
{
	static const char *code_path[] = {"code", NULL}, *reason_path[] = {"reason", NULL},
			  *msg_path[] = {"message", NULL}, *causes_path[] = {"details", "causes", NULL},
			  *cause_reason[] = {"reason", NULL}, *cause_msg[] = {"message", NULL};
	memset(out, 0, sizeof(*out));
	out->code = http_status;
	if (!status || !YAJL_IS_OBJECT(status))
		return;
	yajl_val code = yajl_tree_get(status, code_path, yajl_t_number);
	if (code && YAJL_IS_INTEGER(code))
		out->code = (long)YAJL_GET_INTEGER(code);
	const char *reason = api__inf_str_at(status, reason_path), *msg = api__inf_str_at(status, msg_path);
	snprintf(out->reason, sizeof(out->reason), "%s", reason ? reason : "");
	snprintf(out->message, sizeof(out->message), "%s", msg ? msg : "");
	/* upstream isTooLargeResourceVersionError: the cause ResourceVersionTooLarge; or, from
	 * servers before 1.18.6, a Timeout whose cause or message says "Too large resource version" */
	bool timeout = status_is(out, "Timeout", 504), by_text = timeout && msg && strstr(msg, "Too large resource version");
	yajl_val causes = yajl_tree_get(status, causes_path, yajl_t_array);
	for (size_t i = 0; causes && i < YAJL_GET_ARRAY(causes)->len; i++) {
		yajl_val c = YAJL_GET_ARRAY(causes)->values[i];
		const char *cr = api__inf_str_at(c, cause_reason), *cm = api__inf_str_at(c, cause_msg);
		if ((cr && !strcmp(cr, "ResourceVersionTooLarge")) ||
		    (timeout && cm && !strcmp(cm, "Too large resource version")))
			by_text = true;
	}
	out->rv_too_large = by_text;
}

void api__inf_status_from_body(struct api__json *j, const char *body, size_t len, long http_status,
			       struct api__inf_status *out)
{
	yajl_val root = NULL;
	char ebuf[64];
	if (body && api__pb_magic(body, len)) {
		/* a protobuf Status (the request accepted protobuf); errors are rare: a parser of its own */
		struct api__pb *p = api__pb_new();
		if (!p || api__pb_body(p, API_KIND_POD, body, len, NULL, NULL, &root, ebuf, sizeof(ebuf)))
			root = NULL;
		api__inf_status_parse(root, http_status, out);
		api__pb_free(p);
		return;
	}
	if (!body || !len || api__json_parse(j, body, len, &root, ebuf, sizeof(ebuf)))
		root = NULL; /* not a Status (a proxy's page): the HTTP status speaks for it */
	api__inf_status_parse(root, http_status, out);
}

/* upstream isExpiredError: IsResourceExpired (reason Expired) || IsGone */
bool api__inf_status_expired(const struct api__inf_status *st)
{
	return !strcmp(st->reason, "Expired") || status_is(st, "Gone", 410);
}

enum api__inf_next api__inf_after_watch_error(int rc, const struct api__inf_status *st)
{
	if (!st) {
		/* No Status. A line that is not an event is, upstream, a decoding error the watcher
		 * reports as an InternalError: relist. A broken connection or a refused one: watch
		 * again (upstream re-watches a broken stream at once and a refused connection after
		 * its backoff; csched backs off for both). */
		return rc == ERR_INVALID ? INF_RELIST_BACKOFF : INF_REWATCH_BACKOFF;
	}
	/* Expired: relist at once (csched's choice; upstream relists after its backoff). A fresh
	 * list cannot be expired again, while a too large resourceVersion (a lagging apiserver)
	 * can be: upstream's watch() ends and its next ListAndWatch relists after the backoff
	 * (from RV "" once a list says too large, as csched's relists always are), and so does
	 * csched, or it would relist in a tight loop. */
	if (api__inf_status_expired(st))
		return INF_RELIST;
	/* upstream watch(): "Watch returned 429 - backing off", then the same watch again */
	if (!strcmp(st->reason, "TooManyRequests") || st->code == 429)
		return INF_REWATCH_BACKOFF;
	/* Anything else ends ListAndWatch ("watch ended with error"; an InternalError is retried
	 * only within MaxInternalErrorRetryDuration, 0 for the scheduler's informers): after the
	 * backoff, a new LIST. Watching again from the same resourceVersion could loop forever. */
	return INF_RELIST_BACKOFF;
}

/* ---------- LIST ---------- */

static void list_item(struct api_informer *inf, yajl_val item, unsigned long gen)
{
	char key[512];
	struct err e = {0};
	if (!api__inf_raw_key(item, key, sizeof(key))) {
		LOG_ERROR("informer %s: list item without metadata.name skipped", inf->resource);
		return;
	}
	void *obj = api__inf_obj_decode(inf, item, &e);
	if (!obj) {
		api__inf_count_decode_error(inf, key, &e);
		api__inf_store_touch(inf, key, gen);
		return;
	}
	api__inf_store_upsert(inf, key, obj, gen, true);
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
			api__inf_store_delete(inf, stale[i], NULL);
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
	if (asprintf(&path, "%s/%s?%s%s%s%s%s%s%s", inf->group_path, inf->resource, tail,
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
	/* The body is protobuf (the server's choice among what Accept offered, told by the magic):
	 * collected in inf->pbuf and decoded whole (a page of page_size objects). */
	bool pb, started;
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
	if (!pg->started) {
		pg->started = true;
		pg->pb = pg->inf->pb && len && buf[0] == 'k';
	}
	if (pg->pb) {
		/* bound: page_size objects of at most etcd's 1.5 MB each */
		size_t max = (size_t)(pg->inf->page_size > 0 ? pg->inf->page_size : 1) * ((size_t)2 << 20);
		if (strbuf_add_max(&pg->inf->pbuf, buf, len, max))
			return 0;
		snprintf(pg->ebuf, sizeof(pg->ebuf), pg->inf->pbuf.oom ? "out of memory" : "page larger than %zu bytes", max);
		return pg->parse_rc = pg->inf->pbuf.oom ? ERR_NOMEM : ERR_INVALID;
	}
	int rc = api__json_feed(pg->inf->json, buf, len, pg->ebuf, sizeof(pg->ebuf));
	if (rc)
		pg->parse_rc = rc;
	return rc;
}

int api__inf_do_list(struct api_informer *inf, struct api_conn *conn, struct err *e)
{
	static const char *cont_path[] = {"metadata", "continue", NULL};
	char page[16], rv[INFORMER_RV_MAX] = "";
	char *cont = NULL, *path = NULL; /* cont: escaped continue token (curl_free) */
	int rc = 0, restarts = 0;
	unsigned long gen = ++inf->list_gen;
	int64_t t0 = api_now_ns();
	size_t total = 0;
	bool any_pb = false;

	inf->have_status = false;

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
		inf->pbuf.len = 0;
		inf->pbuf.oom = false;
		rc = api__get_chunks(conn, path, page_data, &pg, e);
		if (!rc && pg.pb) {
			pg.parse_rc = api__pb_body(inf->pb, inf->kind, inf->pbuf.data, inf->pbuf.len, page_item, &pg, &root,
						   pg.ebuf, sizeof(pg.ebuf));
			pthread_mutex_lock(&inf->lock);
			inf->stats.protobuf_responses++;
			pthread_mutex_unlock(&inf->lock);
		}
		if (inf->pbuf.cap > ((size_t)4 << 20))
			strbuf_release(&inf->pbuf); /* a huge page: not kept between lists */
		total += pg.items;
		any_pb |= pg.pb;
		if (rc && rc != ERR_TRANSPORT && e->http_status) {
			size_t bl = 0;
			const char *body = api__conn_error_body(conn, &bl);
			api__inf_status_from_body(inf->json, body, bl, e->http_status, &inf->last_status);
			inf->have_status = true;
		}
		/* upstream pager: an Expired continuation falls back to a full list (here: paged again) */
		if (rc && cont && inf->have_status && api__inf_status_expired(&inf->last_status) && restarts++ < 3) {
			/* The continue token expired (compaction during a long list): start over. */
			LOG_WARN("informer %s: list continuation expired, restarting the list", inf->resource);
			curl_free(cont);
			cont = NULL;
			gen = ++inf->list_gen;
			continue;
		}
		if (!rc && !pg.parse_rc && !pg.pb)
			pg.parse_rc = api__json_end(inf->json, &root, pg.ebuf, sizeof(pg.ebuf));
		if (pg.parse_rc) {
			rc = err_set(e, pg.parse_rc, "informer %s: GET %s: %s%s", inf->resource, path,
				     pg.parse_rc == ERR_NOMEM ? "out of memory" : pg.pb ? "" : "invalid JSON: ", pg.ebuf);
			goto out;
		}
		if (rc) {
			err_prefix(e, "informer %s: GET %s", inf->resource, path);
			goto out;
		}
		const char *v = api__inf_str_at(root, meta_path_rv);
		if (v)
			snprintf(rv, sizeof(rv), "%s", v);
		const char *c = api__inf_str_at(root, cont_path);
		curl_free(cont);
		cont = c && *c ? api__inf_url_escape(c) : NULL;
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
	api__inf_set_rv(inf, rv);
	inf->have_rv = true;
	pthread_mutex_lock(&inf->lock);
	inf->stats.lists++;
	if (inf->listed_once)
		inf->stats.relists++;
	pthread_mutex_unlock(&inf->lock);
	inf->listed_once = true;
	{
		double s = (double)(api_now_ns() - t0) / 1e9;
		LOG_V(2, "informer %s: listed %zu objects at resourceVersion %s in %.3f s (%.0f objects/s, %s)",
		      inf->resource, total, rv, s, s > 0 ? (double)total / s : 0.0, any_pb ? "protobuf" : "JSON");
	}
out:
	curl_free(cont);
	free(path);
	return rc;
}

/* ---------- WATCH ---------- */

struct watch_ctx {
	struct api_informer *inf;
	struct api_conn *conn; /* NULL: lines are JSON (the fuzz seam) */
	bool pb;               /* api__inf_watch_frame: frames are protobuf */
	bool pb_counted;       /* stats.protobuf_responses counts this stream */
	unsigned long events;
	struct err *e;
	bool initial;      /* a streaming list still in its initial events */
	unsigned long gen; /* their list generation */
	size_t items;
	int64_t t0;
};

/* The end of a streaming list's initial events (the bookmark annotated
 * k8s.io/initial-events-end): what api__inf_do_list does after its last page. */
static int initial_events_end(struct watch_ctx *w, const char *rv)
{
	struct api_informer *inf = w->inf;
	if (!rv || !*rv)
		return err_set(w->e, ERR_INVALID, "informer %s: initial-events-end bookmark without resourceVersion",
			       inf->resource);
	int rc = list_finish_deletes(inf, w->gen);
	if (rc)
		return err_set(w->e, rc, "informer %s: out of memory delivering deletes", inf->resource);
	api__inf_set_rv(inf, rv);
	inf->have_rv = true;
	w->initial = false;
	pthread_mutex_lock(&inf->lock);
	inf->stats.lists++;
	inf->stats.streamed_lists++;
	if (inf->listed_once)
		inf->stats.relists++;
	pthread_mutex_unlock(&inf->lock);
	inf->listed_once = true;
	double s = (double)(api_now_ns() - w->t0) / 1e9;
	LOG_V(2, "informer %s: stream-listed %zu objects at resourceVersion %s in %.3f s (%.0f objects/s, %s)",
	      inf->resource, w->items, rv, s, s > 0 ? (double)w->items / s : 0.0, w->pb_counted ? "protobuf" : "JSON");
	api__inf_mark_synced(inf);
	return 0;
}

static int watch_line(void *ctx, char *line, size_t len)
{
	static const char *type_path[] = {"type", NULL};
	static const char *obj_path[] = {"object", NULL};
	struct watch_ctx *w = ctx;
	struct api_informer *inf = w->inf;
	char ebuf[256], key[512];
	int rc = 0;

	if (len == 0 && !(w->pb || (w->conn && api__conn_framed(w->conn))))
		return 0;
	yajl_val root = NULL;
	if (w->pb || (w->conn && api__conn_framed(w->conn))) {
		if (!w->pb_counted) {
			w->pb_counted = true;
			pthread_mutex_lock(&inf->lock);
			inf->stats.protobuf_responses++;
			pthread_mutex_unlock(&inf->lock);
		}
		rc = inf->pb ? api__pb_watch_event(inf->pb, inf->kind, line, len, &root, ebuf, sizeof(ebuf)) : ERR_INVALID;
		if (!inf->pb)
			snprintf(ebuf, sizeof(ebuf), "protobuf stream not asked for");
		if (rc == ERR_NOMEM)
			return err_set(w->e, rc, "informer %s: watch event: out of memory", inf->resource);
		if (rc)
			return err_set(w->e, ERR_INVALID, "informer %s: watch event: %s", inf->resource, ebuf);
	} else {
		rc = api__json_parse(inf->json, line, len, &root, ebuf, sizeof(ebuf));
		if (rc == ERR_NOMEM)
			return err_set(w->e, rc, "informer %s: watch event: out of memory", inf->resource);
		if (rc)
			return err_set(w->e, ERR_INVALID, "informer %s: watch event: invalid JSON: %s", inf->resource, ebuf);
	}
	const char *type = api__inf_str_at(root, type_path);
	yajl_val obj = yajl_tree_get(root, obj_path, yajl_t_object);
	if (!type || !obj) {
		rc = err_set(w->e, ERR_INVALID, "informer %s: watch event without type or object", inf->resource);
		goto out;
	}
	if (!strcmp(type, "ERROR")) {
		struct api__inf_status *st = &inf->last_status;
		api__inf_status_parse(obj, 0, st);
		inf->have_status = true;
		rc = err_set(w->e, api__inf_status_expired(st) ? ERR_GONE : ERR_HTTP, "informer %s: watch ERROR %ld %s: %s",
			     inf->resource, st->code, st->reason, st->message);
		if (w->e)
			w->e->http_status = (int)st->code;
		goto out;
	}
	w->events++; /* not an ERROR: that one ends the watch and proves nothing healthy */
	const char *rv = api__inf_str_at(obj, meta_path_rv);
	if (!strcmp(type, "BOOKMARK")) {
		static const char *end_path[] = {"metadata", "annotations", "k8s.io/initial-events-end", NULL};
		pthread_mutex_lock(&inf->lock);
		inf->stats.bookmarks++;
		pthread_mutex_unlock(&inf->lock);
		const char *end = w->initial ? api__inf_str_at(obj, end_path) : NULL;
		if (end && !strcmp(end, "true"))
			rc = initial_events_end(w, rv);
		else
			api__inf_set_rv(inf, rv);
		goto out;
	}
	bool is_add = !strcmp(type, "ADDED"), is_mod = !strcmp(type, "MODIFIED"), is_del = !strcmp(type, "DELETED");
	if (!is_add && !is_mod && !is_del) {
		LOG_WARN("informer %s: ignoring watch event of type %s", inf->resource, type);
		goto out;
	}
	if (!api__inf_raw_key(obj, key, sizeof(key))) {
		LOG_ERROR("informer %s: %s event without metadata.name skipped", inf->resource, type);
		api__inf_set_rv(inf, rv);
		goto out;
	}
	struct err de = {0};
	void *o = api__inf_obj_decode(inf, obj, &de);
	if (!o)
		api__inf_count_decode_error(inf, key, &de);
	if (w->initial && !is_del) {
		/* an initial event is a list item: it may repeat what the store holds */
		w->items++;
		if (o)
			api__inf_store_upsert(inf, key, o, w->gen, true);
		else
			api__inf_store_touch(inf, key, w->gen);
	} else if (is_del) {
		api__inf_store_delete(inf, key, o);
	} else if (o) {
		api__inf_store_upsert(inf, key, o, inf->list_gen, false);
	}
	/* The event is applied: resume after it even if its object could not be decoded. */
	api__inf_set_rv(inf, rv);
out:
	return rc; /* root lives in inf->json until the next event */
}

int api__inf_do_watch(struct api_informer *inf, struct api_conn *conn, bool initial, unsigned long *events,
		      struct err *e)
{
	char rv[INFORMER_RV_MAX], tmo[16];
	int lo = inf->min_watch_timeout_s;
	snprintf(tmo, sizeof(tmo), "%d", lo + (int)(api__inf_rng_next(inf) % (uint64_t)lo));
	pthread_mutex_lock(&inf->lock);
	snprintf(rv, sizeof(rv), "%s", inf->rv);
	inf->stats.watches++;
	pthread_mutex_unlock(&inf->lock);
	/* A streaming list starts from the latest state (client-go watchList: resourceVersion "" after
	 * an expired one, NotOlderThan); the objects come as ADDED events, then the bookmark. */
	char *path = initial ? build_path(inf,
					  "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
					  "&allowWatchBookmarks=true&timeoutSeconds=%s%s",
					  tmo, "", NULL)
			     : build_path(inf, "watch=1&allowWatchBookmarks=true&resourceVersion=%s&timeoutSeconds=%s", rv,
					  tmo, NULL);
	if (!path)
		return err_set(e, ERR_NOMEM, "informer %s: watch path", inf->resource);
	if (initial)
		LOG_V(3, "informer %s: streaming list", inf->resource);
	else
		LOG_V(3, "informer %s: watching from resourceVersion %s", inf->resource, rv);
	struct watch_ctx w = {.inf = inf, .conn = conn, .e = e, .initial = initial, .t0 = api_now_ns()};
	if (initial) {
		w.gen = ++inf->list_gen;
		inf->have_rv = false;
	}
	inf->have_status = false;
	int rc = api_stream(conn, path, watch_line, &w, &inf->stop, e);
	*events = w.events;
	if (rc && !inf->have_status && e && e->http_status && rc != ERR_TRANSPORT) {
		/* the server refused the watch itself: its answer is a Status */
		size_t bl = 0;
		const char *body = api__conn_error_body(conn, &bl);
		api__inf_status_from_body(inf->json, body, bl, e->http_status, &inf->last_status);
		inf->have_status = true;
	}
	free(path);
	return rc;
}


int api__inf_watch_line(struct api_informer *inf, char *line, size_t len, unsigned long *events, struct err *e)
{
	struct watch_ctx w = {.inf = inf, .e = e};
	int rc = watch_line(&w, line, len);
	*events += w.events;
	return rc;
}

int api__inf_watch_frame(struct api_informer *inf, const void *frame, size_t len, unsigned long *events, struct err *e)
{
	struct watch_ctx w = {.inf = inf, .e = e, .pb = true};
	int rc = watch_line(&w, (char *)frame, len);
	*events += w.events;
	return rc;
}

/* ---------- A dump instead of the server (csched simulate) ---------- */

/* kubectl's plural of a kind, lower-cased ("Pod" -> "pods", "StorageClass" -> "storageclasses",
 * "Policy" -> "policies"): the informer's resource name. */
static void kind_plural(const char *kind, char *out, size_t size)
{
	size_t n = 0;
	for (; kind[n] && n + 4 < size; n++)
		out[n] = (char)(kind[n] >= 'A' && kind[n] <= 'Z' ? kind[n] - 'A' + 'a' : kind[n]);
	out[n] = '\0';
	if (n && out[n - 1] == 's')
		snprintf(out + n, size - n, "es");
	else if (n > 1 && out[n - 1] == 'y' && !strchr("aeiou", out[n - 2]))
		snprintf(out + n - 1, size - n + 1, "ies");
	else
		snprintf(out + n, size - n, "s");
}

int api_informer_load_list(struct api_informer *inf, const char *json, size_t len, size_t *loaded, struct err *e)
{
	static const char *items_path[] = {"items", NULL}, *kind_path[] = {"kind", NULL},
			  *phase_path[] = {"status", "phase", NULL};
	char ebuf[256], plural[128];
	char *text = NULL;
	yajl_val root = NULL;
	int rc = 0;

	*loaded = 0;
	if (inf->running)
		return err_set(e, ERR_INVALID, "informer %s: loading a dump into a running informer", inf->resource);
	if (!(text = strndup(json, len)))
		return err_set(e, ERR_NOMEM, "informer %s: out of memory", inf->resource);
	if (!(root = yajl_tree_parse(text, ebuf, sizeof(ebuf)))) {
		rc = err_set(e, ERR_INVALID, "not JSON: %s", ebuf);
		goto out;
	}
	/* a List, or one object */
	yajl_val items = yajl_tree_get(root, items_path, yajl_t_array);
	size_t n = items ? items->u.array.len : 1;
	unsigned long gen = ++inf->list_gen;
	for (size_t i = 0; i < n; i++) {
		yajl_val item = items ? items->u.array.values[i] : root;
		yajl_val kind = yajl_tree_get(item, kind_path, yajl_t_string);
		if (!kind)
			continue; /* kubectl's items carry their kind; an item without one is no object of ours */
		const char *k = YAJL_GET_STRING(kind);
		if (!k)
			continue;
		kind_plural(k, plural, sizeof(plural));
		if (strcmp(plural, inf->resource) != 0)
			continue;
		/* the scheduler's pod informer lists with status.phase!=Succeeded,status.phase!=Failed */
		yajl_val phase = inf->kind == API_KIND_POD ? yajl_tree_get(item, phase_path, yajl_t_string) : NULL;
		const char *ph = phase ? YAJL_GET_STRING(phase) : NULL;
		if (ph && (!strcmp(ph, "Succeeded") || !strcmp(ph, "Failed")))
			continue;
		list_item(inf, item, gen);
		(*loaded)++;
	}
	api__inf_mark_synced(inf);
out:
	yajl_tree_free(root);
	free(text);
	return rc;
}
