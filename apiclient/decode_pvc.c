/* Decoding of v1 PersistentVolumeClaims: the fields the volume plugins read (upstream
 * volumebinding, nodevolumelimits, volumerestrictions, volumezone, and component-helpers'
 * FindMatchingVolume). */
#include <string.h>

#include <yajl/yajl_tree.h>

#include "decode_internal.h"
#include "common/macros.h"

static struct arena_hint pvc_hint = { ARENA_HINT_START };

int api__dec_access_mode_item(struct dec *d, jv v, void *item)
{
	static const struct {
		const char *name;
		unsigned bit;
	} modes[] = {
		{ "ReadWriteOnce", API_ACCESS_RWO },
		{ "ReadOnlyMany", API_ACCESS_ROX },
		{ "ReadWriteMany", API_ACCESS_RWX },
		{ "ReadWriteOncePod", API_ACCESS_RWOP },
	};
	const char *s;
	int rc = api__dec_str_item(d, v, &s);
	if (rc)
		return rc;
	*(unsigned *)item = 0;
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		if (!strcmp(s, modes[i].name))
			*(unsigned *)item = modes[i].bit;
	return 0;
}

int api__dec_get_access_modes(struct dec *d, jv spec, unsigned *out)
{
	uint32_t n;
	unsigned *modes;
	int rc = api__dec_get_array(d, spec, "accessModes", sizeof(unsigned), &n, (void **)&modes,
				    api__dec_access_mode_item);
	for (uint32_t i = 0; !rc && i < n; i++)
		*out |= modes[i];
	return rc;
}

int api__dec_get_opt_str(struct dec *d, jv obj, const char *key, bool interned, const char **out)
{
	*out = NULL;
	jv v = YAJL_IS_OBJECT(obj) ? yajl_tree_get(obj, (const char *[]){ key, NULL }, yajl_t_any) : NULL;
	if (!v || YAJL_IS_NULL(v))
		return 0;
	return api__dec_get_str(d, obj, key, interned, "", out);
}

static int pvc_requests(struct dec *d, jv spec, struct api_pvc *p)
{
	jv res, req;
	int rc;
	if ((rc = api__dec_get_obj(d, spec, "resources", &res)) || !res)
		return rc;
	size_t mark = api__dec_push_key(d, "resources");
	if ((rc = api__dec_get_obj(d, res, "requests", &req)))
		return rc;
	if (req && (rc = WITH_KEY(d, "requests", api__dec_get_quantity(d, req, "storage", true, &p->has_request_storage,
								       &p->request_storage))))
		return rc;
	api__dec_pop(d, mark);
	return 0;
}

static int pvc_spec(struct dec *d, jv spec, struct api_pvc *p)
{
	int rc;
	if ((rc = api__dec_get_access_modes(d, spec, &p->access_modes)) ||
	    (rc = api__dec_get_str(d, spec, "volumeName", false, "", &p->volume_name)) ||
	    /* a *string: absent (NULL) differs from "" (no class) */
	    (rc = api__dec_get_opt_str(d, spec, "storageClassName", true, &p->storage_class_name)) ||
	    (rc = pvc_requests(d, spec, p)) || (rc = api__dec_get_selector(d, spec, "selector", &p->selector)) ||
	    (rc = api__dec_get_opt_str(d, spec, "volumeMode", true, &p->volume_mode)))
		return rc;
	return api__dec_get_opt_str(d, spec, "volumeAttributesClassName", false, &p->volume_attributes_class_name);
}

static int pvc_fill(struct dec *d, jv obj, void *out)
{
	struct api_pvc *p = out;
	p->arena = d->a;
	p->refs = 1;
	jv spec, st;
	int rc;
	if ((rc = api__dec_object_parts(d, obj, &p->meta, &spec, &st)))
		return rc;
	if ((rc = WITH_KEY(d, "spec", pvc_spec(d, spec, p))))
		return rc;
	return WITH_KEY(d, "status", api__dec_get_str(d, st, "phase", true, "", &p->phase));
}

static const struct dec_kind pvc_kind = { "persistentvolumeclaim", false, sizeof(struct api_pvc), &pvc_hint, pvc_fill };

struct api_pvc *api_pvc_decode(const struct yajl_val_s *obj, struct err *e)
{
	return api__dec_object(&pvc_kind, obj, e);
}

struct api_pvc *api_pvc_decode_json(const char *json, size_t len, struct err *e)
{
	return api__dec_json(&pvc_kind, json, len, e);
}
