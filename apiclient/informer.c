/* List + watch of one resource kind (contract in informer.h).
 *
 * DESIGN
 * One thread per informer, with its own api_conn: its own network connection, or, with
 * api_informer_options.shared_connection, a transfer on the client's watch muxer (one HTTP/2
 * connection for all such informers; api_mux.c), whose thread then runs the decoding below
 * while the informer's thread waits for the transfer. The loop is:
 *
 *   (re)LIST page by page (limit/continue) -> store diff -> handlers
 *        |  resourceVersion of the list
 *        v
 *   WATCH ?watch=1&resourceVersion=RV&allowWatchBookmarks=true&timeoutSeconds=rand[min,2min)
 *        each line: ADDED/MODIFIED/DELETED -> store -> handler; BOOKMARK -> RV; ERROR -> below
 *        stream ends normally (timeout)    -> WATCH again from RV, at once
 *        expired (410; HTTP or ERROR event) -> reLIST at once, deliver the difference
 *        429, transport failure            -> WATCH again from RV after a jittered
 *                                             exponential backoff 0.5 s .. 30 s
 *        any other Status (too large RV,   -> reLIST after that backoff, as client-go's reflector
 *          500, 403, a line not an event)     (api__inf_after_watch_error has the table)
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
 * Stopping: api_informer_stop sets inf->stop, which api_stream checks at least every 200 ms (a
 * shared connection's muxer at once: the stop wakes it) and the backoff sleep waits on (a
 * condition variable), then joins. A LIST request in flight is
 * not interruptible: stop waits for it (bounded by the client's request timeout).
 * After stop, start resumes from the kept store and resourceVersion (no relist unless one was due). */
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

#include "informer_internal.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/macros.h"
#include "common/map.h"


/* ---------- per-kind object operations ---------- */

/* The selector-owner kind of an informer kind (Service, RC, ReplicaSet, StatefulSet). */
static enum api_selector_kind owner_kind(enum api_kind kind)
{
	return kind == API_KIND_RC ? API_SEL_RC
	       : kind == API_KIND_REPLICASET ? API_SEL_RS
	       : kind == API_KIND_STATEFULSET ? API_SEL_SS
					      : API_SEL_SERVICE;
}

void *api__inf_obj_decode(const struct api_informer *inf, const yajl_val v, struct err *e)
{
	switch (inf->kind) {
	case API_KIND_POD:
		return api_pod_decode(v, e);
	case API_KIND_NODE:
		return api_node_decode(v, e);
	case API_KIND_SERVICE:
	case API_KIND_RC:
	case API_KIND_REPLICASET:
	case API_KIND_STATEFULSET:
		return api_selector_owner_decode(owner_kind(inf->kind), v, e);
	case API_KIND_NAMESPACE:
		return api_namespace_decode(v, e);
	case API_KIND_PDB:
		return api_pdb_decode(v, e);
	case API_KIND_PV:
		return api_pv_decode(v, e);
	case API_KIND_STORAGE_CLASS:
		return api_storage_class_decode(v, e);
	case API_KIND_CSINODE:
		return api_csinode_decode(v, e);
	case API_KIND_CSIDRIVER:
		return api_csidriver_decode(v, e);
	case API_KIND_VOLUME_ATTACHMENT:
		return api_volume_attachment_decode(v, e);
	case API_KIND_CSI_STORAGE_CAPACITY:
		return api_csi_storage_capacity_decode(v, e);
	case API_KIND_RESOURCE_CLAIM:
		return api_resource_claim_decode(v, e);
	case API_KIND_RESOURCE_SLICE:
		return api_resource_slice_decode(v, e);
	case API_KIND_DEVICE_CLASS:
		return api_device_class_decode(v, e);
	case API_KIND_DEVICE_TAINT_RULE:
		return api_device_taint_rule_decode(v, e);
	default:
		return api_pvc_decode(v, e);
	}
}

