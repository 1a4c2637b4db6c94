/* The scheduling queue: pods waiting to be scheduled, in three tiers, plus nominated pods.
 *
 * Upstream's PriorityQueue (backend/queue/scheduling_queue.go, v1.37, QueueingHints GA; no pod groups):
 * - activeQ: a heap ordered by the caller's less function (PrioritySort by default: higher
 *   priority first, then earlier timestamp). queue_pop takes its head.
 * - backoffQ: two heaps by backoff expiry, one for pods rejected by plugins, one for pods that
 *   failed with an error (empty rejector sets). Completed backoffs move to activeQ on a flush.
 *   When activeQ is empty, pop may take the head of the plugin heap early (SchedulerPopFromBackoffQ).
 * - unschedulable: pods that no known event could help yet, and gated pods (PreEnqueue said no).
 *   Cluster events move them back (queue_move_on_event) when a rejector plugin's hint says Queue;
 *   after max_in_unschedulable (5 min) a flush moves them as a wildcard event.
 * - in flight: popped pods, with the cluster events seen since their pop, so that a pod failing
 *   after an event that could help it is not parked in unschedulable (no lost wake-up).
 *
 * Thread-safe: one mutex and one condition variable (queue_pop blocks on it). Hints, PreEnqueue
 * and less callbacks run under that mutex: they must be pure functions of their arguments and
 * must not call into the queue. Times are nanoseconds of a monotonic clock (injectable).
 *
 * Pods are identified by UID (interned). The queue holds references on the pods it keeps. */
#ifndef CSCHED_QUEUE_H
#define CSCHED_QUEUE_H

#include <stdbool.h>
#include <stddef.h> /* api_types.h uses size_t without including it */
#include <stdint.h>

#include "apiclient/api_types.h"
#include "common/err.h"
#include "queue/event.h"

struct queue;

/* ---------- Profiles ---------- */

/* PreEnqueue of a profile: true lets the pod into activeQ/backoffQ; false gates it and sets
 * *gating_plugin to the rejecting plugin's name (static or interned storage). */
typedef bool (*queue_pre_enqueue_fn)(void *ctx, const struct api_pod *pod, const char **gating_plugin);

/* One scheduling profile: its pods (by spec.schedulerName), hints and PreEnqueue. A registration
 * of Node Add without Node UpdateNodeTaint also gets Node UpdateNodeTaint (always Queue), as
 * upstream adds; callers that already add it lose nothing. */
struct queue_profile {
	const char *scheduler_name;
	const struct queue_hint_reg *hints;
	uint32_t n_hints;
	queue_pre_enqueue_fn pre_enqueue; /* NULL = every pod may enter */
	void *pre_enqueue_ctx;
};

/* ---------- Queued pod info ---------- */

/* What the queue knows about a pod. The caller owns the info between queue_pop and handing it back
 * (queue_add_unschedulable_if_not_present) or freeing it (queue_pod_info_free). */
struct queue_pod_info {
	struct api_pod *pod;               /* referenced */
	int64_t timestamp;                 /* last (re)enqueue: activeQ order and backoff start */
	int64_t initial_attempt_timestamp; /* first entry into activeQ, kept across attempts; 0 before */
	uint32_t attempts;                 /* pops so far */
	uint32_t unschedulable_count;      /* failures with rejector plugins */
	uint32_t consecutive_errors_count; /* failures without, reset by an unschedulable failure */
	const char *gating_plugin;         /* PreEnqueue plugin holding it back, NULL when not gated */
	/* Rejector sets of the last failure (interned names); cleared at pop. */
	uint32_t n_unschedulable_plugins;
	const char **unschedulable_plugins;
	uint32_t n_pending_plugins;
	const char **pending_plugins;
};

/* Frees an info the caller owns (drops its pod reference). NULL is a no-op. */
void queue_pod_info_free(struct queue_pod_info *qpi);
/* Replaces the info's pod (e.g. with the informer's latest copy before requeueing). */
void queue_pod_info_set_pod(struct queue_pod_info *qpi, struct api_pod *pod);

/* PrioritySort: priority descending, then timestamp ascending. */
bool queue_less_priority_sort(void *ctx, const struct queue_pod_info *a, const struct queue_pod_info *b);

/* ---------- Construction ---------- */

typedef int64_t (*queue_now_fn)(void *ctx); /* monotonic nanoseconds */

