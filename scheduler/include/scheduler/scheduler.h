/* The scheduler: wires the informers, the cache, the queue, the framework, the binder workers and
 * the event recorder into a running kube-scheduler.
 *
 * USAGE (cmd/main.c; tests run the same thing in-process):
 *   struct sched_options o = { .cfg = &cfg, .client = client, .event_client = event_client,
 *                              .metrics = metrics };
 *   struct scheduler *s = sched_new(&o, &e);          // profiles, queue, cache; no thread yet
 *   sched_start_informers(s, &e);                     // pod + node informers fill cache and queue
 *   ... when leader (or at once without leader election):
 *   sched_start_scheduling(s, &e);                    // binders, event recorder, the loop
 *   ... SIGTERM:
 *   sched_stop(s);                                    // every thread stopped and joined
 *   sched_free(s);
 *
 * What it schedules: pods whose spec.schedulerName names one of the configuration's profiles and
 * that have no spec.nodeName. Assigned pods (any scheduler) only feed the cache. Pods being
 * deleted are skipped; pods of other schedulers are never written to.
 *
 * Threads (DESIGN in scheduler.c): two informer threads (pods, nodes) run the event handlers;
 * one scheduling loop (queue_pop -> snapshot -> fw_schedule_pod on the worker pool -> assume,
 * Reserve, Permit) hands each pod to the binder workers (PreBind, Bind, PostBind) so it never
 * waits for the API server; one event recorder thread sends events. The queue runs its own
 * flush timers. Metrics: see sched_options.metrics (timings observed after each cycle; queue and
 * cache figures read when scraped).
 *
 * Hooks for the production pieces (health.h, leader.h, metrics.h): sched_loop_alive and
 * sched_caches_synced have the signature of sched_health_options' callbacks (pass the scheduler
 * as ctx); sched_start_scheduling is what leader election's on_started_leading calls (it only
 * starts threads and returns). Every function here may be called from any thread unless noted. */
#ifndef CSCHED_SCHEDULER_H
#define CSCHED_SCHEDULER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apiclient/api_client.h"
#include "common/err.h"

struct config;
struct sched_metrics;
struct api_pod;

/* Defaults of the tunables below. */
#define SCHED_DEFAULT_BINDERS 64 /* at most; started on demand (binds in flight) */
#define SCHED_DEFAULT_EVENT_QPS 50.0
#define SCHED_DEFAULT_EVENT_BURST 100
#define SCHED_DEFAULT_EVENT_QUEUE 8192
#define SCHED_DEFAULT_EVENT_WINDOW_MS (10 * 60 * 1000) /* aggregation window */
#define SCHED_DEFAULT_EVENT_SERIES_MS 30000           /* a series is re-sent at most this often */
/* The loop is reported dead when one scheduling attempt has run for longer than this. */
#define SCHED_LOOP_STALL_MS 60000

/* Test hooks. Called on binder threads; may block (e.g. to provoke a race with the server). */
struct sched_hooks {
	void *ctx;
	/* Before Bind of pod (unassigned copy) to node. */
	void (*before_bind)(void *ctx, const struct api_pod *pod, const char *node_name);
};

struct sched_options {
	/* The configuration (borrowed; must outlive the scheduler). NULL = config_init_default. Its
	 * clientConnection is not used here: the caller built the clients from it. */
	const struct config *cfg;
	struct api_client *client;       /* required, borrowed: informers, binds, status patches */
	struct api_client *event_client; /* borrowed; NULL = client (upstream uses its own client so
					  * events do not eat the binds' rate limit) */
	struct sched_metrics *metrics;   /* optional, borrowed; sources are installed by sched_new and
					  * read the scheduler: stop serving /metrics before sched_free */
	int binders;                     /* max binder threads; 0 = SCHED_DEFAULT_BINDERS */
	double event_qps;                /* events sent per second; 0 = default, < 0 = unlimited */
	int event_burst;                 /* 0 = default */
	int event_queue;                 /* events waiting to be sent; 0 = default; oldest dropped */
	long event_window_ms;            /* 0 = default */
	long event_series_ms;            /* 0 = default */
	const char *instance;            /* reportingInstance suffix; NULL = hostname */
	/* Optional: whether this replica may write. Asked by the binders right before each Bind
	 * (false fails the binding as an error: the pod is forgotten and requeued) and each status
	 * patch (false drops it), by the event sender before each event (false drops it) and by the
	 * loop before each pop (false: it waits): a replica that may have lost its lease neither
	 * schedules nor writes. Pass sched_leader_is_leader's answer here. */
	bool (*may_bind)(void *ctx);
	void *may_bind_ctx;
	struct sched_hooks hooks;
};

