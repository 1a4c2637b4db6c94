/* Decoding of v1 PersistentVolumes: what the volume plugins read (upstream volumebinding,
 * volumezone, nodevolumelimits; component-helpers' FindMatchingVolume and CheckNodeAffinity;
 * csi-translation-lib's in-tree -> CSI translation), and their reference counting. */
#include <string.h>

#include "decode_internal.h"
#include "common/arena.h"
#include "common/intern.h"
#include "common/macros.h"

static struct arena_hint pv_hint = { ARENA_HINT_START };

static int src_csi(struct dec *d, jv s, struct api_pv_source *o)
{
	int rc = api__dec_get_str(d, s, "driver", true, "", &o->driver);
	return rc ? rc : api__dec_get_str(d, s, "volumeHandle", false, "", &o->volume_handle);
}

static int src_gce_pd(struct dec *d, jv s, struct api_pv_source *o)
{
	int rc = api__dec_get_str(d, s, "pdName", false, "", &o->volume_id);
	return rc ? rc : api__dec_get_i32(d, s, "partition", NULL, &o->partition);
}

static int src_aws_ebs(struct dec *d, jv s, struct api_pv_source *o)
{
	int rc = api__dec_get_str(d, s, "volumeID", false, "", &o->volume_id);
	return rc ? rc : api__dec_get_i32(d, s, "partition", NULL, &o->partition);
}

static int src_azure_disk(struct dec *d, jv s, struct api_pv_source *o)
{
	int rc;
	if ((rc = api__dec_get_str(d, s, "diskURI", false, "", &o->volume_id)) ||
	    (rc = api__dec_get_str(d, s, "diskName", false, "", &o->disk_name)))
		return rc;
	return api__dec_get_opt_str(d, s, "kind", false, &o->azure_kind);
}

static int src_azure_file(struct dec *d, jv s, struct api_pv_source *o)
{
	int rc;
	if ((rc = api__dec_get_str(d, s, "shareName", false, "", &o->volume_id)) ||
	    (rc = api__dec_get_str(d, s, "secretName", false, "", &o->secret_name)))
		return rc;
	return api__dec_get_opt_str(d, s, "secretNamespace", false, &o->secret_namespace);
}

static int src_volume_id(struct dec *d, jv s, struct api_pv_source *o)
{
	return api__dec_get_str(d, s, "volumeID", false, "", &o->volume_id);
}

static int src_vsphere(struct dec *d, jv s, struct api_pv_source *o)
{
	return api__dec_get_str(d, s, "volumePath", false, "", &o->volume_id);
}

/* The sources read; a valid PV has one, the first present is taken. */
static const struct {
	const char *key;
	enum api_pv_source_kind kind;
	int (*decode)(struct dec *d, jv s, struct api_pv_source *o);
} pv_sources[] = {
	{ "csi", API_PV_CSI, src_csi },
	{ "gcePersistentDisk", API_PV_GCE_PD, src_gce_pd },
	{ "awsElasticBlockStore", API_PV_AWS_EBS, src_aws_ebs },
	{ "azureDisk", API_PV_AZURE_DISK, src_azure_disk },
	{ "azureFile", API_PV_AZURE_FILE, src_azure_file },
	{ "cinder", API_PV_CINDER, src_volume_id },
	{ "vsphereVolume", API_PV_VSPHERE, src_vsphere },
	{ "portworxVolume", API_PV_PORTWORX, src_volume_id },
};

static int pv_source(struct dec *d, jv spec, struct api_pv_source *o)
{
	int rc;
	o->kind = API_PV_OTHER;
	for (size_t i = 0; i < ARRAY_SIZE(pv_sources); i++) {
		jv s;
		if ((rc = api__dec_get_obj(d, spec, pv_sources[i].key, &s)))
			return rc;
		if (!s)
			continue;
		o->kind = pv_sources[i].kind;
		size_t mark = api__dec_push_key(d, pv_sources[i].key);
		if ((rc = pv_sources[i].decode(d, s, o)) || (rc = api__dec_get_str(d, s, "fsType", false, "", &o->fs_type)) ||
		    (rc = api__dec_get_bool(d, s, "readOnly", &o->read_only)))
			return rc;
		api__dec_pop(d, mark);
		return 0;
	}
	return 0;
}

