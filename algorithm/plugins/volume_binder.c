/* VolumeBinding's volume binder (upstream volumebinding/binder.go, passive_assume_cache.go and
 * component-helpers storage/volume FindMatchingVolume, CheckNodeAffinity, GetBindVolumeToClaim).
 *
 * DESIGN: the assume caches are two maps in the plugin instance under one leaf lock (Filter
 * reads them on workers, Reserve writes on the scheduler thread, PreBind/Unreserve on binder
 * threads). An entry holds only what assuming changes (a PV's claimRef, a claim's selected-node
 * annotation) and the resourceVersion it applies to; the objects themselves stay the informers'
 * immutable values (listers), and a view (struct vb_pv / vb_pvc) combines both. Listers are
 * never called under the lock. PreBind's wait polls the listers once a second (upstream's
 * wait.PollUntilContextTimeout) on the binder thread, through fw_volume_sleep so a stopping
 * scheduler ends it. */
#include "volume_binding_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/intern.h"
#include "common/log.h"
#include "framework_internal.h"
#include "plugin_helpers.h"

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

static void rv_copy(char dst[VB_RV_MAX], const char *rv)
{
	snprintf(dst, VB_RV_MAX, "%s", or_empty(rv));
}

const char *vb_annotation(const struct api_labels *a, const char *key)
{
	for (uint32_t i = 0; i < a->n; i++)
		if (strcmp(a->items[i].key, key) == 0)
			return a->items[i].value;
	return NULL;
}

const char *vb_pvc_class(const struct api_pvc *pvc)
{
	const char *c = vb_annotation(&pvc->meta.annotations, VB_ANN_BETA_STORAGE_CLASS);
	if (c)
		return c;
	return pvc->storage_class_name ? pvc->storage_class_name : "";
}

/* upstream GetPersistentVolumeClass */
static const char *pv_class(const struct api_pv *pv)
{
	const char *c = vb_annotation(&pv->meta.annotations, VB_ANN_BETA_STORAGE_CLASS);
	return c ? c : or_empty(pv->storage_class_name);
}

/* apiserver storage.APIObjectVersioner.CompareResourceVersion: unparsable versions compare as 0. */
int vb_compare_rv(const char *a, const char *b)
{
	char *end;
	unsigned long long x = strtoull(or_empty(a), &end, 10);
	if (!a || !a[0] || *end)
		x = 0;
	unsigned long long y = strtoull(or_empty(b), &end, 10);
	if (!b || !b[0] || *end)
		y = 0;
	return x < y ? -1 : x > y;
}

int64_t vb_volume_limit(const struct api_csi_storage_capacity *c, bool *has)
{
	if (c->has_maximum_volume_size) {
		*has = true;
		return c->maximum_volume_size;
	}
	*has = c->has_capacity;
	return c->capacity;
}

/* upstream CheckNodeAffinity(pv, node.Labels): the required terms against a node that has only
 * the labels (no name, so matchFields are not checked: fw_node_selector_term_matches). */
static bool pv_node_affinity_ok(const struct api_pv *pv, const struct api_node *node)
{
	const struct api_node_affinity *na = pv->node_affinity;
	if (!na || !na->has_required)
		return true;
	struct api_node only_labels;
	memset(&only_labels, 0, sizeof(only_labels));
	only_labels.meta.labels = node->meta.labels;
	only_labels.meta.name = "";
	return fw_node_selector_matches(na->required, na->n_required, &only_labels);
}

/* ---------- CSI migration (upstream tryTranslatePVToCSI, csi-translation-lib) ---------- */

#define LABEL_ZONE_GA "topology.kubernetes.io/zone"
#define LABEL_ZONE_BETA "failure-domain.beta.kubernetes.io/zone"
#define LABEL_REGION_GA "topology.kubernetes.io/region"
#define LABEL_REGION_BETA "failure-domain.beta.kubernetes.io/region"

/* The in-tree plugin of a PV whose CSI migration upstream's binder honours
 * (isCSIMigrationOnForPlugin), and its CSI driver's topology key (NULL: the translation leaves
 * the node affinity alone). */
static const char *migratable_plugin(const struct api_pv *pv, const char **topology_key)
{
	*topology_key = NULL;
	switch (pv->source.kind) {
	case API_PV_GCE_PD:
		*topology_key = "topology.gke.io/zone";
		return "kubernetes.io/gce-pd";
	case API_PV_AWS_EBS:
		*topology_key = "topology.ebs.csi.aws.com/zone";
		return "kubernetes.io/aws-ebs";
	case API_PV_AZURE_DISK:
		return "kubernetes.io/azure-disk";
	case API_PV_CINDER:
		*topology_key = "topology.cinder.csi.openstack.org/zone";
		return "kubernetes.io/cinder";
	case API_PV_PORTWORX:
		return "kubernetes.io/portworx-volume";
	default:
		return NULL;
	}
}

/* isPluginMigratedToCSIOnNode: plugin among the CSINode's comma-separated migrated plugins. */
static bool migrated_on_node(const char *plugin, const struct api_csinode *csinode)
{
	const char *mpa = csinode ? vb_annotation(&csinode->meta.annotations, VB_ANN_MIGRATED_PLUGINS) : NULL;
	size_t n = strlen(plugin);
	for (const char *t = mpa; t && *t;) {
		const char *end = strchr(t, ',');
		size_t len = end ? (size_t)(end - t) : strlen(t);
		if (len == n && strncmp(t, plugin, n) == 0)
			return true;
		t = end ? end + 1 : NULL;
	}
	return false;
}

static bool affinity_has_key(const struct api_node_affinity *na, const char *key)
{
	for (uint32_t i = 0; na && i < na->n_required; i++)
		for (uint32_t j = 0; j < na->required[i].n_exprs; j++)
			if (str_eq(na->required[i].exprs[j].key, key))
				return true;
	return false;
}

/* The errors TranslateInTreePVToCSI returns for the sources it cannot translate; 0 or -1 with
 * the reason in err. */
static int translation_error(const struct api_pv *pv, char *err, size_t size)
{
	if (pv->source.kind == API_PV_AZURE_DISK && pv->source.azure_kind && strcasecmp(pv->source.azure_kind, "Managed")) {
		snprintf(err, size, "kind(%s) is not supported in csi migration", pv->source.azure_kind);
		return -1;
	}
	if (pv->source.kind == API_PV_AWS_EBS) {
		const char *id = or_empty(pv->source.volume_id);
		if (strncmp(id, "aws://", 6) == 0) {
			const char *slash = strchr(id + 6, '/');
			const char *vol = slash ? slash + 1 : "";
			while (*vol == '/')
				vol++;
			size_t len = strlen(vol);
			while (len && vol[len - 1] == '/')
				len--;
			if (len < 4 || strncmp(vol, "vol-", 4) != 0 || memchr(vol, '/', len)) {
				snprintf(err, size, "failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume (%s)",
					 id);
				return -1;
			}
		}
	}
	if (pv->source.kind == API_PV_GCE_PD) {
		/* regional disks: the zones of the label must share one region */
		const char *zl = vb_annotation(&pv->meta.labels, LABEL_ZONE_BETA);
		if (!zl || !zl[0])
			zl = vb_annotation(&pv->meta.labels, LABEL_ZONE_GA);
		if (zl && strstr(zl, "__")) {
			char region[128] = "";
			for (const char *t = zl; t;) {
				const char *end = strstr(t, "__");
				size_t len = end ? (size_t)(end - t) : strlen(t);
				char zone[128];
				snprintf(zone, sizeof(zone), "%.*s", (int)len, t);
				char *d1 = strchr(zone, '-'), *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
				if (!d1 || !d2 || strchr(d2 + 1, '-')) {
					snprintf(err, size,
						 "failed to get region from zones: zone in unexpected format, expected: {locale}-{region}-{zone}, got: %s",
						 zone);
					return -1;
				}
				*d2 = '\0';
				if (region[0] && strcmp(region, zone)) {
					snprintf(err, size, "failed to get region from zones: multiple or no regions gotten from zones");
					return -1;
				}
				snprintf(region, sizeof(region), "%s", zone);
				t = end ? end + 2 : NULL;
			}
		}
	}
	return 0;
}

