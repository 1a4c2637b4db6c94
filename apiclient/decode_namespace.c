/* Decoding of v1 Namespaces: metadata only (InterPodAffinity's namespaceSelector reads the
 * labels), and their reference counting. */
#include "decode_internal.h"
#include "common/arena.h"
#include "common/intern.h"

static struct arena_hint ns_hint = { ARENA_HINT_START };

static int ns_fill(struct dec *d, jv obj, void *out)
{
	struct api_namespace *ns = out;
	ns->arena = d->a;
	ns->refs = 1;
	jv spec, st;
	return api__dec_object_parts(d, obj, &ns->meta, &spec, &st);
}

static const struct dec_kind ns_kind = { "namespace", false, sizeof(struct api_namespace), &ns_hint, ns_fill };

struct api_namespace *api_namespace_decode(const struct yajl_val_s *obj, struct err *e)
{
	return api__dec_object(&ns_kind, obj, e);
}

struct api_namespace *api_namespace_decode_json(const char *json, size_t len, struct err *e)
{
	return api__dec_json(&ns_kind, json, len, e);
}

struct api_namespace *api_namespace_ref(struct api_namespace *ns)
{
	if (ns)
		__atomic_add_fetch(&ns->refs, 1, __ATOMIC_RELAXED);
	return ns;
}

void api_namespace_unref(struct api_namespace *ns)
{
	if (ns && __atomic_sub_fetch(&ns->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		intern_release_n(ns->meta.interned, ns->meta.n_interned);
		arena_free(ns->arena);
	}
}
