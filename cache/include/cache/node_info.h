/* NodeInfo: one node with the pods counted on it, as filter and score plugins read it.
 *
 * A node_info in a snapshot is read-only for the whole scheduling cycle and may be read by
 * several worker threads at once. The cache owns the live copies; the snapshot owns clones.
 * Pods and nodes referenced here are held with a reference (api_pod_ref / api_node_ref). */
#ifndef CSCHED_NODE_INFO_H
#define CSCHED_NODE_INFO_H

#include <stdbool.h>
#include <stddef.h> /* api_types.h uses size_t without including it */
#include <stdint.h>

#include "apiclient/api_types.h"

/* Requested resources of a pod, computed once as upstream's PodRequests does (init containers,
 * sidecars, overhead, pod-level resources). */
struct node_res {
	int64_t cpu;    /* millicores */
	int64_t memory; /* bytes */
	int64_t ephemeral_storage;
	uint32_t n_scalar;
	struct api_resource *scalar; /* malloc'd; names interned */
};

/* A pod as counted on a node. */
struct node_pod {
	struct api_pod *pod;     /* referenced */
	struct node_res req;     /* node_res_of_pod(NODE_RES_REQUESTS) */
	int64_t nonzero_cpu;     /* node_res_of_pod(NODE_RES_NONZERO) */
	int64_t nonzero_memory;
};

/* A host port in use: (ip or "0.0.0.0", protocol, port); strings interned. */
struct node_port {
	const char *ip;
	const char *protocol;
	int32_t port;
};

/* An image present on the node, with how many nodes in the cluster have it (in a snapshot: the
 * count when this node_info was last copied from the cache, as upstream's snapshot; the cache's
 * live node_infos leave it 0). size_bytes is the size reported by the node that brought the name
 * into the cluster (upstream's image state is recreated when its last node drops or re-adds it). */
struct node_image {
	const char *name; /* interned, as the node reports it (not normalised) */
	int64_t size_bytes;
	uint32_t num_nodes;
};

struct node_info {
	const char *name;      /* interned */
	struct api_node *node; /* referenced; NULL for a "ghost" (pods assumed onto an unknown node) */

	uint32_t n_pods, cap_pods;
	struct node_pod *pods;
	uint32_t n_pods_with_affinity;              /* pods with any pod (anti-)affinity */
	uint32_t n_pods_with_required_anti_affinity;

	struct node_res requested; /* sum of node_pod.req */
	int64_t nonzero_cpu, nonzero_memory;

	uint32_t n_ports, cap_ports;
	struct node_port *ports;

	uint32_t n_images;
	struct node_image *images; /* sorted by name pointer for bsearch; one entry per distinct name */
	/* A hash index of images by name pointer (node_info_index_images): image_slots[h & mask] holds
	 * an index into images plus 1, 0 = empty, linear probing. Used only while image_slots_for ==
	 * images and image_slots_n == n_images, so images set without it (tests) are searched. */
	uint32_t *image_slots;
	uint32_t image_slots_mask;
	uint32_t image_slots_n;
	const struct node_image *image_slots_for;

	uint64_t generation; /* cache generation of the last change */
};

/* Which of upstream's PodRequests computations (component-helpers/resource, v1.37 feature
 * defaults: PodLevelResources, InPlacePodVerticalScaling and
 * InPlacePodLevelResourcesVerticalScaling on, DRANodeAllocatableResources off). "With status"
 * counts, per resource, the larger of the spec and what the kubelet allocated / actuated
 * (in-place resize; only the reported values when the resize is Infeasible). */
enum node_res_kind {
	NODE_RES_REQUESTS = 0, /* with status, no defaults: NodeInfo's Requested, BalancedAllocation,
				* the UpdatePodScaleDown event */
	NODE_RES_NONZERO = 1,  /* with status, NodeInfo's NonZeroRequested: 100m CPU / 200Mi memory per
				* container lacking them, but with pod-level requests only for what
				* neither the pod level nor any container requests */
	NODE_RES_FIT_SCORE,     /* no status, no pod level, 100m / 200Mi per container lacking them:
				 * NodeResourcesFit Score's pod request (its calculatePodResourceRequest
				 * runs without the feature flags) */
	NODE_RES_SPEC,          /* spec only: NodeResourcesFit's PreFilter (computePodResourceRequest) */
};

/* Upstream's PodRequests of kind; out->scalar is malloc'd (node_res_release frees it). Without
 * scalar resources nothing is allocated. */
int node_res_of_pod(const struct api_pod *p, enum node_res_kind kind, struct node_res *out);
void node_res_release(struct node_res *r);
int64_t node_res_scalar(const struct node_res *r, const char *interned_name);

/* Whether a resource name counts as a scalar resource (upstream IsScalarResourceName): extended
 * ("example.com/foo": contains "/", not "kubernetes.io/", no "requests." prefix), hugepages-*,
 * names containing "kubernetes.io/", attachable-volumes-*. */
bool node_res_is_scalar_name(const char *name);

/* Whether new's PodRequests (NODE_RES_REQUESTS: with status) lowered or removed any of old's
 * (upstream extractPodScaleDown: the UpdatePodScaleDown cluster event). Out of memory counts as
 * true. */
bool node_res_scaled_down(const struct api_pod *old_pod, const struct api_pod *new_pod);

/* ---------- Building and copying node_infos ----------
 *
 * The cache builds its node_infos with these; plugins use them on private copies (nominated pods
 * added for Filter, victims removed during preemption). A node_info starts zeroed
 * (`struct node_info ni = {0}` or node_info_init) and ends with node_info_release. None of these
 * is thread-safe on one node_info; generation is left to the caller (the cache sets it). */

void node_info_init(struct node_info *ni, const char *interned_name);
/* Frees the arrays and drops every reference; ni is zeroed afterwards. */
void node_info_release(struct node_info *ni);

/* Counts pod on the node: requests, non-zero requests, host ports, (anti-)affinity counters.
 * Takes a reference on pod. ERR_NOMEM leaves every count unchanged (arrays may have grown). */
int node_info_add_pod(struct node_info *ni, struct api_pod *pod, struct err *e);
/* Removes the pod with pod's UID (the last pod takes its slot, as upstream); ERR_NOT_FOUND when
 * absent. Host ports of the pod are released. */
int node_info_remove_pod(struct node_info *ni, const struct api_pod *pod, struct err *e);
/* Index of the pod with this (interned) UID in ni->pods, or -1. */
int32_t node_info_pod_index(const struct node_info *ni, const char *uid);

/* Makes dst a deep copy of src (own references, own arrays), reusing dst's arrays where they are
 * large enough. dst must be zeroed or a node_info previously filled by these functions. */
int node_info_copy(struct node_info *dst, const struct node_info *src, struct err *e);

/* Builds ni's image index for its current images (the cache does, whenever they change), so that
 * node_info_image is one hash probe instead of a binary search. ERR_NOMEM leaves no index (lookups
 * still work). */
int node_info_index_images(struct node_info *ni);

/* Whether the node has the image (interned, normalised name); NULL when absent. */
const struct node_image *node_info_image(const struct node_info *ni, const char *interned_name);

/* Allocatable of the node (zeroes for a ghost). Inline: plugins read it per node. */
extern const struct api_resources node_info_no_resources_;
static inline const struct api_resources *node_info_allocatable(const struct node_info *ni)
{
	return ni->node ? &ni->node->allocatable : &node_info_no_resources_;
}

#endif
