/* Decoding of the objects whose pod selector PodTopologySpread's default constraints read
 * (upstream helper.DefaultSelector): v1 Service and ReplicationController (spec.selector, a map),
 * apps/v1 ReplicaSet and StatefulSet (spec.selector, a LabelSelector). Only metadata and the
 * selector are kept. */
#include <yajl/yajl_tree.h>

#include "decode_internal.h"
#include "common/arena.h"
#include "common/intern.h"

static struct arena_hint owner_hint = { ARENA_HINT_START };

/* spec.selector as a map: NULL when absent or null (Go's nil map), else its labels as
 * match_labels (an empty map selects every pod). */
static int map_selector(struct dec *d, jv spec, struct api_label_selector **out)
{
	jv v;
	int rc;
	*out = NULL;
	if ((rc = api__dec_get_obj(d, spec, "selector", &v)) || !v)
		return rc;
	struct api_label_selector *s = api__dec_alloc(d, sizeof(*s));
	if (!s)
		return api__dec_nomem(d);
	if ((rc = api__dec_get_labels(d, spec, "selector", &s->match_labels)))
		return rc;
	*out = s;
	return 0;
}

static int owner_fill(struct dec *d, jv obj, void *out, enum api_selector_kind kind)
{
	struct api_selector_owner *o = out;
	o->arena = d->a;
	o->refs = 1;
	o->kind = kind;
	jv spec, st;
	int rc;
	if ((rc = api__dec_object_parts(d, obj, &o->meta, &spec, &st)))
		return rc;
	if (!spec)
		return 0;
	if (kind == API_SEL_SERVICE || kind == API_SEL_RC)
		return WITH_KEY(d, "spec", map_selector(d, spec, &o->selector));
	return WITH_KEY(d, "spec", api__dec_get_selector(d, spec, "selector", &o->selector));
}

static int service_fill(struct dec *d, jv obj, void *out)
{
	return owner_fill(d, obj, out, API_SEL_SERVICE);
}

static int rc_fill(struct dec *d, jv obj, void *out)
{
	return owner_fill(d, obj, out, API_SEL_RC);
}

static int rs_fill(struct dec *d, jv obj, void *out)
{
	return owner_fill(d, obj, out, API_SEL_RS);
}

static int ss_fill(struct dec *d, jv obj, void *out)
{
	return owner_fill(d, obj, out, API_SEL_SS);
}

static const struct dec_kind kinds[] = {
	[API_SEL_SERVICE] = { "service", false, sizeof(struct api_selector_owner), &owner_hint, service_fill },
	[API_SEL_RC] = { "replicationcontroller", false, sizeof(struct api_selector_owner), &owner_hint, rc_fill },
	[API_SEL_RS] = { "replicaset", false, sizeof(struct api_selector_owner), &owner_hint, rs_fill },
	[API_SEL_SS] = { "statefulset", false, sizeof(struct api_selector_owner), &owner_hint, ss_fill },
};

static const struct dec_kind *kind_of(enum api_selector_kind kind, struct err *e)
{
	if ((unsigned)kind >= sizeof(kinds) / sizeof(kinds[0])) {
		err_set(e, ERR_INVALID, "api_selector_owner_decode: unknown kind %d", (int)kind);
		return NULL;
	}
	return &kinds[kind];
}

struct api_selector_owner *api_selector_owner_decode(enum api_selector_kind kind, const struct yajl_val_s *obj,
						     struct err *e)
{
	const struct dec_kind *k = kind_of(kind, e);
	return k ? api__dec_object(k, obj, e) : NULL;
}

struct api_selector_owner *api_selector_owner_decode_json(enum api_selector_kind kind, const char *json, size_t len,
							  struct err *e)
{
	const struct dec_kind *k = kind_of(kind, e);
	return k ? api__dec_json(k, json, len, e) : NULL;
}

struct api_selector_owner *api_selector_owner_ref(struct api_selector_owner *o)
{
	if (o)
		__atomic_add_fetch(&o->refs, 1, __ATOMIC_RELAXED);
	return o;
}

void api_selector_owner_unref(struct api_selector_owner *o)
{
	if (o && __atomic_sub_fetch(&o->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		intern_release_n(o->meta.interned, o->meta.n_interned);
		arena_free(o->arena);
	}
}
