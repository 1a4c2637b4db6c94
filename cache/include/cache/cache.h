/* The scheduler cache: every node and every pod assigned to one (bound or assumed), as node_infos.
 *
 * Informer threads feed it (nodes, assigned pods); the scheduler thread assumes pods onto nodes
 * and copies what changed into its private snapshot once per cycle; binder threads finish or
 * forget assumed pods. Every function is thread-safe: one mutex guards the whole cache and is held
 * for memory operations only (never across I/O or a call into another module).
 *
 * Semantics follow upstream's backend/cache/cache.go (v1.34):
 * - Pods are identified by UID. A pod is "assumed" from cache_assume_pod until the informer's add
 *   confirms it (cache_add_pod), or cache_forget_pod undoes it. Assumed pods never expire.
 * - api_pod objects are immutable, so an assumed pod keeps spec.nodeName == "": the node it is
 *   counted on is the one given to cache_assume_pod (the node_info that holds it).
 * - A node entry without a Node object (pods assumed or bound to an unknown node, or pods left
 *   after the node's deletion) is a "ghost": kept while it has pods, never in a snapshot.
 * - Every change bumps a cache-wide generation and stamps it on the changed node_info, which moves
 *   to the head of a recency list, so cache_update_snapshot copies only what changed. A node_info's
 *   generation changes whenever its node or pods change, and no two caches of a process
 *   share a generation: (node_info, generation) can key a result computed from its content.
 *
 * Objects passed in are referenced (api_*_ref) by the cache as needed; the caller keeps its own. */
#ifndef CSCHED_CACHE_H
#define CSCHED_CACHE_H

#include <stdbool.h>
#include <stddef.h> /* api_types.h uses size_t without including it */
#include <stdint.h>

#include "apiclient/api_types.h"
#include "common/err.h"

struct cache;
struct snapshot;

struct cache *cache_new(void);
void cache_free(struct cache *c); /* NULL is a no-op */

/* ---------- Nodes (node informer) ---------- */

/* Adds the node, or replaces the Node object of an existing entry (a ghost gets its node back). */
int cache_add_node(struct cache *c, struct api_node *node, struct err *e);
/* Replaces the node's object (old_node may be NULL); the zone order follows label changes. */
int cache_update_node(struct cache *c, const struct api_node *old_node, struct api_node *new_node,
		      struct err *e);
/* Drops the Node object; the entry stays as a ghost while pods remain. ERR_NOT_FOUND if unknown. */
int cache_remove_node(struct cache *c, const struct api_node *node, struct err *e);

/* ---------- Assigned pods (pod informer: pods with spec.nodeName) ---------- */

/* An assigned pod seen by the informer. Confirms it if it was assumed (moving it when it was bound
 * to another node than assumed); adds it otherwise. ERR_CONFLICT if it is already added. */
int cache_add_pod(struct cache *c, struct api_pod *pod, struct err *e);
/* Replaces an added pod's object. ERR_NOT_FOUND if unknown, ERR_CONFLICT if still assumed,
 * ERR_INVALID if new_pod names another node than the cached copy (the cache is left unchanged). */
int cache_update_pod(struct cache *c, const struct api_pod *old_pod, struct api_pod *new_pod, struct err *e);
/* Removes the cached copy of the pod (found by UID) from its node. ERR_NOT_FOUND if unknown. */
int cache_remove_pod(struct cache *c, const struct api_pod *pod, struct err *e);

/* ---------- Scheduling (scheduler and binder threads) ---------- */

/* Counts pod on node_name before it is bound. ERR_CONFLICT if the UID is already in the cache.
 * An unknown node_name gets a ghost entry. */
int cache_assume_pod(struct cache *c, struct api_pod *pod, const char *node_name, struct err *e);
/* Marks the assumed pod's binding as finished (kept for metrics; assumed pods do not expire). */
int cache_finish_binding(struct cache *c, const struct api_pod *pod, struct err *e);
/* Undoes cache_assume_pod. 0 if the pod is no longer in the cache; ERR_INVALID if it is not
 * assumed or was assumed on another node than node_name. */
int cache_forget_pod(struct cache *c, const struct api_pod *pod, const char *node_name, struct err *e);

bool cache_is_assumed(struct cache *c, const char *pod_uid);
/* The node an assumed pod is counted on (interned, with a reference the caller gives back with
 * intern_release), NULL when the pod is not assumed (upstream handleAssumedPodDeletion reads the
 * assumed pod from the cache). */
const char *cache_assumed_node(struct cache *c, const char *pod_uid);

/* Brings snap up to date: copies only the node_infos changed since snap's generation, rebuilds the
 * zone-interleaved node list only when the set or zones of nodes changed, and the affinity lists
 * only when some node's membership flipped. Call from the thread that owns snap, while no worker
 * reads it. Returns ERR_NOMEM (snap is then rebuilt in full by the next call). */
int cache_update_snapshot(struct cache *c, struct snapshot *snap, struct err *e);

/* ---------- Metrics ---------- */

struct cache_counts {
	uint32_t nodes;        /* node entries, ghosts included (upstream cache_size{type="nodes"}) */
	uint32_t pods;         /* pods in the cache, assumed included */
	uint32_t assumed_pods;
	uint64_t generation;
};
void cache_counts(struct cache *c, struct cache_counts *out);

/* ---------- Introspection (the cache comparer, tests) ---------- */

/* Calls on_node with the name of every node entry (ghosts included) and on_pod with the UID of
 * every pod (assumed included): what upstream's Cache.Dump shows its comparer. Called under the
 * cache lock: the callbacks must not call into the cache. Either callback may be NULL. */
void cache_foreach_key(struct cache *c, void (*on_node)(void *ctx, const char *name),
		       void (*on_pod)(void *ctx, const char *uid), void *ctx);

#endif