static void obj_unref(const struct api_informer *inf, void *obj)
{
	switch (inf->kind) {
	case API_KIND_POD:
		api_pod_unref(obj);
		break;
	case API_KIND_NODE:
		api_node_unref(obj);
		break;
	case API_KIND_SERVICE:
	case API_KIND_RC:
	case API_KIND_REPLICASET:
	case API_KIND_STATEFULSET:
		api_selector_owner_unref(obj);
		break;
	case API_KIND_NAMESPACE:
		api_namespace_unref(obj);
		break;
	case API_KIND_PDB:
		api_pdb_unref(obj);
		break;
	case API_KIND_PV:
		api_pv_unref(obj);
		break;
	case API_KIND_STORAGE_CLASS:
		api_storage_class_unref(obj);
		break;
	case API_KIND_CSINODE:
		api_csinode_unref(obj);
		break;
	case API_KIND_CSIDRIVER:
		api_csidriver_unref(obj);
		break;
	case API_KIND_VOLUME_ATTACHMENT:
		api_volume_attachment_unref(obj);
		break;
	case API_KIND_CSI_STORAGE_CAPACITY:
		api_csi_storage_capacity_unref(obj);
		break;
	case API_KIND_RESOURCE_CLAIM:
		api_resource_claim_unref(obj);
		break;
	case API_KIND_RESOURCE_SLICE:
		api_resource_slice_unref(obj);
		break;
	case API_KIND_DEVICE_CLASS:
		api_device_class_unref(obj);
		break;
	case API_KIND_DEVICE_TAINT_RULE:
		api_device_taint_rule_unref(obj);
		break;
	default:
		api_pvc_unref(obj);
	}
}

static void *obj_ref(const struct api_informer *inf, void *obj)
{
	switch (inf->kind) {
	case API_KIND_POD:
		return api_pod_ref(obj);
	case API_KIND_NODE:
		return api_node_ref(obj);
	case API_KIND_SERVICE:
	case API_KIND_RC:
	case API_KIND_REPLICASET:
	case API_KIND_STATEFULSET:
		return api_selector_owner_ref(obj);
	case API_KIND_NAMESPACE:
		return api_namespace_ref(obj);
	case API_KIND_PDB:
		return api_pdb_ref(obj);
	case API_KIND_PV:
		return api_pv_ref(obj);
	case API_KIND_STORAGE_CLASS:
		return api_storage_class_ref(obj);
	case API_KIND_CSINODE:
		return api_csinode_ref(obj);
	case API_KIND_CSIDRIVER:
		return api_csidriver_ref(obj);
	case API_KIND_VOLUME_ATTACHMENT:
		return api_volume_attachment_ref(obj);
	case API_KIND_CSI_STORAGE_CAPACITY:
		return api_csi_storage_capacity_ref(obj);
	case API_KIND_RESOURCE_CLAIM:
		return api_resource_claim_ref(obj);
	case API_KIND_RESOURCE_SLICE:
		return api_resource_slice_ref(obj);
	case API_KIND_DEVICE_CLASS:
		return api_device_class_ref(obj);
	case API_KIND_DEVICE_TAINT_RULE:
		return api_device_taint_rule_ref(obj);
	default:
		return api_pvc_ref(obj);
	}
}

static const struct api_meta *obj_meta(const struct api_informer *inf, const void *obj)
{
	switch (inf->kind) {
	case API_KIND_POD:
		return &((const struct api_pod *)obj)->meta;
	case API_KIND_NODE:
		return &((const struct api_node *)obj)->meta;
	case API_KIND_SERVICE:
	case API_KIND_RC:
	case API_KIND_REPLICASET:
	case API_KIND_STATEFULSET:
		return &((const struct api_selector_owner *)obj)->meta;
	case API_KIND_NAMESPACE:
		return &((const struct api_namespace *)obj)->meta;
	case API_KIND_PDB:
		return &((const struct api_pdb *)obj)->meta;
	case API_KIND_PV:
		return &((const struct api_pv *)obj)->meta;
	case API_KIND_STORAGE_CLASS:
		return &((const struct api_storage_class *)obj)->meta;
	case API_KIND_CSINODE:
		return &((const struct api_csinode *)obj)->meta;
	case API_KIND_CSIDRIVER:
		return &((const struct api_csidriver *)obj)->meta;
	case API_KIND_VOLUME_ATTACHMENT:
		return &((const struct api_volume_attachment *)obj)->meta;
	case API_KIND_CSI_STORAGE_CAPACITY:
		return &((const struct api_csi_storage_capacity *)obj)->meta;
	case API_KIND_RESOURCE_CLAIM:
		return &((const struct api_resource_claim *)obj)->meta;
	case API_KIND_RESOURCE_SLICE:
		return &((const struct api_resource_slice *)obj)->meta;
	case API_KIND_DEVICE_CLASS:
		return &((const struct api_device_class *)obj)->meta;
	case API_KIND_DEVICE_TAINT_RULE:
		return &((const struct api_device_taint_rule *)obj)->meta;
	default:
		return &((const struct api_pvc *)obj)->meta;
	}
}

