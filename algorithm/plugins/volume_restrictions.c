/* VolumeRestrictions (PreFilter, Filter; upstream plugins/volumerestrictions): a GCE PD, AWS EBS,
 * iSCSI or RBD disk already mounted read-write by a pod on the node cannot be mounted again
 * (isVolumeConflict), every PVC the pod names must exist, and a ReadWriteOncePod PVC may be used
 * by one pod only.
 *
 * PVCs come from the profile's lister (fw_get_pvc: the scheduler's PVC informer). Upstream's
 * snapshot-wide "PVC used by pods" index is a scan of the cycle's nodes here, done only for pods
 * with a ReadWriteOncePod PVC. Instead of PreFilterExtensions AddPod (csched has none), Filter
 * also looks for the ReadWriteOncePod PVCs on the node's pods: a pod already in the snapshot is
 * counted by PreFilter anyway, so this adds the nominated pods upstream's AddPod adds; and, as
 * AddPod matches a nominated pod's claims by name only (conflictingPVCRefCountForPod), a
 * nominated pod of another namespace naming such a claim conflicts too. */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"

#include <string.h>

#define REASON_DISK_CONFLICT "node(s) had no available disk"
#define REASON_RWOP_CONFLICT \
	"node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"

/* upstream preFilterState */
struct vr_state {
	uint32_t n_rwop;
	const char **rwop;      /* names of the pod's ReadWriteOncePod PVCs (the pod's strings), distinct */
	uint32_t conflicting;   /* of those, how many pods in the snapshot use */
};

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

static bool uses_claim(const struct api_pod *p, const char *ns, const char *claim)
{
	if (p->meta.namespace != ns)
		return false;
	for (uint32_t i = 0; i < p->n_volumes; i++)
		if (p->volumes[i].kind == API_VOLUME_PVC && !strcmp(p->volumes[i].claim_name, claim))
			return true;
	return false;
}

/* upstream Snapshot.IsPVCUsedByPods over the cycle's nodes. */
static bool claim_used(const struct fw_cycle *c, const char *ns, const char *claim)
{
	const struct fw_node_list *nl = fw_cycle_nodes(c);
	for (uint32_t i = 0; nl && i < nl->n; i++)
		for (uint32_t k = 0; k < nl->nodes[i]->n_pods; k++)
			if (uses_claim(nl->nodes[i]->pods[k].pod, ns, claim))
				return true;
	return false;
}

static bool has_name(const struct vr_state *s, const char *name)
{
	for (uint32_t i = 0; i < s->n_rwop; i++)
		if (!strcmp(s->rwop[i], name))
			return true;
	return false;
}

/* upstream readWriteOncePodPVCsForPod: every PVC must exist (NotFound ->
 * UnschedulableAndUnresolvable); the ReadWriteOncePod ones are collected. */
static enum fw_code collect_rwop(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
				 struct vr_state *s, struct fw_status *st)
{
	for (uint32_t i = 0; i < pod->n_volumes; i++) {
		const struct api_volume *v = &pod->volumes[i];
		if (v->kind != API_VOLUME_PVC)
			continue;
		struct api_pvc *pvc = fw_get_pvc(pl, pod->meta.namespace, v->claim_name);
		if (!pvc)
			return fw_status_setf(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "persistentvolumeclaim \"%s\" not found",
					      v->claim_name);
		bool rwop = pvc->access_modes & API_ACCESS_RWOP;
		api_pvc_unref(pvc);
		if (!rwop || has_name(s, v->claim_name))
			continue;
		if (!s->rwop && !(s->rwop = fw_cycle_alloc(c, pod->n_volumes * sizeof(*s->rwop))))
			return fw_status_set(st, FW_ERROR, "VolumeRestrictions: out of memory");
		s->rwop[s->n_rwop++] = v->claim_name;
	}
	return FW_SUCCESS;
}

static enum fw_code pre_filter(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			       struct fw_node_names *out, struct fw_status *st)
{
	(void)out;
	bool needs_check = false;
	for (uint32_t i = 0; i < pod->n_volumes && !needs_check; i++)
		needs_check = restricted(&pod->volumes[i]);
	struct vr_state *s = fw_cycle_alloc(c, sizeof(*s));
	if (!s)
		return fw_status_set(st, FW_ERROR, "VolumeRestrictions: out of memory");
	enum fw_code code = collect_rwop(pl, c, pod, s, st);
	if (code != FW_SUCCESS)
		return code;
	for (uint32_t i = 0; i < s->n_rwop; i++)
		if (claim_used(c, pod->meta.namespace, s->rwop[i]))
			s->conflicting++; /* at most one pod can use a ReadWriteOncePod PVC */
	if (!needs_check && s->conflicting == 0)
		return FW_SKIP;
	fw_cycle_set_state(c, pl, s);
	return FW_SUCCESS;
}

/* Whether p names one of the pod's ReadWriteOncePod PVCs, by claim name in any namespace. */
static bool names_rwop_claim(const struct api_pod *p, const struct vr_state *s)
{
	for (uint32_t i = 0; i < p->n_volumes; i++)
		if (p->volumes[i].kind == API_VOLUME_PVC && has_name(s, p->volumes[i].claim_name))
			return true;
	return false;
}

