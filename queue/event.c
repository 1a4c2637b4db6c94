/* The cluster-event vocabulary: labels, matching, and the events an update produces. */
#include "queue/event.h"

#include <stdio.h>
#include <string.h>

/* ---------- Events ---------- */

/* upstream fwk.EventResource strings */
static const char *const res_names[QUEUE_RES_COUNT_] = {
	"*", "Pod", "AssignedPod", "UnscheduledPod", "TargetPod", "Node", "PersistentVolume", "PersistentVolumeClaim",
	"storage.k8s.io/StorageClass", "storage.k8s.io/CSINode", "storage.k8s.io/CSIDriver",
	"storage.k8s.io/CSIStorageCapacity", "storage.k8s.io/VolumeAttachment", "resource.k8s.io/ResourceClaim",
	"resource.k8s.io/ResourceSlice", "resource.k8s.io/DeviceClass",
};

/* upstream ActionType.String, by bit */
static const char *const act_names[] = {
	"Add", "Delete", "UpdateNodeAllocatable", "UpdateNodeLabel", "UpdateNodeTaint", "UpdateNodeCondition",
	"UpdateNodeAnnotation", "UpdateNodeDeclaredFeature", "UpdateNodePreemptionPolicy", "UpdatePodLabel",
	"UpdatePodScaleDown", "UpdatePodScaleUp", "UpdatePodToleration", "UpdatePodSchedulingGatesEliminated",
	"UpdatePodGeneratedResourceClaim",
};

bool queue_event_is_wildcard(const struct queue_event *ev)
{
	return ev->resource == QUEUE_RES_WILDCARD && ev->actions == QUEUE_ACT_ALL;
}

static bool resource_matches(uint32_t reg, uint32_t in)
{
	return reg == QUEUE_RES_WILDCARD || reg == in ||
	       (reg == QUEUE_RES_POD &&
		(in == QUEUE_RES_ASSIGNED_POD || in == QUEUE_RES_UNSCHEDULED_POD || in == QUEUE_RES_TARGET_POD));
}

bool queue_event_matches(const struct queue_event *reg, const struct queue_event *ev)
{
	return queue_event_is_wildcard(reg) ||
	       (resource_matches(reg->resource, ev->resource) && (reg->actions & ev->actions) != 0 &&
		ev->actions <= reg->actions);
}

/* upstream ActionType.String: "" for a combination it has no name for */
static const char *action_string(uint32_t actions)
{
	if (actions == QUEUE_ACT_ALL)
		return "All";
	if (actions == QUEUE_ACT_UPDATE)
		return "Update";
	for (unsigned i = 0; i < sizeof(act_names) / sizeof(act_names[0]); i++)
		if (actions == 1u << i)
			return act_names[i];
	return "";
}

const char *queue_event_label(const struct queue_event *ev, char *buf, unsigned size)
{
	if (ev->label && ev->label[0])
		snprintf(buf, size, "%s", ev->label);
	else
		snprintf(buf, size, "%s%s", ev->resource < QUEUE_RES_COUNT_ ? res_names[ev->resource] : "",
			 action_string(ev->actions));
	return buf;
}

static bool labels_equal(const struct api_labels *a, const struct api_labels *b)
{
	if (a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++) {
		uint32_t j = 0;
		while (j < b->n && b->items[j].key != a->items[i].key)
			j++;
		if (j == b->n || b->items[j].value != a->items[i].value)
			return false;
	}
	return true;
}

/* Annotations are not interned (apiclient keeps them in the object's arena): compared by content. */
static bool annotations_equal(const struct api_labels *a, const struct api_labels *b)
{
	if (a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++) {
		uint32_t j = 0;
		while (j < b->n && strcmp(b->items[j].key, a->items[i].key) != 0)
			j++;
		if (j == b->n || strcmp(b->items[j].value, a->items[i].value) != 0)
			return false;
	}
	return true;
}

static bool resources_equal(const struct api_resources *a, const struct api_resources *b)
{
	if (a->has_cpu != b->has_cpu || a->has_memory != b->has_memory ||
	    a->has_ephemeral_storage != b->has_ephemeral_storage || a->has_pods != b->has_pods ||
	    a->cpu != b->cpu || a->memory != b->memory || a->ephemeral_storage != b->ephemeral_storage ||
	    a->pods != b->pods || a->n_scalar != b->n_scalar)
		return false;
	for (uint32_t i = 0; i < a->n_scalar; i++) {
		uint32_t j = 0;
		while (j < b->n_scalar && b->scalar[j].name != a->scalar[i].name)
			j++;
		if (j == b->n_scalar || b->scalar[j].value != a->scalar[i].value)
			return false;
	}
	return true;
}

/* Conditions compared as a type -> status map (the last entry of a type wins, as a Go map). */
static const char *cond_status(const struct api_node *n, const char *type)
{
	const char *st = NULL;
	for (uint32_t i = 0; i < n->n_conditions; i++)
		if (n->conditions[i].type == type)
			st = n->conditions[i].status;
	return st;
}

static bool conditions_cover(const struct api_node *a, const struct api_node *b)
{
	for (uint32_t i = 0; i < a->n_conditions; i++)
		if (cond_status(b, a->conditions[i].type) != cond_status(a, a->conditions[i].type))
			return false;
	return true;
}

