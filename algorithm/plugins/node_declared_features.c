/* NodeDeclaredFeatures (PreFilter, Filter; GA in v1.37, gate locked on, so in upstream's default
 * profile, appended after DefaultBinder): a node must declare (status.declaredFeatures) every
 * feature the pod's spec requires (upstream plugins/nodedeclaredfeatures and
 * k8s.io/component-helpers/nodedeclaredfeatures v0.37.2).
 *
 * The feature registry is component-helpers' features.AllFeatures, sorted by name as
 * ndf.New sorts it. Of its nine features only three are inferred for scheduling; the other six
 * (InferForScheduling false) matter only for the node side's TryMap walk, kept exact below. No
 * feature has a MaxVersion, so the scheduler's own version never drops a requirement. */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"

#include <string.h>

#define REASON "node(s) didn't match Pod's required features"

/* Sorted as strings.Compare sorts them. */
enum {
	F_DRA_NODE_ALLOCATABLE_RESOURCES,
	F_DRA_OPTIONAL_NODE_OPERATIONS,
	F_EXTEND_WEB_SOCKETS_TO_KUBELET,
	F_IPPR_POD_LEVEL_RESOURCES,
	F_IPPR_INIT_CONTAINERS,
	F_IPPR_MEMORY_BACKED_VOLUMES,
	F_RESTART_ALL_CONTAINERS,
	F_USER_NAMESPACES_HOST_NETWORK,
	F_VOLUME_BIND_MOUNT_OPTIONS,
	F_COUNT_
};

static const char *const registry[F_COUNT_] = {
	"DRANodeAllocatableResources",
	"DRAOptionalNodeOperations",
	"ExtendWebSocketsToKubelet",
	"InPlacePodLevelResourcesVerticalScaling",
	"InPlacePodVerticalScalingInitContainers",
	"InPlacePodVerticalScalingMemoryBackedVolumes",
	"RestartAllContainersOnContainerExits",
	"UserNamespacesHostNetworkSupport",
	"VolumeBindMountOptions",
};

/* The pod's requirements (upstream InferForPodScheduling) as a bit per registry index. */
static uint32_t infer(const struct api_pod *pod)
{
	uint32_t reqs = 0;
	bool restart_all = false, bind_opts = pod->ephemeral_bind_mount_options;
	for (uint32_t i = 0; i < pod->n_containers; i++) {
		restart_all = restart_all || pod->containers[i].restart_all_containers;
		bind_opts = bind_opts || pod->containers[i].bind_mount_options;
	}
	for (uint32_t i = 0; i < pod->n_init_containers; i++) {
		restart_all = restart_all || pod->init_containers[i].restart_all_containers;
		bind_opts = bind_opts || pod->init_containers[i].bind_mount_options;
	}
	if (restart_all)
		reqs |= 1u << F_RESTART_ALL_CONTAINERS;
	if (pod->host_network && pod->host_users_false)
		reqs |= 1u << F_USER_NAMESPACES_HOST_NETWORK;
	if (bind_opts)
		reqs |= 1u << F_VOLUME_BIND_MOUNT_OPTIONS;
	return reqs;
}

/* The node's declared features (upstream FeatureMapper.TryMap, as NodeInfo.SetNode calls it): a
 * merge walk that assumes a sorted list, skipping unknown names; an out-of-order name is missed
 * as upstream misses it. */
/* The pod's required features as a bit set (OpportunisticBatching's signature, sign.c). */
uint32_t fw_ndf_pod_features(const struct api_pod *pod)
{
	return infer(pod);
}

static uint32_t node_features(const struct api_node *node)
{
	uint32_t set = 0, i = 0, j = 0;
	while (i < node->n_declared_features && j < F_COUNT_) {
		int cmp = strcmp(node->declared_features[i], registry[j]);
		if (cmp == 0) {
			set |= 1u << j;
			i++;
			j++;
		} else if (cmp < 0) {
			i++;
		} else {
			j++;
		}
	}
	return set;
}

/* The state holds the requirements in the pointer itself: no allocation, and non-NULL because
 * PreFilter skips a pod without requirements. */
static enum fw_code pre_filter(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			       struct fw_node_names *out, struct fw_status *st)
{
	(void)out;
	(void)st;
	uint32_t reqs = infer(pod);
	if (!reqs)
		return FW_SKIP;
	fw_cycle_set_state(c, pl, (void *)(uintptr_t)reqs);
	return FW_SUCCESS;
}

static enum fw_code filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			   const struct node_info *ni, struct fw_status *st)
{
	(void)pod;
	uint32_t reqs = (uint32_t)(uintptr_t)fw_cycle_state(c, pl);
	if (!reqs)
		return fw_status_set(st, FW_ERROR,
				     "error reading \"PreFilterNodeDeclaredFeatures\" from cycle-state: not found");
	if ((reqs & ~node_features(ni->node)) != 0)
		return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, REASON);
	return FW_SUCCESS;
}

/* Node added, or its declared features changed (upstream compares the lists as written). */
static enum queue_hint node_change(const void *pl, const struct api_pod *pod, const void *old_obj,
				   const void *new_obj)
{
	(void)pl;
	(void)pod;
	const struct api_node *o = old_obj, *n = new_obj;
	if (!o || !n || o->n_declared_features != n->n_declared_features)
		return QUEUE_HINT_QUEUE;
	for (uint32_t i = 0; i < n->n_declared_features; i++)
		if (o->declared_features[i] != n->declared_features[i])
			return QUEUE_HINT_QUEUE;
	return QUEUE_HINT_SKIP;
}

/* The pod's own update (upstream TargetPod Update): queue when its requirements changed. */
static enum queue_hint target_pod_update(const void *pl, const struct api_pod *pod, const void *old_obj,
					 const void *new_obj)
{
	(void)pl;
	const struct api_pod *np = fw_hint_updated_self(pod, new_obj), *op = old_obj;
	if (!np)
		return QUEUE_HINT_SKIP;
	if (!op)
		return QUEUE_HINT_QUEUE;
	return infer(op) != infer(np) ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
}

static const struct queue_event_hint events[] = {
	{ { .resource = QUEUE_RES_NODE, .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_DECLARED_FEATURE }, node_change },
	{ { .resource = QUEUE_RES_TARGET_POD, .actions = QUEUE_ACT_UPDATE }, target_pod_update },
};

const struct fw_plugin fw_plugin_node_declared_features = {
	.name = "NodeDeclaredFeatures",
	.args_kind = CFG_ARGS_NONE,
	.pre_filter = pre_filter,
	.filter = filter,
	FW_EVENTS(events),
};