/* upstream CheckNodeAffinity(tryTranslatePVToCSI(pv, csiNode), node.Labels): the PV's required
 * terms, translated as csi-translation-lib's translateTopologyFromInTreeToCSI does when the PV's
 * in-tree plugin is migrated on the node (zone key -> the driver's key, or a zone requirement
 * from the PV's zone label; beta region key -> GA), against the node's labels. 0 with *ok, or -1
 * with the translation error in err. */
static int pv_affinity_ok_on(const struct api_pv *pv, const struct api_node *node, const struct api_csinode *csinode,
			     bool *ok, char *err, size_t size)
{
	const char *csi_key;
	const char *plugin = migratable_plugin(pv, &csi_key);
	if (!plugin || !migrated_on_node(plugin, csinode)) {
		*ok = pv_node_affinity_ok(pv, node);
		return 0;
	}
	char why[256];
	if (translation_error(pv, why, sizeof(why)) < 0) {
		snprintf(err, size, "could not translate pv: %s", why);
		return -1;
	}
	const struct api_node_affinity *na = pv->node_affinity;
	if (!csi_key) {
		*ok = pv_node_affinity_ok(pv, node);
		return 0;
	}
	/* getTopologyLabel */
	bool ga = affinity_has_key(na, LABEL_ZONE_GA) ||
		  (!affinity_has_key(na, LABEL_ZONE_BETA) && (api_labels_get(&pv->meta.labels, intern_str(LABEL_ZONE_GA)) ||
							       !api_labels_get(&pv->meta.labels, intern_str(LABEL_ZONE_BETA))));
	const char *zone_label = intern_str(ga ? LABEL_ZONE_GA : LABEL_ZONE_BETA);
	const char *key = intern_str(csi_key), *region_beta = intern_str(LABEL_REGION_BETA),
		   *region_ga = intern_str(LABEL_REGION_GA);
	bool zones_in_affinity = false;
	for (uint32_t i = 0; na && i < na->n_required; i++)
		for (uint32_t j = 0; j < na->required[i].n_exprs; j++)
			if (na->required[i].exprs[j].key == zone_label && na->required[i].exprs[j].n_values)
				zones_in_affinity = true;
	/* the zones of the PV's label, for addTopology (trimmed, distinct, sorted as sets.String) */
	const char *zones[16];
	uint32_t n_zones = 0;
	const char *label = zones_in_affinity ? NULL : api_labels_get(&pv->meta.labels, zone_label);
	for (const char *t = label; t;) {
		const char *end = strstr(t, "__");
		size_t len = end ? (size_t)(end - t) : strlen(t);
		while (len && (*t == ' ' || *t == '\t'))
			t++, len--;
		while (len && (t[len - 1] == ' ' || t[len - 1] == '\t'))
			len--;
		const char *z = len ? intern_strn(t, len) : NULL;
		bool dup = false;
		for (uint32_t k = 0; z && k < n_zones; k++)
			dup = dup || zones[k] == z;
		if (z && !dup && n_zones < 16) {
			uint32_t k = n_zones++;
			for (; k > 0 && strcmp(zones[k - 1], z) > 0; k--)
				zones[k] = zones[k - 1];
			zones[k] = z;
		}
		t = end ? end + 2 : NULL;
	}
	/* the translated terms: keys renamed, the zone requirement added to each term */
	uint32_t n_terms = na && na->has_required ? na->n_required : 0;
	bool add = n_zones > 0;
	if (add && n_terms == 0)
		n_terms = 1;
	if (!na && !add) {
		*ok = true; /* no affinity and nothing added: every node */
		return 0;
	}
	if (na && !na->has_required && !add) {
		*ok = true;
		return 0;
	}
	struct api_node_selector_term *terms = calloc(n_terms, sizeof(*terms));
	struct api_requirement *reqs = NULL;
	uint32_t total = 0;
	for (uint32_t i = 0; na && i < na->n_required; i++)
		total += na->required[i].n_exprs;
	total += add ? n_terms : 0;
	reqs = calloc(total ? total : 1, sizeof(*reqs));
	if (!terms || !reqs) {
		free(terms);
		free(reqs);
		snprintf(err, size, "could not translate pv: out of memory");
		return -1;
	}
	uint32_t used = 0;
	for (uint32_t i = 0; i < n_terms; i++) {
		const struct api_node_selector_term *src = na && i < na->n_required ? &na->required[i] : NULL;
		terms[i].exprs = &reqs[used];
		for (uint32_t j = 0; src && j < src->n_exprs; j++) {
			struct api_requirement r = src->exprs[j];
			if (zones_in_affinity && r.key == zone_label)
				r.key = key;
			else if (!ga && r.key == region_beta)
				r.key = region_ga;
			reqs[used++] = r;
			terms[i].n_exprs++;
		}
		if (add) {
			reqs[used++] = (struct api_requirement){ key, API_OP_IN, n_zones, zones };
			terms[i].n_exprs++;
		}
		if (src) {
			terms[i].n_fields = src->n_fields;
			terms[i].fields = src->fields;
		}
	}
	struct api_node only_labels;
	memset(&only_labels, 0, sizeof(only_labels));
	only_labels.meta.labels = node->meta.labels;
	only_labels.meta.name = "";
	*ok = fw_node_selector_matches(terms, n_terms, &only_labels);
	free(terms);
	free(reqs);
	return 0;
}

/* ---------- the assume caches ---------- */

static void assumed_pv_free(struct vb_assumed_pv *a)
{
	if (!a)
		return;
	free(a->key);
	free(a->ref_ns);
	free(a->ref_name);
	free(a->ref_uid);
	free(a);
}

static void assumed_pvc_free(struct vb_assumed_pvc *a)
{
	if (!a)
		return;
	free(a->key);
	free(a->selected_node);
	free(a);
}

int vb_priv_init(struct vb_priv *p)
{
	map_init(&p->pvs);
	map_init(&p->pvcs);
	return pthread_mutex_init(&p->lock, NULL) == 0 ? 0 : ERR_NOMEM;
}

void vb_priv_release(struct vb_priv *p)
{
	const char *k;
	void *v;
	for (size_t i = 0; map_next(&p->pvs, &i, &k, &v);)
		assumed_pv_free(v);
	for (size_t i = 0; map_next(&p->pvcs, &i, &k, &v);)
		assumed_pvc_free(v);
	map_release(&p->pvs);
	map_release(&p->pvcs);
	pthread_mutex_destroy(&p->lock);
}

static void pvc_key(char *buf, size_t size, const char *ns, const char *name)
{
	snprintf(buf, size, "%s/%s", ns, name);
}

