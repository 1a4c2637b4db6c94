/* JSON (yajl tree) -> api_pod: selectors, affinity, tolerations, topology spread, containers,
 * volumes and the Pod itself (field access and metadata: decode.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/crypto.h>
#include <yajl/yajl_tree.h>

#include "decode_internal.h"
#include "common/arena.h"
#include "common/err.h"
#include "common/intern.h"
#include "common/macros.h"

static struct arena_hint pod_hint = { ARENA_HINT_START };

/* ---------- selectors ---------- */

static enum api_op parse_op(const char *s)
{
	static const struct {
		const char *s;
		enum api_op op;
	} ops[] = {
		{ "In", API_OP_IN },	 { "NotIn", API_OP_NOT_IN },		  { "Exists", API_OP_EXISTS },
		{ "DoesNotExist", API_OP_DOES_NOT_EXIST }, { "Gt", API_OP_GT }, { "Lt", API_OP_LT },
	};
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		if (strcmp(s, ops[i].s) == 0)
			return ops[i].op;
	return API_OP_UNKNOWN;
}

static int requirement_item(struct dec *d, jv v, void *item)
{
	struct api_requirement *r = item;
	const char *op;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "key", true, "", &r->key)) ||
	    (rc = api__dec_get_str(d, v, "operator", false, "", &op)))
		return rc;
	r->op = parse_op(op);
	return api__dec_get_istrs(d, v, "values", &r->n_values, &r->values);
}

static int get_requirements(struct dec *d, jv obj, const char *key, uint32_t *n, struct api_requirement **out)
{
	return api__dec_get_array(d, obj, key, sizeof(**out), n, (void **)out, requirement_item);
}

/* A metav1.LabelSelector, or NULL in *out when absent. */
static int get_selector(struct dec *d, jv obj, const char *key, struct api_label_selector **out)
{
	jv v;
	int rc;
	*out = NULL;
	if ((rc = api__dec_get_obj(d, obj, key, &v)) || !v)
		return rc;
	struct api_label_selector *s = api__dec_alloc(d, sizeof(*s));
	if (!s)
		return api__dec_nomem(d);
	size_t mark = api__dec_push_key(d, key);
	if ((rc = api__dec_get_labels(d, v, "matchLabels", &s->match_labels)) ||
	    (rc = get_requirements(d, v, "matchExpressions", &s->n_exprs, &s->exprs)))
		return rc;
	api__dec_pop(d, mark);
	*out = s;
	return 0;
}

int api__dec_get_selector(struct dec *d, jv obj, const char *key, struct api_label_selector **out)
{
	return get_selector(d, obj, key, out);
}

/* ---------- affinity ---------- */

static int node_term_value(struct dec *d, jv v, struct api_node_selector_term *t)
{
	int rc;
	if ((rc = api__dec_want_object(d, v)) ||
	    (rc = get_requirements(d, v, "matchExpressions", &t->n_exprs, &t->exprs)))
		return rc;
	return get_requirements(d, v, "matchFields", &t->n_fields, &t->fields);
}

static int node_term_item(struct dec *d, jv v, void *item)
{
	return node_term_value(d, v, item);
}

int api__dec_node_term_item(struct dec *d, jv v, void *item)
{
	return node_term_value(d, v, item);
}

int api__dec_requirement_item(struct dec *d, jv v, void *item)
{
	return requirement_item(d, v, item);
}

static int preferred_node_item(struct dec *d, jv v, void *item)
{
	struct api_preferred_node_term *p = item;
	jv pref;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_i32(d, v, "weight", NULL, &p->weight)) ||
	    (rc = api__dec_get_obj(d, v, "preference", &pref)))
		return rc;
	return WITH_KEY(d, "preference", node_term_value(d, pref, &p->term));
}

static int node_affinity(struct dec *d, jv v, struct api_node_affinity **out)
{
	struct api_node_affinity *na = api__dec_alloc(d, sizeof(*na));
	jv req;
	int rc;
	if (!na)
		return api__dec_nomem(d);
	if ((rc = api__dec_get_obj(d, v, "requiredDuringSchedulingIgnoredDuringExecution", &req)))
		return rc;
	if (req) {
		na->has_required = true;
		size_t mark = api__dec_push_key(d, "requiredDuringSchedulingIgnoredDuringExecution");
		if ((rc = api__dec_get_array(d, req, "nodeSelectorTerms", sizeof(*na->required), &na->n_required,
				    (void **)&na->required, node_term_item)))
			return rc;
		api__dec_pop(d, mark);
	}
	if ((rc = api__dec_get_array(d, v, "preferredDuringSchedulingIgnoredDuringExecution", sizeof(*na->preferred),
			    &na->n_preferred, (void **)&na->preferred, preferred_node_item)))
		return rc;
	*out = na;
	return 0;
}

