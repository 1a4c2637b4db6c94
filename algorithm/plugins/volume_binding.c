/* VolumeBinding (PreFilter, Filter, PreScore, Score, Reserve, Unreserve, PreBind; upstream
 * plugins/volumebinding/volume_binding.go and scorer.go): a pod's PersistentVolumeClaims must be
 * bound, or bindable on the node (a matching available PV, or dynamic provisioning by the
 * class's provisioner where its topology and CSIStorageCapacity allow); Reserve assumes the
 * chosen bindings, PreBind writes them (PV claimRef, claim's selected-node annotation) through
 * the scheduler's fw_volume_ops and waits until the PV controller has bound every claim. The
 * binder and its assume caches are in volume_binder.c.
 *
 * Threads: PreFilter, PreScore and Reserve on the scheduler thread; Filter and Score on the
 * worker pool (Filter records each node's result under the state's lock, as upstream's
 * stateData mutex); Reserve..PreBind and Unreserve may run on a binder thread, one at a time
 * per cycle state. */
#include "volume_binding_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_helpers.h"

#define MAX_UTILIZATION 100

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* ---------- init ---------- */

static int init(struct fw_pl *pl, struct err *e)
{
	/* NULL args: upstream's defaults (SetDefaults_VolumeBindingArgs) */
	static const struct cfg_shape_point default_shape[] = { { 0, 10 }, { 100, 0 } };
	static const struct cfg_volume_binding_args defaults = { 600, 2, default_shape };
	const struct cfg_volume_binding_args *a = pl->args ? pl->args : &defaults;
	if (a->bind_timeout_seconds < 0)
		return err_set(e, ERR_INVALID, "VolumeBinding: bindTimeoutSeconds: invalid BindTimeoutSeconds, should not be a negative value");
	if (a->n_shape == 0 || a->n_shape > 16)
		return err_set(e, ERR_INVALID, "VolumeBinding: shape: %u points (1..16)", a->n_shape);
	struct vb_priv *p = calloc(1, sizeof(*p));
	if (!p || vb_priv_init(p) < 0) {
		free(p);
		return err_set(e, ERR_NOMEM, "VolumeBinding: out of memory");
	}
	p->bind_timeout_ms = a->bind_timeout_seconds * 1000;
	/* StorageCapacityScoring is on (v1.37 default): the scorer is built from the shape, scores
	 * scaled from MaxCustomPriorityScore (10) to MaxNodeScore (100) */
	p->has_scorer = true;
	p->n_shape = a->n_shape;
	for (uint32_t i = 0; i < a->n_shape; i++) {
		p->shape_util[i] = a->shape[i].utilization;
		p->shape_score[i] = (int64_t)a->shape[i].score * (FW_MAX_NODE_SCORE / 10);
	}
	pl->priv = p;
	return 0;
}

static void release(struct fw_pl *pl)
{
	struct vb_priv *p = pl->priv;
	if (!p)
		return;
	vb_priv_release(p);
	free(p);
	pl->priv = NULL;
}

/* The PV and PVC informers' deletes reach the assume caches (upstream's AssumeCache registers
 * its own delete handler on both informers). */
static void object_deleted(const struct fw_pl *pl, enum queue_resource res, const void *obj)
{
	if (pl->priv)
		vb_object_deleted(pl->priv, res, obj);
}

/* ---------- PreFilter ---------- */

/* upstream podHasPVCs: *has set; FW_UNSCHEDULABLE_AND_UNRESOLVABLE with the reason on a
 * missing, lost, deleted or foreign claim. */
