/* The cluster-event vocabulary (upstream fwk.ClusterEvent, ActionType, QueueingHint): what
 * informers report, what plugins register interest in (EventsToRegister) and what their queueing
 * hints answer. The queue owns it because the queue is what acts on events; the framework and its
 * plugins use these types directly. Pure values and functions, no state. */
#ifndef CSCHED_QUEUE_EVENT_H
#define CSCHED_QUEUE_EVENT_H

#include <stdbool.h>
#include <stddef.h> /* api_types.h uses size_t without including it */
#include <stdint.h>

#include "apiclient/api_types.h"

/* ---------- Cluster events ---------- */

/* Event resources (upstream fwk.EventResource). ASSIGNED_POD, UNSCHEDULED_POD and TARGET_POD
 * only describe incoming pod events (TARGET_POD: an update of the unscheduled pod itself, as the
 * queue sees it); a registration for POD matches all three. */
enum queue_resource {
	QUEUE_RES_WILDCARD = 0, /* "*" */
	QUEUE_RES_POD,
	QUEUE_RES_ASSIGNED_POD,
	QUEUE_RES_UNSCHEDULED_POD,
	QUEUE_RES_TARGET_POD,
	QUEUE_RES_NODE,
	QUEUE_RES_PERSISTENT_VOLUME,
	QUEUE_RES_PERSISTENT_VOLUME_CLAIM,
	QUEUE_RES_STORAGE_CLASS,
	QUEUE_RES_CSI_NODE,
	QUEUE_RES_CSI_DRIVER,
	QUEUE_RES_CSI_STORAGE_CAPACITY,
	QUEUE_RES_VOLUME_ATTACHMENT,
	QUEUE_RES_RESOURCE_CLAIM,
	QUEUE_RES_RESOURCE_SLICE,
	QUEUE_RES_DEVICE_CLASS,
	QUEUE_RES_COUNT_
};

/* Action bits, exactly upstream's v1.37 fwk.ActionType values. */
enum {
	QUEUE_ACT_ADD = 1u << 0,
	QUEUE_ACT_DELETE = 1u << 1,
	QUEUE_ACT_UPDATE_NODE_ALLOCATABLE = 1u << 2,
	QUEUE_ACT_UPDATE_NODE_LABEL = 1u << 3,
	QUEUE_ACT_UPDATE_NODE_TAINT = 1u << 4,
	QUEUE_ACT_UPDATE_NODE_CONDITION = 1u << 5,
	QUEUE_ACT_UPDATE_NODE_ANNOTATION = 1u << 6,
	QUEUE_ACT_UPDATE_NODE_DECLARED_FEATURE = 1u << 7,
	QUEUE_ACT_UPDATE_NODE_PREEMPTION_POLICY = 1u << 8,
	QUEUE_ACT_UPDATE_POD_LABEL = 1u << 9,
	QUEUE_ACT_UPDATE_POD_SCALE_DOWN = 1u << 10,
	QUEUE_ACT_UPDATE_POD_SCALE_UP = 1u << 11,
	QUEUE_ACT_UPDATE_POD_TOLERATION = 1u << 12,
	QUEUE_ACT_UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1u << 13,
	QUEUE_ACT_UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1u << 14,
	QUEUE_ACT_ALL = (1u << 15) - 1,
	QUEUE_ACT_UPDATE = QUEUE_ACT_ALL & ~(QUEUE_ACT_ADD | QUEUE_ACT_DELETE),
};

/* A cluster event. label (optional, static storage) overrides the metric label built from the
 * resource and action (upstream CustomLabel: "UnschedulableTimeout", "ForceActivate"). */
struct queue_event {
	uint32_t resource; /* enum queue_resource */
	uint32_t actions;  /* QUEUE_ACT_* bits */
	const char *label;
};

