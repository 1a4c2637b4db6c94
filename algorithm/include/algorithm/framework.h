/* The scheduling framework as the scheduler uses it: the plugin registry, profiles, the per-pod
 * cycle state and the generic scheduling algorithm (PreFilter -> Filter -> PostFilter ->
 * PreScore -> Score -> NormalizeScore -> weighted sum -> select host), plus the
 * Reserve/Permit/Bind runners the scheduler's loop and binder call. What plugins see is in
 * algorithm/plugin.h.
 *
 * A profile (struct fw_profile, opaque) is built from a struct fw_profile_config: the ordered
 * plugins of each extension point with score weights and the plugins' parsed args; each enabled
 * plugin gets one instance (struct fw_pl) and one slot in the cycle state.
 *
 * Threads: a profile is used by one scheduler thread (fw_schedule_pod, fw_run_*). During
 * fw_schedule_pod, Filter and Score callbacks run on the worker pool (struct fw_pool). The
 * Reserve..PostBind runners may run on a binder thread, one thread per cycle state at a time. */
#ifndef CSCHED_FRAMEWORK_H
#define CSCHED_FRAMEWORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "algorithm/plugin.h"
#include "common/err.h"
#include "config/config.h"
#include "queue/queue.h"

#define FW_DEFAULT_PARALLELISM 16

/* ---------- Registry (algorithm/registry.c) ---------- */

/* The registry: every plugin csched implements. NULL when unknown. */
const struct fw_plugin *fw_registry_lookup(const char *name);
/* The implemented plugins in table order; *n receives their count. */
const struct fw_plugin *const *fw_registry_all(size_t *n);
/* The whole table (implemented or not, upstream's default order) as config/'s loaders take it.
 * Static. */
const struct cfg_registry *fw_registry(void);
/* Whether plugin implements point ep. */
bool fw_plugin_implements(const struct fw_plugin *plugin, enum cfg_ext_point ep);

/* ---------- Profiles ---------- */

/* What a profile runs. points[ep] lists (name, weight) in order; weight matters only at
 * CFG_EP_SCORE (0 = 1). args NULL = every plugin's defaults. All pointers are borrowed for the
 * duration of fw_profile_new except args, which must outlive the profile. */
struct fw_profile_config {
	const char *scheduler_name;
	bool has_percentage_of_nodes_to_score;
	int32_t percentage_of_nodes_to_score;
	struct cfg_plugin_list points[CFG_EP_COUNT];
	const struct cfg_plugin_args *args;
	uint32_t sign_mask; /* config_profile_sign_mask: OpportunisticBatching, 0 = off */
};

/* Upstream's default plugin set and weights restricted to the plugins csched implements, derived
 * from the registry table: equal to config's default profile. The lists point to static storage. */
void fw_default_profile_config(const char *scheduler_name, struct fw_profile_config *out);
/* The framework's view of a loaded config profile (effective lists, args); no allocation. */
void fw_profile_config_from_cfg(const struct cfg_profile *p, struct fw_profile_config *out);

/* Binds pod to node through the API server (the scheduler supplies it; algorithm/ does not know
 * HTTP). Returns 0 or a negative ERR_* code with e filled. Called from binder threads. */
typedef int (*fw_bind_fn)(void *ctx, const struct api_pod *pod, const char *node_name, struct err *e);

struct fw_pool;

/* ---------- HTTP extenders (upstream fwk.Extender; the scheduler implements the calls, algorithm/
 * knows no HTTP) ---------- */

/* A node an extender's Filter rejected: FailedNodes, or FailedAndUnresolvableNodes (unresolvable). */
struct fw_ext_failed {
	const char *node;   /* as the extender spelt it */
	const char *reason; /* the extender's message */
	bool unresolvable;
};

/* An extender's Filter answer. kept: the nodes it passed, by name, in its order; has_kept false
 * when it returned neither NodeNames nor Nodes (upstream: no node passes). Arrays and strings are
 * allocated with fw_cycle_alloc. */