static int pod_term_value(struct dec *d, jv v, struct api_pod_affinity_term *t)
{
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = get_selector(d, v, "labelSelector", &t->label_selector)) ||
	    (rc = api__dec_get_istrs(d, v, "namespaces", &t->n_namespaces, &t->namespaces)) ||
	    (rc = get_selector(d, v, "namespaceSelector", &t->namespace_selector)) ||
	    (rc = api__dec_get_str(d, v, "topologyKey", true, "", &t->topology_key)) ||
	    (rc = api__dec_get_istrs(d, v, "matchLabelKeys", &t->n_match_label_keys, &t->match_label_keys)))
		return rc;
	return api__dec_get_istrs(d, v, "mismatchLabelKeys", &t->n_mismatch_label_keys, &t->mismatch_label_keys);
}

static int pod_term_item(struct dec *d, jv v, void *item)
{
	return pod_term_value(d, v, item);
}

static int weighted_pod_term_item(struct dec *d, jv v, void *item)
{
	struct api_weighted_pod_affinity_term *w = item;
	jv t;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_i32(d, v, "weight", NULL, &w->weight)) ||
	    (rc = api__dec_get_obj(d, v, "podAffinityTerm", &t)))
		return rc;
	return WITH_KEY(d, "podAffinityTerm", pod_term_value(d, t, &w->term));
}

static int pod_affinity(struct dec *d, jv v, struct api_pod_affinity **out)
{
	struct api_pod_affinity *pa = api__dec_alloc(d, sizeof(*pa));
	int rc;
	if (!pa)
		return api__dec_nomem(d);
	if ((rc = api__dec_get_array(d, v, "requiredDuringSchedulingIgnoredDuringExecution", sizeof(*pa->required),
			    &pa->n_required, (void **)&pa->required, pod_term_item)) ||
	    (rc = api__dec_get_array(d, v, "preferredDuringSchedulingIgnoredDuringExecution", sizeof(*pa->preferred),
			    &pa->n_preferred, (void **)&pa->preferred, weighted_pod_term_item)))
		return rc;
	*out = pa;
	return 0;
}

static int affinity_value(struct dec *d, jv v, struct api_affinity *a)
{
	jv na, pa, paa;
	int rc;
	if ((rc = api__dec_get_obj(d, v, "nodeAffinity", &na)) || (rc = api__dec_get_obj(d, v, "podAffinity", &pa)) ||
	    (rc = api__dec_get_obj(d, v, "podAntiAffinity", &paa)))
		return rc;
	if (na && (rc = WITH_KEY(d, "nodeAffinity", node_affinity(d, na, &a->node_affinity))))
		return rc;
	if (pa && (rc = WITH_KEY(d, "podAffinity", pod_affinity(d, pa, &a->pod_affinity))))
		return rc;
	if (paa && (rc = WITH_KEY(d, "podAntiAffinity", pod_affinity(d, paa, &a->pod_anti_affinity))))
		return rc;
	return 0;
}

/* ---------- taints and tolerations ---------- */

static int effect_value(struct dec *d, jv obj, enum api_taint_effect *out)
{
	const char *s;
	int rc = api__dec_get_str(d, obj, "effect", false, "", &s);
	if (rc)
		return rc;
	if (!s[0])
		*out = API_EFFECT_NONE;
	else if (!strcmp(s, "NoSchedule"))
		*out = API_EFFECT_NO_SCHEDULE;
	else if (!strcmp(s, "PreferNoSchedule"))
		*out = API_EFFECT_PREFER_NO_SCHEDULE;
	else if (!strcmp(s, "NoExecute"))
		*out = API_EFFECT_NO_EXECUTE;
	else
		*out = API_EFFECT_UNKNOWN;
	return 0;
}

static int toleration_item(struct dec *d, jv v, void *item)
{
	struct api_toleration *t = item;
	const char *op;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "key", true, "", &t->key)) ||
	    (rc = api__dec_get_str(d, v, "operator", false, "", &op)) || (rc = api__dec_get_str(d, v, "value", true, "", &t->value)) ||
	    (rc = effect_value(d, v, &t->effect)) ||
	    (rc = api__dec_get_i64(d, v, "tolerationSeconds", INT64_MIN, INT64_MAX, &t->has_toleration_seconds,
			  &t->toleration_seconds)))
		return rc;
	t->op_given = op[0] != '\0';
	t->op = (!op[0] || !strcmp(op, "Equal")) ? API_TOLERATION_EQUAL
		: !strcmp(op, "Exists")		 ? API_TOLERATION_EXISTS
						 : API_TOLERATION_UNKNOWN;
	return 0;
}

