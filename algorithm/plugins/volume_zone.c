/* VolumeZone (PreFilter, Filter; upstream plugins/volumezone): the zone and region labels of the
 * PersistentVolumes bound to the pod's claims must match the node's. PreFilter resolves each
 * claim (PVC lister) to its bound PV (PV lister) and keeps the PV's topology labels (beta and GA
 * zone and region; a value may list zones joined by "__"); a claim not yet bound is skipped when
 * its class binds WaitForFirstConsumer (VolumeBinding picks a node then) and is an error
 * otherwise. Filter passes a node without any topology label (a single-zone cluster), else each
 * PV label must have the node's value for its key (a beta key also matches the node's GA key).
 *
 * Upstream reads its listers in Filter too when PreFilter's state is missing (a profile running
 * Filter without PreFilter): so does this one, walking the claims again without keeping them. */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"

#include <ctype.h>
#include <pthread.h>
#include <string.h>

#include "common/intern.h"

#define REASON_CONFLICT "node(s) had no available volume zone"
#define ZONE_DELIMITER "__" /* cloud-provider volume.LabelMultiZoneDelimiter */
#define N_TOPOLOGY_LABELS 4

/* upstream topologyLabels, in its order, and translateToGALabel of each; interned once */
static const char *topology_keys[N_TOPOLOGY_LABELS], *ga_keys[N_TOPOLOGY_LABELS];
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

static void keys_init(void)
{
	static const char *const names[N_TOPOLOGY_LABELS][2] = {
		{ "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone" },
		{ "failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region" },
		{ "topology.kubernetes.io/zone", "topology.kubernetes.io/zone" },
		{ "topology.kubernetes.io/region", "topology.kubernetes.io/region" },
	};
	for (int i = 0; i < N_TOPOLOGY_LABELS; i++) {
		topology_keys[i] = intern_str(names[i][0]);
		ga_keys[i] = intern_str(names[i][1]);
	}
}

static bool keys_ready(void)
{
	pthread_once(&keys_once, keys_init);
	for (int i = 0; i < N_TOPOLOGY_LABELS; i++)
		if (!topology_keys[i] || !ga_keys[i])
			return false;
	return true;
}

/* ---------- a PV's topology (upstream pvTopology, getPVTopologies) ---------- */

/* One "__"-separated zone of a label value: [s, s + n), spaces trimmed. */
struct zone {
	const char *s;
	size_t n;
};

/* Calls fn on each zone of value (upstream LabelZonesToSet); false, calling nothing, when a zone
 * is empty (the label is ignored). fn returning true stops the walk early (true returned). */
static bool zones_each(const char *value, bool (*fn)(void *ctx, struct zone z), void *ctx, bool *stopped)
{
	*stopped = false;
	/* first pass: every zone non-empty, else the whole label is ignored */
	for (int pass = 0; pass < 2; pass++) {
		const char *p = value;
		for (;;) {
			const char *end = strstr(p, ZONE_DELIMITER);
			size_t len = end ? (size_t)(end - p) : strlen(p);
			struct zone z = { p, len };
			while (z.n && isspace((unsigned char)z.s[0])) {
				z.s++;
				z.n--;
			}
			while (z.n && isspace((unsigned char)z.s[z.n - 1]))
				z.n--;
			if (pass == 0 && !z.n)
				return false;
			if (pass == 1 && fn(ctx, z)) {
				*stopped = true;
				return true;
			}
			if (!end)
				break;
			p = end + strlen(ZONE_DELIMITER);
		}
	}
	return true;
}

static bool zone_is(void *ctx, struct zone z)
{
	const char *want = ctx;
	return strlen(want) == z.n && !memcmp(want, z.s, z.n);
}

/* Whether value (a PV topology label) lists zone v. */
static bool value_has(const char *value, const char *v)
{
	bool stopped;
	return zones_each(value, zone_is, (void *)v, &stopped) && stopped;
}

static bool never(void *ctx, struct zone z)
{
	(void)ctx;
	(void)z;
	return false;
}

/* The value of PV label key i, or NULL when absent or unparsable (upstream skips it). */
static const char *pv_label(const struct api_pv *pv, int i)
{
	const char *v = api_labels_get(&pv->meta.labels, topology_keys[i]);
	bool stopped;
	return v && zones_each(v, never, NULL, &stopped) ? v : NULL;
}