/* Wildcard: {*, All}. Moves every unschedulable pod (after backoff). */
bool queue_event_is_wildcard(const struct queue_event *ev);
/* Upstream MatchClusterEvents: registered {*, All} matches everything; otherwise the resources
 * match (POD also matches ASSIGNED_POD, UNSCHEDULED_POD and TARGET_POD), the actions share a bit
 * and ev's action value is not above reg's. */
bool queue_event_matches(const struct queue_event *reg, const struct queue_event *ev);
/* The metric label of ev into buf (upstream ClusterEvent.Label: the custom label, else resource
 * then action, e.g. "NodeAdd", "UnscheduledPodUpdate", "storage.k8s.io/CSINodeAdd"; an action
 * mixing several bits other than All/Update prints as ""); returns buf. */
const char *queue_event_label(const struct queue_event *ev, char *buf, unsigned size);

/* The events a node update produces, in upstream's order (NodeSchedulingPropertiesChange):
 * unschedulable true->false (UpdateNodeTaint), allocatable, labels, taints, conditions
 * (type->status), annotations, declared features. Returns how many were written to out (0 = no
 * change). */
#define QUEUE_NODE_UPDATE_EVENTS_MAX 7
uint32_t queue_node_update_events(const struct api_node *old_node, const struct api_node *new_node,
				  struct queue_event out[QUEUE_NODE_UPDATE_EVENTS_MAX]);

/* Upstream extractPodScaleDown: true when one of old_pod's requests is gone or smaller in
 * new_pod (extractPodScaleUp is the same with the pods swapped). */
typedef bool (*queue_scaled_down_fn)(const struct api_pod *old_pod, const struct api_pod *new_pod);

#define QUEUE_POD_UPDATE_EVENTS_MAX 6
/* The events a pod update produces (upstream PodSchedulingPropertiesChange): resource
 * ASSIGNED_POD when new_pod has a node, else TARGET_POD when target_pod (the queue's update of
 * the pod itself), else UNSCHEDULED_POD; then labels, scale-down, scale-up (scaled_down NULL:
 * neither), gates eliminated, tolerations count, generated resource claims
 * (status.resourceClaimStatuses or status.extendedResourceClaimStatus changed: DRA is on by
 * default); {resource, Update} when none applies. Returns the count. */
uint32_t queue_pod_update_events(const struct api_pod *old_pod, const struct api_pod *new_pod,
				 queue_scaled_down_fn scaled_down, bool target_pod,
				 struct queue_event out[QUEUE_POD_UPDATE_EVENTS_MAX]);

/* ---------- Queueing hints ---------- */

enum queue_hint {
	QUEUE_HINT_SKIP = 0,  /* the event cannot make the pod schedulable */
	QUEUE_HINT_QUEUE = 1, /* it may: requeue */
	QUEUE_HINT_ERROR = 2, /* the hint failed: treated as Queue so the pod is not stuck */
};

/* A queueing hint (upstream QueueingHintFn): may the event (old_obj -> new_obj, by the event's
 * resource api_node, api_pod, api_pvc, api_pv, api_storage_class, api_csinode, api_csidriver,
 * api_csi_storage_capacity or api_volume_attachment; old_obj is NULL for an add, new_obj NULL for
 * a delete) make pod
 * schedulable again? plugin is the registrant's own context (the framework passes its plugin
 * instance). Runs under the queue's lock on an informer thread: it must only read its arguments. */
typedef enum queue_hint (*queue_hint_fn)(const void *plugin, const struct api_pod *pod, const void *old_obj,
					  const void *new_obj);

/* An event a plugin registers with its hint (upstream ClusterEventWithHint); hint NULL = Queue. */
struct queue_event_hint {
	struct queue_event event;
	queue_hint_fn hint;
};

/* One registration of an enabled plugin in a profile, as the queue keeps it. */
struct queue_hint_reg {
	const char *plugin; /* plugin name as rejector sets hold it */
	struct queue_event event;
	queue_hint_fn hint; /* NULL = always Queue */
	const void *ctx;    /* passed to hint as its plugin argument */
};

#endif
