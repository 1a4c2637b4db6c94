/* Helpers shared by the plugins (algorithm/helpers.c), and the plugins themselves for the
 * registry table. Internal to algorithm/. */
#ifndef CSCHED_ALGORITHM_PLUGIN_HELPERS_H
#define CSCHED_ALGORITHM_PLUGIN_HELPERS_H

#include "algorithm/plugin.h"

/* The plugins (algorithm/plugins/<name>.c). */
extern const struct fw_plugin fw_plugin_priority_sort;
extern const struct fw_plugin fw_plugin_scheduling_gates;
extern const struct fw_plugin fw_plugin_node_unschedulable;
extern const struct fw_plugin fw_plugin_node_name;
extern const struct fw_plugin fw_plugin_node_ports;
extern const struct fw_plugin fw_plugin_node_resources_fit;
extern const struct fw_plugin fw_plugin_volume_restrictions;
extern const struct fw_plugin fw_plugin_volume_binding;
extern const struct fw_plugin fw_plugin_volume_zone;
extern const struct fw_plugin fw_plugin_node_volume_limits;
extern const struct fw_plugin fw_plugin_balanced_allocation;
extern const struct fw_plugin fw_plugin_node_affinity;
extern const struct fw_plugin fw_plugin_taint_toleration;
extern const struct fw_plugin fw_plugin_image_locality;
extern const struct fw_plugin fw_plugin_default_binder;
extern const struct fw_plugin fw_plugin_node_declared_features;
extern const struct fw_plugin fw_plugin_pod_topology_spread;
extern const struct fw_plugin fw_plugin_inter_pod_affinity;
extern const struct fw_plugin fw_plugin_default_preemption;
extern const struct fw_plugin fw_plugin_dynamic_resources;


/* ---------- Helpers (algorithm/helpers.c) ---------- */

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

/* For hints on a pod's own update: the updated pod (new_obj) when the event is about pod itself,
 * else NULL. */
static inline const struct api_pod *fw_hint_updated_self(const struct api_pod *pod, const void *new_obj)
{
	const struct api_pod *np = new_obj;
	return np && np->meta.uid == pod->meta.uid ? np : NULL;
}

/* Whether any toleration tolerates the taint. */
bool fw_tolerations_tolerate(const struct api_toleration *t, uint32_t n, const struct api_taint *taint);

/* Resource names (upstream v1helper / schedutil): extended = has "/", not kubernetes.io/, not
 * "requests."; scalar = extended, hugepages-NAME, names containing "kubernetes.io/", attachable-volumes-NAME. */
bool fw_is_extended_resource(const char *name);
bool fw_is_scalar_resource(const char *name);
/* upstream schedutil.IsDRAExtendedResourceName: an extended resource name or a DeviceClass's
 * implicit one (deviceclass.resource.kubernetes.io/<class>). */
bool fw_is_dra_extended_resource(const char *name);
/* DRAExtendedResource (upstream extendedresourcecache.ExtendedResourceCache.GetDeviceClass): the
 * DeviceClass that backs the extended resource name (new reference: api_device_class_unref), or
 * NULL. deviceclass.resource.kubernetes.io/<class> names <class>; any other name the class whose
 * spec.extendedResourceName it is, the newest (creationTimestamp) when several classes name it and
 * the lowest name among equally new ones, as upstream's cache settles. */
struct api_device_class *fw_extended_resource_class(const struct fw_pl *pl, const char *name);
/* upstream noderesources shouldDelegateResourceToDRA: whether NodeResourcesFit leaves the request
 * of name to DynamicResources on the node whose allocatable is alloc (NULL: any node): the node
 * does not advertise it and a DeviceClass backs it (class_known, as fw_extended_resource_class
 * found). */
bool fw_delegate_resource_to_dra(const struct api_resources *alloc, const char *name, bool class_known);
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
	int32_t dra; /* DRAExtendedResource: the resource's index in the state's dra, else -1 */
};
/* Resolves the interned names[0..n) with the pod's requests pod_req[0..n) and weights (NULL = 1)
 * into out (room for n), in order, leaving out the names fw_resource_alloc_req scores as (0, 0) on
 * every node: neither cpu, memory, ephemeral-storage nor a scalar resource, or a scalar resource
 * the pod does not request. Returns how many were written. */
uint32_t fw_res_refs(const char *const *names, const int64_t *pod_req, const int64_t *weights, uint32_t n,
		     struct fw_res_ref *out);
/* A resource-scoring plugin's PreScore state: the pod's requests of the plugin's resources,
 * resolved by fw_res_refs once per pod. */
struct fw_dra_scores;
struct fw_pod_res_refs {
	uint32_t n;
	struct fw_res_ref *res;
	bool requests_none; /* the pod requests none of the resources */
	/* DRAExtendedResource (upstream draPreScoreState): the devices behind the resources a
	 * DeviceClass backs (fw_dra_scores_new; freed with the cycle), NULL when none is */
	const struct fw_dra_scores *dra;
};
struct dra_cel_cache;
/* Builds it in the cycle arena for names[0..n) (interned) with weights (NULL = 1), the pod's
 * requests taken as node_res_of_pod(pod, kind). With cc (the plugin's compiled class selectors;
 * NULL: DRA-backed resources are not looked at), the scalar resources the pod requests that a
 * DeviceClass backs (fw_extended_resource_class of pl) get their devices counted
 * (upstream getDRAPreScoredParams). Returns 0, ERR_NOMEM, or ERR_INVALID when the pod's
 * requests cannot be computed. */
int fw_pod_res_refs_new(const struct fw_pl *pl, struct dra_cel_cache *cc, struct fw_cycle *c, const struct api_pod *pod,
			enum node_res_kind kind, const char *const *names, const int64_t *weights, uint32_t n,
			const struct fw_pod_res_refs **out);