/* Whether the node (with some topology label) matches every topology label of pv. */
static bool node_matches_pv(const struct api_node *node, const struct api_pv *pv)
{
	for (int i = 0; i < N_TOPOLOGY_LABELS; i++) {
		const char *pvv = pv_label(pv, i);
		if (!pvv)
			continue;
		const char *v = api_labels_get(&node->meta.labels, topology_keys[i]);
		if (!v) /* a beta key: try the node's GA label */
			v = api_labels_get(&node->meta.labels, ga_keys[i]);
		if (!v || !value_has(pvv, v))
			return false;
	}
	return true;
}

static bool has_topology(const struct api_pv *pv)
{
	for (int i = 0; i < N_TOPOLOGY_LABELS; i++)
		if (pv_label(pv, i))
			return true;
	return false;
}

/* ---------- claims -> PVs (upstream getPVbyPod) ---------- */

/* upstream GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName. */
static const char *claim_class(const struct api_pvc *pvc)
{
	for (uint32_t i = 0; i < pvc->meta.annotations.n; i++)
		if (!strcmp(pvc->meta.annotations.items[i].key, "volume.beta.kubernetes.io/storage-class"))
			return pvc->meta.annotations.items[i].value;
	return pvc->storage_class_name ? pvc->storage_class_name : "";
}

/* Calls fn with the bound PV (a reference held for the call) of each of pod's claims, in the
 * pod's volume order, skipping unbound claims of a WaitForFirstConsumer class; sets st and
 * returns its code on the first claim upstream rejects. fn returning false stops the walk. */
static enum fw_code each_pv(const struct fw_pl *pl, const struct api_pod *pod,
			    bool (*fn)(void *ctx, const struct api_pv *pv), void *ctx, struct fw_status *st)
{
	for (uint32_t i = 0; i < pod->n_volumes; i++) {
		const struct api_volume *v = &pod->volumes[i];
		if (v->kind != API_VOLUME_PVC)
			continue;
		if (!v->claim_name[0])
			return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "PersistentVolumeClaim had no name");
		struct api_pvc *pvc = fw_get_pvc(pl, pod->meta.namespace, v->claim_name);
		if (!pvc)
			return fw_status_setf(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, "persistentvolumeclaim \"%s\" not found",
					      v->claim_name);
		if (!pvc->volume_name[0]) {
			const char *cls = claim_class(pvc);
			enum fw_code code = FW_SUCCESS;
			if (!cls[0]) {
				code = fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
						     "PersistentVolumeClaim had no pv name and storageClass name");
			} else {
				struct api_storage_class *sc = fw_get_storage_class(pl, cls);
				if (!sc)
					code = fw_status_setf(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
							      "storageclass.storage.k8s.io \"%s\" not found", cls);
				else if (!sc->has_volume_binding_mode)
					code = fw_status_setf(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
							      "VolumeBindingMode not set for StorageClass \"%s\"", cls);
				else if (sc->volume_binding_mode != API_BINDING_WAIT_FOR_FIRST_CONSUMER)
					code = fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
							     "PersistentVolume had no name");
				api_storage_class_unref(sc);
			}
			api_pvc_unref(pvc);
			if (code != FW_SUCCESS)
				return code;
			continue; /* unbound, WaitForFirstConsumer: skipped */
		}
		struct api_pv *pv = fw_get_pv(pl, pvc->volume_name);
		if (!pv) {
			enum fw_code code = fw_status_setf(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
							   "persistentvolume \"%s\" not found", pvc->volume_name);
			api_pvc_unref(pvc);
			return code;
		}
		api_pvc_unref(pvc);
		bool go_on = fn(ctx, pv);
		api_pv_unref(pv);
		if (!go_on)
			break;
	}
	return FW_SUCCESS;
}

/* ---------- PreFilter state (upstream stateData) ---------- */

/* The pod's bound PVs that have topology labels (referenced until the cycle is released). */
struct vz_state {
	uint32_t n, cap;
	struct api_pv **pvs;
};

static void state_release(void *arg)
{
	struct vz_state *s = arg;
	for (uint32_t i = 0; i < s->n; i++)
		api_pv_unref(s->pvs[i]);
	s->n = 0;
}

struct collect {
	struct fw_cycle *c;
	struct vz_state *s;
	bool nomem;
};