struct fw_ext_filter_result {
	bool has_kept;
	uint32_t n_kept;
	const char **kept;
	uint32_t n_failed;
	struct fw_ext_failed *failed;
};

/* An extender's HostPriorityList (scores 0..FW_MAX_EXTENDER_PRIORITY as the extender says). */
#define FW_MAX_EXTENDER_PRIORITY 10
/* upstream framework.ExtenderName: the rejector recorded when extenders filtered nodes out */
#define FW_EXTENDER_NAME "Extender"
struct fw_ext_score {
	const char *host;
	int64_t score;
};
struct fw_ext_prio_result {
	uint32_t n;
	struct fw_ext_score *scores; /* fw_cycle_alloc */
};

/* One configured extender. The calls run on the scheduler thread, one at a time; they return 0,
 * or a negative code with e filled when the extender failed (transport, HTTP status, decoding, an
 * Error in its result), which the cycle handles as upstream (ignorable: skipped). */
struct fw_extender {
	const char *name; /* upstream Name(): the urlPrefix */
	bool is_filter, is_prioritizer, is_binder, ignorable;
	int64_t weight;
	void *ctx;
	bool (*is_interested)(void *ctx, const struct api_pod *pod);
	int (*filter)(void *ctx, struct fw_cycle *c, const struct api_pod *pod, const struct node_info *const *nodes,
		      uint32_t n, struct fw_ext_filter_result *out, struct err *e);
	int (*prioritize)(void *ctx, struct fw_cycle *c, const struct api_pod *pod,
			  const struct node_info *const *nodes, uint32_t n, struct fw_ext_prio_result *out,
			  struct err *e);
	/* upstream ProcessPreemption (preemptVerb; NULL = SupportsPreemption false): the extender's
	 * answer to the candidates in[0..n_in), as victims per node; an out victim is a pod of that
	 * node's node_info (nodes looks nodes up; a nodeCacheCapable extender answers with UIDs).
	 * *out (fw_cycle_alloc, victims too) may hold fewer nodes, none, or nodes with no victims. */
	int (*preempt)(void *ctx, struct fw_cycle *c, const struct api_pod *pod, const struct fw_preemption *in,
		       uint32_t n_in, const struct fw_node_list *nodes, struct fw_preemption **out, uint32_t *n_out,
		       struct err *e);
};

struct fw_profile_options {
	int32_t percentage_of_nodes_to_score; /* the global value, used when the profile has none */
	struct fw_pool *pool;                 /* borrowed; NULL = run filters and scores inline */
	fw_bind_fn bind;                      /* used by DefaultBinder */
	void *bind_ctx;
	struct fw_listers listers;            /* copied; unset members = no such store */
	struct fw_preempt_ops preempt;        /* copied; unset members = no executor */
	struct fw_volume_ops volume;          /* copied; unset members: see struct fw_volume_ops */
	struct fw_dra_ops dra;                /* copied; unset members: see struct fw_dra_ops */
	/* HTTP extenders in configured order, shared by every profile as upstream's sched.Extenders;
	 * borrowed, must outlive the profile */
	const struct fw_extender *extenders;
	uint32_t n_extenders;
	/* Optional: the prioritize calls of xs[0..nx) at once (upstream runs them in goroutines), each
	 * extender's answer in out[i] and its failure in rcs[i] (0 or negative) and errs[i]; NULL = one
	 * after the other through fw_extender.prioritize. Called on the scheduler thread. */
	void (*ext_prioritize_all)(void *ctx, struct fw_cycle *c, const struct api_pod *pod,
				   const struct node_info *const *nodes, uint32_t n, const struct fw_extender *const *xs,
				   uint32_t nx, struct fw_ext_prio_result *out, int *rcs, struct err *errs);
	void *ext_ctx;
};

/* Builds a profile. Errors (unknown plugin, plugin without the point it is listed at, weight
 * out of range, duplicate QueueSort/Bind-less profile, args rejected by a plugin) name the
 * profile, the point and the plugin. */