static enum fw_code pod_has_pvcs(const struct fw_pl *pl, const struct api_pod *pod, bool *has, struct fw_status *st)
{
	const enum fw_code un = FW_UNSCHEDULABLE_AND_UNRESOLVABLE;
	*has = false;
	for (uint32_t i = 0; i < pod->n_volumes; i++) {
		const struct api_volume *vol = &pod->volumes[i];
		if (vol->kind != API_VOLUME_PVC && vol->kind != API_VOLUME_EPHEMERAL)
			continue;
		bool ephemeral = vol->kind == API_VOLUME_EPHEMERAL;
		*has = true;
		struct api_pvc *pvc = fw_get_pvc(pl, pod->meta.namespace, vol->claim_name);
		if (!pvc) {
			if (ephemeral)
				return fw_status_setf(st, un,
						      "waiting for ephemeral volume controller to create the persistentvolumeclaim \"%s\"",
						      vol->claim_name);
			return fw_status_setf(st, un, "persistentvolumeclaim \"%s\" not found", vol->claim_name);
		}
		enum fw_code code = FW_SUCCESS;
		if (str_eq(pvc->phase, "Lost"))
			code = fw_status_setf(st, un, "persistentvolumeclaim \"%s\" bound to non-existent persistentvolume \"%s\"",
					      pvc->meta.name, pvc->volume_name ? pvc->volume_name : "");
		else if (pvc->meta.being_deleted)
			code = fw_status_setf(st, un, "persistentvolumeclaim \"%s\" is being deleted", pvc->meta.name);
		else if (ephemeral) {
			bool owned = false;
			for (uint32_t j = 0; j < pvc->meta.n_owner_refs; j++)
				if (pvc->meta.owner_refs[j].controller) {
					owned = str_eq(pvc->meta.owner_refs[j].uid, pod->meta.uid);
					break;
				}
			if (!str_eq(pvc->meta.namespace, pod->meta.namespace) || !owned)
				code = fw_status_setf(st, un, "PVC %s/%s was not created for pod %s/%s (pod is not owner)",
						      pvc->meta.namespace, pvc->meta.name, pod->meta.namespace, pod->meta.name);
		}
		api_pvc_unref(pvc);
		if (code != FW_SUCCESS)
			return code;
	}
	return FW_SUCCESS;
}

static struct vb_state *state_new(struct fw_cycle *c, const struct fw_pl *pl)
{
	struct vb_state *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	map_init(&s->by_node);
	pthread_mutex_init(&s->lock, NULL);
	if (fw_cycle_on_release(c, vb_state_free, s) < 0) {
		vb_state_free(s);
		return NULL;
	}
	fw_cycle_set_state(c, pl, s);
	return s;
}

static enum fw_code pre_filter(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			       struct fw_node_names *out, struct fw_status *st)
{
	(void)out;
	bool has;
	enum fw_code code = pod_has_pvcs(pl, pod, &has, st);
	if (code != FW_SUCCESS)
		return code;
	struct vb_state *s = state_new(c, pl);
	if (!s)
		return fw_status_set(st, FW_ERROR, "VolumeBinding: out of memory");
	if (!has) {
		s->skip = true;
		return FW_SKIP;
	}
	code = vb_get_pod_volume_claims(pl, pod, s, st);
	if (code != FW_SUCCESS)
		return code;
	if (s->n_immediate)
		return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, VB_REASON_UNBOUND_IMMEDIATE);
	return FW_SUCCESS;
}

/* ---------- Filter ---------- */

static enum fw_code filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			   const struct node_info *ni, struct fw_status *st)
{
	struct vb_state *s = fw_cycle_state(c, pl);
	if (!s)
		return fw_status_set(st, FW_ERROR, "not found");
	if (s->skip)
		return FW_SUCCESS;
	struct vb_pod_volumes *v = NULL;
	enum fw_code code = vb_find_pod_volumes(pl, pod, s, ni->node, &v, st);
	if (code != FW_SUCCESS) {
		vb_pod_volumes_free(v);
		return code;
	}
	void *old = NULL;
	pthread_mutex_lock(&s->lock);
	int rc = map_put(&s->by_node, v->node_name, v, &old);
	if (rc == 0)
		s->has_static_bindings = s->has_static_bindings || v->n_static > 0;
	pthread_mutex_unlock(&s->lock);
	vb_pod_volumes_free(old);
	if (rc < 0) {
		vb_pod_volumes_free(v);
		return fw_status_set(st, FW_ERROR, "VolumeBinding: out of memory");
	}
	return FW_SUCCESS;
}

/* ---------- PreScore / Score ---------- */

