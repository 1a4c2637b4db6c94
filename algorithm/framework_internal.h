/* Internal to algorithm/: the profile and cycle-state layouts and the plugin table. Plugins and
 * framework files include this; nothing outside algorithm/ may. */
#ifndef CSCHED_FRAMEWORK_INTERNAL_H
#define CSCHED_FRAMEWORK_INTERNAL_H

#include <time.h>

#include "algorithm/framework.h"
#include "common/clock.h"
#include "plugin_helpers.h"

struct arena;
struct fw_cleanup;
struct fw_plugin_timing_node;

/* One scored feasible node (upstream fwk.NodePluginScores: Name, TotalScore, Randomizer). */
struct fw_scored_node {
	const struct node_info *node; /* of the snapshot it was scored on: the batch state keeps name */
	const char *name;             /* interned */
	int64_t total;
	/* upstream: rand.Int() only for the nodes an HTTP extender scored (schedule_one.go
	 * prioritizeNodes), else 0 */
	int64_t randomizer;
	uint32_t row; /* its column in the raw scores kept for OpportunisticBatching (batch.c) */
};

/* A scheduling signature (sign.c): buf[0..len) compares for equality; the rest is scratch. Grown
 * only, so signing allocates nothing once warm. */
struct fw_sig {
	char *buf;
	size_t len, cap;
	size_t *items; /* starts of the list items being written */
	size_t n_items, items_cap;
	char *tmp;
	size_t tmp_cap;
	size_t *tmp_pairs;
	size_t tmp_pairs_cap;
	bool oom;
};

/* upstream runtime.OpportunisticBatch of a profile whose pods upstream signs (batch.c). */
struct fw_batch {
	uint32_t sign_mask; /* CFG_SIGN_*: 0 = upstream signs no pod, no batching */
	struct fw_sig pod;  /* this cycle's pod */
	bool pod_signed;
	/* batchState: signature, the sorted remainder (heap, n_heap) and its creation time */
	bool have_state;
	struct fw_sig sig;
	int64_t created_ns;
	uint32_t n_heap;
	size_t heap_cap;
	struct fw_scored_node *heap;
	/* raw scores of the heap's nodes: raw[k * stride + row] for plugin pls[k] (RawScores) */
	uint32_t n_pls, stride;
	const struct fw_pl *pls[FW_MAX_PLUGINS];
	size_t raw_cap;
	int64_t *raw;
	/* the cycle's own raw scores, kept by fw_prioritize_and_select, swapped in on store */
	uint32_t cur_n_pls, cur_stride;
	const struct fw_pl *cur_pls[FW_MAX_PLUGINS];
	size_t cur_raw_cap;
	int64_t *cur_raw;
	/* lastCycle */
	uint64_t last_cycle;
	const char *last_chosen; /* interned, a counted reference the state owns */
	/* the heap's node names as stored, each a counted reference the state owns: a node deleted
	 * while the state lives must not free a name the next hint compares (heap entries are only
	 * reordered, popped or rebuilt from these same names afterwards) */
	const char **owned;
	size_t n_owned, owned_cap;
	bool last_succeeded;
	uint64_t cycle; /* this cycle's count (fw_cycle_set_count), else the profile's own count */
	bool cycle_given;
};

/* Extension-point runs one cycle can record: each point once, Filter twice (nominated node). */
#define FW_EP_TIMINGS_MAX 16