static bool collect_pv(void *ctx, const struct api_pv *pv)
{
	struct collect *k = ctx;
	if (!has_topology(pv))
		return true;
	if (k->s->n == k->s->cap) {
		uint32_t cap = k->s->cap ? 2 * k->s->cap : 4;
		struct api_pv **pvs = fw_cycle_alloc(k->c, cap * sizeof(*pvs));
		if (!pvs) {
			k->nomem = true;
			return false;
		}
		if (k->s->n)
			memcpy(pvs, k->s->pvs, k->s->n * sizeof(*pvs));
		k->s->pvs = pvs;
		k->s->cap = cap;
	}
	k->s->pvs[k->s->n++] = api_pv_ref((struct api_pv *)pv);
	return true;
}

static enum fw_code pre_filter(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			       struct fw_node_names *out, struct fw_status *st)
{
	(void)out;
	if (!keys_ready())
		return fw_status_set(st, FW_ERROR, "VolumeZone: out of memory");
	/* most pods name no claim: Skip without a state (nothing to release either) */
	bool any = false;
	for (uint32_t i = 0; i < pod->n_volumes && !any; i++)
		any = pod->volumes[i].kind == API_VOLUME_PVC;
	if (!any)
		return FW_SKIP;
	struct vz_state *s = fw_cycle_alloc(c, sizeof(*s));
	if (!s || fw_cycle_on_release(c, state_release, s) < 0)
		return fw_status_set(st, FW_ERROR, "VolumeZone: out of memory");
	struct collect k = { c, s, false };
	enum fw_code code = each_pv(pl, pod, collect_pv, &k, st);
	if (code != FW_SUCCESS)
		return code;
	if (k.nomem)
		return fw_status_set(st, FW_ERROR, "VolumeZone: out of memory");
	if (!s->n)
		return FW_SKIP;
	fw_cycle_set_state(c, pl, s);
	return FW_SUCCESS;
}

/* ---------- Filter ---------- */

static bool node_has_topology(const struct api_node *node)
{
	for (int i = 0; i < N_TOPOLOGY_LABELS; i++)
		if (api_labels_get(&node->meta.labels, topology_keys[i]))
			return true;
	return false;
}

struct fallback {
	const struct api_node *node;
	bool conflict;
};

static bool every_pv(void *ctx, const struct api_pv *pv)
{
	(void)ctx;
	(void)pv;
	return true;
}

static bool check_pv(void *ctx, const struct api_pv *pv)
{
	struct fallback *f = ctx;
	f->conflict = !node_matches_pv(f->node, pv);
	return !f->conflict;
}

static enum fw_code filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			   const struct node_info *ni, struct fw_status *st)
{
	if (!pod->n_volumes)
		return FW_SUCCESS;
	if (!keys_ready())
		return fw_status_set(st, FW_ERROR, "VolumeZone: out of memory");
	const struct vz_state *s = fw_cycle_state(c, pl);
	const struct api_node *node = ni->node;
	if (!s) {
		/* upstream's fallback: every claim's error comes first, whatever the node */
		struct fallback f = { node, false };
		enum fw_code code = each_pv(pl, pod, every_pv, NULL, st);
		if (code != FW_SUCCESS)
			return code;
		if (!node || !node_has_topology(node))
			return FW_SUCCESS;
		if ((code = each_pv(pl, pod, check_pv, &f, st)) != FW_SUCCESS)
			return code; /* a claim changed between the walks */
		return f.conflict ? fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, REASON_CONFLICT) : FW_SUCCESS;
	}
	if (!node || !node_has_topology(node))
		return FW_SUCCESS; /* no zone constraint on the node: a single-zone cluster */
	for (uint32_t i = 0; i < s->n; i++)
		if (!node_matches_pv(node, s->pvs[i]))
			return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, REASON_CONFLICT);
	return FW_SUCCESS;
}

/* ---------- queueing hints ---------- */

/* upstream isSchedulableAfterStorageClassAdded: only a WaitForFirstConsumer class may help. */
static enum queue_hint storage_class_added(const void *pl, const struct api_pod *pod, const void *old_obj,
					   const void *new_obj)
{
	(void)pl;
	(void)pod;
	(void)old_obj;
	const struct api_storage_class *sc = new_obj;
	if (!sc)
		return QUEUE_HINT_ERROR; /* upstream: unexpected objects -> Queue with an error */
	return sc->has_volume_binding_mode && sc->volume_binding_mode == API_BINDING_WAIT_FOR_FIRST_CONSUMER
		       ? QUEUE_HINT_QUEUE
		       : QUEUE_HINT_SKIP;
}