int api__dec_taint_item(struct dec *d, jv v, void *item)
{
	struct api_taint *t = item;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "key", true, "", &t->key)) ||
	    (rc = api__dec_get_str(d, v, "value", true, "", &t->value)))
		return rc;
	return effect_value(d, v, &t->effect);
}

/* ---------- topology spread ---------- */

static int policy_value(struct dec *d, jv obj, const char *key, enum api_inclusion_policy *out)
{
	const char *s;
	int rc = api__dec_get_str(d, obj, key, false, "", &s);
	if (rc)
		return rc;
	if (!s[0])
		*out = API_POLICY_UNSET;
	else if (!strcmp(s, "Honor"))
		*out = API_POLICY_HONOR;
	else if (!strcmp(s, "Ignore"))
		*out = API_POLICY_IGNORE;
	else
		return WITH_KEY(d, key, fail(d, "unsupported value \"%s\": supported values: \"Honor\", \"Ignore\"", s));
	return 0;
}

static int spread_item(struct dec *d, jv v, void *item)
{
	struct api_topology_spread_constraint *c = item;
	const char *when;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_i32(d, v, "maxSkew", NULL, &c->max_skew)) ||
	    (rc = api__dec_get_str(d, v, "topologyKey", true, "", &c->topology_key)) ||
	    (rc = api__dec_get_str(d, v, "whenUnsatisfiable", false, "", &when)) ||
	    (rc = get_selector(d, v, "labelSelector", &c->label_selector)) ||
	    (rc = api__dec_get_i32(d, v, "minDomains", &c->has_min_domains, &c->min_domains)) ||
	    (rc = policy_value(d, v, "nodeAffinityPolicy", &c->node_affinity_policy)) ||
	    (rc = policy_value(d, v, "nodeTaintsPolicy", &c->node_taints_policy)) ||
	    (rc = api__dec_get_istrs(d, v, "matchLabelKeys", &c->n_match_label_keys, &c->match_label_keys)))
		return rc;
	if (!strcmp(when, "DoNotSchedule"))
		c->when_unsatisfiable = API_DO_NOT_SCHEDULE;
	else if (!strcmp(when, "ScheduleAnyway"))
		c->when_unsatisfiable = API_SCHEDULE_ANYWAY;
	else
		return WITH_KEY(d, "whenUnsatisfiable",
				fail(d, "unsupported value \"%s\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"",
				     when));
	return 0;
}

/* ---------- containers and volumes ---------- */

static int port_item(struct dec *d, jv v, void *item)
{
	struct api_container_port *p = item;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_i32(d, v, "containerPort", NULL, &p->container_port)) ||
	    (rc = api__dec_get_i32(d, v, "hostPort", NULL, &p->host_port)) ||
	    (rc = api__dec_get_str(d, v, "protocol", true, "", &p->protocol)) ||
	    (rc = api__dec_get_str(d, v, "hostIP", true, "", &p->host_ip)))
		return rc;
	if (!p->protocol[0] && !(p->protocol = intern_str("TCP")))
		return api__dec_nomem(d);
	return 0;
}

/* Items decoded to one flag each, for "does any item ...": a restart rule's action is
 * RestartAllContainers; a volume mount has bindMountOptions. */
static int restart_all_item(struct dec *d, jv v, void *item)
{
	const char *action;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "action", false, "", &action)))
		return rc;
	*(bool *)item = !strcmp(action, "RestartAllContainers");
	return 0;
}

static int bind_mount_options_item(struct dec *d, jv v, void *item)
{
	uint32_t n;
	const char **opts;
	int rc;
	if ((rc = api__dec_want_object(d, v)) ||
	    (rc = api__dec_get_array(d, v, "bindMountOptions", sizeof(char *), &n, (void **)&opts, api__dec_str_item)))
		return rc;
	*(bool *)item = n > 0;
	return 0;
}

/* Whether any item of the array obj[key] decodes (fn) to true. */
static int any_item(struct dec *d, jv obj, const char *key, item_fn fn, bool *out)
{
	uint32_t n;
	bool *flags;
	int rc = api__dec_get_array(d, obj, key, sizeof(bool), &n, (void **)&flags, fn);
	*out = false;
	for (uint32_t i = 0; !rc && i < n; i++)
		*out = *out || flags[i];
	return rc;
}