static enum fw_code pre_score(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			      const struct node_info *const *nodes, uint32_t n, struct fw_status *st)
{
	(void)pod;
	(void)nodes;
	(void)n;
	const struct vb_priv *p = pl->priv;
	if (!p->has_scorer)
		return FW_SKIP;
	if (!fw_cycle_state(c, pl))
		return fw_status_set(st, FW_ERROR, "not found");
	/* hasStaticBindings || StorageCapacityScoring (on): Score runs */
	return FW_SUCCESS;
}

/* upstream helper.BuildBrokenLinearFunction over the scaled shape */
static int64_t broken_linear(const struct vb_priv *p, int64_t u)
{
	for (uint32_t i = 0; i < p->n_shape; i++) {
		if (u <= p->shape_util[i]) {
			if (i == 0)
				return p->shape_score[0];
			return p->shape_score[i - 1] + (p->shape_score[i] - p->shape_score[i - 1]) * (u - p->shape_util[i - 1]) /
							       (p->shape_util[i] - p->shape_util[i - 1]);
		}
	}
	return p->shape_score[p->n_shape - 1];
}

struct class_res {
	const char *class_name;
	int64_t requested, capacity;
};

/* upstream buildScorerFunction's result over the classes */
static int64_t score_classes(const struct vb_priv *p, const struct class_res *r, uint32_t n)
{
	if (n == 0)
		return 0;
	int64_t sum = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (r[i].capacity == 0 || r[i].requested > r[i].capacity)
			sum += broken_linear(p, MAX_UTILIZATION);
		else
			sum += broken_linear(p, r[i].requested * MAX_UTILIZATION / r[i].capacity);
	}
	return (int64_t)llround((double)sum / (double)n);
}

static struct class_res *class_slot(struct class_res *r, uint32_t *n, const char *name)
{
	for (uint32_t i = 0; i < *n; i++)
		if (strcmp(r[i].class_name, name) == 0)
			return &r[i];
	r[*n] = (struct class_res){ .class_name = name };
	return &r[(*n)++];
}

int64_t vb_score_pod_volumes(const struct vb_priv *p, const struct vb_pod_volumes *v)
{
	uint32_t total = v->n_static + v->n_dynamic, n = 0;
	struct class_res stack[16], *r = total <= 16 ? stack : calloc(total, sizeof(*r));
	if (!r)
		return 0;
	if (v->n_static) {
		for (uint32_t i = 0; i < v->n_static; i++) {
			const struct vb_binding *b = &v->statics[i];
			/* BindingInfo.StorageClassName: the PV's spec.storageClassName */
			struct class_res *c = class_slot(r, &n, b->pv.pv->storage_class_name ? b->pv.pv->storage_class_name : "");
			c->requested += b->claim->pvc->request_storage;
			c->capacity += b->pv.pv->capacity_storage;
		}
	} else {
		for (uint32_t i = 0; i < v->n_dynamic; i++) {
			const struct vb_provision *d = &v->dynamics[i];
			if (!d->has_node_capacity)
				continue;
			const char *cls = d->claim.pvc->storage_class_name ? d->claim.pvc->storage_class_name : "";
			struct class_res *c = class_slot(r, &n, cls);
			c->capacity = d->node_capacity;
			c->requested += d->claim.pvc->request_storage;
		}
	}
	int64_t score = score_classes(p, r, n);
	if (r != stack)
		free(r);
	return score;
}

static enum fw_code score(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			  const struct node_info *ni, int64_t *out, struct fw_status *st)
{
	(void)pod;
	const struct vb_priv *p = pl->priv;
	struct vb_state *s = fw_cycle_state(c, pl);
	*out = 0;
	if (!p->has_scorer)
		return FW_SUCCESS;
	if (!s)
		return fw_status_set(st, FW_ERROR, "not found");
	if (s->skip)
		return FW_SUCCESS;
	/* Filter is over: the map is read only */
	const struct vb_pod_volumes *v = map_get(&s->by_node, ni->name);
	if (v)
		*out = vb_score_pod_volumes(p, v);
	return FW_SUCCESS;
}