/* upstream conflictingPVCRefCountForPod: p's volumes naming one of the claims. */
static int64_t claim_refs(const struct api_pod *p, const struct vr_state *s)
{
	int64_t n = 0;
	for (uint32_t i = 0; i < p->n_volumes; i++)
		if (p->volumes[i].kind == API_VOLUME_PVC && has_name(s, p->volumes[i].claim_name))
			n++;
	return n;
}

/* upstream AddPod in the pass with the nominated pods (those appended to ni): a nominated pod
 * naming one of the claims counts, whatever its namespace. */
static bool nominated_conflict(const struct fw_cycle *c, const struct node_info *ni, const struct vr_state *s)
{
	uint32_t n = 0;
	const struct api_pod *const *nom = s->n_rwop ? fw_cycle_nominated_pods(c, ni->name, &n) : NULL;
	for (uint32_t i = 0; i < n; i++) {
		if (!names_rwop_claim(nom[i], s))
			continue;
		for (uint32_t k = 0; k < ni->n_pods; k++) /* the pass without them: not there */
			if (ni->pods[k].pod == nom[i])
				return true;
	}
	return false;
}

static enum fw_code filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			   const struct node_info *ni, struct fw_status *st)
{
	for (uint32_t i = 0; i < ni->n_pods; i++)
		if (pods_conflict(pod, ni->pods[i].pod))
			return fw_status_set(st, FW_UNSCHEDULABLE, REASON_DISK_CONFLICT);
	const struct vr_state *s = fw_cycle_state(c, pl);
	if (!s)
		return fw_status_set(st, FW_ERROR, "cannot read \"PreFilterVolumeRestrictions\" from cycleState");
	uint32_t it = 0;
	if (s->n_rwop && fw_removed_pod_next(c, ni, &it)) {
		/* preemption's dry run: upstream's count after RemovePod of each victim (and AddPod of
		 * each nominated pod), one per volume naming a claim, whatever the namespace */
		int64_t n = s->conflicting;
		it = 0;
		for (const struct api_pod *r; (r = fw_removed_pod_next(c, ni, &it));)
			n -= claim_refs(r, s);
		uint32_t n_nom = 0;
		const struct api_pod *const *nom = fw_cycle_nominated_pods(c, ni->name, &n_nom);
		for (uint32_t i = 0; i < n_nom; i++)
			if (node_info_pod_index(ni, nom[i]->meta.uid) >= 0)
				n += claim_refs(nom[i], s);
		return n > 0 ? fw_status_set(st, FW_UNSCHEDULABLE, REASON_RWOP_CONFLICT) : FW_SUCCESS;
	}
	bool conflict = s->conflicting > 0;
	for (uint32_t i = 0; !conflict && i < s->n_rwop; i++)
		for (uint32_t k = 0; !conflict && k < ni->n_pods; k++)
			conflict = uses_claim(ni->pods[k].pod, pod->meta.namespace, s->rwop[i]);
	if (conflict || nominated_conflict(c, ni, s))
		return fw_status_set(st, FW_UNSCHEDULABLE, REASON_RWOP_CONFLICT);
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
	for (uint32_t i = 0; i < pod->n_volumes; i++)
		if (pod->volumes[i].kind == API_VOLUME_PVC && uses_claim(deleted, pod->meta.namespace, pod->volumes[i].claim_name))
			return QUEUE_HINT_QUEUE;
	return QUEUE_HINT_SKIP;
}

/* upstream isSchedulableAfterPersistentVolumeClaimAdded: a PVC the pod names was created. */
static enum queue_hint pvc_added(const void *pl, const struct api_pod *pod, const void *old_obj, const void *new_obj)
{
	(void)pl;
	(void)old_obj;
	const struct api_pvc *pvc = new_obj;
	if (!pvc)
		return QUEUE_HINT_ERROR; /* upstream: unexpected objects -> Queue with an error */
	if (!str_eq(pvc->meta.namespace, pod->meta.namespace))
		return QUEUE_HINT_SKIP;
	for (uint32_t i = 0; i < pod->n_volumes; i++)
		if (pod->volumes[i].kind == API_VOLUME_PVC && !strcmp(pod->volumes[i].claim_name, pvc->meta.name))
			return QUEUE_HINT_QUEUE;
	return QUEUE_HINT_SKIP;
}

/* upstream v1.37 EventsToRegister */
static const struct queue_event_hint events[] = {
	{ { .resource = QUEUE_RES_ASSIGNED_POD, .actions = QUEUE_ACT_DELETE }, pod_deleted },
	{ { .resource = QUEUE_RES_NODE, .actions = QUEUE_ACT_ADD }, NULL },
	{ { .resource = QUEUE_RES_PERSISTENT_VOLUME_CLAIM, .actions = QUEUE_ACT_ADD }, pvc_added },
};

const struct fw_plugin fw_plugin_volume_restrictions = {
	.name = "VolumeRestrictions",
	.args_kind = CFG_ARGS_NONE,
	.pre_filter = pre_filter,
	.filter = filter,
	FW_EVENTS(events),
};