static int ephemeral_item(struct dec *d, jv v, void *item)
{
	int rc = api__dec_want_object(d, v);
	return rc ? rc : any_item(d, v, "volumeMounts", bind_mount_options_item, item);
}

static int container_item(struct dec *d, jv v, void *item)
{
	struct api_container *c = item;
	const char *restart;
	jv res;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "name", true, "", &c->name)) ||
	    (rc = api__dec_get_str(d, v, "image", true, "", &c->image)) ||
	    (rc = api__dec_get_array(d, v, "ports", sizeof(*c->ports), &c->n_ports, (void **)&c->ports, port_item)) ||
	    (rc = api__dec_get_obj(d, v, "resources", &res)) || (rc = api__dec_get_str(d, v, "restartPolicy", false, "", &restart)) ||
	    (rc = any_item(d, v, "restartPolicyRules", restart_all_item, &c->restart_all_containers)) ||
	    (rc = any_item(d, v, "volumeMounts", bind_mount_options_item, &c->bind_mount_options)))
		return rc;
	c->restart_policy_always = !strcmp(restart, "Always");
	size_t mark = api__dec_push_key(d, "resources");
	if ((rc = api__dec_get_resources(d, res, "requests", &c->requests)) || (rc = api__dec_get_resources(d, res, "limits", &c->limits)))
		return rc;
	api__dec_pop(d, mark);
	return 0;
}

/* The fields of each volume source csched reads (readOnly is read after them, for all). */
static int vol_pvc(struct dec *d, jv s, struct api_volume *vol)
{
	return api__dec_get_str(d, s, "claimName", false, "", &vol->claim_name);
}

static int vol_gce_pd(struct dec *d, jv s, struct api_volume *vol)
{
	return api__dec_get_str(d, s, "pdName", false, "", &vol->pd_name);
}

/* AWS EBS, Cinder, Portworx: volumeID */
static int vol_volume_id(struct dec *d, jv s, struct api_volume *vol)
{
	return api__dec_get_str(d, s, "volumeID", false, "", &vol->volume_id);
}

static int vol_rbd(struct dec *d, jv s, struct api_volume *vol)
{
	int rc;
	if ((rc = api__dec_get_array(d, s, "monitors", sizeof(char *), &vol->n_monitors, (void **)&vol->monitors, api__dec_str_item)) ||
	    (rc = api__dec_get_str(d, s, "pool", false, "rbd", &vol->pool)))
		return rc;
	return api__dec_get_str(d, s, "image", false, "", &vol->image);
}

static int vol_iscsi(struct dec *d, jv s, struct api_volume *vol)
{
	int rc;
	if ((rc = api__dec_get_str(d, s, "targetPortal", false, "", &vol->target_portal)) ||
	    (rc = api__dec_get_str(d, s, "iqn", false, "", &vol->iqn)))
		return rc;
	return api__dec_get_i32(d, s, "lun", NULL, &vol->lun);
}

/* ImageLocality scores image volumes like container images (upstream sumImageScores). */
static int vol_image(struct dec *d, jv s, struct api_volume *vol)
{
	return api__dec_get_str(d, s, "reference", true, "", &vol->reference);
}

/* NodeVolumeLimits: an inline CSI volume counts against its driver's limit (upstream csi.go). */
static int vol_csi(struct dec *d, jv s, struct api_volume *vol)
{
	return api__dec_get_str(d, s, "driver", true, "", &vol->csi_driver);
}

/* A generic ephemeral volume's claim is "<pod name>-<volume name>" (upstream
 * ephemeral.VolumeClaimName); the volume's name is decoded before its source. */
static int vol_ephemeral(struct dec *d, jv s, struct api_volume *vol)
{
	(void)s;
	const char *pod = d->meta && d->meta->name ? d->meta->name : "";
	size_t lp = strlen(pod), lv = strlen(vol->name);
	char *c = api__dec_alloc(d, lp + 1 + lv + 1);
	if (!c)
		return api__dec_nomem(d);
	memcpy(c, pod, lp);
	c[lp] = '-';
	memcpy(c + lp + 1, vol->name, lv + 1);
	vol->claim_name = c;
	return 0;
}

/* The in-tree sources csi-translation-lib migrates (CanSupportInline): their volume identity. */
static int vol_azure_disk(struct dec *d, jv s, struct api_volume *vol)
{
	int rc = api__dec_get_str(d, s, "diskURI", false, "", &vol->volume_id);
	return rc ? rc : api__dec_get_opt_str(d, s, "kind", false, &vol->azure_kind);
}