struct fw_profile {
	const char *name; /* interned */
	bool has_pct;
	int32_t pct;
	int32_t global_pct;
	uint32_t n_pl;
	struct fw_pl pls[FW_MAX_PLUGINS];
	int32_t weights[FW_MAX_PLUGINS]; /* by fw_pl.index; score weight */
	uint32_t n_points[CFG_EP_COUNT];
	const struct fw_pl *points[CFG_EP_COUNT][FW_MAX_PLUGINS];
	struct fw_pool *pool; /* borrowed */
	fw_bind_fn bind;
	void *bind_ctx;
	struct fw_listers listers;
	struct fw_preempt_ops preempt;
	struct fw_volume_ops volume;
	struct fw_dra_ops dra;
	const struct fw_extender *extenders; /* borrowed (fw_profile_options) */
	uint32_t n_extenders;
	void (*ext_prioritize_all)(void *ctx, struct fw_cycle *c, const struct api_pod *pod,
				   const struct node_info *const *nodes, uint32_t n, const struct fw_extender *const *xs,
				   uint32_t nx, struct fw_ext_prio_result *out, int *rcs, struct err *errs);
	void *ext_ctx;
	uint32_t n_hints;             /* event registrations of the enabled plugins, built once */
	struct queue_hint_reg *hints; /* ctx = the registering struct fw_pl */

	/* Mutated by fw_schedule_pod only (scheduler thread). */
	uint32_t next_start; /* upstream nextStartNodeIndex */
	/* upstream's SortedScoredNodes after selectHost's Pop: the scored feasible nodes not chosen,
	 * a max-heap in Go container/heap layout (fw_sorted_nodes_*), n_sorted of them; 0 when the
	 * last fw_schedule_pod did not score (one feasible node, failure). Valid until the next
	 * fw_schedule_pod on this profile. */
	uint32_t n_sorted;
	size_t sorted_cap;
	struct fw_scored_node *sorted;
	struct fw_batch batch;
	size_t scratch_cap;  /* entries in each scratch array */
	struct fw_status *scratch_status;            /* per candidate node; written on failure */
	unsigned char *scratch_state;                /* per candidate node: 0 not run, 1 failed */
	const struct node_info **scratch_feasible;   /* feasible nodes, in completion order */
	const struct node_info **scratch_nodes;      /* candidates when PreFilter narrowed them */
	size_t scratch_calls_cap;                    /* entries in the two arrays below */
	uint32_t *scratch_call_ticks;                /* sampled Filter/Score calls: fw_ticks taken */
	uint8_t *scratch_call_code;                  /* and code (FW_CALL_NOT_RUN: not called) */
	size_t scratch_scores_cap;                   /* entries in scratch_scores */
	int64_t *scratch_scores;                     /* Score: [plugin][feasible node] */
	size_t scratch_node_scores_cap;              /* entries in scratch_node_scores */
	struct fw_node_score *scratch_node_scores;   /* NormalizeScore's input and output */
	size_t scratch_totals_cap;                   /* entries in scratch_totals */
	int64_t *scratch_totals;                     /* per scored node (score.c totals_room) */
};

/* The nominated pods that count on one node this cycle. */
struct fw_nom_bucket {
	uint32_t n;
	const struct api_pod **pods;
};

struct fw_cycle {
	const struct fw_profile *profile;
	struct arena *arena;
	void *slots[FW_MAX_PLUGINS];
	bool skip_filter[FW_MAX_PLUGINS];
	bool skip_score[FW_MAX_PLUGINS];
	const struct fw_node_list *nodes; /* during fw_schedule_pod */
	const void *nominated;            /* struct map * of node name -> fw_nom_bucket, or NULL */
	bool used;                        /* fw_schedule_pod ran since the last reset */
	bool preempting;                  /* DefaultPreemption's dry run: fw_removed_pod_next */
	struct fw_record *record;         /* explain (fw_cycle_set_record); NULL in the scheduler's cycles */
	struct fw_cleanup *cleanups;

	/* Timings since the last drain (fw_cycle_drain_timings). */
	bool record_plugins;              /* time every plugin call (sampled cycle) */
	uint32_t n_ep_times;
	struct fw_ep_timing ep_times[FW_EP_TIMINGS_MAX];
	struct fw_plugin_timing_node *plugin_times; /* list in the arena */
};

/* ---------- Timings (framework.c) ---------- */

static inline int64_t fw_now_ns(void)
{
	return mono_ns();
}

