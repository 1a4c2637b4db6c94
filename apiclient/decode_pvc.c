/* Decoding of v1 PersistentVolumeClaims: the fields the volume plugins read. */
#include <string.h>

#include <yajl/yajl_tree.h>

#include "decode_internal.h"
#include "common/macros.h"

static struct arena_hint pvc_hint = { ARENA_HINT_START };

static int access_mode_item(struct dec *d, jv v, void *item)
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

static int pvc_spec(struct dec *d, jv spec, struct api_pvc *p)
{
	uint32_t n;
	unsigned *modes;
	int rc;
	if ((rc = api__dec_get_array(d, spec, "accessModes", sizeof(unsigned), &n, (void **)&modes, access_mode_item)) ||
	    (rc = api__dec_get_str(d, spec, "volumeName", false, "", &p->volume_name)))
		return rc;
	for (uint32_t i = 0; i < n; i++)
		p->access_modes |= modes[i];
	/* a *string: absent (NULL) differs from "" (no class) */
	jv sc = yajl_tree_get(spec, (const char *[]){ "storageClassName", NULL }, yajl_t_any);
	if (sc && !YAJL_IS_NULL(sc))
		return api__dec_get_str(d, spec, "storageClassName", true, "", &p->storage_class_name);
	return 0;
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