/* upstream AssumeCache.delete (util/assumecache/assume_cache.go): the informer's delete of a PV
 * or PVC takes its assumed entry with it, whatever its version. Without this an entry whose
 * object went before the informer delivered a newer version (an assumed claim whose pod and
 * claim are deleted mid-PreBind) stays until the plugin is released: expiry only happens when
 * a newer version is read, and a deleted object is never read again. */
void vb_object_deleted(struct vb_priv *p, enum queue_resource res, const void *obj)
{
	char key[512];
	struct vb_assumed_pv *apv = NULL;
	struct vb_assumed_pvc *apvc = NULL;
	if (!obj)
		return;
	pthread_mutex_lock(&p->lock);
	if (res == QUEUE_RES_PERSISTENT_VOLUME) {
		const struct api_pv *pv = obj;
		if ((apv = map_get(&p->pvs, pv->meta.name)))
			map_del(&p->pvs, pv->meta.name);
	} else if (res == QUEUE_RES_PERSISTENT_VOLUME_CLAIM) {
		const struct api_pvc *pvc = obj;
		pvc_key(key, sizeof(key), pvc->meta.namespace, pvc->meta.name);
		if ((apvc = map_get(&p->pvcs, key)))
			map_del(&p->pvcs, key);
	}
	pthread_mutex_unlock(&p->lock);
	assumed_pv_free(apv);
	assumed_pvc_free(apvc);
}

void vb_assumed_counts(struct vb_priv *p, size_t *n_pvs, size_t *n_pvcs)
{
	pthread_mutex_lock(&p->lock);
	*n_pvs = map_len(&p->pvs);
	*n_pvcs = map_len(&p->pvcs);
	pthread_mutex_unlock(&p->lock);
}

/* A view of pv (reference taken) with its assumed claimRef when still valid (upstream Get). */
static void pv_view(struct vb_priv *p, struct api_pv *pv, struct vb_pv *out)
{
	memset(out, 0, sizeof(*out));
	out->pv = api_pv_ref(pv);
	out->has_claim_ref = pv->has_claim_ref;
	out->ref = pv->claim_ref;
	out->bound_by_controller = vb_annotation(&pv->meta.annotations, VB_ANN_BOUND_BY_CONTROLLER) != NULL;
	rv_copy(out->rv, pv->meta.resource_version);
	pthread_mutex_lock(&p->lock);
	struct vb_assumed_pv *a = map_get(&p->pvs, pv->meta.name);
	if (a && strcmp(a->rv, out->rv) == 0) {
		out->has_claim_ref = a->has_claim_ref;
		out->bound_by_controller = out->bound_by_controller || a->bound_by_controller;
		out->ref = (struct api_pv_claim_ref){ NULL, NULL, NULL };
		if (a->has_claim_ref) {
			/* copies: the entry may be replaced by another thread after the unlock */
			char *ns = strdup(a->ref_ns), *name = strdup(a->ref_name), *uid = strdup(a->ref_uid);
			out->ref = (struct api_pv_claim_ref){ ns, name, uid };
			out->owns_ref = true;
		}
		a = NULL;
	} else if (a) {
		map_del(&p->pvs, pv->meta.name); /* expired: the informer has a newer version */
	}
	pthread_mutex_unlock(&p->lock);
	assumed_pv_free(a);
}

static void pv_view_release(struct vb_pv *v)
{
	if (v->owns_ref) {
		free((char *)v->ref.namespace);
		free((char *)v->ref.name);
		free((char *)v->ref.uid);
	}
	api_pv_unref(v->pv);
	memset(v, 0, sizeof(*v));
}

/* The claim view of pvc (reference taken) with its assumed selected node when still valid. */
static int pvc_view(struct vb_priv *p, struct api_pvc *pvc, struct vb_pvc *out)
{
	char key[512];
	memset(out, 0, sizeof(*out));
	out->pvc = api_pvc_ref(pvc);
	out->selected_node = vb_annotation(&pvc->meta.annotations, VB_ANN_SELECTED_NODE);
	rv_copy(out->rv, pvc->meta.resource_version);
	pvc_key(key, sizeof(key), pvc->meta.namespace, pvc->meta.name);
	int rc = 0;
	pthread_mutex_lock(&p->lock);
	struct vb_assumed_pvc *a = map_get(&p->pvcs, key);
	if (a && strcmp(a->rv, out->rv) == 0) {
		out->sel_owned = a->selected_node ? strdup(a->selected_node) : NULL;
		if (a->selected_node && !out->sel_owned)
			rc = ERR_NOMEM;
		out->selected_node = out->sel_owned;
		a = NULL;
	} else if (a) {
		map_del(&p->pvcs, key); /* expired: the informer has a newer version */
	}
	pthread_mutex_unlock(&p->lock);
	assumed_pvc_free(a);
	return rc;
}

static void pvc_view_release(struct vb_pvc *v)
{
	free(v->sel_owned);
	api_pvc_unref(v->pvc);
	memset(v, 0, sizeof(*v));
}

static int pvc_view_copy(const struct vb_pvc *from, struct vb_pvc *to)
{
	*to = *from;
	to->pvc = api_pvc_ref(from->pvc);
	if (from->sel_owned) {
		to->sel_owned = strdup(from->sel_owned);
		to->selected_node = to->sel_owned;
		if (!to->sel_owned)
			return ERR_NOMEM;
	}
	return 0;
}

/* upstream passiveAssumeCache.Assume for a PV: the informer's object must have the version the
 * assumed one was derived from. */
static int assume_pv(const struct fw_pl *pl, const struct vb_binding *b, struct fw_status *st)
{
	struct vb_priv *p = pl->priv;
	struct api_pv *stored = fw_get_pv(pl, b->pv.pv->meta.name);
	int rc = 0;
	if (!stored) {
		fw_status_setf(st, FW_ERROR, "persistentvolumes \"%s\" not found", b->pv.pv->meta.name);
		return ERR_NOT_FOUND;
	}
	if (strcmp(or_empty(stored->meta.resource_version), b->pv.rv) != 0) {
		fw_status_setf(st, FW_ERROR, "\"%s\" is out of sync (stored: %s, assume: %s)", b->pv.pv->meta.name,
			       or_empty(stored->meta.resource_version), b->pv.rv);
		rc = ERR_CONFLICT;
		goto out;
	}
	struct vb_assumed_pv *a = calloc(1, sizeof(*a));
	if (a) {
		a->key = strdup(b->pv.pv->meta.name);
		rv_copy(a->rv, b->pv.rv);
		a->has_claim_ref = b->pv.has_claim_ref;
		a->bound_by_controller = b->pv.bound_by_controller;
		a->ref_ns = strdup(or_empty(b->pv.ref.namespace));
		a->ref_name = strdup(or_empty(b->pv.ref.name));
		a->ref_uid = strdup(or_empty(b->pv.ref.uid));
	}
	if (!a || !a->key || !a->ref_ns || !a->ref_name || !a->ref_uid) {
		assumed_pv_free(a);
		fw_status_set(st, FW_ERROR, "assuming a persistentvolume: out of memory");
		rc = ERR_NOMEM;
		goto out;
	}
	void *old = NULL;
	pthread_mutex_lock(&p->lock);
	rc = map_put(&p->pvs, a->key, a, &old);
	pthread_mutex_unlock(&p->lock);
	assumed_pv_free(old);
	if (rc < 0) {
		assumed_pv_free(a);
		fw_status_set(st, FW_ERROR, "assuming a persistentvolume: out of memory");
	}
out:
	api_pv_unref(stored);
	return rc;
}

