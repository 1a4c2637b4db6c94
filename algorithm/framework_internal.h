/* Internal to algorithm/: the profile and cycle-state layouts and the plugin table. Plugins and
 * framework files include this; nothing outside algorithm/ may. */
#ifndef CSCHED_FRAMEWORK_INTERNAL_H
#define CSCHED_FRAMEWORK_INTERNAL_H

#include <time.h>

#include "algorithm/framework.h"
#include "common/clock.h"

struct arena;
struct fw_cleanup;
struct fw_plugin_timing_node;

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
	size_t n_events;                  /* hint registrations, built once */
	struct fw_profile_event *events;
	struct queue_hint_reg *queue_regs; /* the same, in the queue's shape */

	/* Mutated by fw_schedule_pod only (scheduler thread). */
	uint64_t rng;        /* xorshift64* state, never 0 */
	uint32_t next_start; /* upstream nextStartNodeIndex */
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

/* Builds p->events and p->queue_regs (adapters.c). */
int fw_profile_build_events(struct fw_profile *p);

/* Filters run with the nominated pods of >= priority added (scheduler-side helper, used by
 * the generic cycle and, later, preemption). */
enum fw_code fw_run_filters(const struct fw_profile *p, const struct fw_cycle *c, const struct api_pod *pod,
			    const struct node_info *ni, struct fw_status *st);
enum fw_code fw_run_filters_with_nominated(const struct fw_profile *p, const struct fw_cycle *c,
					   const struct api_pod *pod, const struct node_info *ni,
					   struct fw_status *st);

/* The plugins (algorithm/plugins/<name>.c). */
extern const struct fw_plugin fw_plugin_priority_sort;
extern const struct fw_plugin fw_plugin_scheduling_gates;
extern const struct fw_plugin fw_plugin_node_unschedulable;
extern const struct fw_plugin fw_plugin_node_name;
extern const struct fw_plugin fw_plugin_node_ports;
extern const struct fw_plugin fw_plugin_node_resources_fit;
extern const struct fw_plugin fw_plugin_volume_restrictions;
extern const struct fw_plugin fw_plugin_balanced_allocation;
extern const struct fw_plugin fw_plugin_node_affinity;
extern const struct fw_plugin fw_plugin_taint_toleration;
extern const struct fw_plugin fw_plugin_image_locality;
extern const struct fw_plugin fw_plugin_default_binder;

/* ---------- Helpers shared by plugins (algorithm/plugins/helpers.c) ---------- */

/* Host ports a pod asks for: containers and restartable (sidecar) init containers, hostPort > 0.
 * Calls fn for each; stops early when fn returns false. */
void fw_pod_host_ports(const struct api_pod *pod,
		       bool (*fn)(void *ctx, const struct api_container_port *port), void *ctx);
/* NodePorts' conflict rule against a node's used ports. */
bool fw_ports_conflict(const struct node_info *ni, const char *ip, const char *protocol, int32_t port);

/* Node selector terms (upstream nodeaffinity.NodeSelector semantics). A term is valid when
 * every requirement parses (In/NotIn with values, Exists/DoesNotExist without, Gt/Lt with one
 * base-10 int64; fields In/NotIn with exactly one value). */
bool fw_node_selector_term_valid(const struct api_node_selector_term *t);
bool fw_node_selector_term_matches(const struct api_node_selector_term *t, const struct api_node *node);
/* Whether any term matches (terms with neither expressions nor fields are dropped; no terms left
 * -> false). */
bool fw_node_selector_matches(const struct api_node_selector_term *terms, uint32_t n, const struct api_node *node);
/* Whether pod's nodeSelector and required node affinity match node (upstream's
 * GetRequiredNodeAffinity(pod).Match(node)). */
bool fw_pod_required_affinity_matches(const struct api_pod *pod, const struct api_node *node);

/* Whether any toleration tolerates the taint. */
bool fw_tolerations_tolerate(const struct api_toleration *t, uint32_t n, const struct api_taint *taint);

/* Resource names (upstream v1helper / schedutil): extended = has "/", not kubernetes.io/, not
 * "requests."; scalar = extended, hugepages-NAME, names containing "kubernetes.io/", attachable-volumes-NAME. */