struct scheduler;

/* Builds profiles (one per configured profile), the queue, the cache and the informers; starts
 * nothing. NULL on error (e names the profile/plugin, or an unsupported configuration). */
struct scheduler *sched_new(const struct sched_options *o, struct err *e);
/* Starts the pod and node informers (idempotent). */
int sched_start_informers(struct scheduler *s, struct err *e);
/* Starts informers if needed, the binder workers, the event recorder and the scheduling loop,
 * which waits for the informers' first LIST before the first pop (WaitForCacheSync). Idempotent;
 * returns at once. */
int sched_start_scheduling(struct scheduler *s, struct err *e);
/* Waits until the informers have delivered their first LIST, up to timeout_ms. */
bool sched_wait_synced(struct scheduler *s, long timeout_ms);
/* Stops the loop, the binders (bindings in flight finish), the event recorder (queued events are
 * sent for up to a second, then dropped), and the informers; joins every thread. Idempotent. */
void sched_stop(struct scheduler *s);
void sched_free(struct scheduler *s); /* stops first; NULL is a no-op */

/* ---------- Health and leader-election hooks ---------- */

/* Liveness of the loop (ctx is the struct scheduler *): true unless one scheduling attempt has
 * been running for longer than SCHED_LOOP_STALL_MS. An idle loop (blocked on an empty queue) and
 * a loop not started yet (standby) are alive. */
bool sched_loop_alive(void *ctx);
/* Readiness (ctx is the struct scheduler *): both informers have delivered their first LIST. */
bool sched_caches_synced(void *ctx);
/* CLOCK_MONOTONIC ns of the loop's last sign of life (end of an attempt or of a wait); 0 before
 * the loop started. */
int64_t sched_heartbeat_ns(const struct scheduler *s);
/* Whether sched_start_scheduling ran. */
bool sched_is_scheduling(const struct scheduler *s);

/* ---------- Introspection (tests, logs) ---------- */

struct sched_stats {
	uint64_t attempts;      /* scheduling attempts (pods popped and not skipped) */
	uint64_t scheduled;     /* bound */
	uint64_t unschedulable; /* attempts ending with a rejection */
	uint64_t errors;        /* attempts ending with an error (bind failures included) */
	uint64_t bind_failures;
	uint64_t skipped;       /* popped but skipped (being deleted, assumed, unknown profile) */
	uint64_t dropped;       /* failed pods not requeued: deleted or bound meanwhile */
	uint64_t status_patches;
	uint64_t events_sent, events_aggregated, events_dropped, event_errors;
	uint32_t cache_nodes, cache_pods, cache_assumed; /* the cache right now */
	uint32_t queue_pending;                           /* active + backoff + unschedulable + gated */
	uint32_t queue_in_flight;
};
void sched_stats(const struct scheduler *s, struct sched_stats *out);

/* Whether the cache holds pod_uid as assumed (tests: consistency after a failed bind). */
bool sched_cache_is_assumed(struct scheduler *s, const char *pod_uid);
/* Pods counted on node_name in the cache (assumed included); -1 when the node is unknown. */
int sched_cache_node_pods(struct scheduler *s, const char *node_name);

#endif