struct fw_profile *fw_profile_new(const struct fw_profile_config *pc, const struct fw_profile_options *o,
				  struct err *e);
void fw_profile_free(struct fw_profile *p);

const char *fw_profile_name(const struct fw_profile *p);
/* The instances enabled at ep, in order; *n receives the count. */
const struct fw_pl *const *fw_profile_plugins(const struct fw_profile *p, enum cfg_ext_point ep, uint32_t *n);
/* Score weight of a score plugin instance (1..100). */
int32_t fw_profile_weight(const struct fw_profile *p, const struct fw_pl *pl);
bool fw_profile_has_post_filter(const struct fw_profile *p);

/* Whether the profile runs upstream's OpportunisticBatching hints (upstream signs its pods). */
bool fw_profile_batches(const struct fw_profile *p);
/* upstream's scheduling cycle count (SchedulingQueue.SchedulingCycle) of the next fw_schedule_pod
 * on p: the batch state is used only by the cycle right after the one that stored it. Without
 * it, p counts its own fw_schedule_pod calls. */
void fw_profile_set_cycle(struct fw_profile *p, uint64_t cycle);
/* Forgets the batch state and last cycle, as a newly started upstream scheduler has none (a
 * test that schedules unrelated states on one profile). */
void fw_profile_batch_reset(struct fw_profile *p);

/* Sets upstream's nextStartNodeIndex back to 0: the next fw_schedule_pod tries the nodes from the
 * first (explain: the same state gives the same answer, ties included). */
void fw_profile_rewind(struct fw_profile *p);

/* An informer delivered the delete of obj (see struct fw_plugin's object_deleted): tells each
 * enabled plugin instance that asked. Safe on informer threads, concurrently with cycles. */
void fw_profile_object_deleted(const struct fw_profile *p, enum queue_resource res, const void *obj);

/* The profile's QueueSort less function (PrioritySort unless configured otherwise). */
fw_less_fn fw_profile_less(const struct fw_profile *p);

/* The queue's view of the profile (queue/queue.h): the event registrations of every plugin enabled
 * at any point, each with the plugin instance as its hint's argument (they point into the profile,
 * which must outlive the queue), and the PreEnqueue plugins. */
void fw_profile_queue_profile(const struct fw_profile *p, struct queue_profile *out);

/* PreEnqueue plugins in order; the first non-Success is returned in st (plugin name set). */
enum fw_code fw_run_pre_enqueue(const struct fw_profile *p, const struct api_pod *pod, struct fw_status *st);

/* ---------- Nodes and nominated pods ---------- */

struct snapshot;
/* A node list over a cache snapshot (snapshot_nodes, snapshot_get); valid while the snapshot is
 * not updated. */
void fw_node_list_from_snapshot(const struct snapshot *s, struct fw_node_list *out);

/* A pod nominated to a node (status.nominatedNodeName or preemption). */
struct fw_nominated_pod {
	const char *node_name; /* interned */
	const struct api_pod *pod;
};
/* Every nominated pod known to the queue, borrowed for the duration of fw_schedule_pod. The
 * framework adds, on each node, those of priority >= the pod's (other than the pod itself). */
struct fw_nominated {
	uint32_t n;
	const struct fw_nominated_pod *pods;
};

/* ---------- Cycle state ---------- */

/* Per-pod scheduling state: one slot per plugin instance plus an arena, from PreFilter until
 * PostBind. Owned by one thread at a time (scheduler, then binder). */
struct fw_cycle *fw_cycle_new(const struct fw_profile *p);
void fw_cycle_free(struct fw_cycle *c);
/* Clears slots and the arena for another attempt. */
void fw_cycle_reset(struct fw_cycle *c);

/* ---------- Timings (for upstream's framework metrics) ---------- */