/* ---------- Reserve / Unreserve / PreBind ---------- */

/* Whether pod names a claim (a persistentVolumeClaim or generic ephemeral volume). */
static bool pod_uses_claims(const struct api_pod *pod)
{
	for (uint32_t i = 0; i < pod->n_volumes; i++)
		if (pod->volumes[i].kind == API_VOLUME_PVC || pod->volumes[i].kind == API_VOLUME_EPHEMERAL)
			return true;
	return false;
}

/* Reserve and PreBind without PreFilter's state: upstream fails reading it (a binding cycle
 * always follows a scheduling cycle there); a pod without claims has nothing to bind either
 * way, so only a pod with claims gets upstream's error. */
static enum fw_code no_state(const struct api_pod *pod, struct fw_status *st)
{
	if (!pod_uses_claims(pod))
		return FW_SUCCESS;
	return fw_status_set(st, FW_ERROR, "not found");
}

static enum fw_code reserve(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			    const char *node_name, struct fw_status *st)
{
	struct vb_state *s = fw_cycle_state(c, pl);
	if (!s)
		return no_state(pod, st);
	struct vb_pod_volumes *v = map_get(&s->by_node, node_name);
	if (!v) {
		s->all_bound = true;
		return FW_SUCCESS;
	}
	bool all_bound = false;
	enum fw_code code = vb_assume_pod_volumes(pl, pod, node_name, v, &all_bound, st);
	if (code == FW_SUCCESS)
		s->all_bound = all_bound;
	return code;
}

static void unreserve(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod, const char *node_name)
{
	(void)pod;
	struct vb_state *s = fw_cycle_state(c, pl);
	struct vb_pod_volumes *v = s ? map_get(&s->by_node, node_name) : NULL;
	if (v)
		vb_revert_assumed_pod_volumes(pl, v);
}

static enum fw_code pre_bind(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			     const char *node_name, struct fw_status *st)
{
	struct vb_state *s = fw_cycle_state(c, pl);
	if (!s)
		return no_state(pod, st);
	if (s->all_bound)
		return FW_SUCCESS;
	struct vb_pod_volumes *v = map_get(&s->by_node, node_name);
	if (!v)
		return fw_status_setf(st, FW_ERROR, "no pod volume found for node \"%s\"", node_name);
	return vb_bind_pod_volumes(pl, pod, node_name, v, st);
}

/* ---------- EventsToRegister and queueing hints ---------- */

/* isSchedulableAfterCSINodeChange */
static enum queue_hint csinode_hint(const void *plugin, const struct api_pod *pod, const void *old_obj,
				    const void *new_obj)
{
	(void)plugin;
	(void)pod;
	const struct api_csinode *o = old_obj, *n = new_obj;
	if (!o || !n)
		return QUEUE_HINT_QUEUE;
	const char *a = vb_annotation(&o->meta.annotations, VB_ANN_MIGRATED_PLUGINS);
	const char *b = vb_annotation(&n->meta.annotations, VB_ANN_MIGRATED_PLUGINS);
	return strcmp(a ? a : "", b ? b : "") != 0 ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
}

/* isSchedulableAfterPersistentVolumeClaimChange */
static enum queue_hint pvc_hint(const void *plugin, const struct api_pod *pod, const void *old_obj,
				const void *new_obj)
{
	(void)plugin;
	(void)old_obj;
	const struct api_pvc *n = new_obj;
	if (!n)
		return QUEUE_HINT_QUEUE;
	if (!str_eq(pod->meta.namespace, n->meta.namespace))
		return QUEUE_HINT_SKIP;
	for (uint32_t i = 0; i < pod->n_volumes; i++) {
		const struct api_volume *v = &pod->volumes[i];
		if ((v->kind == API_VOLUME_PVC || v->kind == API_VOLUME_EPHEMERAL) && str_eq(v->claim_name, n->meta.name))
			return QUEUE_HINT_QUEUE;
	}
	return QUEUE_HINT_SKIP;
}