static int vol_azure_file(struct dec *d, jv s, struct api_volume *vol)
{
	int rc = api__dec_get_str(d, s, "shareName", false, "", &vol->volume_id);
	return rc ? rc : api__dec_get_str(d, s, "secretName", false, "", &vol->secret_name);
}

static int vol_vsphere(struct dec *d, jv s, struct api_volume *vol)
{
	return api__dec_get_str(d, s, "volumePath", false, "", &vol->volume_id);
}

/* Volume sources in the order they are looked for: the first one present is the volume's. */
static const struct {
	const char *key;
	enum api_volume_kind kind;
	int (*decode)(struct dec *d, jv s, struct api_volume *vol);
} volume_sources[] = {
	{"persistentVolumeClaim", API_VOLUME_PVC, vol_pvc},
	{"gcePersistentDisk", API_VOLUME_GCE_PD, vol_gce_pd},
	{"awsElasticBlockStore", API_VOLUME_AWS_EBS, vol_volume_id},
	{"rbd", API_VOLUME_RBD, vol_rbd},
	{"iscsi", API_VOLUME_ISCSI, vol_iscsi},
	{"image", API_VOLUME_IMAGE, vol_image},
	{"csi", API_VOLUME_CSI, vol_csi},
	{"ephemeral", API_VOLUME_EPHEMERAL, vol_ephemeral},
	{"azureDisk", API_VOLUME_AZURE_DISK, vol_azure_disk},
	{"azureFile", API_VOLUME_AZURE_FILE, vol_azure_file},
	{"cinder", API_VOLUME_CINDER, vol_volume_id},
	{"vsphereVolume", API_VOLUME_VSPHERE, vol_vsphere},
	{"portworxVolume", API_VOLUME_PORTWORX, vol_volume_id},
};

/* ---------- volume source fingerprint ---------- */

/* upstream's VolumesSigner signs json.Marshal(vol.VolumeSource): the volume's fields but its name.
 * csched hashes the JSON tree in an injective canonical form instead: members sorted by key (the
 * apiserver writes a struct's fields in one order and encoding/json sorts map keys) and null
 * members left out (encoding/json reads null as no value). Two equal trees decode to equal Go
 * values, and the apiserver writes equal values as equal trees, so the hashes are equal iff
 * upstream's bytes are. */
static int fp_value(gnutls_hash_hd_t h, jv v, const char *skip);

/* A tag, a length (of p's bytes, or the count of a container's members when p is NULL), p. */
static int fp_put(gnutls_hash_hd_t h, char tag, const void *p, size_t n)
{
	uint64_t len = n;
	if (gnutls_hash(h, &tag, 1) < 0 || gnutls_hash(h, &len, sizeof(len)) < 0 || (p && n && gnutls_hash(h, p, n) < 0))
		return -1;
	return 0;
}

static _Thread_local jv fp_cmp_obj; /* qsort has no context argument */

static int fp_key_cmp(const void *a, const void *b)
{
	return strcmp(fp_cmp_obj->u.object.keys[*(const size_t *)a], fp_cmp_obj->u.object.keys[*(const size_t *)b]);
}

static int fp_object(gnutls_hash_hd_t h, jv v, const char *skip)
{
	size_t stack_idx[16], *idx = stack_idx, n = 0, len = v->u.object.len;
	if (len > ARRAY_SIZE(stack_idx) && !(idx = malloc(len * sizeof(*idx))))
		return -1;
	for (size_t i = 0; i < len; i++)
		if (!YAJL_IS_NULL(v->u.object.values[i]) && !(skip && strcmp(v->u.object.keys[i], skip) == 0))
			idx[n++] = i;
	fp_cmp_obj = v;
	qsort(idx, n, sizeof(*idx), fp_key_cmp);
	int rc = fp_put(h, 'o', NULL, n);
	for (size_t i = 0; !rc && i < n; i++) {
		const char *k = v->u.object.keys[idx[i]];
		rc = fp_put(h, 'k', k, strlen(k));
		if (!rc)
			rc = fp_value(h, v->u.object.values[idx[i]], NULL);
	}
	if (idx != stack_idx)
		free(idx);
	return rc;
}