/* The extension points, named by fw_ep_str as upstream's extension_point label values. */
enum fw_ep {
	FW_EP_PRE_FILTER,
	FW_EP_FILTER,
	FW_EP_POST_FILTER,
	FW_EP_PRE_SCORE,
	FW_EP_SCORE,
	FW_EP_SCORE_NORMALIZE, /* "ScoreExtensionNormalize": plugin timings only */
	FW_EP_RESERVE,
	FW_EP_UNRESERVE,
	FW_EP_PERMIT,
	FW_EP_PRE_BIND,
	FW_EP_BIND,
	FW_EP_POST_BIND,
	FW_EP_COUNT
};
const char *fw_ep_str(enum fw_ep ep);

/* One run of an extension point over all its plugins, as upstream observes
 * framework_extension_point_duration_seconds: PreFilter, Filter (the whole parallel pass; Success
 * unless a plugin failed with an error), PostFilter, PreScore, Score (scores, normalisation and
 * weights), Reserve, Unreserve, Permit, PreBind, Bind, PostBind, each with the code the runner
 * returned. Every cycle records these (two clock reads per point). */
struct fw_ep_timing {
	enum fw_ep ep;
	enum fw_code code;
	int64_t ns;
};

/* Upstream's plugin_execution_duration_seconds buckets, ExponentialBuckets(0.00001, 1.5, 20): the
 * upper bounds in seconds, computed by repeated multiplication as Go does. */
#define FW_PLUGIN_TIMING_BUCKETS 20
const double *fw_plugin_timing_bounds(void);

/* The plugin calls of one sampled cycle that share (plugin, extension point, returned code): one
 * observation per call (each Filter and Score call on each node counts), binned with
 * fw_plugin_timing_bounds: buckets[i] counts calls with seconds <= bound i and > bound i-1;
 * buckets[FW_PLUGIN_TIMING_BUCKETS] those above the last bound. */
struct fw_plugin_timing {
	const char *plugin; /* static plugin name */
	enum fw_ep ep;
	enum fw_code code;
	uint64_t count;
	double sum_s;
	uint64_t buckets[FW_PLUGIN_TIMING_BUCKETS + 1];
};

/* Whether the cycle also times every plugin call (upstream SetRecordPluginMetrics, decided per
 * cycle by the scheduler: pluginMetricsSamplePercent). Off after fw_cycle_new and fw_cycle_reset.
 * Costs a clock read per plugin call, so only a sample of cycles should turn it on. */
void fw_cycle_set_record_plugin_timings(struct fw_cycle *c, bool on);

/* Receives a cycle's timings (either callback may be NULL). */
struct fw_timing_sink {
	void *ctx;
	void (*ep)(void *ctx, const struct fw_ep_timing *t);
	void (*plugin)(void *ctx, const struct fw_plugin_timing *t);
};
/* Hands the timings recorded since the last drain (or reset) to sink and forgets them. Called by the
 * thread that owns c: the scheduler thread before a binder takes the cycle, the binder at its end.
 * fw_cycle_reset forgets undrained timings. */
void fw_cycle_drain_timings(struct fw_cycle *c, const struct fw_timing_sink *sink);

/* ---------- The generic scheduling algorithm ---------- */

/* A node's filter failure. */
struct fw_node_status {
	const char *node_name;
	const struct fw_status *status;
};

/* Why a pod did not fit (upstream's Diagnosis + FitError). Statuses live in the profile and stay
 * valid until the next fw_schedule_pod on the same profile; plugin name strings are static. */
struct fw_diagnosis {
	uint32_t num_all_nodes;           /* nodes in the snapshot */
	uint32_t n_node_status;           /* nodes that failed Filter, with their status */
	const struct fw_node_status *node_status;
	bool has_absent_status;           /* status of every node not in node_status */
	struct fw_status absent_status;
	char pre_filter_msg[FW_STATUS_TEXT_MAX];  /* "" unless PreFilter rejected the pod */
	char post_filter_msg[FW_STATUS_TEXT_MAX]; /* "" unless PostFilter ran and failed */
	uint32_t n_unschedulable_plugins; /* rejector plugins (Unschedulable/UUR) */
	const char *unschedulable_plugins[FW_MAX_PLUGINS];
	uint32_t n_pending_plugins;
	const char *pending_plugins[FW_MAX_PLUGINS];
};

