/* List + watch of one resource kind, delivering typed objects to handlers.
 *
 * THREADS: each informer runs one thread with its own connection (or, with
 * api_informer_options.shared_connection, its streams on the client's one shared connection).
 * It LISTs page by page (limit/continue), then WATCHes from the list's resourceVersion with
 * allowWatchBookmarks and a randomized timeoutSeconds, and resumes from the last resourceVersion
 * after a broken stream (jittered backoff). On 410 Gone it relists and delivers the difference
 * against its store: adds, updates and the deletes that happened in the gap. Handlers run on the
 * informer thread (a shared informer's events and listed items: on the shared connection's
 * muxer thread, while its own thread waits), one at a time, in event order; they must not block
 * for long (a shared informer's would hold up every other one's stream), must not wait for
 * another shared informer's events, and must take their own references to objects they keep.
 * An object that fails to decode is logged and skipped. */
#ifndef CSCHED_INFORMER_H
#define CSCHED_INFORMER_H

#include <stdbool.h>
#include <stddef.h>

#include "apiclient/api_client.h"

enum api_kind {
	API_KIND_POD,          /* struct api_pod */
	API_KIND_NODE,         /* struct api_node */
	API_KIND_PVC,          /* struct api_pvc */
	API_KIND_NAMESPACE,    /* struct api_namespace */
	API_KIND_SERVICE,      /* struct api_selector_owner, kind API_SEL_SERVICE */
	API_KIND_RC,           /* ... API_SEL_RC */
	API_KIND_REPLICASET,   /* ... API_SEL_RS (apps/v1) */
	API_KIND_STATEFULSET,  /* ... API_SEL_SS (apps/v1) */
	API_KIND_PDB,          /* struct api_pdb (policy/v1 poddisruptionbudgets) */
	API_KIND_PV,           /* struct api_pv (v1 persistentvolumes) */
	API_KIND_STORAGE_CLASS, /* struct api_storage_class (storage.k8s.io/v1 storageclasses) */
	API_KIND_CSINODE,      /* struct api_csinode (storage.k8s.io/v1 csinodes) */
	API_KIND_CSIDRIVER,    /* struct api_csidriver (storage.k8s.io/v1 csidrivers) */
	API_KIND_VOLUME_ATTACHMENT, /* struct api_volume_attachment (storage.k8s.io/v1 volumeattachments) */
	API_KIND_CSI_STORAGE_CAPACITY, /* struct api_csi_storage_capacity (storage.k8s.io/v1 csistoragecapacities) */
	API_KIND_RESOURCE_CLAIM,   /* struct api_resource_claim (resource.k8s.io/v1 resourceclaims) */
	API_KIND_RESOURCE_SLICE,   /* struct api_resource_slice (resource.k8s.io/v1 resourceslices) */
	API_KIND_DEVICE_CLASS,     /* struct api_device_class (resource.k8s.io/v1 deviceclasses) */
	API_KIND_DEVICE_TAINT_RULE, /* struct api_device_taint_rule (resource.k8s.io/v1 devicetaintrules) */
};

/* obj is the struct of the kind (api_pod, api_node, api_pvc, ...: see enum api_kind); borrowed for the call. */
struct api_informer_handlers {
	void (*on_add)(void *ctx, void *obj);
	void (*on_update)(void *ctx, void *old_obj, void *new_obj);
	void (*on_delete)(void *ctx, void *obj);
	/* Called once, after the first LIST has been delivered. May be NULL. */
	void (*on_synced)(void *ctx);
	void *ctx;
};

struct api_informer_options {
	const char *field_selector; /* e.g. "status.phase!=Succeeded,status.phase!=Failed"; NULL = none */
	const char *label_selector; /* NULL = none */
	int page_size;              /* LIST limit; 0 = 500 */
	/* Sync (and relist) with paged LISTs only. Default: a streaming list first (a watch with
	 * sendInitialEvents=true, as client-go's WatchListClient), falling back to LIST when the
	 * server refuses it or the stream ends before its initial events do. */
	bool paged_list;
	int min_watch_timeout_s;    /* watch timeoutSeconds drawn from [min, 2*min); 0 = 300 */
	/* LIST and watch over the client's one shared connection (HTTP/2 streams, as client-go's
	 * informers; HTTP/1.1 connections when the server refuses h2), decoded on its muxer's
	 * thread. For the quiet kinds: a network connection less each. Default: a connection of
	 * the informer's own, decoded on its thread (the busy kinds: pods, nodes). */
	bool shared_connection;
};

struct api_informer;

struct api_informer *api_informer_new(struct api_client *c, enum api_kind kind,
				      const struct api_informer_options *opt,
				      const struct api_informer_handlers *h, struct err *e);
/* Starts the thread. After api_informer_stop, starting again keeps the store and resumes the
 * watch from the last resourceVersion (relisting only if the server answers 410). */
int api_informer_start(struct api_informer *inf, struct err *e);
void api_informer_stop(struct api_informer *inf); /* stops the thread and waits for it */
void api_informer_free(struct api_informer *inf); /* stops if running */

/* Fills the store from a dump instead of the server (csched simulate): json is a v1 List (as
 * `kubectl get ... -o json` prints it) or one object; the items whose kind is the informer's
 * (kind "Pod" for resource "pods", by kubectl's plural) are decoded and delivered to the handlers
 * as a LIST's would be (the pod informer skips Succeeded and Failed pods, as its field selector
 * does); items of other kinds are skipped. The informer then counts as synced. May be called more
 * than once (later items replace earlier ones with the same key); never on a started informer.
 * *loaded: the items taken. ERR_INVALID when json does not parse. */
int api_informer_load_list(struct api_informer *inf, const char *json, size_t len, size_t *loaded, struct err *e);

bool api_informer_synced(const struct api_informer *inf);
/* Blocks until synced or timeout_ms passes; true when synced. */
bool api_informer_wait_synced(struct api_informer *inf, long timeout_ms);

/* The store: the latest object by "namespace/name" (or "name"), with a new reference the caller
 * drops (the kind's unref: api_pod_unref, api_pvc_unref, ...), or NULL. */
void *api_informer_get(struct api_informer *inf, const char *ns, const char *name);
size_t api_informer_len(struct api_informer *inf);
/* Calls fn for each stored object (under the store lock: fn must not call back into it). */
void api_informer_foreach(struct api_informer *inf, void (*fn)(void *ctx, void *obj), void *ctx);

/* Counters for tests and metrics. */
struct api_informer_stats {
	unsigned long lists, relists, watches, watch_errors, gone, bookmarks, decode_errors;
	unsigned long streamed_lists; /* of lists: those made by a streaming list */
	unsigned long protobuf_responses; /* LIST pages and watch streams the server sent as protobuf */
	unsigned long added, updated, deleted;
	const char *last_resource_version; /* valid until the next event; for logs only */
};
void api_informer_stats(struct api_informer *inf, struct api_informer_stats *out);

#endif