static int fp_value(gnutls_hash_hd_t h, jv v, const char *skip)
{
	switch (v ? v->type : yajl_t_null) {
	case yajl_t_object:
		return fp_object(h, v, skip);
	case yajl_t_array: {
		int rc = fp_put(h, 'a', NULL, v->u.array.len);
		for (size_t i = 0; !rc && i < v->u.array.len; i++)
			rc = fp_value(h, v->u.array.values[i], NULL);
		return rc;
	}
	case yajl_t_string:
		return fp_put(h, 's', v->u.string, strlen(v->u.string));
	case yajl_t_number:
		return fp_put(h, 'd', v->u.number.r, strlen(v->u.number.r));
	case yajl_t_true:
		return fp_put(h, 't', NULL, 0);
	case yajl_t_false:
		return fp_put(h, 'f', NULL, 0);
	default:
		return fp_put(h, 'n', NULL, 0); /* null in an array: Go's zero value, not nothing */
	}
}

static int volume_fingerprint(struct dec *d, jv v, struct api_volume *vol)
{
	gnutls_hash_hd_t h;
	unsigned char digest[32];
	if (gnutls_hash_init(&h, GNUTLS_DIG_SHA256) < 0)
		return api__dec_nomem(d);
	int rc = fp_value(h, v, "name");
	gnutls_hash_deinit(h, digest);
	if (rc < 0)
		return api__dec_nomem(d);
	memcpy(vol->source_fp, digest, sizeof(vol->source_fp));
	return 0;
}

static int volume_item(struct dec *d, jv v, void *item)
{
	struct api_volume *vol = item;
	jv s;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "name", false, "", &vol->name)))
		return rc;
	vol->kind = API_VOLUME_OTHER;
	for (size_t i = 0; i < ARRAY_SIZE(volume_sources); i++) {
		if ((rc = api__dec_get_obj(d, v, volume_sources[i].key, &s)))
			return rc;
		if (!s)
			continue;
		vol->kind = volume_sources[i].kind;
		size_t m = api__dec_push_key(d, volume_sources[i].key);
		if ((rc = volume_sources[i].decode(d, s, vol)) || (rc = api__dec_get_bool(d, s, "readOnly", &vol->read_only)))
			return rc;
		api__dec_pop(d, m);
		return volume_fingerprint(d, v, vol);
	}
	/* upstream's VolumesSigner leaves configMap and secret sources out of the signature */
	jv cm, sec;
	if ((rc = api__dec_get_obj(d, v, "configMap", &cm)) || (rc = api__dec_get_obj(d, v, "secret", &sec)))
		return rc;
	vol->config_map_or_secret = cm || sec;
	return vol->config_map_or_secret ? 0 : volume_fingerprint(d, v, vol);
}

static int gate_item(struct dec *d, jv v, void *item)
{
	int rc = api__dec_want_object(d, v);
	return rc ? rc : api__dec_get_str(d, v, "name", false, "", item);
}

/* ---------- DRA claims (resource.k8s.io) ---------- */

/* spec.resourceClaims[] */
static int pod_claim_item(struct dec *d, jv v, void *item)
{
	struct api_pod_resource_claim *c = item;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "name", false, "", &c->name)) ||
	    (rc = api__dec_get_opt_str(d, v, "resourceClaimName", false, &c->resource_claim_name)))
		return rc;
	return api__dec_get_opt_str(d, v, "resourceClaimTemplateName", false, &c->resource_claim_template_name);
}

/* status.resourceClaimStatuses[] */
static int pod_claim_status_item(struct dec *d, jv v, void *item)
{
	struct api_pod_resource_claim_status *c = item;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "name", false, "", &c->name)))
		return rc;
	return api__dec_get_opt_str(d, v, "resourceClaimName", false, &c->resource_claim_name);
}

static int extended_mapping_item(struct dec *d, jv v, void *item)
{
	struct api_pod_extended_mapping *m = item;
	int rc;
	if ((rc = api__dec_want_object(d, v)) ||
	    (rc = api__dec_get_str(d, v, "containerName", false, "", &m->container_name)) ||
	    (rc = api__dec_get_str(d, v, "resourceName", false, "", &m->resource_name)))
		return rc;
	return api__dec_get_str(d, v, "requestName", false, "", &m->request_name);
}

/* status.extendedResourceClaimStatus (DRAExtendedResource), NULL when absent. */
static int pod_extended_claim_status(struct dec *d, jv st, struct api_pod *p)
{
	jv v;
	int rc = api__dec_get_obj(d, st, "extendedResourceClaimStatus", &v);
	if (rc || !v)
		return rc;
	struct api_pod_extended_claim_status *x = api__dec_alloc(d, sizeof(*x));
	if (!x)
		return api__dec_nomem(d);
	memset(x, 0, sizeof(*x));
	size_t mark = api__dec_push_key(d, "extendedResourceClaimStatus");
	if ((rc = api__dec_get_str(d, v, "resourceClaimName", false, "", &x->resource_claim_name)) ||
	    (rc = api__dec_get_array(d, v, "requestMappings", sizeof(*x->mappings), &x->n_mappings,
				     (void **)&x->mappings, extended_mapping_item)))
		return rc;
	api__dec_pop(d, mark);
	p->extended_claim_status = x;
	return 0;
}

