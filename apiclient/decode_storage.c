/* Decoding of the storage.k8s.io/v1 kinds the volume plugins read (StorageClass, CSINode,
 * CSIDriver, VolumeAttachment, CSIStorageCapacity), and their reference counting. Each keeps only
 * the fields upstream's volumebinding, volumezone and nodevolumelimits read (api_types.h). */
#include <string.h>

#include "decode_internal.h"
#include "common/arena.h"
#include "common/intern.h"
#include "common/macros.h"

/* Refcounting of a kind whose struct starts with refs, arena and meta (as all these do). */
#define STORAGE_REFCOUNT(type, fn)                                                      \
	struct type *fn##_ref(struct type *o)                                           \
	{                                                                               \
		if (o)                                                                  \
			__atomic_add_fetch(&o->refs, 1, __ATOMIC_RELAXED);              \
		return o;                                                               \
	}                                                                               \
	void fn##_unref(struct type *o)                                                 \
	{                                                                               \
		if (o && __atomic_sub_fetch(&o->refs, 1, __ATOMIC_ACQ_REL) == 0) {      \
			intern_release_n(o->meta.interned, o->meta.n_interned);         \
			arena_free(o->arena);                                           \
		}                                                                       \
	}

STORAGE_REFCOUNT(api_storage_class, api_storage_class)
STORAGE_REFCOUNT(api_csinode, api_csinode)
STORAGE_REFCOUNT(api_csidriver, api_csidriver)
STORAGE_REFCOUNT(api_volume_attachment, api_volume_attachment)
STORAGE_REFCOUNT(api_csi_storage_capacity, api_csi_storage_capacity)

/* A *bool: *has when present and not null. */
static int opt_bool(struct dec *d, jv obj, const char *key, bool *has, bool *out)
{
	jv v = YAJL_IS_OBJECT(obj) ? yajl_tree_get(obj, (const char *[]){ key, NULL }, yajl_t_any) : NULL;
	*has = v && !YAJL_IS_NULL(v);
	return api__dec_get_bool(d, obj, key, out);
}

/* ---------- StorageClass ---------- */

static struct arena_hint sc_hint = { ARENA_HINT_START };

/* A TopologySelectorLabelRequirement: key and values, which MatchTopologySelectorTerms reads as In. */
static int topology_req_item(struct dec *d, jv v, void *item)
{
	struct api_requirement *r = item;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "key", true, "", &r->key)))
		return rc;
	r->op = API_OP_IN;
	return api__dec_get_istrs(d, v, "values", &r->n_values, &r->values);
}

static int topology_term_item(struct dec *d, jv v, void *item)
{
	struct api_topology_term *t = item;
	int rc = api__dec_want_object(d, v);
	return rc ? rc
		  : api__dec_get_array(d, v, "matchLabelExpressions", sizeof(*t->exprs), &t->n_exprs, (void **)&t->exprs,
				       topology_req_item);
}

static int sc_fill(struct dec *d, jv obj, void *out)
{
	struct api_storage_class *sc = out;
	sc->arena = d->a;
	sc->refs = 1;
	jv spec, st;
	const char *mode;
	int rc;
	if ((rc = api__dec_object_parts(d, obj, &sc->meta, &spec, &st)) ||
	    (rc = api__dec_get_str(d, obj, "provisioner", true, "", &sc->provisioner)) ||
	    (rc = api__dec_get_str(d, obj, "volumeBindingMode", false, "", &mode)))
		return rc;
	sc->has_volume_binding_mode = mode[0] != '\0';
	sc->volume_binding_mode = !mode[0] || !strcmp(mode, "Immediate")	 ? API_BINDING_IMMEDIATE
				  : !strcmp(mode, "WaitForFirstConsumer") ? API_BINDING_WAIT_FOR_FIRST_CONSUMER
									   : API_BINDING_UNKNOWN;
	return api__dec_get_array(d, obj, "allowedTopologies", sizeof(*sc->allowed_topologies),
				  &sc->n_allowed_topologies, (void **)&sc->allowed_topologies, topology_term_item);
}

static const struct dec_kind sc_kind = { "storageclass", false, sizeof(struct api_storage_class), &sc_hint, sc_fill };

struct api_storage_class *api_storage_class_decode(const struct yajl_val_s *obj, struct err *e)
{
	return api__dec_object(&sc_kind, obj, e);
}

struct api_storage_class *api_storage_class_decode_json(const char *json, size_t len, struct err *e)
{
	return api__dec_json(&sc_kind, json, len, e);
}

/* ---------- CSINode ---------- */

static struct arena_hint csinode_hint = { ARENA_HINT_START };

static int csinode_driver_item(struct dec *d, jv v, void *item)
{
	struct api_csinode_driver *dr = item;
	jv alloc;
	int rc;
	if ((rc = api__dec_want_object(d, v)) || (rc = api__dec_get_str(d, v, "name", true, "", &dr->name)) ||
	    (rc = api__dec_get_str(d, v, "nodeID", false, "", &dr->node_id)) ||
	    (rc = api__dec_get_istrs(d, v, "topologyKeys", &dr->n_topology_keys, &dr->topology_keys)) ||
	    (rc = api__dec_get_obj(d, v, "allocatable", &alloc)))
		return rc;
	return alloc ? WITH_KEY(d, "allocatable",
				api__dec_get_i32(d, alloc, "count", &dr->has_allocatable_count, &dr->allocatable_count))
		     : 0;
}