static const char *obj_rv(const struct api_informer *inf, const void *obj)
{
	const struct api_meta *m = obj_meta(inf, obj);
	return m->resource_version ? m->resource_version : "";
}

static const char *obj_uid(const struct api_informer *inf, const void *obj)
{
	const struct api_meta *m = obj_meta(inf, obj);
	return m->uid ? m->uid : "";
}

/* ---------- small helpers ---------- */

/* Query-string escape (libcurl >= 7.82 accepts a NULL handle); release with curl_free. */
char *api__inf_url_escape(const char *s)
{
	return curl_easy_escape(NULL, s, 0);
}

uint64_t api__inf_rng_next(struct api_informer *inf)
{
	uint64_t x = inf->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	inf->rng = x;
	return x;
}

const char *api__inf_str_at(yajl_val v, const char **path)
{
	yajl_val s = yajl_tree_get(v, path, yajl_t_string);
	return s ? YAJL_GET_STRING(s) : NULL;
}

static const char *meta_path_name[] = {"metadata", "name", NULL};
static const char *meta_path_ns[] = {"metadata", "namespace", NULL};

/* "namespace/name" or "name" of a raw object, independent of the decoder, so that an object
 * that fails to decode can still be tracked (and deleted). false when it has no name. */
bool api__inf_raw_key(yajl_val obj, char *buf, size_t size)
{
	const char *name = api__inf_str_at(obj, meta_path_name), *ns = api__inf_str_at(obj, meta_path_ns);
	if (!name || !*name)
		return false;
	int n = ns && *ns ? snprintf(buf, size, "%s/%s", ns, name) : snprintf(buf, size, "%s", name);
	return n > 0 && (size_t)n < size;
}

void api__inf_set_rv(struct api_informer *inf, const char *rv)
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
void api__inf_store_upsert(struct api_informer *inf, const char *key, void *obj, unsigned long gen, bool from_list)
{
	void *old = NULL;
	bool add = false, unchanged = false, replaced = false;
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
		/* the same name with another UID (deleted and created again while no watch saw it, then
		 * relisted) is another object: a delete and an add, as upstream's scheduler turns such an
		 * update (updatePodInCache: UID changed -> delete + add); here once, for pods and nodes */
		replaced = strcmp(obj_uid(inf, old), obj_uid(inf, obj)) != 0;
		if (replaced) {
			inf->stats.deleted++;
			inf->stats.added++;
		} else {
			inf->stats.updated++;
		}
	}
	ent->gen = gen;
	pthread_mutex_unlock(&inf->lock);

	if (unchanged) {
		obj_unref(inf, obj);
	} else if (add) {
		if (inf->h.on_add)
			inf->h.on_add(inf->h.ctx, obj);
	} else if (replaced) {
		if (inf->h.on_delete)
			inf->h.on_delete(inf->h.ctx, old); /* its reference stays ours */
		if (inf->h.on_add)
			inf->h.on_add(inf->h.ctx, obj);
		obj_unref(inf, old);
	} else {
		if (inf->h.on_update)
			inf->h.on_update(inf->h.ctx, old, obj);
		obj_unref(inf, old);
	}
}

/* Removes key and delivers on_delete with final (if not NULL; its reference is consumed) or
 * the stored object. */
void api__inf_store_delete(struct api_informer *inf, const char *key, void *final)
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
void api__inf_store_touch(struct api_informer *inf, const char *key, unsigned long gen)
{
	pthread_mutex_lock(&inf->lock);
	struct store_entry *ent = map_get(&inf->store, key);
	if (ent)
		ent->gen = gen;
	pthread_mutex_unlock(&inf->lock);
}

void api__inf_count_decode_error(struct api_informer *inf, const char *key, const struct err *e)
{
	pthread_mutex_lock(&inf->lock);
	inf->stats.decode_errors++;
	pthread_mutex_unlock(&inf->lock);
	LOG_ERROR("informer %s: skipping %s: %s", inf->resource, key, e->msg);
}

/* ---------- the thread ---------- */