/* ---------- DRA-backed extended resources in scoring (algorithm/plugins/dra_score.c) ---------- */

/* The devices classes[0..n) match on every ResourceSlice of pl's listers, and which of them are
 * allocated (the profile's DynamicResources tracker: dra_gather_allocated_for), evaluated once:
 * *out new (fw_dra_scores_free). 0 or ERR_NOMEM with e. */
int fw_dra_scores_new(const struct fw_pl *pl, struct dra_cel_cache *cc, struct api_device_class *const *classes,
		      uint32_t n, struct fw_dra_scores **out, struct err *e);
void fw_dra_scores_free(struct fw_dra_scores *d); /* NULL is a no-op */
/* upstream getDRAPreScoredParams for the PreScore state s (fw_pod_res_refs_new, cycle c): the
 * scalar resources s scores that a DeviceClass backs get their index in s->dra, built once here
 * and freed with the cycle (a resource the pod does not request is scored nowhere, so it needs no
 * devices). 0 or ERR_NOMEM. */
int fw_dra_scores_attach(const struct fw_pl *pl, struct dra_cel_cache *cc, struct fw_cycle *c,
			 struct fw_pod_res_refs *s);
/* A resource-scoring plugin's compiled class selectors: *out a new cache (dra_cel_cache_free)
 * when any of names[0..n) may be a DRA-backed extended resource (upstream
 * IsDRAExtendedResourceName), else NULL. 0 or ERR_NOMEM with e. */
int fw_dra_scoring_cache(const char *const *names, uint32_t n, struct dra_cel_cache **out, struct err *e);
/* upstream calculateDRAResourceTotals on node ni for class i: the matching devices available on
 * the node and how many of them are allocated; false (both 0) when a device's check failed there
 * (upstream's error: the resource is then not scored from DRA on ni). */
bool fw_dra_scores_node(const struct fw_dra_scores *d, uint32_t i, const struct node_info *ni, int64_t *capacity,
			int64_t *allocated);
/* upstream calculateResourceAllocatableRequest with DRAExtendedResource: fw_res_ref_alloc_req,
 * except that a resource the node's allocatable lacks (0) and a DeviceClass backs is counted in
 * devices when the node has any. */
static inline void fw_res_ref_alloc_req_dra(const struct fw_pod_res_refs *s, const struct node_info *ni,
					    const struct fw_res_ref *ref, bool use_requested, int64_t *alloc, int64_t *req);
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

static inline void fw_res_ref_alloc_req_dra(const struct fw_pod_res_refs *s, const struct node_info *ni,
					    const struct fw_res_ref *ref, bool use_requested, int64_t *alloc, int64_t *req)
{
	fw_res_ref_alloc_req(ni, ref, use_requested, alloc, req);
	int64_t cap, allocated;
	if (*alloc == 0 && ref->dra >= 0 && s->dra && fw_dra_scores_node(s->dra, (uint32_t)ref->dra, ni, &cap, &allocated) &&
	    cap > 0) {
		*alloc = cap;
		*req = allocated + ref->pod_req;
	}
}

/* ---------- Score preparation ----------
 *
 * A Score plugin whose upstream Score has no PreScore (so none can be configured), or whose
 * PreScore a profile may leave out, may still want per-pod work done once per cycle rather than
 * once per node. fw_score_prepare_of returns its
 * preparation (NULL: none), which the cycle runs on the scheduler thread after PreScore and
 * before the parallel Score loop, over the nodes to be scored. It may store cycle state (Score
 * must still work without it, as when a test calls Score alone), never fails the cycle, and
 * returns FW_SKIP only when Score would give every one of those nodes 0, so that leaving the
 * plugin out changes no total. */
fw_pre_score_fn fw_score_prepare_of(const struct fw_plugin *plugin);
/* ImageLocality's: the pod's normalised image names, once (algorithm/plugins/image_locality.c). */
enum fw_code fw_image_locality_prepare(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
				       const struct node_info *const *nodes, uint32_t n, struct fw_status *st);
/* DynamicResources': Skip when the pod has no claim to allocate (no per-node allocation, so every
 * Score is 0: most pods), else nothing to do (algorithm/plugins/dynamic_resources.c). */
enum fw_code fw_dynamic_resources_prepare(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
					  const struct node_info *const *nodes, uint32_t n, struct fw_status *st);
/* NodeResourcesFit's and NodeResourcesBalancedAllocation's: the plugin's own PreScore when the
 * profile leaves it out of PreScore but keeps its Score (upstream's Score then computes the pod's
 * requests itself); nothing when PreScore ran. */
enum fw_code fw_pre_score_if_not_configured(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
					    const struct node_info *const *nodes, uint32_t n, struct fw_status *st);

/* ---------- Preemption's removed pods (framework.c) ----------
 *
 * upstream's RemovePod PreFilterExtensions, the csched way: DefaultPreemption's dry run filters
 * private copies of snapshot nodes with victims removed (and, in the pass with nominated pods,
 * those appended), marking the cycle meanwhile; a plugin whose PreFilter counted pods of the
 * snapshot subtracts in Filter what upstream's RemovePod subtracts, for each pod this yields. */
void fw_cycle_set_preempting(struct fw_cycle *c, bool on);
/* The next pod (from *it, which starts at 0) of the snapshot's node named ni->name that ni lacks;
 * NULL when done, and at once outside a dry run or when ni is the snapshot's own node_info. */
const struct api_pod *fw_removed_pod_next(const struct fw_cycle *c, const struct node_info *ni, uint32_t *it);

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
