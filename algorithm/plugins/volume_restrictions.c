/* VolumeRestrictions (PreFilter, Filter): a GCE PD, AWS EBS, iSCSI or RBD disk already mounted
 * read-write by a pod on the node cannot be mounted again (upstream isVolumeConflict).
 *
 * Not covered: the ReadWriteOncePod PVC check, which needs PersistentVolumeClaim objects that
 * csched does not watch; pods whose only restricted volumes are such PVCs are not rejected. */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"

#include <string.h>

#define REASON_DISK_CONFLICT "node(s) had no available disk"

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Volumes of these kinds can conflict; every other kind never does. */
static bool restricted(const struct api_volume *v)
{
	return v->kind == API_VOLUME_GCE_PD || v->kind == API_VOLUME_AWS_EBS || v->kind == API_VOLUME_ISCSI ||
	       v->kind == API_VOLUME_RBD;
}

static bool monitors_overlap(const struct api_volume *a, const struct api_volume *b)
{
	for (uint32_t i = 0; i < a->n_monitors; i++)
		for (uint32_t j = 0; j < b->n_monitors; j++)
			if (str_eq(a->monitors[i], b->monitors[j]))
				return true;
	return false;
}

static bool volumes_conflict(const struct api_volume *v, const struct api_volume *e)
{
	if (v->kind != e->kind)
		return false;
	bool both_ro = v->read_only && e->read_only;
	switch (v->kind) {
	case API_VOLUME_GCE_PD:
		/* the same disk conflicts unless every pod mounts it read-only */
		return str_eq(v->pd_name, e->pd_name) && !both_ro;
	case API_VOLUME_AWS_EBS:
		return str_eq(v->volume_id, e->volume_id);
	case API_VOLUME_ISCSI:
		return str_eq(v->iqn, e->iqn) && !both_ro;
	case API_VOLUME_RBD:
		return monitors_overlap(v, e) && str_eq(v->pool, e->pool) && str_eq(v->image, e->image) && !both_ro;
	default:
		return false;
	}
}

/* Whether one of pod's restricted volumes conflicts with one of other's volumes. */
static bool pods_conflict(const struct api_pod *pod, const struct api_pod *other)
{
	for (uint32_t i = 0; i < pod->n_volumes; i++) {
		if (!restricted(&pod->volumes[i]))
			continue;
		for (uint32_t j = 0; j < other->n_volumes; j++)
			if (volumes_conflict(&pod->volumes[i], &other->volumes[j]))
				return true;
	}
	return false;
}

static enum fw_code pre_filter(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			       struct fw_node_names *out, struct fw_status *st)
{
	(void)out;
	(void)st;
	for (uint32_t i = 0; i < pod->n_volumes; i++)
		if (restricted(&pod->volumes[i])) {
			/* the state only marks that PreFilter ran: Filter reads the pod itself */
			fw_cycle_set_state(c, pl, (void *)pod);
			return FW_SUCCESS;
		}
	return FW_SKIP;
}

static enum fw_code filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			   const struct node_info *ni, struct fw_status *st)
{
	if (!fw_cycle_state(c, pl))
		return fw_status_set(st, FW_ERROR, "reading \"PreFilterVolumeRestrictions\" from cycleState: not found");
	for (uint32_t i = 0; i < ni->n_pods; i++)
		if (pods_conflict(pod, ni->pods[i].pod))
			return fw_status_set(st, FW_UNSCHEDULABLE, REASON_DISK_CONFLICT);
	return FW_SUCCESS;
}

/* upstream isSchedulableAfterAssignedPodDeleted: a deleted pod of the same namespace that held a
 * disk the pod conflicts on, or that used one of the pod's PVCs (ReadWriteOncePod, not checked). */
static enum queue_hint pod_deleted(const void *pl, const struct api_pod *pod, const void *old_obj,
				   const void *new_obj)
{
	(void)pl;
	(void)new_obj;
	const struct api_pod *deleted = old_obj;
	if (!deleted)
		return QUEUE_HINT_ERROR; /* upstream: unexpected objects -> Queue with an error */
	if (!str_eq(deleted->meta.namespace, pod->meta.namespace))
		return QUEUE_HINT_SKIP;
	if (pods_conflict(pod, deleted))
		return QUEUE_HINT_QUEUE;
	for (uint32_t i = 0; i < pod->n_volumes; i++) {
		if (pod->volumes[i].kind != API_VOLUME_PVC)
			continue;
		for (uint32_t j = 0; j < deleted->n_volumes; j++)
			if (deleted->volumes[j].kind == API_VOLUME_PVC &&
			    str_eq(pod->volumes[i].claim_name, deleted->volumes[j].claim_name))
				return QUEUE_HINT_QUEUE;
	}
	return QUEUE_HINT_SKIP;
}

/* upstream v1.37 EventsToRegister, without PersistentVolumeClaim Add: csched watches no PVCs
 * (docs). */
static const struct queue_event_hint events[] = {
	{ { .resource = QUEUE_RES_ASSIGNED_POD, .actions = QUEUE_ACT_DELETE }, pod_deleted },
	{ { .resource = QUEUE_RES_NODE, .actions = QUEUE_ACT_ADD }, NULL },
};

const struct fw_plugin fw_plugin_volume_restrictions = {
	.name = "VolumeRestrictions",
	.args_kind = CFG_ARGS_NONE,
	.pre_filter = pre_filter,
	.filter = filter,
	FW_EVENTS(events),
};