void api__inf_mark_synced(struct api_informer *inf)
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
	bool list_next = false; /* a streaming list failed: the next sync is a paged LIST */

	while (!atomic_load(&inf->stop)) {
		int rc;
		if (!conn) {
			err_clear(&e);
			struct api_mux *mux = NULL;
			if (!inf->shared)
				conn = api_conn_new(inf->client, &e);
			else if ((mux = api__client_watch_mux(inf->client, &e)))
				conn = api_conn_new_mux(inf->client, mux, &e);
			if (conn && api__conn_bulk(conn, &e) < 0) {
				api_conn_free(conn);
				conn = NULL;
			}
			/* as client-go's protobuf clients: JSON stays acceptable (a server without it) */
			if (conn && inf->pb)
				api__conn_set_accept(conn, API_PB_MEDIA ", application/json");
			if (!conn) {
				LOG_ERROR("informer %s: %s", inf->resource, e.msg);
				goto backoff;
			}
		}
		unsigned long events = 0;
		int64_t t0 = api_now_ns();
		bool streamed = false;
		if (!inf->have_rv && inf->stream_list && !list_next) {
			err_clear(&e);
			rc = api__inf_do_watch(inf, conn, true, &events, &e);
			if (rc == ERR_STOPPED || atomic_load(&inf->stop))
				break;
			streamed = inf->have_rv; /* synced: what follows is handled as a watch's end */
			if (!streamed) {
				/* client-go: "falling back to the standard LIST/WATCH semantics because
				 * making progress is better than deadlocking"; a refusal (a server without
				 * WatchList says 4xx) is not asked again */
				bool refused = rc && e.http_status >= 400 && e.http_status < 500 &&
					       e.http_status != 410 && e.http_status != 429;
				if (refused)
					inf->stream_list = false;
				LOG_WARN("informer %s: streaming list %s (%s): paged LIST%s", inf->resource,
					 refused ? "refused" : "ended before its initial events",
					 rc ? e.msg : "stream closed", refused ? " from now on" : " this time");
				list_next = !refused;
				if (rc == ERR_TRANSPORT) {
					api_conn_free(conn);
					conn = NULL;
					continue;
				}
			}
		}
		if (!inf->have_rv) {
			err_clear(&e);
			rc = api__inf_do_list(inf, conn, &e);
			if (rc == ERR_STOPPED || atomic_load(&inf->stop))
				break;
			if (rc) {
				LOG_WARN("informer %s: list failed: %s", inf->resource, e.msg);
				goto backoff;
			}
			list_next = false;
			/* The backoff is not reset here: a list that works between watches that fail
			 * (a relist after an error Status) must not make them retry at the minimum. */
			api__inf_mark_synced(inf);
		}

		if (!streamed) {
			err_clear(&e);
			events = 0;
			t0 = api_now_ns();
			rc = api__inf_do_watch(inf, conn, false, &events, &e);
			if (rc == ERR_STOPPED || atomic_load(&inf->stop))
				break;
		}
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
		enum api__inf_next next = api__inf_after_watch_error(rc, inf->have_status ? &inf->last_status : NULL);
		if (next == INF_RELIST) {
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
		LOG_WARN("informer %s: watch broken: %s%s", inf->resource, e.msg,
			 next != INF_RELIST_BACKOFF	    ? ""
			 : inf->last_status.rv_too_large ? " (resourceVersion too large: relisting)"
							 : " (relisting)");
		if (next == INF_RELIST_BACKOFF)
			inf->have_rv = false;
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
			long d = backoff_ms + (long)(api__inf_rng_next(inf) % (uint64_t)(backoff_ms / 2 + 1));
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
	static const char *const resources[] = { [API_KIND_POD] = "pods", [API_KIND_NODE] = "nodes",
						 [API_KIND_PVC] = "persistentvolumeclaims",
						 [API_KIND_SERVICE] = "services",
						 [API_KIND_RC] = "replicationcontrollers",
						 [API_KIND_REPLICASET] = "replicasets",
						 [API_KIND_STATEFULSET] = "statefulsets",
						 [API_KIND_NAMESPACE] = "namespaces",
						 [API_KIND_PDB] = "poddisruptionbudgets",
						 [API_KIND_PV] = "persistentvolumes",
						 [API_KIND_STORAGE_CLASS] = "storageclasses",
						 [API_KIND_CSINODE] = "csinodes",
						 [API_KIND_CSIDRIVER] = "csidrivers",
						 [API_KIND_VOLUME_ATTACHMENT] = "volumeattachments",
						 [API_KIND_CSI_STORAGE_CAPACITY] = "csistoragecapacities",
						 [API_KIND_RESOURCE_CLAIM] = "resourceclaims",
						 [API_KIND_RESOURCE_SLICE] = "resourceslices",
						 [API_KIND_DEVICE_CLASS] = "deviceclasses",
						 [API_KIND_DEVICE_TAINT_RULE] = "devicetaintrules" };
	if (!c || (unsigned)kind >= ARRAY_SIZE(resources) || !resources[kind]) {
		err_set(e, ERR_INVALID, "api_informer_new: %s", !c ? "no client" : "unknown kind");
		return NULL;
	}
	inf = calloc(1, sizeof(*inf));
	if (!inf || !(inf->json = api__json_new()))
		goto nomem;
	inf->client = c;
	inf->kind = kind;
	/* protobuf only for the kinds whose descriptors csched carries (apiclient/proto) */
	if (api__client_protobuf(c) && api__pb_kind_known(kind) && !(inf->pb = api__pb_new()))
		goto nomem;
	inf->resource = resources[kind];
	/* the core group unless listed */
	static const char *const groups[] = { [API_KIND_REPLICASET] = "/apis/apps/v1",
					      [API_KIND_STATEFULSET] = "/apis/apps/v1",
					      [API_KIND_PDB] = "/apis/policy/v1",
					      [API_KIND_STORAGE_CLASS] = "/apis/storage.k8s.io/v1",
					      [API_KIND_CSINODE] = "/apis/storage.k8s.io/v1",
					      [API_KIND_CSIDRIVER] = "/apis/storage.k8s.io/v1",
					      [API_KIND_VOLUME_ATTACHMENT] = "/apis/storage.k8s.io/v1",
					      [API_KIND_CSI_STORAGE_CAPACITY] = "/apis/storage.k8s.io/v1",
					      [API_KIND_RESOURCE_CLAIM] = "/apis/resource.k8s.io/v1",
					      [API_KIND_RESOURCE_SLICE] = "/apis/resource.k8s.io/v1",
					      [API_KIND_DEVICE_CLASS] = "/apis/resource.k8s.io/v1",
					      [API_KIND_DEVICE_TAINT_RULE] = "/apis/resource.k8s.io/v1" };
	inf->group_path = (unsigned)kind < ARRAY_SIZE(groups) && groups[kind] ? groups[kind] : "/api/v1";
	if (h)
		inf->h = *h;
	inf->page_size = opt && opt->page_size > 0 ? opt->page_size : INFORMER_DEFAULT_PAGE;
	inf->stream_list = !(opt && opt->paged_list);
	inf->shared = opt && opt->shared_connection;
	inf->min_watch_timeout_s = opt && opt->min_watch_timeout_s > 0 ? opt->min_watch_timeout_s
								       : INFORMER_DEFAULT_WATCH_S;
	if (opt && opt->field_selector && *opt->field_selector &&
	    !(inf->field_selector_q = api__inf_url_escape(opt->field_selector)))
		goto nomem;
	if (opt && opt->label_selector && *opt->label_selector &&
	    !(inf->label_selector_q = api__inf_url_escape(opt->label_selector)))
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
	mono_cond_init(&inf->cond);
	return inf;
nomem:
	if (inf) {
		api__json_free(inf->json);
		api__pb_free(inf->pb);
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
	if (inf->shared)
		api__client_watch_wake(inf->client); /* ends its stream now, not at the next event */
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
	api__pb_free(inf->pb);
	strbuf_release(&inf->pbuf);
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
	/* "ns/name" by hand: plugins' Filters look objects up per node (NodeVolumeLimits' claims and
	 * PVs), and snprintf was most of the lookup's cost in the volume benchmarks' profile */
	size_t nl = ns ? strlen(ns) : 0, ml = strlen(name), len = nl ? nl + 1 + ml : ml;
	if (len >= sizeof(key))
		return NULL;
	if (nl) {
		memcpy(key, ns, nl);
		key[nl] = '/';
	}
	memcpy(key + (nl ? nl + 1 : 0), name, ml + 1);
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