/* Upstream compares the lists with slices.Equal (the API keeps them sorted): order counts. */
static bool declared_features_equal(const struct api_node *a, const struct api_node *b)
{
	if (a->n_declared_features != b->n_declared_features)
		return false;
	for (uint32_t i = 0; i < a->n_declared_features; i++)
		if (a->declared_features[i] != b->declared_features[i])
			return false;
	return true;
}

uint32_t queue_node_update_events(const struct api_node *old_node, const struct api_node *new_node,
				  struct queue_event out[QUEUE_NODE_UPDATE_EVENTS_MAX])
{
	uint32_t n = 0;
#define NODE_EV(bit) (out[n++] = (struct queue_event){ QUEUE_RES_NODE, (bit), NULL })
	if (old_node->unschedulable != new_node->unschedulable && !new_node->unschedulable)
		NODE_EV(QUEUE_ACT_UPDATE_NODE_TAINT);
	if (!resources_equal(&old_node->allocatable, &new_node->allocatable))
		NODE_EV(QUEUE_ACT_UPDATE_NODE_ALLOCATABLE);
	if (!labels_equal(&old_node->meta.labels, &new_node->meta.labels))
		NODE_EV(QUEUE_ACT_UPDATE_NODE_LABEL);
	if (!api_node_taints_equal(old_node, new_node))
		NODE_EV(QUEUE_ACT_UPDATE_NODE_TAINT);
	if (!conditions_cover(old_node, new_node) || !conditions_cover(new_node, old_node))
		NODE_EV(QUEUE_ACT_UPDATE_NODE_CONDITION);
	if (!annotations_equal(&old_node->meta.annotations, &new_node->meta.annotations))
		NODE_EV(QUEUE_ACT_UPDATE_NODE_ANNOTATION);
	if (!declared_features_equal(old_node, new_node))
		NODE_EV(QUEUE_ACT_UPDATE_NODE_DECLARED_FEATURE);
#undef NODE_EV
	return n;
}

static bool opt_str_equal(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* upstream resourceclaim.PodStatusEqual and PodExtendedStatusEqual (entries compared in order) */
static bool claim_statuses_equal(const struct api_pod *a, const struct api_pod *b)
{
	if (a->n_resource_claim_statuses != b->n_resource_claim_statuses)
		return false;
	for (uint32_t i = 0; i < a->n_resource_claim_statuses; i++)
		if (strcmp(a->resource_claim_statuses[i].name, b->resource_claim_statuses[i].name) ||
		    !opt_str_equal(a->resource_claim_statuses[i].resource_claim_name,
				   b->resource_claim_statuses[i].resource_claim_name))
			return false;
	const struct api_pod_extended_claim_status *x = a->extended_claim_status, *y = b->extended_claim_status;
	if (!x || !y)
		return x == y;
	if (strcmp(x->resource_claim_name, y->resource_claim_name) || x->n_mappings != y->n_mappings)
		return false;
	for (uint32_t i = 0; i < x->n_mappings; i++)
		if (strcmp(x->mappings[i].container_name, y->mappings[i].container_name) ||
		    strcmp(x->mappings[i].resource_name, y->mappings[i].resource_name) ||
		    strcmp(x->mappings[i].request_name, y->mappings[i].request_name))
			return false;
	return true;
}

uint32_t queue_pod_update_events(const struct api_pod *old_pod, const struct api_pod *new_pod,
				 queue_scaled_down_fn scaled_down, bool target_pod,
				 struct queue_event out[QUEUE_POD_UPDATE_EVENTS_MAX])
{
	uint32_t r = new_pod->node_name && new_pod->node_name[0] ? QUEUE_RES_ASSIGNED_POD
			   : target_pod				    ? QUEUE_RES_TARGET_POD
								    : QUEUE_RES_UNSCHEDULED_POD;
	uint32_t n = 0;
#define POD_EV(bit) (out[n++] = (struct queue_event){ r, (bit), NULL })
	if (!labels_equal(&old_pod->meta.labels, &new_pod->meta.labels))
		POD_EV(QUEUE_ACT_UPDATE_POD_LABEL);
	if (scaled_down && scaled_down(old_pod, new_pod))
		POD_EV(QUEUE_ACT_UPDATE_POD_SCALE_DOWN);
	if (scaled_down && scaled_down(new_pod, old_pod)) /* extractPodScaleUp */
		POD_EV(QUEUE_ACT_UPDATE_POD_SCALE_UP);
	if (new_pod->n_scheduling_gates == 0 && old_pod->n_scheduling_gates != 0)
		POD_EV(QUEUE_ACT_UPDATE_POD_SCHEDULING_GATES_ELIMINATED);
	if (new_pod->n_tolerations != old_pod->n_tolerations)
		POD_EV(QUEUE_ACT_UPDATE_POD_TOLERATION);
	if (!claim_statuses_equal(old_pod, new_pod)) /* extractPodGeneratedResourceClaimChange */
		POD_EV(QUEUE_ACT_UPDATE_POD_GENERATED_RESOURCE_CLAIM);
	if (!n)
		POD_EV(QUEUE_ACT_UPDATE);
#undef POD_EV
	return n;
}