/* upstream's OpportunisticBatch cache flush reasons (metrics.BatchFlush*), FW_FLUSH_NONE: none. */
enum fw_batch_flush {
	FW_FLUSH_NONE,
	FW_FLUSH_POD_FAILED,
	FW_FLUSH_POD_SKIPPED,
	FW_FLUSH_POD_NOMINATED,
	FW_FLUSH_NODE_MISSING,
	FW_FLUSH_EMPTY_LIST,
	FW_FLUSH_EXPIRED,
	FW_FLUSH_POD_INCOMPATIBLE,
	FW_FLUSH_POD_NOT_BATCHABLE,
	FW_FLUSH_FILTER_ERROR,
	FW_FLUSH_PRESCORE_ERROR,
	FW_FLUSH_RESCORE_ERROR,
	FW_FLUSH_NORMALIZE_ERROR,
};
/* The reason label ("pod_failed", ...); "" for FW_FLUSH_NONE. */
const char *fw_batch_flush_name(enum fw_batch_flush f);

/* What one cycle's GetNodeHint and StoreScheduleResults did (a profile upstream signs pods of:
 * fw_profile_batches), for upstream's scheduler_batch_* metrics. */
struct fw_batch_outcome {
	const char *hint;                /* the hinted node (interned), NULL: no_hint */
	enum fw_batch_flush hint_flush;  /* GetNodeHint found the state unusable */
	int64_t hint_ns;                 /* GetNodeHint's duration */
	bool rescored;                   /* batch_rescore_attempts_total += 1, rescore_ns observed */
	int64_t rescore_ns;
	bool stored;                     /* StoreScheduleResults ran (store_ns observed) */
	const char *attempt;             /* "hint_used", "hint_not_used" or NULL (batch_attempts_total) */
	int64_t store_ns;
	enum fw_batch_flush store_flush; /* pod_not_batchable, empty_list or none */
};

struct fw_schedule_result {
	/* FW_SUCCESS: suggested_host set. FW_UNSCHEDULABLE: a fit error (diag; fw_fit_error_message,
	 * then PostFilter). FW_UNSCHEDULABLE_AND_UNRESOLVABLE: the snapshot has no nodes (upstream
	 * ErrNoNodesAvailable: no PostFilter, empty rejector sets). FW_ERROR: a plugin failed;
	 * status says which and why. */
	enum fw_code code;
	const char *suggested_host; /* interned node name */
	uint32_t evaluated_nodes;
	uint32_t feasible_nodes;
	/* PreFilter passed on a non-empty snapshot: the point where upstream asks
	 * OpportunisticBatching for a node hint (findNodesThatFitPod's GetNodeHint) */
	bool asked_hint;
	struct fw_batch_outcome batch; /* fw_profile_batches(p) only */
	struct fw_status status;
	struct fw_diagnosis diag;
};

/* ---------- Recording a cycle (csched explain) ----------
 *
 * What fw_schedule_pod computes besides its result, kept for a reader of the decision: the feasible
 * nodes and, when the cycle scored them, every score plugin's raw and normalized score per node and
 * the totals the pick compared. Attached to one cycle state (fw_cycle_set_record); the scheduler's
 * cycles never attach one, and the cycle then only tests a NULL pointer once per score plugin (no
 * per-node cost). Everything points into the cycle's arena or the profile's scratch: valid until
 * the next fw_schedule_pod on the profile or the cycle's reset. */