static bool topologies_equal(const struct api_storage_class *a, const struct api_storage_class *b)
{
	if (a->n_allowed_topologies != b->n_allowed_topologies)
		return false;
	for (uint32_t i = 0; i < a->n_allowed_topologies; i++) {
		const struct api_topology_term *x = &a->allowed_topologies[i], *y = &b->allowed_topologies[i];
		if (x->n_exprs != y->n_exprs)
			return false;
		for (uint32_t j = 0; j < x->n_exprs; j++) {
			const struct api_requirement *r = &x->exprs[j], *s = &y->exprs[j];
			if (!str_eq(r->key, s->key) || r->n_values != s->n_values)
				return false;
			for (uint32_t k = 0; k < r->n_values; k++)
				if (!str_eq(r->values[k], s->values[k]))
					return false;
		}
	}
	return true;
}

/* isSchedulableAfterStorageClassChange */
static enum queue_hint storage_class_hint(const void *plugin, const struct api_pod *pod, const void *old_obj,
					  const void *new_obj)
{
	(void)plugin;
	(void)pod;
	const struct api_storage_class *o = old_obj, *n = new_obj;
	if (!o || !n)
		return QUEUE_HINT_QUEUE;
	return topologies_equal(o, n) ? QUEUE_HINT_SKIP : QUEUE_HINT_QUEUE;
}

/* isSchedulableAfterCSIStorageCapacityChange */
static enum queue_hint capacity_hint(const void *plugin, const struct api_pod *pod, const void *old_obj,
				     const void *new_obj)
{
	(void)plugin;
	(void)pod;
	const struct api_csi_storage_capacity *o = old_obj, *n = new_obj;
	if (!o || !n)
		return QUEUE_HINT_QUEUE;
	bool has_old, has_new;
	int64_t old_limit = vb_volume_limit(o, &has_old), new_limit = vb_volume_limit(n, &has_new);
	if (has_new && (!has_old || new_limit > old_limit))
		return QUEUE_HINT_QUEUE;
	return QUEUE_HINT_SKIP;
}

/* isSchedulableAfterCSIDriverChange */
static enum queue_hint csidriver_hint(const void *plugin, const struct api_pod *pod, const void *old_obj,
				      const void *new_obj)
{
	(void)plugin;
	const struct api_csidriver *o = old_obj, *n = new_obj;
	if (!o || !n)
		return QUEUE_HINT_QUEUE;
	for (uint32_t i = 0; i < pod->n_volumes; i++) {
		const struct api_volume *v = &pod->volumes[i];
		if (v->kind != API_VOLUME_CSI || !str_eq(v->csi_driver, n->meta.name))
			continue;
		bool was = o->has_storage_capacity && o->storage_capacity;
		bool is = n->has_storage_capacity && n->storage_capacity;
		if (was && !is)
			return QUEUE_HINT_QUEUE;
	}
	return QUEUE_HINT_SKIP;
}

static const struct queue_event_hint events[] = {
	{ { .resource = QUEUE_RES_STORAGE_CLASS, .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE }, storage_class_hint },
	{ { .resource = QUEUE_RES_PERSISTENT_VOLUME_CLAIM, .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE }, pvc_hint },
	{ { .resource = QUEUE_RES_PERSISTENT_VOLUME, .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE }, NULL },
	{ { .resource = QUEUE_RES_NODE, .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_LABEL }, NULL },
	{ { .resource = QUEUE_RES_CSI_NODE, .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE }, csinode_hint },
	{ { .resource = QUEUE_RES_CSI_DRIVER, .actions = QUEUE_ACT_UPDATE }, csidriver_hint },
	{ { .resource = QUEUE_RES_CSI_STORAGE_CAPACITY, .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE }, capacity_hint },
};

const struct fw_plugin fw_plugin_volume_binding = {
	.name = "VolumeBinding",
	.args_kind = CFG_ARGS_VOLUME_BINDING,
	.init = init,
	.release = release,
	.pre_filter = pre_filter,
	.filter = filter,
	.pre_score = pre_score,
	.score = score,
	.reserve = reserve,
	.unreserve = unreserve,
	.pre_bind = pre_bind,
	FW_EVENTS(events),
	.object_deleted = object_deleted,
};