/* Removes key's entry from m when its resourceVersion is rv (upstream Restore). */
static void restore(struct vb_priv *p, struct map *m, const char *key, const char *rv, bool pv)
{
	void *v;
	pthread_mutex_lock(&p->lock);
	v = map_get(m, key);
	const char *entry_rv = !v ? NULL : pv ? ((struct vb_assumed_pv *)v)->rv : ((struct vb_assumed_pvc *)v)->rv;
	if (v && strcmp(entry_rv, rv) == 0)
		map_del(m, key);
	else
		v = NULL;
	pthread_mutex_unlock(&p->lock);
	if (pv)
		assumed_pv_free(v);
	else
		assumed_pvc_free(v);
}

/* upstream Assume for a claim with the selected-node annotation. */
static int assume_pvc(const struct fw_pl *pl, const struct vb_pvc *c, struct fw_status *st)
{
	struct vb_priv *p = pl->priv;
	char key[512];
	pvc_key(key, sizeof(key), c->pvc->meta.namespace, c->pvc->meta.name);
	struct api_pvc *stored = fw_get_pvc(pl, c->pvc->meta.namespace, c->pvc->meta.name);
	int rc = 0;
	if (!stored) {
		fw_status_setf(st, FW_ERROR, "persistentvolumeclaims \"%s\" not found", key);
		return ERR_NOT_FOUND;
	}
	if (strcmp(or_empty(stored->meta.resource_version), c->rv) != 0) {
		fw_status_setf(st, FW_ERROR, "\"%s\" is out of sync (stored: %s, assume: %s)", key,
			       or_empty(stored->meta.resource_version), c->rv);
		rc = ERR_CONFLICT;
		goto out;
	}
	struct vb_assumed_pvc *a = calloc(1, sizeof(*a));
	void *old = NULL;
	if (a) {
		a->key = strdup(key);
		rv_copy(a->rv, c->rv);
		a->selected_node = c->selected_node ? strdup(c->selected_node) : NULL;
	}
	if (!a || !a->key || (c->selected_node && !a->selected_node)) {
		rc = ERR_NOMEM;
	} else {
		pthread_mutex_lock(&p->lock);
		rc = map_put(&p->pvcs, a->key, a, &old);
		pthread_mutex_unlock(&p->lock);
		assumed_pvc_free(old);
	}
	if (rc < 0) {
		assumed_pvc_free(a);
		fw_status_set(st, FW_ERROR, "assuming a persistentvolumeclaim: out of memory");
	}
out:
	api_pvc_unref(stored);
	return rc;
}

/* ---------- PreFilter: GetPodVolumeClaims ---------- */

static bool pvc_fully_bound(const struct api_pvc *pvc)
{
	return pvc->volume_name && pvc->volume_name[0] &&
	       vb_annotation(&pvc->meta.annotations, VB_ANN_BIND_COMPLETED) != NULL;
}

static bool controlled_by(const struct api_pvc *pvc, const struct api_pod *pod)
{
	for (uint32_t i = 0; i < pvc->meta.n_owner_refs; i++) {
		const struct api_owner_ref *o = &pvc->meta.owner_refs[i];
		if (o->controller)
			return str_eq(o->uid, pod->meta.uid);
	}
	return false;
}

static int append_claim(struct vb_pvc **arr, uint32_t *n, const struct vb_pvc *c)
{
	struct vb_pvc *a = realloc(*arr, (*n + 1) * sizeof(*a));
	if (!a)
		return ERR_NOMEM;
	a[(*n)++] = *c;
	*arr = a;
	return 0;
}

struct collect_pvs {
	struct vb_priv *priv;
	struct vb_class_pvs *cls;
	int rc;
};

static int collect_pv(void *arg, const struct api_pv *pv)
{
	struct collect_pvs *c = arg;
	struct vb_pv *a = realloc(c->cls->pvs, (c->cls->n + 1) * sizeof(*a));
	if (!a) {
		c->rc = ERR_NOMEM;
		return 1;
	}
	c->cls->pvs = a;
	/* pv_view takes the priv lock: fw_each_pv's callback must not call a lister, which this
	 * does not (the lock is the plugin's own leaf lock) */
	pv_view(c->priv, (struct api_pv *)pv, &a[c->cls->n++]);
	return 0;
}

enum fw_code vb_get_pod_volume_claims(const struct fw_pl *pl, const struct api_pod *pod, struct vb_state *s,
				      struct fw_status *st)
{
	struct vb_priv *p = pl->priv;
	for (uint32_t i = 0; i < pod->n_volumes; i++) {
		const struct api_volume *vol = &pod->volumes[i];
		if (vol->kind != API_VOLUME_PVC && vol->kind != API_VOLUME_EPHEMERAL)
			continue;
		bool ephemeral = vol->kind == API_VOLUME_EPHEMERAL;
		struct api_pvc *pvc = fw_get_pvc(pl, pod->meta.namespace, vol->claim_name);
		if (!pvc)
			return fw_status_setf(st, FW_ERROR,
					      "error getting PVC \"%s/%s\": persistentvolumeclaims \"%s/%s\" not found",
					      pod->meta.namespace, vol->claim_name, pod->meta.namespace, vol->claim_name);
		struct vb_pvc c;
		int rc = pvc_view(p, pvc, &c);
		api_pvc_unref(pvc);
		if (rc < 0) {
			pvc_view_release(&c);
			return fw_status_set(st, FW_ERROR, "reading a claim: out of memory");
		}
		if (ephemeral && (!str_eq(c.pvc->meta.namespace, pod->meta.namespace) || !controlled_by(c.pvc, pod))) {
			fw_status_setf(st, FW_ERROR, "PVC %s/%s was not created for pod %s/%s (pod is not owner)",
				       c.pvc->meta.namespace, c.pvc->meta.name, pod->meta.namespace, pod->meta.name);
			pvc_view_release(&c);
			return FW_ERROR;
		}
		if (pvc_fully_bound(c.pvc)) {
			rc = append_claim(&s->bound, &s->n_bound, &c);
		} else {
			/* upstream IsDelayBindingMode */
			bool delay = false;
			const char *cls = vb_pvc_class(c.pvc);
			if (cls[0]) {
				struct api_storage_class *sc = fw_get_storage_class(pl, cls);
				if (sc && !sc->has_volume_binding_mode) {
					api_storage_class_unref(sc);
					fw_status_setf(st, FW_ERROR, "VolumeBindingMode not set for StorageClass \"%s\"", cls);
					pvc_view_release(&c);
					return FW_ERROR;
				}
				delay = sc && sc->volume_binding_mode == API_BINDING_WAIT_FOR_FIRST_CONSUMER;
				api_storage_class_unref(sc);
			}
			if (delay && !(c.pvc->volume_name && c.pvc->volume_name[0]))
				rc = append_claim(&s->delay, &s->n_delay, &c);
			else
				rc = append_claim(&s->immediate, &s->n_immediate, &c);
		}
		if (rc < 0) {
			pvc_view_release(&c);
			return fw_status_set(st, FW_ERROR, "reading claims: out of memory");
		}
	}
	/* unboundVolumesDelayBinding: the PVs of each delay claim's class, once per class */
	for (uint32_t i = 0; i < s->n_delay; i++) {
		const char *cls = vb_pvc_class(s->delay[i].pvc);
		bool seen = false;
		for (uint32_t j = 0; j < s->n_classes && !seen; j++)
			seen = strcmp(s->classes[j].class_name, cls) == 0;
		if (seen)
			continue;
		struct vb_class_pvs *a = realloc(s->classes, (s->n_classes + 1) * sizeof(*a));
		if (!a)
			return fw_status_set(st, FW_ERROR, "listing persistentvolumes: out of memory");
		s->classes = a;
		a[s->n_classes] = (struct vb_class_pvs){ .class_name = cls };
		struct collect_pvs cc = { p, &a[s->n_classes++], 0 };
		fw_each_pv(pl, cls, collect_pv, &cc);
		if (cc.rc < 0)
			return fw_status_set(st, FW_ERROR, "listing persistentvolumes: out of memory");
	}
	return FW_SUCCESS;
}