/* ---------- Pod ---------- */

static int pod_spec(struct dec *d, jv spec, struct api_pod *p)
{
	const char *preempt;
	jv aff, res;
	int rc;
	if ((rc = api__dec_get_str(d, spec, "nodeName", true, "", &p->node_name)) ||
	    (rc = api__dec_get_str(d, spec, "schedulerName", true, "default-scheduler", &p->scheduler_name)) ||
	    (rc = api__dec_get_i32(d, spec, "priority", &p->has_priority, &p->priority)) ||
	    (rc = api__dec_get_str(d, spec, "preemptionPolicy", false, "", &preempt)))
		return rc;
	if (!preempt[0] || !strcmp(preempt, "PreemptLowerPriority"))
		p->preemption_policy = API_PREEMPT_LOWER_PRIORITY;
	else if (!strcmp(preempt, "Never"))
		p->preemption_policy = API_PREEMPT_NEVER;
	else
		return WITH_KEY(d, "preemptionPolicy",
				fail(d, "unsupported value \"%s\": supported values: \"Never\", \"PreemptLowerPriority\"",
				     preempt));
	/* An empty schedulerName is defaulted by the apiserver; treat it like an absent one. */
	if (!p->scheduler_name[0] && !(p->scheduler_name = intern_str("default-scheduler")))
		return api__dec_nomem(d);
	if ((rc = api__dec_get_labels(d, spec, "nodeSelector", &p->node_selector)) || (rc = api__dec_get_obj(d, spec, "affinity", &aff)))
		return rc;
	if (aff && (rc = WITH_KEY(d, "affinity", affinity_value(d, aff, &p->affinity))))
		return rc;
	if ((rc = api__dec_get_array(d, spec, "tolerations", sizeof(*p->tolerations), &p->n_tolerations,
			    (void **)&p->tolerations, toleration_item)) ||
	    (rc = api__dec_get_array(d, spec, "topologySpreadConstraints", sizeof(*p->spread_constraints),
			    &p->n_spread_constraints, (void **)&p->spread_constraints, spread_item)) ||
	    (rc = api__dec_get_array(d, spec, "containers", sizeof(*p->containers), &p->n_containers, (void **)&p->containers,
			    container_item)) ||
	    (rc = api__dec_get_array(d, spec, "initContainers", sizeof(*p->init_containers), &p->n_init_containers,
			    (void **)&p->init_containers, container_item)) ||
	    (rc = api__dec_get_resources(d, spec, "overhead", &p->overhead)) || (rc = api__dec_get_obj(d, spec, "resources", &res)))
		return rc;
	if (res && (rc = WITH_KEY(d, "resources", api__dec_get_resources(d, res, "requests", &p->pod_requests))))
		return rc;
	if ((rc = api__dec_get_array(d, spec, "volumes", sizeof(*p->volumes), &p->n_volumes, (void **)&p->volumes,
			    volume_item)) ||
	    (rc = api__dec_get_array(d, spec, "schedulingGates", sizeof(char *), &p->n_scheduling_gates,
			    (void **)&p->scheduling_gates, gate_item)) ||
	    (rc = api__dec_get_array(d, spec, "resourceClaims", sizeof(*p->resource_claims), &p->n_resource_claims,
				     (void **)&p->resource_claims, pod_claim_item)))
		return rc;
	if ((rc = any_item(d, spec, "ephemeralContainers", ephemeral_item, &p->ephemeral_bind_mount_options)) ||
	    (rc = api__dec_get_bool(d, spec, "hostNetwork", &p->host_network)))
		return rc;
	/* hostUsers is a *bool: only an explicit false counts */
	jv hu = yajl_tree_get(spec, (const char *[]){ "hostUsers", NULL }, yajl_t_any);
	bool host_users = true;
	if (hu && !YAJL_IS_NULL(hu) && (rc = api__dec_get_bool(d, spec, "hostUsers", &host_users)))
		return rc;
	p->host_users_false = !host_users;
	return 0;
}