static int csinode_fill(struct dec *d, jv obj, void *out)
{
	struct api_csinode *n = out;
	n->arena = d->a;
	n->refs = 1;
	jv spec, st;
	int rc;
	if ((rc = api__dec_object_parts(d, obj, &n->meta, &spec, &st)))
		return rc;
	return WITH_KEY(d, "spec", api__dec_get_array(d, spec, "drivers", sizeof(*n->drivers), &n->n_drivers,
						      (void **)&n->drivers, csinode_driver_item));
}

static const struct dec_kind csinode_kind = { "csinode", false, sizeof(struct api_csinode), &csinode_hint,
					      csinode_fill };

struct api_csinode *api_csinode_decode(const struct yajl_val_s *obj, struct err *e)
{
	return api__dec_object(&csinode_kind, obj, e);
}

struct api_csinode *api_csinode_decode_json(const char *json, size_t len, struct err *e)
{
	return api__dec_json(&csinode_kind, json, len, e);
}

/* ---------- CSIDriver ---------- */

static struct arena_hint csidriver_hint = { ARENA_HINT_START };

static int csidriver_spec(struct dec *d, jv spec, struct api_csidriver *c)
{
	int rc;
	if ((rc = opt_bool(d, spec, "attachRequired", &c->has_attach_required, &c->attach_required)) ||
	    (rc = opt_bool(d, spec, "storageCapacity", &c->has_storage_capacity, &c->storage_capacity)))
		return rc;
	if (!c->has_attach_required)
		c->attach_required = true;
	return opt_bool(d, spec, "preventPodSchedulingIfMissing", &c->has_prevent_pod_scheduling_if_missing,
			&c->prevent_pod_scheduling_if_missing);
}

static int csidriver_fill(struct dec *d, jv obj, void *out)
{
	struct api_csidriver *c = out;
	c->arena = d->a;
	c->refs = 1;
	jv spec, st;
	int rc;
	if ((rc = api__dec_object_parts(d, obj, &c->meta, &spec, &st)))
		return rc;
	return WITH_KEY(d, "spec", csidriver_spec(d, spec, c));
}

static const struct dec_kind csidriver_kind = { "csidriver", false, sizeof(struct api_csidriver), &csidriver_hint,
						csidriver_fill };

struct api_csidriver *api_csidriver_decode(const struct yajl_val_s *obj, struct err *e)
{
	return api__dec_object(&csidriver_kind, obj, e);
}

struct api_csidriver *api_csidriver_decode_json(const char *json, size_t len, struct err *e)
{
	return api__dec_json(&csidriver_kind, json, len, e);
}

/* ---------- VolumeAttachment ---------- */

static struct arena_hint va_hint = { ARENA_HINT_START };

static int va_spec(struct dec *d, jv spec, struct api_volume_attachment *va)
{
	jv src;
	int rc;
	if ((rc = api__dec_get_str(d, spec, "attacher", true, "", &va->attacher)) ||
	    (rc = api__dec_get_str(d, spec, "nodeName", true, "", &va->node_name)) ||
	    (rc = api__dec_get_obj(d, spec, "source", &src)))
		return rc;
	return src ? WITH_KEY(d, "source", api__dec_get_opt_str(d, src, "persistentVolumeName", false, &va->pv_name)) : 0;
}

static int va_fill(struct dec *d, jv obj, void *out)
{
	struct api_volume_attachment *va = out;
	va->arena = d->a;
	va->refs = 1;
	jv spec, st;
	int rc;
	if ((rc = api__dec_object_parts(d, obj, &va->meta, &spec, &st)) ||
	    (rc = WITH_KEY(d, "spec", va_spec(d, spec, va))))
		return rc;
	return WITH_KEY(d, "status", api__dec_get_bool(d, st, "attached", &va->attached));
}

static const struct dec_kind va_kind = { "volumeattachment", false, sizeof(struct api_volume_attachment), &va_hint,
					 va_fill };

struct api_volume_attachment *api_volume_attachment_decode(const struct yajl_val_s *obj, struct err *e)
{
	return api__dec_object(&va_kind, obj, e);
}

struct api_volume_attachment *api_volume_attachment_decode_json(const char *json, size_t len, struct err *e)
{
	return api__dec_json(&va_kind, json, len, e);
}

/* ---------- CSIStorageCapacity ---------- */

static struct arena_hint csc_hint = { ARENA_HINT_START };

static int csc_fill(struct dec *d, jv obj, void *out)
{
	struct api_csi_storage_capacity *c = out;
	c->arena = d->a;
	c->refs = 1;
	jv spec, st;
	int rc;
	if ((rc = api__dec_object_parts(d, obj, &c->meta, &spec, &st)) ||
	    (rc = api__dec_get_str(d, obj, "storageClassName", true, "", &c->storage_class_name)) ||
	    (rc = api__dec_get_selector(d, obj, "nodeTopology", &c->node_topology)) ||
	    (rc = api__dec_get_quantity(d, obj, "capacity", false, &c->has_capacity, &c->capacity)))
		return rc;
	return api__dec_get_quantity(d, obj, "maximumVolumeSize", false, &c->has_maximum_volume_size,
				     &c->maximum_volume_size);
}

static const struct dec_kind csc_kind = { "csistoragecapacity", false, sizeof(struct api_csi_storage_capacity),
					  &csc_hint, csc_fill };

struct api_csi_storage_capacity *api_csi_storage_capacity_decode(const struct yajl_val_s *obj, struct err *e)
{
	return api__dec_object(&csc_kind, obj, e);
}

struct api_csi_storage_capacity *api_csi_storage_capacity_decode_json(const char *json, size_t len, struct err *e)
{
	return api__dec_json(&csc_kind, json, len, e);
}
