/* Scheduler metrics: upstream kube-scheduler's metric families (names, labels, help text and
 * histogram buckets of pkg/scheduler/metrics/metrics.go), leader_election_master_status and the
 * process_* metrics, rendered in the Prometheus text exposition format (version 0.0.4).
 *
 * USAGE (scheduler):
 *   struct sched_metrics *m = sched_metrics_new();
 *   struct sched_metrics_sources src = { .ctx = s, .pending_pods = my_pending, .cache_size = my_sizes,
 *                                        .queue_incoming = my_incoming, .unschedulable_pods = my_rejected };
 *   sched_metrics_set_sources(m, &src);          // before the health server starts
 *   ... per pod:
 *   sched_metrics_schedule_attempt(m, SCHED_METRICS_SCHEDULED, "csched", seconds);
 *   sched_metrics_algorithm_duration(m, seconds);
 *   sched_metrics_pod_scheduled(m, attempts, seconds_since_first_enqueue);
 *   sched_metrics_extension_point_duration(m, "Filter", "Success", "csched", seconds);
 *   sched_metrics_plugin_durations(m, "NodeResourcesFit", "Filter", "Success", buckets, 21, sum);
 *   ... shutdown, after every thread that observes has stopped:
 *   sched_metrics_free(m);
 *
 * THREADS: every observe function may be called from any thread at any time, concurrently with
 * sched_metrics_render. Observing is a handful of relaxed atomic adds plus, for labelled
 * families, a lock-free lookup of the label values (a new label set takes a per-family mutex
 * once). Label strings are copied; callers may pass literals, interned or temporary strings.
 * Each family holds at most SCHED_METRICS_MAX_SERIES label sets; observations of further label
 * sets are dropped and counted in csched_metrics_dropped_observations_total, so a label bug
 * cannot exhaust memory.
 *
 * Observe functions return void on purpose: they cannot fail in a way a caller could act on
 * (an allocation failure is counted like a dropped observation). */
#ifndef CSCHED_METRICS_H
#define CSCHED_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define SCHED_METRICS_MAX_SERIES 4096

struct sched_metrics;

/* The `result` label of scheduler_schedule_attempts_total and
 * scheduler_scheduling_attempt_duration_seconds. */
enum sched_metrics_result {
	SCHED_METRICS_SCHEDULED,     /* "scheduled" */
	SCHED_METRICS_UNSCHEDULABLE, /* "unschedulable" */
	SCHED_METRICS_ERROR,         /* "error" */
};

/* Families read at scrape time from the scheduler's own counters (so they are never stale and
 * cost nothing between scrapes). */
struct sched_metrics_pending {
	int64_t active, backoff, unschedulable, gated;
};
struct sched_metrics_cache_size {
	int64_t nodes, pods, assumed_pods;
};
/* Hands one series of a two-label family to the registry: its label values (in the family's
 * label order; copied) and value. */
typedef void (*sched_metrics_emit_fn)(void *emit_ctx, const char *label1, const char *label2, double value);
struct sched_metrics_sources {
	void *ctx;
	/* Called from the HTTP thread (one scrape may run several): each must only take the owner's
	 * lock briefly. NULL: the family is not exported. */
	/* scheduler_pending_pods{queue} */
	void (*pending_pods)(void *ctx, struct sched_metrics_pending *out);
	/* scheduler_scheduler_cache_size{type} */
	void (*cache_size)(void *ctx, struct sched_metrics_cache_size *out);
	/* scheduler_queue_incoming_pods_total{queue,event}: emit(queue, event, count) for every
	 * counter (the queue counts at each move, so a scrape is exact). */
	void (*queue_incoming)(void *ctx, sched_metrics_emit_fn emit, void *emit_ctx);
	/* scheduler_unschedulable_pods{plugin,profile}: emit(plugin, profile, pods) for every plugin
	 * that rejected queued pods. A series once exported stays, at 0 when not emitted. */
	void (*unschedulable_pods)(void *ctx, sched_metrics_emit_fn emit, void *emit_ctx);
};

struct sched_metrics *sched_metrics_new(void); /* NULL on allocation failure */
void sched_metrics_free(struct sched_metrics *m); /* NULL is a no-op */

/* Installs the scrape-time callbacks (copied). Call before the health server starts. */
void sched_metrics_set_sources(struct sched_metrics *m, const struct sched_metrics_sources *src);

/* ---------- Observations (m may be NULL: then they do nothing) ---------- */

/* One scheduling attempt ended: scheduler_schedule_attempts_total{result,profile} += 1 and
 * scheduler_scheduling_attempt_duration_seconds{result,profile} observes seconds. */
void sched_metrics_schedule_attempt(struct sched_metrics *m, enum sched_metrics_result result, const char *profile,
				    double seconds);
/* OpportunisticBatching's metrics as upstream v1.37 records them for a profile whose pods it does
 * not sign (its default profile: docs/config.md "OpportunisticBatching"), where every hint request
 * finds no batch state. A cycle past PreFilter asked for a hint:
 * scheduler_batch_attempts_total{profile,result="no_hint"} += 1 and
 * scheduler_get_node_hint_duration_seconds{hinted="no_hint",profile} observes seconds. */
void sched_metrics_batch_no_hint(struct sched_metrics *m, const char *profile, double seconds);
/* A cycle that found a host stored its results: scheduler_store_schedule_results_duration_seconds
 * {profile} observes seconds and scheduler_batch_cache_flushed_total{profile,reason} += 1, reason
 * "empty_list" when one node was feasible (nothing left to batch), else "pod_not_batchable". */