/* obj[key] as a ResourceList, *has telling whether it is there (Go: a non-nil map). */
static int resources_opt(struct dec *d, jv obj, const char *key, bool *has, struct api_resources *r)
{
	jv v;
	int rc = api__dec_get_obj(d, obj, key, &v);
	*has = v != NULL;
	return rc ? rc : api__dec_get_resources(d, obj, key, r);
}

/* obj.resources.requests, *has_res telling whether obj.resources is there. */
static int status_requests(struct dec *d, jv obj, bool *has_res, bool *has_req, struct api_resources *r)
{
	jv res;
	int rc = api__dec_get_obj(d, obj, "resources", &res);
	*has_res = res != NULL;
	*has_req = false;
	if (rc || !res)
		return rc;
	return WITH_KEY(d, "resources", resources_opt(d, res, "requests", has_req, r));
}

static int container_status_item(struct dec *d, jv v, void *item)
{
	struct api_container_status *cs = item;
	bool has_res;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "name", true, "", &cs->name)) ||
	    (rc = resources_opt(d, v, "allocatedResources", &cs->has_allocated, &cs->allocated)))
		return rc;
	return status_requests(d, v, &has_res, &cs->has_actual, &cs->actual);
}

/* status.resources and status.allocatedResources, when status.resources is there. */
static int pod_resize_status(struct dec *d, jv st, struct api_pod *p)
{
	bool has_res;
	jv res;
	int rc = api__dec_get_obj(d, st, "resources", &res);
	if (rc || !res)
		return rc;
	struct api_pod_resize_status *rs = api__dec_alloc(d, sizeof(*rs));
	if (!rs)
		return api__dec_nomem(d);
	memset(rs, 0, sizeof(*rs));
	p->status_resources = rs;
	if ((rc = resources_opt(d, st, "allocatedResources", &rs->has_allocated, &rs->allocated)))
		return rc;
	return status_requests(d, st, &has_res, &rs->has_requests, &rs->requests);
}

static int pod_status(struct dec *d, jv st, struct api_pod *p)
{
	int rc;
	if ((rc = api__dec_get_str(d, st, "phase", true, "", &p->phase)) ||
	    (rc = api__dec_get_array(d, st, "conditions", sizeof(*p->conditions), &p->n_conditions, (void **)&p->conditions,
			    api__dec_condition_item)) ||
	    (rc = api__dec_get_array(d, st, "containerStatuses", sizeof(*p->container_statuses),
			    &p->n_container_statuses, (void **)&p->container_statuses, container_status_item)) ||
	    (rc = api__dec_get_array(d, st, "initContainerStatuses", sizeof(*p->init_container_statuses),
			    &p->n_init_container_statuses, (void **)&p->init_container_statuses, container_status_item)) ||
	    (rc = pod_resize_status(d, st, p)) ||
	    (rc = api__dec_get_array(d, st, "resourceClaimStatuses", sizeof(*p->resource_claim_statuses),
				     &p->n_resource_claim_statuses, (void **)&p->resource_claim_statuses,
				     pod_claim_status_item)) ||
	    (rc = pod_extended_claim_status(d, st, p)) ||
	    (rc = api__dec_get_time_us(d, st, "startTime", &p->has_start_time, &p->start_time_us)))
		return rc;
	return api__dec_get_str(d, st, "nominatedNodeName", true, "", &p->nominated_node_name);
}

static int pod_fill(struct dec *d, jv obj, void *out)
{
	struct api_pod *p = out;
	p->arena = d->a;
	p->refs = 1;
	jv spec, st;
	int rc;
	if ((rc = api__dec_object_parts(d, obj, &p->meta, &spec, &st)))
		return rc;
	if ((rc = WITH_KEY(d, "spec", pod_spec(d, spec, p))) || (rc = WITH_KEY(d, "status", pod_status(d, st, p))))
		return rc;
	/* a pod still to schedule is sent to extenders, a bound one only as a preemption victim */
	if (__atomic_load_n(&api__keep_json, __ATOMIC_RELAXED) &&
	    (!p->node_name[0] || __atomic_load_n(&api__keep_assigned_json, __ATOMIC_RELAXED)))
		return api__dec_keep_json(d, obj, &p->json, &p->json_len);
	return 0;
}

static const struct dec_kind pod_kind = {"pod", true, sizeof(struct api_pod), &pod_hint, pod_fill};

struct api_pod *api_pod_decode(const struct yajl_val_s *obj, struct err *e)
{
	return api__dec_object(&pod_kind, obj, e);
}

struct api_pod *api_pod_decode_json(const char *json, size_t len, struct err *e)
{
	return api__dec_json(&pod_kind, json, len, e);
}