static void claims_free(struct vb_pvc *a, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		pvc_view_release(&a[i]);
	free(a);
}

void vb_pod_volumes_free(struct vb_pod_volumes *v)
{
	if (!v)
		return;
	for (uint32_t i = 0; i < v->n_static; i++) {
		struct vb_binding *b = &v->statics[i];
		pv_view_release(&b->pv);
		free(b->ref_ns);
		free(b->ref_name);
		free(b->ref_uid);
	}
	for (uint32_t i = 0; i < v->n_dynamic; i++)
		pvc_view_release(&v->dynamics[i].claim);
	free(v->statics);
	free(v->dynamics);
	free((char *)v->node_name);
	free(v);
}

void vb_state_free(void *state)
{
	struct vb_state *s = state;
	if (!s)
		return;
	claims_free(s->bound, s->n_bound);
	claims_free(s->delay, s->n_delay);
	claims_free(s->immediate, s->n_immediate);
	for (uint32_t i = 0; i < s->n_classes; i++) {
		for (uint32_t j = 0; j < s->classes[i].n; j++)
			pv_view_release(&s->classes[i].pvs[j]);
		free(s->classes[i].pvs);
	}
	free(s->classes);
	const char *k;
	void *v;
	for (size_t i = 0; map_next(&s->by_node, &i, &k, &v);)
		vb_pod_volumes_free(v);
	map_release(&s->by_node);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* ---------- Filter: FindPodVolumes ---------- */

/* upstream IsVolumeBoundToClaim on a view */
static bool bound_to_claim(const struct vb_pv *v, const struct api_pvc *claim)
{
	if (!v->has_claim_ref)
		return false;
	if (!str_eq(claim->meta.name, v->ref.name) || !str_eq(claim->meta.namespace, v->ref.namespace))
		return false;
	if (v->ref.uid && v->ref.uid[0] && !str_eq(claim->meta.uid, v->ref.uid))
		return false;
	return true;
}

static const char *mode_or_fs(const char *m)
{
	return m ? m : "Filesystem";
}

/* upstream FindMatchingVolume(claim, volumes, node, excluded, delayBinding = true, vacEnabled =
 * true: VolumeAttributesClass is GA). Returns the index in pvs or -1. */
static int find_matching_volume(const struct api_pvc *claim, const struct vb_class_pvs *cls,
				const struct api_node *node, const bool *excluded)
{
	int smallest = -1;
	int64_t smallest_qty = 0;
	const char *requested_class = vb_pvc_class(claim);
	int64_t requested = claim->request_storage;
	for (uint32_t i = 0; i < cls->n; i++) {
		const struct vb_pv *v = &cls->pvs[i];
		const struct api_pv *pv = v->pv;
		if (excluded[i])
			continue;
		if (v->has_claim_ref && !bound_to_claim(v, claim))
			continue;
		int64_t qty = pv->capacity_storage;
		if (qty < requested)
			continue;
		if (strcmp(mode_or_fs(claim->volume_mode), mode_or_fs(pv->volume_mode)) != 0)
			continue;
		if (strcmp(or_empty(claim->volume_attributes_class_name), or_empty(pv->volume_attributes_class_name)) != 0)
			continue;
		if (pv->meta.being_deleted)
			continue;
		bool affinity_ok = pv_node_affinity_ok(pv, node);
		if (bound_to_claim(v, claim))
			return affinity_ok ? (int)i : -1;
		if (!str_eq(pv->phase, "Available"))
			continue;
		if (claim->selector && !api_label_selector_matches(claim->selector, &pv->meta.labels))
			continue;
		if (strcmp(pv_class(pv), requested_class) != 0)
			continue;
		if (!affinity_ok)
			continue;
		if (claim->access_modes & ~pv->access_modes)
			continue; /* CheckAccessModes: every mode of the claim must be the PV's */
		if (smallest < 0 || smallest_qty > qty) {
			smallest = (int)i;
			smallest_qty = qty;
		}
	}
	return smallest;
}

static const struct vb_class_pvs *class_pvs(const struct vb_state *s, const char *cls)
{
	for (uint32_t i = 0; i < s->n_classes; i++)
		if (strcmp(s->classes[i].class_name, cls) == 0)
			return &s->classes[i];
	return NULL;
}

struct capacity_find {
	const char *class_name;
	int64_t size;
	const struct api_node *node;
	bool found, has_capacity;
	int64_t capacity;
};

static int capacity_one(void *arg, const struct api_csi_storage_capacity *c)
{
	struct capacity_find *f = arg;
	bool has;
	int64_t limit = vb_volume_limit(c, &has);
	if (strcmp(or_empty(c->storage_class_name), f->class_name) != 0 || !has || limit < f->size)
		return 0;
	/* upstream nodeHasAccess: no topology = no access */
	if (!c->node_topology || !api_label_selector_matches(c->node_topology, &f->node->meta.labels))
		return 0;
	f->found = true;
	f->has_capacity = c->has_capacity;
	f->capacity = c->capacity;
	return 1;
}

/* upstream MatchTopologySelectorTerms: no terms match every node; a term matches when each of
 * its expressions has the node's label value among its values. */
static bool topology_matches(const struct api_storage_class *sc, const struct api_node *node)
{
	if (sc->n_allowed_topologies == 0)
		return true;
	for (uint32_t i = 0; i < sc->n_allowed_topologies; i++) {
		const struct api_topology_term *t = &sc->allowed_topologies[i];
		bool ok = true;
		for (uint32_t j = 0; j < t->n_exprs && ok; j++) {
			const struct api_requirement *r = &t->exprs[j];
			const char *v = api_labels_get(&node->meta.labels, r->key);
			bool in = false;
			for (uint32_t k = 0; v && k < r->n_values && !in; k++)
				in = str_eq(r->values[k], v);
			ok = in;
		}
		if (ok)
			return true;
	}
	return false;
}

/* upstream checkVolumeProvisions + hasEnoughCapacity. FW_ERROR with st on error; otherwise sets
 * *satisfied and *sufficient and appends to v's dynamic provisions. */
static enum fw_code check_volume_provisions(const struct fw_pl *pl, const struct vb_pvc *const *claims, uint32_t n,
					    const struct api_node *node, struct vb_pod_volumes *v, bool *satisfied,
					    bool *sufficient, struct fw_status *st)
{
	enum fw_code code = FW_SUCCESS;
	struct vb_provision *dyn = calloc(n ? n : 1, sizeof(*dyn));
	uint32_t n_dyn = 0;
	if (!dyn)
		return fw_status_set(st, FW_ERROR, "checking provisioning: out of memory");
	*satisfied = true;
	*sufficient = true;
	for (uint32_t i = 0; i < n; i++) {
		const struct api_pvc *claim = claims[i]->pvc;
		const char *cls = vb_pvc_class(claim);
		if (!cls[0]) {
			code = fw_status_setf(st, FW_ERROR, "no class for claim \"%s/%s\"", claim->meta.namespace,
					      claim->meta.name);
			goto fail;
		}
		struct api_storage_class *sc = fw_get_storage_class(pl, cls);
		if (!sc) {
			code = fw_status_setf(st, FW_ERROR, "failed to find storage class \"%s\"", cls);
			goto fail;
		}
		const char *prov = sc->provisioner;
		if (!prov || !prov[0] || strcmp(prov, VB_NOT_SUPPORTED_PROVISIONER) == 0 || !topology_matches(sc, node)) {
			api_storage_class_unref(sc);
			*satisfied = false;
			goto fail; /* (false, true): no provisioning here */
		}
		struct capacity_find f = { .class_name = sc->meta.name, .size = claim->request_storage, .node = node };
		bool enough = true;
		if (claim->has_request_storage) {
			struct api_csidriver *d = fw_get_csidriver(pl, prov);
			if (d && d->has_storage_capacity && d->storage_capacity) {
				fw_each_csi_storage_capacity(pl, capacity_one, &f);
				enough = f.found;
			}
			api_csidriver_unref(d);
		}
		api_storage_class_unref(sc);
		if (!enough) {
			*sufficient = false;
			goto fail; /* (true, false) */
		}
		struct vb_provision *d = &dyn[n_dyn];
		if (pvc_view_copy(claims[i], &d->claim) < 0) {
			pvc_view_release(&d->claim);
			code = fw_status_set(st, FW_ERROR, "checking provisioning: out of memory");
			goto fail;
		}
		n_dyn++;
		d->has_node_capacity = f.found;
		d->node_capacity = f.has_capacity ? f.capacity : 0;
	}
	v->dynamics = dyn;
	v->n_dynamic = n_dyn;
	return FW_SUCCESS;
fail:
	for (uint32_t i = 0; i < n_dyn; i++)
		pvc_view_release(&dyn[i].claim);
	free(dyn);
	return code;
}

/* stable sort of claims by requested size (upstream sort.Sort(byPVCSize) on the few claims of a
 * pod: insertion sort, which it also uses for fewer than 12 elements) */
static void sort_by_size(const struct vb_pvc **a, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		const struct vb_pvc *x = a[i];
		uint32_t j = i;
		for (; j > 0 && a[j - 1]->pvc->request_storage > x->pvc->request_storage; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

enum fw_code vb_find_pod_volumes(const struct fw_pl *pl, const struct api_pod *pod, const struct vb_state *s,
				 const struct api_node *node, struct vb_pod_volumes **out, struct fw_status *st)
{
	(void)pod;
	enum fw_code code = FW_SUCCESS;
	bool unbound_ok = true, bound_ok = true, sufficient = true, bound_pvs_found = true;
	const struct vb_pvc **to_match = NULL, **to_provision = NULL;
	bool *excluded = NULL;
	struct vb_pod_volumes *v = calloc(1, sizeof(*v));
	*out = NULL;
	if (!v || !(v->node_name = strdup(node->meta.name)))
		goto nomem;

	/* checkBoundClaims */
	struct api_csinode *csinode = s->n_bound ? fw_get_csinode(pl, node->meta.name) : NULL;
	for (uint32_t i = 0; i < s->n_bound; i++) {
		struct api_pv *pv = fw_get_pv(pl, s->bound[i].pvc->volume_name);
		if (!pv) {
			bound_pvs_found = false;
			break;
		}
		bool ok = true;
		char why[320];
		int rc = pv_affinity_ok_on(pv, node, csinode, &ok, why, sizeof(why));
		api_pv_unref(pv);
		if (rc < 0) {
			api_csinode_unref(csinode);
			code = fw_status_set(st, FW_ERROR, why);
			goto out;
		}
		if (!ok) {
			bound_ok = false;
			break;
		}
	}
	api_csinode_unref(csinode);

	if (s->n_delay) {
		uint32_t n_match = 0, n_prov = 0;
		to_match = calloc(s->n_delay, sizeof(*to_match));
		to_provision = calloc(s->n_delay, sizeof(*to_provision));
		if (!to_match || !to_provision)
			goto nomem;
		for (uint32_t i = 0; i < s->n_delay; i++) {
			const struct vb_pvc *c = &s->delay[i];
			if (c->selected_node) {
				if (strcmp(c->selected_node, node->meta.name) != 0) {
					unbound_ok = false;
					goto reasons;
				}
				to_provision[n_prov++] = c;
			} else {
				to_match[n_match++] = c;
			}
		}
		if (n_match) {
			/* findMatchingVolumes */
			sort_by_size(to_match, n_match);
			v->statics = calloc(n_match, sizeof(*v->statics));
			if (!v->statics)
				goto nomem;
			unbound_ok = true;
			for (uint32_t i = 0; i < n_match; i++) {
				const struct vb_pvc *c = to_match[i];
				const struct vb_class_pvs *cls = class_pvs(s, vb_pvc_class(c->pvc));
				int idx = -1;
				if (cls && cls->n) {
					free(excluded);
					excluded = calloc(cls->n, sizeof(*excluded));
					if (!excluded)
						goto nomem;
					/* chosenPVs: the PVs already picked for this pod's other claims */
					for (uint32_t j = 0; j < v->n_static; j++)
						for (uint32_t k = 0; k < cls->n; k++)
							if (cls->pvs[k].pv == v->statics[j].pv.pv)
								excluded[k] = true;
					idx = find_matching_volume(c->pvc, cls, node, excluded);
				}
				if (idx < 0) {
					to_provision[n_prov++] = c;
					unbound_ok = false;
					continue;
				}
				struct vb_binding *b = &v->statics[v->n_static++];
				b->claim = (struct vb_pvc *)c;
				b->pv = cls->pvs[idx];
				b->pv.pv = api_pv_ref(cls->pvs[idx].pv);
				b->pv.owns_ref = false;
				/* copies of the claimRef the binding owns: Assume replaces them */
				b->ref_ns = strdup(or_empty(b->pv.ref.namespace));
				b->ref_name = strdup(or_empty(b->pv.ref.name));
				b->ref_uid = strdup(or_empty(b->pv.ref.uid));
				if (!b->ref_ns || !b->ref_name || !b->ref_uid)
					goto nomem;
				b->pv.ref = (struct api_pv_claim_ref){ b->ref_ns, b->ref_name, b->ref_uid };
			}
		}
		if (n_prov) {
			code = check_volume_provisions(pl, to_provision, n_prov, node, v, &unbound_ok, &sufficient, st);
			if (code != FW_SUCCESS)
				goto out;
		}
	}
reasons:
	if (!bound_ok)
		fw_status_add_reason(st, VB_REASON_NODE_CONFLICT);
	if (!unbound_ok)
		fw_status_add_reason(st, VB_REASON_BIND_CONFLICT);
	if (!sufficient)
		fw_status_add_reason(st, VB_REASON_NOT_ENOUGH_SPACE);
	if (!bound_pvs_found)
		fw_status_add_reason(st, VB_REASON_PV_NOT_EXIST);
	if (st->n_reasons)
		st->code = code = FW_UNSCHEDULABLE_AND_UNRESOLVABLE;
	*out = v;
	v = NULL;
	goto out;
nomem:
	code = fw_status_set(st, FW_ERROR, "finding volumes: out of memory");
out:
	vb_pod_volumes_free(v);
	free(to_match);
	free(to_provision);
	free(excluded);
	return code;
}

/* ---------- Reserve: AssumePodVolumes ---------- */

/* upstream arePodVolumesBound: every claim of the pod fully bound, read through the cache. */
static bool pod_volumes_bound(const struct fw_pl *pl, const struct api_pod *pod)
{
	for (uint32_t i = 0; i < pod->n_volumes; i++) {
		const struct api_volume *vol = &pod->volumes[i];
		if (vol->kind != API_VOLUME_PVC && vol->kind != API_VOLUME_EPHEMERAL)
			continue;
		struct api_pvc *pvc = fw_get_pvc(pl, pod->meta.namespace, vol->claim_name);
		bool ok = pvc && pvc_fully_bound(pvc) &&
			  (vol->kind != API_VOLUME_EPHEMERAL ||
			   (str_eq(pvc->meta.namespace, pod->meta.namespace) && controlled_by(pvc, pod)));
		api_pvc_unref(pvc);
		if (!ok)
			return false;
	}
	return true;
}

/* Restores (upstream Restore) the assumed PVs of bindings [s0, s1) and claims of provisions
 * [d0, d1). */
static void revert_range(const struct fw_pl *pl, const struct vb_pod_volumes *v, uint32_t s0, uint32_t s1, uint32_t d0,
			 uint32_t d1)
{
	struct vb_priv *p = pl->priv;
	for (uint32_t i = s0; i < s1; i++)
		restore(p, &p->pvs, v->statics[i].pv.pv->meta.name, v->statics[i].pv.rv, true);
	for (uint32_t i = d0; i < d1; i++) {
		char key[512];
		const struct api_pvc *c = v->dynamics[i].claim.pvc;
		pvc_key(key, sizeof(key), c->meta.namespace, c->meta.name);
		restore(p, &p->pvcs, key, v->dynamics[i].claim.rv, false);
	}
}

enum fw_code vb_assume_pod_volumes(const struct fw_pl *pl, const struct api_pod *pod, const char *node_name,
				   struct vb_pod_volumes *v, bool *all_bound, struct fw_status *st)
{
	*all_bound = false;
	if (pod_volumes_bound(pl, pod)) {
		*all_bound = true;
		return FW_SUCCESS;
	}
	uint32_t done_static = 0, done_dynamic = 0;
	for (; done_static < v->n_static; done_static++) {
		struct vb_binding *b = &v->statics[done_static];
		const struct api_pvc *claim = b->claim->pvc;
		/* upstream GetBindVolumeToClaim */
		bool was_bound = bound_to_claim(&b->pv, claim);
		bool dirty = false;
		if (!b->pv.has_claim_ref || !str_eq(b->pv.ref.name, claim->meta.name) ||
		    !str_eq(b->pv.ref.namespace, claim->meta.namespace) || !str_eq(b->pv.ref.uid, claim->meta.uid)) {
			char *ns = strdup(claim->meta.namespace), *name = strdup(claim->meta.name),
			     *uid = strdup(or_empty(claim->meta.uid));
			if (!ns || !name || !uid) {
				free(ns);
				free(name);
				free(uid);
				fw_status_set(st, FW_ERROR, "assuming volumes: out of memory");
				goto fail;
			}
			free(b->ref_ns);
			free(b->ref_name);
			free(b->ref_uid);
			b->ref_ns = ns;
			b->ref_name = name;
			b->ref_uid = uid;
			b->pv.has_claim_ref = true;
			b->pv.ref = (struct api_pv_claim_ref){ ns, name, uid };
			dirty = true;
		}
		if (!was_bound && !b->pv.bound_by_controller) {
			b->pv.bound_by_controller = true;
			dirty = true;
		}
		if (dirty && assume_pv(pl, b, st) < 0)
			goto fail;
	}
	for (; done_dynamic < v->n_dynamic; done_dynamic++) {
		struct vb_pvc *c = &v->dynamics[done_dynamic].claim;
		char *sel = strdup(node_name);
		if (!sel) {
			fw_status_set(st, FW_ERROR, "assuming volumes: out of memory");
			goto fail;
		}
		free(c->sel_owned);
		c->sel_owned = sel;
		c->selected_node = sel;
		if (assume_pvc(pl, c, st) < 0)
			goto fail;
	}
	return FW_SUCCESS;
fail:
	/* revertAssumedPVs(newBindings) / revertAssumedPVCs(newProvisionedPVCs) */
	revert_range(pl, v, 0, done_static, 0, done_dynamic);
	return FW_ERROR;
}

static void revert_from(const struct fw_pl *pl, struct vb_pod_volumes *v, uint32_t first_static,
			uint32_t first_dynamic)
{
	revert_range(pl, v, first_static, v->n_static, first_dynamic, v->n_dynamic);
}

void vb_revert_assumed_pod_volumes(const struct fw_pl *pl, struct vb_pod_volumes *v)
{
	revert_from(pl, v, 0, 0);
}

/* ---------- PreBind: BindPodVolumes ---------- */

/* upstream checkBindings: 1 = done, 0 = not yet, FW_ERROR (-1) with st. */
static int check_bindings(const struct fw_pl *pl, const struct api_pod *pod, const char *node_name,
			  const struct vb_pod_volumes *v, struct fw_status *st)
{
	int ret = 1;
	struct api_pv *pv = NULL;
	struct api_pvc *pvc = NULL;
	struct api_node *node = fw_volume_node(pl, node_name);
	if (!node) {
		fw_status_setf(st, FW_ERROR, "binding volumes: failed to get node \"%s\": node \"%s\" not found", node_name,
			       node_name);
		return -1;
	}
	struct api_csinode *csinode = fw_get_csinode(pl, node_name);
	bool aff_ok = true;
	char why[320];
	/* the pod lister (none in some unit tests: nothing to check) */
	if (pl->profile->listers.pod) {
		struct api_pod *cur = fw_get_pod(pl, pod->meta.namespace, pod->meta.name);
		if (!cur) {
			fw_status_setf(st, FW_ERROR, "binding volumes: pod does not exist any more: pod \"%s\" not found",
				       pod->meta.name);
			api_node_unref(node);
			api_csinode_unref(csinode);
			return -1;
		}
		api_pod_unref(cur);
	}
	for (uint32_t i = 0; i < v->n_static && ret == 1; i++) {
		const struct vb_binding *b = &v->statics[i];
		const struct api_pvc *claim = b->claim->pvc;
		pv = fw_get_pv(pl, b->pv.pv->meta.name);
		if (!pv) {
			fw_status_setf(st, FW_ERROR,
				       "binding volumes: failed to check binding: persistentvolumes \"%s\" not found",
				       b->pv.pv->meta.name);
			ret = -1;
			break;
		}
		pvc = fw_get_pvc(pl, claim->meta.namespace, claim->meta.name);
		if (!pvc) {
			fw_status_setf(st, FW_ERROR,
				       "binding volumes: failed to check binding: persistentvolumeclaims \"%s/%s\" not found",
				       claim->meta.namespace, claim->meta.name);
			ret = -1;
		} else if (vb_compare_rv(b->pv.rv, pv->meta.resource_version) > 0) {
			ret = 0; /* the informer has not seen our write yet */
		} else if (pv_affinity_ok_on(pv, node, csinode, &aff_ok, why, sizeof(why)) < 0) {
			fw_status_setf(st, FW_ERROR, "binding volumes: failed to translate pv to csi: %s", why);
			ret = -1;
		} else if (!aff_ok) {
			fw_status_setf(st, FW_ERROR,
				       "binding volumes: pv \"%s\" node affinity doesn't match node \"%s\": no matching NodeSelectorTerms",
				       pv->meta.name, node_name);
			ret = -1;
		} else if (!pv->has_claim_ref || !pv->claim_ref.uid || !pv->claim_ref.uid[0]) {
			fw_status_setf(st, FW_ERROR, "binding volumes: ClaimRef got reset for pv \"%s\"", pv->meta.name);
			ret = -1;
		} else if (!pvc_fully_bound(pvc)) {
			ret = 0;
		}
		api_pv_unref(pv);
		api_pvc_unref(pvc);
		pv = NULL;
		pvc = NULL;
	}
	for (uint32_t i = 0; i < v->n_dynamic && ret == 1; i++) {
		const struct vb_pvc *c = &v->dynamics[i].claim;
		pvc = fw_get_pvc(pl, c->pvc->meta.namespace, c->pvc->meta.name);
		if (!pvc) {
			fw_status_setf(st, FW_ERROR,
				       "binding volumes: failed to check provisioning pvc: persistentvolumeclaims \"%s/%s\" not found",
				       c->pvc->meta.namespace, c->pvc->meta.name);
			ret = -1;
			break;
		}
		const char *sel = vb_annotation(&pvc->meta.annotations, VB_ANN_SELECTED_NODE);
		if (vb_compare_rv(c->rv, pvc->meta.resource_version) > 0) {
			ret = 0;
		} else if (pvc->meta.annotations.n == 0) {
			fw_status_setf(st, FW_ERROR, "binding volumes: selectedNode annotation reset for PVC \"%s\"",
				       pvc->meta.name);
			ret = -1;
		} else if (!str_eq(or_empty(sel), node_name)) {
			fw_status_setf(st, FW_ERROR, "binding volumes: provisioning failed for PVC \"%s\"", pvc->meta.name);
			ret = -1;
		} else if (pvc->volume_name && pvc->volume_name[0]) {
			pv = fw_get_pv(pl, pvc->volume_name);
			if (!pv) {
				ret = 0;
			} else if (pv_affinity_ok_on(pv, node, csinode, &aff_ok, why, sizeof(why)) < 0) {
				fw_status_setf(st, FW_ERROR, "binding volumes: %s", why);
				ret = -1;
			} else if (!aff_ok) {
				fw_status_setf(st, FW_ERROR,
					       "binding volumes: pv \"%s\" node affinity doesn't match node \"%s\": no matching NodeSelectorTerms",
					       pv->meta.name, node_name);
				ret = -1;
			} else if (!pvc_fully_bound(pvc)) {
				ret = 0;
			}
		} else if (!pvc_fully_bound(pvc)) {
			ret = 0;
		}
		api_pv_unref(pv);
		api_pvc_unref(pvc);
		pv = NULL;
		pvc = NULL;
	}
	api_node_unref(node);
	api_csinode_unref(csinode);
	return ret;
}

/* upstream mayExpire on the informer events of the objects PreBind wrote: once the informer has
 * their new versions, the assumed entries (of the old ones) go. */
static void expire_written(const struct fw_pl *pl, const struct vb_pod_volumes *v)
{
	struct vb_priv *p = pl->priv;
	for (uint32_t i = 0; i < v->n_static; i++) {
		const char *name = v->statics[i].pv.pv->meta.name;
		struct api_pv *cur = fw_get_pv(pl, name);
		pthread_mutex_lock(&p->lock);
		struct vb_assumed_pv *a = map_get(&p->pvs, name);
		if (a && (!cur || strcmp(a->rv, or_empty(cur->meta.resource_version)) != 0))
			map_del(&p->pvs, name);
		else
			a = NULL;
		pthread_mutex_unlock(&p->lock);
		assumed_pv_free(a);
		api_pv_unref(cur);
	}
	for (uint32_t i = 0; i < v->n_dynamic; i++) {
		const struct api_pvc *c = v->dynamics[i].claim.pvc;
		char key[512];
		pvc_key(key, sizeof(key), c->meta.namespace, c->meta.name);
		struct api_pvc *cur = fw_get_pvc(pl, c->meta.namespace, c->meta.name);
		pthread_mutex_lock(&p->lock);
		struct vb_assumed_pvc *a = map_get(&p->pvcs, key);
		if (a && (!cur || strcmp(a->rv, or_empty(cur->meta.resource_version)) != 0))
			map_del(&p->pvcs, key);
		else
			a = NULL;
		pthread_mutex_unlock(&p->lock);
		assumed_pvc_free(a);
		api_pvc_unref(cur);
	}
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

enum fw_code vb_bind_pod_volumes(const struct fw_pl *pl, const struct api_pod *pod, const char *node_name,
				 struct vb_pod_volumes *v, struct fw_status *st)
{
	const struct vb_priv *p = pl->priv;
	struct err e = { 0 };
	uint32_t i = 0, j = 0;
	/* bindAPIUpdate: the PVs, then the claims; what was not written is reverted */
	for (; i < v->n_static; i++) {
		struct vb_binding *b = &v->statics[i];
		char rv[VB_RV_MAX];
		if (fw_volume_bind_pv(pl, b->pv.pv->meta.name, b->pv.rv, b->claim->pvc, b->pv.bound_by_controller, rv,
				      sizeof(rv), &e) < 0)
			goto write_failed;
		/* binding.pv = newPV: the version the informer must reach; the assumed entry (old
		 * version) expires by itself when it does */
		rv_copy(b->pv.rv, rv);
	}
	for (; j < v->n_dynamic; j++) {
		struct vb_pvc *c = &v->dynamics[j].claim;
		char rv[VB_RV_MAX];
		if (fw_volume_select_node(pl, c->pvc, node_name, rv, sizeof(rv), &e) < 0)
			goto write_failed;
		rv_copy(c->rv, rv);
	}

	/* wait.PollUntilContextTimeout(1s, bindTimeout, immediate = false) */
	int64_t deadline = now_ms() + p->bind_timeout_ms;
	for (;;) {
		int64_t left = deadline - now_ms();
		if (left <= 0)
			break;
		if (!fw_volume_sleep(pl, left < 1000 ? left : 1000))
			return fw_status_set(st, FW_ERROR, "binding volumes: context canceled");
		if (now_ms() > deadline)
			break;
		int r = check_bindings(pl, pod, node_name, v, st);
		if (r < 0)
			return FW_ERROR;
		if (r == 1) {
			expire_written(pl, v);
			return FW_SUCCESS;
		}
	}
	return fw_status_set(st, FW_ERROR, "binding volumes: context deadline exceeded");
write_failed:
	revert_from(pl, v, i, j);
	return fw_status_set(st, FW_ERROR, e.msg);
}