/* upstream isSchedulableAfterPersistentVolumeClaimChange / isPVCRequestedFromPod: a claim of the
 * pod (same namespace, named by one of its persistentVolumeClaim volumes). */
static enum queue_hint pvc_changed(const void *pl, const struct api_pod *pod, const void *old_obj,
				   const void *new_obj)
{
	(void)pl;
	(void)old_obj;
	const struct api_pvc *pvc = new_obj;
	if (!pvc)
		return QUEUE_HINT_ERROR;
	if (pvc->meta.namespace != pod->meta.namespace)
		return QUEUE_HINT_SKIP;
	for (uint32_t i = 0; i < pod->n_volumes; i++)
		if (pod->volumes[i].kind == API_VOLUME_PVC && !strcmp(pod->volumes[i].claim_name, pvc->meta.name))
			return QUEUE_HINT_QUEUE;
	return QUEUE_HINT_SKIP;
}

struct zone_set {
	struct zone z[16];
	uint32_t n;
	bool overflow;
};

static bool zone_add(void *ctx, struct zone z)
{
	struct zone_set *s = ctx;
	for (uint32_t i = 0; i < s->n; i++)
		if (s->z[i].n == z.n && !memcmp(s->z[i].s, z.s, z.n))
			return false;
	if (s->n == 16) {
		s->overflow = true;
		return true;
	}
	s->z[s->n++] = z;
	return false;
}

/* Whether two label values are the same zone set (upstream compares sets.Set[string]). */
static bool same_zones(const char *a, const char *b)
{
	if (!strcmp(a, b))
		return true;
	struct zone_set sa = { .n = 0 }, sb = { .n = 0 };
	bool stopped;
	zones_each(a, zone_add, &sa, &stopped);
	zones_each(b, zone_add, &sb, &stopped);
	if (sa.overflow || sb.overflow)
		return false; /* too many to compare here: report a change (Queue is always safe) */
	if (sa.n != sb.n)
		return false;
	for (uint32_t i = 0; i < sa.n; i++) {
		bool found = false;
		for (uint32_t k = 0; k < sb.n && !found; k++)
			found = sa.z[i].n == sb.z[k].n && !memcmp(sa.z[i].s, sb.z[k].s, sa.z[i].n);
		if (!found)
			return false;
	}
	return true;
}

/* upstream isSchedulableAfterPersistentVolumeChange: a new PV, or a change of its topology
 * (getPVTopologies of old and new differ). */
static enum queue_hint pv_changed(const void *pl, const struct api_pod *pod, const void *old_obj, const void *new_obj)
{
	(void)pl;
	(void)pod;
	const struct api_pv *old_pv = old_obj, *new_pv = new_obj;
	if (!new_pv)
		return QUEUE_HINT_ERROR;
	if (!old_pv)
		return QUEUE_HINT_QUEUE;
	if (!keys_ready())
		return QUEUE_HINT_ERROR;
	if (strcmp(old_pv->meta.name, new_pv->meta.name))
		return QUEUE_HINT_QUEUE;
	for (int i = 0; i < N_TOPOLOGY_LABELS; i++) {
		const char *a = pv_label(old_pv, i), *b = pv_label(new_pv, i);
		if (!a != !b || (a && !same_zones(a, b)))
			return QUEUE_HINT_QUEUE;
	}
	return QUEUE_HINT_SKIP;
}

/* upstream v1.37 EventsToRegister */
static const struct queue_event_hint events[] = {
	{ { .resource = QUEUE_RES_STORAGE_CLASS, .actions = QUEUE_ACT_ADD }, storage_class_added },
	{ { .resource = QUEUE_RES_NODE, .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE_NODE_LABEL }, NULL },
	{ { .resource = QUEUE_RES_PERSISTENT_VOLUME_CLAIM, .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE }, pvc_changed },
	{ { .resource = QUEUE_RES_PERSISTENT_VOLUME, .actions = QUEUE_ACT_ADD | QUEUE_ACT_UPDATE }, pv_changed },
};

const struct fw_plugin fw_plugin_volume_zone = {
	.name = "VolumeZone",
	.args_kind = CFG_ARGS_NONE,
	.pre_filter = pre_filter,
	.filter = filter,
	FW_EVENTS(events),
};