struct queue_options {
	bool (*less)(void *ctx, const struct queue_pod_info *a, const struct queue_pod_info *b); /* NULL = PrioritySort */
	void *less_ctx;
	int64_t initial_backoff_ns;       /* 0 = 1 s */
	int64_t max_backoff_ns;           /* 0 = 10 s */
	int64_t max_in_unschedulable_ns;  /* 0 = 5 min */
	bool no_pop_from_backoff;         /* disable SchedulerPopFromBackoffQ (beta, on by default in 1.37) */
	queue_now_fn now;                 /* NULL = CLOCK_MONOTONIC */
	void *now_ctx;
	/* Upstream extractPodScaleDown for pod updates (pass node_res_scaled_down); NULL = never. */
	queue_scaled_down_fn pod_scaled_down;
	const struct queue_profile *profiles; /* copied; pods of other schedulers use no hints */
	uint32_t n_profiles;
};

struct queue *queue_new(const struct queue_options *opts, struct err *e);
/* Stops the timer thread if started, frees everything. Blocked poppers must have returned. */
void queue_free(struct queue *q); /* NULL is a no-op */

/* Starts a thread that flushes completed backoffs every second (at whole seconds of the monotonic
 * clock with pop-from-backoff, as upstream aligns its flush to the ordering windows) and
 * unschedulable leftovers every 30 s (real time; decisions use the queue's clock). Stopped by
 * queue_close. */
int queue_start_timers(struct queue *q, struct err *e);
/* Wakes every queue_pop (they return ERR_STOPPED) and stops the timer thread. */
void queue_close(struct queue *q);

/* ---------- Pod informer (unassigned pods of our profiles) ---------- */

/* A new pod: activeQ, or unschedulable when gated. A known UID is treated as an update. */
int queue_add(struct queue *q, struct api_pod *pod, struct err *e);
/* Upstream Update: same resourceVersion -> ignored; in flight -> the pod's events are recorded
 * for its requeue; in activeQ/backoffQ -> replaced in place; unschedulable -> replaced, then moved
 * if a rejector's hint for one of the update's events says Queue; unknown -> added to activeQ.
 * The caller skips pods the cache has assumed (upstream's handler does). */
int queue_update(struct queue *q, const struct api_pod *old_pod, struct api_pod *new_pod, struct err *e);
/* Removes the pod from whichever tier holds it and drops its nomination. An in-flight pod is
 * remembered as deleted: its later requeue is dropped. */
void queue_delete(struct queue *q, const struct api_pod *pod);

/* ---------- Scheduler thread ---------- */

/* Blocks until a pod is available or the queue is closed (ERR_STOPPED). The pod becomes in
 * flight; attempts++; rejector sets cleared. *out is owned by the caller. */
int queue_pop(struct queue *q, struct queue_pod_info **out);
/* Non-blocking pop: ERR_NOT_FOUND when nothing is poppable. */
int queue_try_pop(struct queue *q, struct queue_pod_info **out);

/* The rejector sets of a failed attempt (plugin names; copied and interned). Both empty means an
 * error (bind failure, no nodes, internal error): backoff counted as an error. */
struct queue_failure {
	const char *const *unschedulable_plugins;
	uint32_t n_unschedulable_plugins;
	const char *const *pending_plugins;
	uint32_t n_pending_plugins;
};

/* Requeues a failed pod (upstream AddUnschedulableIfNotPresent) and marks it done. Takes ownership
 * of qpi in every case. Only events recorded after the pod's pop count: a Pending plugin's Queue
 * -> activeQ now; an Unschedulable plugin's Queue (or no rejector) -> after backoff; nothing ->
 * unschedulable. ERR_CONFLICT if the UID is already queued (qpi is freed). A pod deleted while in
 * flight is dropped. */
int queue_add_unschedulable_if_not_present(struct queue *q, struct queue_pod_info *qpi,
					   const struct queue_failure *f, struct err *e);
/* The attempt for pod_uid ended (bound, or given up): stops recording events for it. */
void queue_done(struct queue *q, const char *pod_uid);
/* upstream Activate (fh.Activate, e.g. after an async preemption failed): the pod moves from
 * unschedulable or backoffQ to activeQ now (through PreEnqueue); a pod in flight gets a
 * ForceActivate wildcard event so that its requeue goes back in; otherwise nothing. */
void queue_activate(struct queue *q, const char *pod_uid);
/* queue_activate for a pod that plugin's PreEnqueue gates (it is re-run); nothing otherwise. For
 * a gate whose end no cluster event announces (DefaultPreemption's, when its preemption's victims
 * were gone before it ran). */
void queue_activate_gated(struct queue *q, const char *pod_uid, const char *plugin);

/* ---------- Cluster events (informer threads) ---------- */

/* Moves the unschedulable pods the event may help (hints of their rejector plugins; every pod for
 * a wildcard; a gated pod only for a wildcard or an event its gating plugin registered) to
 * activeQ or backoffQ, and records the event for in-flight pods. precheck (may be NULL) limits
 * the pods considered. old_obj/new_obj are by resource (NULL allowed) api_node, api_pod, api_pvc,
 * api_pv, api_storage_class, api_csinode, api_csidriver, api_csi_storage_capacity or
 * api_volume_attachment, and are referenced while recorded; other resources must pass NULL. */