/* The clock of per-call timings in sampled cycles (one read per Filter or Score call, thousands
 * per cycle): on x86 the TSC (measured 3x cheaper per sampled cycle than clock_gettime in a VM),
 * converted with fw_ns_per_tick; elsewhere the monotonic clock (one tick = 1 ns). Only differences
 * taken on one thread are meaningful. */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline int64_t fw_ticks(void)
{
	return (int64_t)__rdtsc();
}
#else
static inline int64_t fw_ticks(void)
{
	return fw_now_ns();
}
#endif
/* Nanoseconds per fw_ticks tick, measured once against the monotonic clock (2 ms, on the first
 * call). */
double fw_ns_per_tick(void);

/* Records a run of ep that started at start_ns and ended now with code (dropped when full). */
void fw_cycle_record_ep(struct fw_cycle *c, enum fw_ep ep, enum fw_code code, int64_t start_ns);
/* Start of a plugin call: the clock when the cycle records plugin timings, else 0. */
static inline int64_t fw_plugin_clock(const struct fw_cycle *c)
{
	return c->record_plugins ? fw_now_ns() : 0;
}
/* End of a plugin call started at t0 (fw_plugin_clock): recorded when the cycle is sampled. */
void fw_cycle_record_plugin(struct fw_cycle *c, const struct fw_pl *pl, enum fw_ep ep, enum fw_code code, int64_t t0);
/* Adds sampled calls: the call of plugin pls[k] for slot s (s < n_used <= n_slots) took
 * ticks[k * n_slots + s] fw_ticks and returned code[k * n_slots + s] (FW_CALL_NOT_RUN: no call). */
#define FW_CALL_NOT_RUN 0xff
void fw_cycle_record_calls(struct fw_cycle *c, enum fw_ep ep, const struct fw_pl *const *pls, uint32_t n_pl,
			   const uint32_t *ticks, const uint8_t *code, size_t n_slots, size_t n_used);


/* ---------- Sorted scored nodes (sorted_nodes.c) ---------- */

/* upstream framework.NewSortedScoredNodes: h[0..n) becomes a max-heap by (total, randomizer)
 * exactly as Go's heap.Init lays it out, so ties among equal totals resolve as upstream's do. */
void fw_sorted_nodes_init(struct fw_scored_node *h, uint32_t n);
/* upstream sortedNodeScores.Pop (heap.Pop): removes and returns the greatest of h[0..*n), *n > 0;
 * *n is decremented and h[0..*n) stays a heap in Go's layout. */
struct fw_scored_node fw_sorted_nodes_pop(struct fw_scored_node *h, uint32_t *n);

/* ---------- OpportunisticBatching (sign.c, batch.c) ---------- */

/* upstream SignPod for a profile of sign mask (CFG_SIGN_*) and stores l (the DeviceClasses of
 * DRAExtendedResource): false = unsigned (nil signature). */
bool fw_sign_pod(uint32_t mask, const struct fw_listers *l, const struct api_pod *pod, struct fw_sig *s);
/* fw_extended_resource_class over the stores l. */
struct api_device_class *fw_listers_extended_resource_class(const struct fw_listers *l, const char *name);
bool fw_sig_equal(const struct fw_sig *a, const struct fw_sig *b);
void fw_sig_release(struct fw_sig *s);
uint32_t fw_ndf_pod_features(const struct api_pod *pod);       /* node_declared_features.c */
void fw_batch_release(struct fw_batch *b);

/* Filters run with the nominated pods of >= priority added (scheduler-side helper, used by
 * the generic cycle and, later, preemption). */
enum fw_code fw_run_filters(const struct fw_profile *p, const struct fw_cycle *c, const struct api_pod *pod,
			    const struct node_info *ni, struct fw_status *st);
enum fw_code fw_run_filters_with_nominated(const struct fw_profile *p, const struct fw_cycle *c,
					   const struct api_pod *pod, const struct node_info *ni,
					   struct fw_status *st);

#endif