struct fw_record {
	/* The feasible nodes as the pick saw them (after extenders), in the order Filter found them. */
	uint32_t n_feasible;
	const struct node_info *const *feasible;
	/* The nominated node alone was tried and fits (upstream evaluateNominatedNode): the cycle
	 * evaluated no other node. */
	bool nominated_fast_path;
	/* Score ran (more than one feasible node): over nodes[0..n_scored) (the feasible order), the
	 * plugins pls[0..n_pl) that scored (PreScore Skip and a Skip of the per-pod preparation drop a
	 * plugin, as the real cycle does), raw[k * n_scored + i] as Score returned it, normalized[...]
	 * after NormalizeScore (= raw for a plugin without one), weight[k], and totals[i] = the
	 * weighted sum plus the extenders' scaled scores (the heap's key). */
	bool scored;
	uint32_t n_scored, n_pl;
	const struct node_info *const *nodes;
	const struct fw_pl *const *pls;
	const int64_t *raw, *normalized, *totals;
	const int32_t *weight;
	/* An HTTP extender scored nodes: equal totals were broken by a random draw (upstream's
	 * Randomizer), not by the heap's layout alone. */
	bool randomized;
	/* The cycle the record is attached to and the pod it scheduled: what fw_explain_rejection
	 * needs to ask a rejecting plugin for its detail after the cycle. */
	const struct fw_cycle *cycle;
	const struct api_pod *pod;
};

/* Attaches r (zeroed by the call, filled by the next fw_schedule_pod on c) to c; NULL detaches.
 * fw_cycle_reset detaches. */
void fw_cycle_set_record(struct fw_cycle *c, struct fw_record *r);

/* explain only (never the scheduling loop): the detail the Filter plugin named plugin (a status's
 * plugin) gives for rejecting rec's pod on ni, beyond its reasons (struct fw_plugin.explain), as
 * lines appended to out, each ending in '\n'. rec: a record filled by fw_schedule_pod whose cycle
 * has not been reset since. 0 (nothing appended when the plugin has no explain or nothing to
 * add), or a negative ERR_* code with e. */
int fw_explain_rejection(const struct fw_record *rec, const struct node_info *ni, const char *plugin,
			 struct strbuf *out, struct err *e);

/* upstream numFeasibleNodesToFind: n < 100 -> n; pct 0 = adaptive (50 - n/125, at least 5);
 * at least 100. */
uint32_t fw_num_feasible_nodes_to_find(int32_t percentage, uint32_t num_all_nodes);

/* Schedules pod on nodes (plugins.md section 7). c must be fresh (fw_cycle_new or _reset).
 * nominated may be NULL. Returns 0 with res filled (the outcome is res->code), or a negative
 * ERR_* code (out of memory, bad arguments) with e filled. */
int fw_schedule_pod(struct fw_profile *p, struct fw_cycle *c, const struct fw_node_list *nodes,
		    const struct api_pod *pod, const struct fw_nominated *nominated,
		    struct fw_schedule_result *res, struct err *e);

/* Upstream's FitError.Error(): "0/N nodes are available: ...". Returns buf. */
const char *fw_fit_error_message(const struct fw_diagnosis *d, char *buf, size_t size);

/* PostFilter plugins after a fit error (upstream RunPostFilterPlugins); on rejection its message
 * goes into d->post_filter_msg. Skipped (Unschedulable, no message) when none is enabled. */
enum fw_code fw_run_post_filter(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
				struct fw_diagnosis *d, struct fw_post_filter_result *out, struct fw_status *st);

/* The binding-side extension points, run in order; each returns the first non-Success status
 * (plugin name set). fw_run_unreserve runs every Reserve plugin's Unreserve in reverse order. */
enum fw_code fw_run_reserve(const struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
			    const char *node_name, struct fw_status *st);
void fw_run_unreserve(const struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
		      const char *node_name);
/* Permit: Success, a rejection, or Wait with *timeout_ms the shortest requested wait. */
enum fw_code fw_run_permit(const struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
			   const char *node_name, int64_t *timeout_ms, struct fw_status *st);
enum fw_code fw_run_pre_bind(const struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
			     const char *node_name, struct fw_status *st);
/* Bind plugins until one does not Skip. */
enum fw_code fw_run_bind(const struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
			 const char *node_name, struct fw_status *st);
void fw_run_post_bind(const struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
		      const char *node_name);