bool fw_is_extended_resource(const char *name);
bool fw_is_scalar_resource(const char *name);
/* A request by interned name (cpu in millicores), 0 when absent. */
int64_t fw_res_get(const struct node_res *r, const char *interned_name);
/* upstream calculateResourceAllocatableRequest: (allocatable, requested + pod_req) of a node for
 * one resource; use_requested picks Requested over NonZeroRequested for cpu/memory. (0, 0) when
 * the resource is not scored on this node. */
void fw_resource_alloc_req(const struct node_info *ni, const char *interned_name, int64_t pod_req,
			   bool use_requested, int64_t *alloc, int64_t *req);

/* A resource a score plugin reads on every node, resolved once per pod (PreScore) so that the
 * per-node work is a field read, not a lookup by name: fw_res_ref_alloc_req(ni, ref) equals
 * fw_resource_alloc_req(ni, name, pod_req, ...). */
enum fw_res_kind { FW_RES_CPU, FW_RES_MEMORY, FW_RES_EPHEMERAL_STORAGE, FW_RES_SCALAR };
struct fw_res_ref {
	enum fw_res_kind kind;
	const char *name; /* interned */
	int64_t pod_req;
	int64_t weight;
};
/* Resolves the interned names[0..n) with the pod's requests pod_req[0..n) and weights (NULL = 1)
 * into out (room for n), in order, leaving out the names fw_resource_alloc_req scores as (0, 0) on
 * every node: neither cpu, memory, ephemeral-storage nor a scalar resource, or a scalar resource
 * the pod does not request. Returns how many were written. */
uint32_t fw_res_refs(const char *const *names, const int64_t *pod_req, const int64_t *weights, uint32_t n,
		     struct fw_res_ref *out);
static inline void fw_res_ref_alloc_req(const struct node_info *ni, const struct fw_res_ref *ref,
					bool use_requested, int64_t *alloc, int64_t *req)
{
	const struct api_resources *a = node_info_allocatable(ni);
	switch (ref->kind) {
	case FW_RES_CPU:
		*alloc = a->cpu;
		*req = (use_requested ? ni->requested.cpu : ni->nonzero_cpu) + ref->pod_req;
		break;
	case FW_RES_MEMORY:
		*alloc = a->memory;
		*req = (use_requested ? ni->requested.memory : ni->nonzero_memory) + ref->pod_req;
		break;
	case FW_RES_EPHEMERAL_STORAGE:
		*alloc = a->ephemeral_storage;
		*req = ni->requested.ephemeral_storage + ref->pod_req;
		break;
	default:
		*alloc = api_resources_scalar(a, ref->name);
		*req = node_res_scalar(&ni->requested, ref->name) + ref->pod_req;
		break;
	}
}

/* ---------- Score preparation ----------
 *
 * A Score plugin whose upstream Score has no PreScore (so none can be configured) may still want
 * per-pod work done once per cycle rather than once per node. fw_score_prepare_of returns its
 * preparation (NULL: none), which the cycle runs on the scheduler thread after PreScore and
 * before the parallel Score loop, over the nodes to be scored. It may store cycle state (Score
 * must still work without it, as when a test calls Score alone), never fails the cycle, and
 * returns FW_SKIP only when Score would give every one of those nodes 0, so that leaving the
 * plugin out changes no total. */
fw_pre_score_fn fw_score_prepare_of(const struct fw_plugin *plugin);
/* ImageLocality's: the pod's normalised image names, once (algorithm/plugins/image_locality.c). */
enum fw_code fw_image_locality_prepare(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
				       const struct node_info *const *nodes, uint32_t n, struct fw_status *st);

/* Interned constant strings used across plugins (initialised once, thread-safe). */
struct fw_names {
	const char *cpu, *memory, *ephemeral_storage, *pods;
	const char *any_ip;     /* "0.0.0.0" */
	const char *tcp;        /* "TCP" */
	const char *empty;      /* "" */
	const char *metadata_name;
	const char *taint_unschedulable; /* node.kubernetes.io/unschedulable */
};
const struct fw_names *fw_names(void);

#endif