void queue_move_on_event(struct queue *q, const struct queue_event *ev, const void *old_obj, const void *new_obj,
			 bool (*precheck)(void *ctx, const struct api_pod *pod), void *precheck_ctx);

/* ---------- Timers ---------- */

/* Moves pods whose backoff completed from backoffQ to activeQ (every 1 s). */
void queue_flush_backoff_completed(struct queue *q);
/* Moves pods unschedulable for longer than max_in_unschedulable since their last attempt or their
 * last such flush (every 30 s), as a wildcard event labelled UnschedulableTimeout; a gated pod
 * goes through PreEnqueue again and stays while still gated. */
void queue_flush_unschedulable_leftover(struct queue *q);

/* ---------- Nominated pods ---------- */

/* Nominates pod to node_name (preemption), or when node_name is NULL to the pod's
 * status.nominatedNodeName (nothing if empty). Replaces an earlier nomination. */
int queue_add_nominated_pod(struct queue *q, struct api_pod *pod, const char *node_name, struct err *e);
void queue_delete_nominated_pod(struct queue *q, const char *pod_uid);

struct queue_nominated {
	const char *node_name; /* interned and referenced, */
	struct api_pod *pod;   /* referenced: queue_nominated_release drops them */
};
/* Nominated pods on node_name (NULL = every node) with priority >= min_priority, except the pod
 * with UID exclude_uid (may be NULL). *out is malloc'd (NULL when *n == 0). */
int queue_nominated_pods(struct queue *q, const char *node_name, int32_t min_priority, const char *exclude_uid,
			 struct queue_nominated **out, uint32_t *n, struct err *e);
void queue_nominated_release(struct queue_nominated *v, uint32_t n);
/* The node the pod is nominated to (interned), or NULL; valid while the nomination stands (tests). */
const char *queue_nominated_node(struct queue *q, const char *pod_uid);

/* ---------- Metrics and introspection ---------- */

struct queue_counts {
	uint32_t active, backoff, unschedulable, gated; /* pending pods (upstream pending_pods) */
	uint32_t in_flight;
	uint32_t in_flight_events; /* events recorded for in-flight pods */
	uint32_t nominated;
};
void queue_counts(struct queue *q, struct queue_counts *out);
/* The pods in activeQ now (cheap: the scheduling loop asks after each pop). */
uint32_t queue_active_len(struct queue *q);

enum queue_tier { QUEUE_TIER_NONE, QUEUE_TIER_ACTIVE, QUEUE_TIER_BACKOFF, QUEUE_TIER_UNSCHEDULABLE,
		  QUEUE_TIER_GATED, QUEUE_TIER_IN_FLIGHT };
/* Where the pod with this UID is now. */
enum queue_tier queue_pod_tier(struct queue *q, const char *pod_uid);
/* Calls cb with the UID of every pending pod (upstream PendingPods: active, backoff and
 * unschedulable, gated included; not the pods in flight), under the queue lock: cb must not call
 * into the queue. */
void queue_pending_foreach(struct queue *q, void (*cb)(void *ctx, const char *uid), void *ctx);

/* Upstream scheduler_queue_incoming_pods_total{queue, event}: cb is called for each non-zero
 * counter (queue "active", "backoff" or "unschedulable", gated pods included in the latter as
 * upstream counts them), under the queue lock. */
void queue_incoming_foreach(struct queue *q, void (*cb)(void *ctx, const char *queue, const char *event,
							uint64_t count),
			    void *ctx);

/* Upstream scheduler_unschedulable_pods{plugin, profile}: for every pod in the queue (not in
 * flight), each plugin that rejected its last attempt (unschedulable or pending plugins, or the
 * PreEnqueue plugin gating it) counts the pod once; upstream increments at the failure and
 * decrements at the next pop, which amounts to the same. cb is called once per (plugin, profile
 * scheduler name) with a non-zero count, under the queue lock. */
void queue_rejector_counts(struct queue *q, void (*cb)(void *ctx, const char *plugin, const char *profile,
						       uint64_t count),
			   void *ctx);

/* Backoff duration for a pod with these counts (upstream getBackoffTime's count, then
 * calculateBackoffDuration): none without a failure; attempts is not used (kept for callers). The
 * expiry is then timestamp + duration, truncated to the 1 s window when pods may pop from
 * backoffQ, and a pod leaves backoff once the clock's window is past it (isEntityBackingoff). */
int64_t queue_backoff_duration(const struct queue *q, uint32_t attempts, uint32_t unschedulable_count,
			       uint32_t consecutive_errors_count);

#endif
