/* The cache comparer (upstream pkg/scheduler/backend/cache/debugger CacheComparer): the cache
 * against the informers' stores. A node the node informer holds and the cache does not is
 * "missed", a cache entry the informer does not hold "redundant"; pods likewise by UID, where a
 * pod counts as cached when a node_info holds it (assumed included) or it is pending in the
 * queue (upstream PendingPods: not the pods in flight, so a comparison while a pod is being
 * scheduled can show it as missed, as upstream's).
 *
 *   struct sched_cache_diff d;
 *   if (sched_cache_compare(s, &d, &e) == 0 && !sched_cache_diff_empty(&d)) ...  // logged too
 *   sched_cache_diff_release(&d);
 *
 * csched runs it on SIGUSR2 (cmd/app.c) as kube-scheduler does, and the integration tests at
 * their end (cache == server). */
#ifndef CSCHED_COMPARER_H
#define CSCHED_COMPARER_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

struct scheduler;
struct cache;
struct queue;

/* A malloc'd array of malloc'd strings. */
struct sched_strv {
	char **v;
	size_t n;
};
void sched_strv_release(struct sched_strv *s);

struct sched_cache_diff {
	struct sched_strv missed_nodes, redundant_nodes; /* node names, sorted */
	struct sched_strv missed_pods, redundant_pods;   /* pod UIDs, sorted */
};

/* upstream compareStrings: both lists sorted (bytewise), merged; what only actual has is missed,
 * what only cached has is redundant (a duplicate counts once per extra copy). */
int sched_compare_strings(const char *const *actual, size_t n_actual, const char *const *cached, size_t n_cached,
			  struct sched_strv *missed, struct sched_strv *redundant, struct err *e);

/* The comparison of upstream's Compare on explicit inputs: the informers' node names and pod
 * UIDs against the cache c and the pending pods of q (NULL: none). Logs nothing. */
int sched_cache_compare_with(struct cache *c, struct queue *q, const char *const *nodes, size_t n_nodes,
			     const char *const *pods, size_t n_pods, struct sched_cache_diff *out, struct err *e);

/* Compares s's cache and queue with its pod and node informers and logs what upstream's Compare
 * logs: V(3) "Cache comparer started" / "Cache comparer finished" and, for each kind with a
 * difference, "Cache mismatch" missedNodes=[...] redundantNodes=[...] (then missedPods /
 * redundantPods), values JSON as klog writes them. */
int sched_cache_compare(struct scheduler *s, struct sched_cache_diff *out, struct err *e);

/* For tests at the end of a run (cache == server): compares every 100 ms until the cache agrees
 * (0, *out empty) or timeout_ms passes (ERR_CONFLICT, *out the last differences, logged as
 * sched_cache_compare does). The wait covers what a single comparison can catch in passing: a
 * pod in flight or an event between the store and the handler. Release *out either way. */
int sched_cache_wait_consistent(struct scheduler *s, long timeout_ms, struct sched_cache_diff *out, struct err *e);

/* The "Cache mismatch" lines of d (none when it is empty). */
void sched_cache_diff_log(const struct sched_cache_diff *d);

bool sched_cache_diff_empty(const struct sched_cache_diff *d);
void sched_cache_diff_release(struct sched_cache_diff *d);

#endif