void sched_metrics_batch_stored(struct sched_metrics *m, const char *profile, bool one_node, double seconds);
/* The same families for a profile upstream signs pods of, as batch.go records them:
 * GetNodeHint: scheduler_get_node_hint_duration_seconds{hinted="hint"|"no_hint",profile} observes
 * seconds and, without a hint, scheduler_batch_attempts_total{profile,result="no_hint"} += 1. */
void sched_metrics_batch_hint(struct sched_metrics *m, const char *profile, bool hinted, double seconds);
/* scheduler_batch_attempts_total{profile,result} += 1 ("hint_used", "hint_not_used"). */
void sched_metrics_batch_attempt(struct sched_metrics *m, const char *profile, const char *result);
/* scheduler_batch_cache_flushed_total{profile,reason} += 1. */
void sched_metrics_batch_flush(struct sched_metrics *m, const char *profile, const char *reason);
/* scheduler_store_schedule_results_duration_seconds{profile} observes seconds. */
void sched_metrics_batch_store(struct sched_metrics *m, const char *profile, double seconds);
/* scheduler_batch_rescore_attempts_total{profile} += 1, scheduler_batch_rescore_duration_seconds
 * {profile} observes seconds (the last chosen node still fit and was rescored). */
void sched_metrics_batch_rescore(struct sched_metrics *m, const char *profile, double seconds);
/* scheduler_scheduling_algorithm_duration_seconds. */
void sched_metrics_algorithm_duration(struct sched_metrics *m, double seconds);
/* A pod was bound: scheduler_pod_scheduling_sli_duration_seconds{attempts} observes seconds
 * (since the pod first entered the queue; attempts "1".."14", then "15+" as upstream caps it) and
 * scheduler_pod_scheduling_attempts observes attempts. */
void sched_metrics_pod_scheduled(struct sched_metrics *m, int attempts, double seconds);
/* scheduler_framework_extension_point_duration_seconds{extension_point,status,profile};
 * extension_point as upstream ("PreFilter", "Filter", "PostFilter", "PreScore", "Score",
 * "Reserve", "Permit", "PreBind", "Bind", "PostBind", ...), status the framework code name
 * ("Success", "Unschedulable", "UnschedulableAndUnresolvable", "Error", "Wait", "Skip"). */
void sched_metrics_extension_point_duration(struct sched_metrics *m, const char *extension_point,
					    const char *status, const char *profile, double seconds);
/* csched_extender_duration_seconds{extender,verb,result}: one HTTP extender call (csched's own;
 * upstream has no extender latency metric). */
void sched_metrics_extender_duration(struct sched_metrics *m, const char *extender, const char *verb, bool ok,
				     double seconds);
/* scheduler_plugin_execution_duration_seconds{plugin,extension_point,status}. Upstream samples
 * plugin timings for 10% of the cycles; the caller decides whether to sample. */
void sched_metrics_plugin_duration(struct sched_metrics *m, const char *plugin, const char *extension_point,
				   const char *status, double seconds);
/* The same family, many observations at once: buckets[0..nbuckets) counts them per bucket of the
 * family (upstream's ExponentialBuckets(0.00001, 1.5, 20): nbuckets must be 21, the last counting
 * values above 0.0221...; not cumulative) and sum is their total in seconds. A wrong nbuckets
 * drops the batch (counted in csched_metrics_dropped_observations_total). */
void sched_metrics_plugin_durations(struct sched_metrics *m, const char *plugin, const char *extension_point,
				    const char *status, const uint64_t *buckets, size_t nbuckets, double sum);
/* scheduler_preemption_attempts_total += 1 (every PostFilter run of DefaultPreemption). */
void sched_metrics_preemption_attempt(struct sched_metrics *m);
/* scheduler_preemption_victims observes victims (when a candidate was chosen). */
void sched_metrics_preemption_victims(struct sched_metrics *m, int victims);
/* scheduler_preemption_goroutines_execution_total{result="success"|"error"} += 1: one async
 * preemption (its API calls) ended. */
void sched_metrics_preemption_goroutine(struct sched_metrics *m, bool ok);
/* leader_election_master_status{name} = leader ? 1 : 0 (set by scheduler/leader.c). */
void sched_metrics_set_leader(struct sched_metrics *m, const char *lease_name, bool leader);

/* ---------- Rendering ---------- */

/* Renders every family (scheduler, leader election, process_*) as Prometheus text, version
 * 0.0.4. *out is malloc'd and NUL-terminated; the caller frees it. A histogram's buckets are
 * cumulative, end with le="+Inf", and _count equals the +Inf bucket. Returns 0 or ERR_NOMEM. */
int sched_metrics_render(struct sched_metrics *m, char **out, size_t *len, struct err *e);

#define SCHED_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* ---------- Exposed for tests ---------- */

/* Reads one series by family name and label values (nlabels values, in the family's label
 * order): a counter's or gauge's value, a histogram's count. False when no such series exists
 * (pending pods, cache size and process metrics are not readable here, and the source-fed
 * incoming-pods and unschedulable-pods families only as of the last render). */
bool sched_metrics_read(struct sched_metrics *m, const char *family, const char *const *labels, size_t nlabels,
			double *value);

/* Process metrics from /proc/self (stat, statm, fd, limits). Returns 0 or ERR_IO. */
struct sched_metrics_process {
	double cpu_seconds, start_time_seconds;
	double resident_bytes, virtual_bytes;
	double open_fds, max_fds;
};
int sched_metrics_read_process(struct sched_metrics_process *out, struct err *e);

#endif