/* The scheduler's bind callback as configured (DefaultBinder uses it). */
int fw_profile_call_bind(const struct fw_profile *p, const struct api_pod *pod, const char *node_name,
			 struct err *e);

/* Whether pl is NodeResourcesFit or NodeResourcesBalancedAllocation scoring a resource name a
 * DeviceClass may back (DRAExtendedResource: an extended resource or
 * deviceclass.resource.kubernetes.io/<class>): its Score then reads the ResourceSlice and
 * ResourceClaim stores (upstream's DRA manager), which the scheduler must inform. */
bool fw_pl_scores_device_resources(const struct fw_pl *pl);

/* ---------- DRA devices outside a cycle (csched devices, algorithm/dra_devices.c) ----------
 * The structured allocator's own device checks (algorithm/plugins/dra_allocator.h), for tools
 * that show an operator what the scheduler would see. */

/* Compiled CEL device selectors, cached by expression (the allocator's cache). Thread-safe. */
struct fw_dra_selectors;
struct fw_dra_selectors *fw_dra_selectors_new(void); /* NULL on out of memory */
void fw_dra_selectors_free(struct fw_dra_selectors *sel); /* NULL is a no-op */
/* Whether device d of slice s satisfies every expression of exprs[0..n) (in order, bound as
 * upstream's allocator binds a device: driver, allowMultipleAllocations, attributes and capacity
 * by domain): 1 yes, 0 no, or a negative code with the first compile or runtime error in e
 * (upstream's text, naming the selector and the device). */
int fw_dra_device_matches(struct fw_dra_selectors *sel, const struct api_resource_slice *s,
			  const struct api_dra_device *d, const char *const *exprs, uint32_t n, struct err *e);
/* Whether device d of slice s is available on node (the slice's nodeName, nodeSelector or
 * allNodes, or the device's own with perDeviceNodeSelection), as upstream's allocator decides. */
bool fw_dra_device_on_node(const struct api_resource_slice *s, const struct api_dra_device *d,
			   const struct api_node *node);

/* ---------- Worker pool ---------- */

/* A fixed pool of threads running parallel loops (upstream's Parallelizer.Until). The caller of
 * fw_pool_run takes part, so a pool of parallelism P starts P-1 threads, but at most (usable CPUs
 * - 1) of them work at once (the rest sleep): more runnable threads than CPUs only queue. Loops
 * of fewer than 128 indices, or that fit in one chunk, run inline on the caller (handing work
 * over costs more than it saves). One fw_pool_run at a time (it is called by the scheduler
 * thread only). */
struct fw_pool *fw_pool_new(int parallelism, struct err *e);
void fw_pool_free(struct fw_pool *p);
int fw_pool_parallelism(const struct fw_pool *p);
/* Calls fn(ctx, i) for every i in [0, n) across the pool, in chunks of upstream's size
 * (min(sqrt(n), n/P + 1), at least 1). Once *stop is true (fn may set it) no further piece
 * starts. Returns when every started piece finished. p NULL runs inline. */
void fw_pool_run(struct fw_pool *p, size_t n, void (*fn)(void *ctx, size_t i), void *ctx, _Atomic bool *stop);
/* Workers that may run one loop at once (caller included): per-worker state of fw_pool_run_w is
 * indexed [0, fw_pool_workers). 1 for NULL. */
int fw_pool_workers(const struct fw_pool *p);
/* fw_pool_run passing the worker running index i: 0 for the caller, 1.. for helpers, below
 * fw_pool_workers(p); no two threads of one loop share a worker index. */
void fw_pool_run_w(struct fw_pool *p, size_t n, void (*fn)(void *ctx, int worker, size_t i), void *ctx,
		   _Atomic bool *stop);
/* While inline is true, the loops run on the caller alone (the scheduler sets it when no pod
 * waits behind the one it schedules: see scheduler.c loop_main). The results are the same. */
void fw_pool_set_inline(struct fw_pool *p, bool inline_only);

#endif