static int claim_ref(struct dec *d, jv spec, struct api_pv *p)
{
	jv cr;
	int rc;
	if ((rc = api__dec_get_obj(d, spec, "claimRef", &cr)) || !cr)
		return rc;
	p->has_claim_ref = true;
	size_t mark = api__dec_push_key(d, "claimRef");
	if ((rc = api__dec_get_str(d, cr, "namespace", false, "", &p->claim_ref.namespace)) ||
	    (rc = api__dec_get_str(d, cr, "name", false, "", &p->claim_ref.name)) ||
	    (rc = api__dec_get_str(d, cr, "uid", false, "", &p->claim_ref.uid)))
		return rc;
	api__dec_pop(d, mark);
	return 0;
}

/* spec.nodeAffinity.required.nodeSelectorTerms (VolumeNodeAffinity). */
static int node_affinity(struct dec *d, jv spec, struct api_pv *p)
{
	jv na, req;
	int rc;
	if ((rc = api__dec_get_obj(d, spec, "nodeAffinity", &na)) || !na)
		return rc;
	size_t mark = api__dec_push_key(d, "nodeAffinity");
	if ((rc = api__dec_get_obj(d, na, "required", &req)))
		return rc;
	if (req) {
		struct api_node_affinity *a = api__dec_alloc(d, sizeof(*a));
		if (!a)
			return api__dec_nomem(d);
		a->has_required = true;
		if ((rc = WITH_KEY(d, "required", api__dec_get_array(d, req, "nodeSelectorTerms", sizeof(*a->required),
								     &a->n_required, (void **)&a->required,
								     api__dec_node_term_item))))
			return rc;
		p->node_affinity = a;
	}
	api__dec_pop(d, mark);
	return 0;
}

static int pv_spec(struct dec *d, jv spec, struct api_pv *p)
{
	jv cap;
	int rc;
	if ((rc = api__dec_get_obj(d, spec, "capacity", &cap)) ||
	    (cap && (rc = WITH_KEY(d, "capacity", api__dec_get_quantity(d, cap, "storage", true, &p->has_capacity_storage,
									&p->capacity_storage)))) ||
	    (rc = api__dec_get_access_modes(d, spec, &p->access_modes)) ||
	    (rc = api__dec_get_str(d, spec, "storageClassName", true, "", &p->storage_class_name)) ||
	    (rc = api__dec_get_opt_str(d, spec, "volumeMode", true, &p->volume_mode)) ||
	    (rc = api__dec_get_opt_str(d, spec, "volumeAttributesClassName", false, &p->volume_attributes_class_name)) ||
	    (rc = claim_ref(d, spec, p)) || (rc = node_affinity(d, spec, p)))
		return rc;
	return pv_source(d, spec, &p->source);
}

static int pv_fill(struct dec *d, jv obj, void *out)
{
	struct api_pv *p = out;
	p->arena = d->a;
	p->refs = 1;
	jv spec, st;
	int rc;
	if ((rc = api__dec_object_parts(d, obj, &p->meta, &spec, &st)))
		return rc;
	if ((rc = WITH_KEY(d, "spec", pv_spec(d, spec, p))))
		return rc;
	return WITH_KEY(d, "status", api__dec_get_str(d, st, "phase", true, "", &p->phase));
}

static const struct dec_kind pv_kind = { "persistentvolume", false, sizeof(struct api_pv), &pv_hint, pv_fill };

struct api_pv *api_pv_decode(const struct yajl_val_s *obj, struct err *e)
{
	return api__dec_object(&pv_kind, obj, e);
}

struct api_pv *api_pv_decode_json(const char *json, size_t len, struct err *e)
{
	return api__dec_json(&pv_kind, json, len, e);
}

struct api_pv *api_pv_ref(struct api_pv *p)
{
	if (p)
		__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	return p;
}

void api_pv_unref(struct api_pv *p)
{
	if (p && __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		intern_release_n(p->meta.interned, p->meta.n_interned);
		arena_free(p->arena);
	}
}
