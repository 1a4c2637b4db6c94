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

int api__inf_do_list(struct api_informer *inf, struct api_conn *conn, struct err *e)
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
	const char *type = api__inf_str_at(root, type_path);
	yajl_val obj = yajl_tree_get(root, obj_path, yajl_t_object);
	if (!type || !obj) {
		rc = err_set(w->e, ERR_INVALID, "informer %s: watch event without type or object", inf->resource);
		goto out;
	}
	w->events++;
	if (!strcmp(type, "ERROR")) {
		yajl_val code = yajl_tree_get(obj, code_path, yajl_t_number);
		const char *msg = api__inf_str_at(obj, msg_path);
		long long c = code && YAJL_IS_INTEGER(code) ? YAJL_GET_INTEGER(code) : 0;
		rc = err_set(w->e, c == 410 ? ERR_GONE : ERR_HTTP, "informer %s: watch ERROR %lld: %s", inf->resource,
			     c, msg ? msg : "");
		if (w->e)
			w->e->http_status = (int)c;
		goto out;
	}
	const char *rv = api__inf_str_at(obj, meta_path_rv);
	if (!strcmp(type, "BOOKMARK")) {
		pthread_mutex_lock(&inf->lock);
		inf->stats.bookmarks++;
		pthread_mutex_unlock(&inf->lock);
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
	if (is_del)
		api__inf_store_delete(inf, key, o);
	else if (o)
		api__inf_store_upsert(inf, key, o, inf->list_gen, false);
	/* The event is applied: resume after it even if its object could not be decoded. */
	api__inf_set_rv(inf, rv);
out:
	return rc; /* root lives in inf->json until the next event */
}

int api__inf_do_watch(struct api_informer *inf, struct api_conn *conn, unsigned long *events, struct err *e)
{
	char rv[INFORMER_RV_MAX], tmo[16];
	int lo = inf->min_watch_timeout_s;
	snprintf(tmo, sizeof(tmo), "%d", lo + (int)(api__inf_rng_next(inf) % (uint64_t)lo));
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


int api__inf_watch_line(struct api_informer *inf, char *line, size_t len, unsigned long *events, struct err *e)
{
	struct watch_ctx w = {.inf = inf, .e = e};
	int rc = watch_line(&w, line, len);
	*events += w.events;
	return rc;
}
