/* Internal to algorithm/: the profile and cycle-state layouts and the plugin table. Plugins and
 * framework files include this; nothing outside algorithm/ may. */
#ifndef CSCHED_FRAMEWORK_INTERNAL_H
#define CSCHED_FRAMEWORK_INTERNAL_H

#include "algorithm/framework.h"

struct arena;
struct fw_cleanup;

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
};

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
