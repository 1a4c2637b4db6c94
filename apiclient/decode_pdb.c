/* Decoding of policy/v1 PodDisruptionBudgets: what preemption reads of them (upstream
 * FilterVictimsWithPDBViolation: the namespace, spec.selector, status.disruptionsAllowed and the
 * pod names of status.disruptedPods), and their reference counting. */
#include <string.h>

#include "decode_internal.h"
#include "common/arena.h"
#include "common/intern.h"
#include "common/rfc3339.h"

static struct arena_hint pdb_hint = { ARENA_HINT_START };

/* status.disruptedPods: map[string]metav1.Time. Only the keys are kept; a value that Go's
 * decoder refuses (not a string or null, not an RFC 3339 time) fails the object as it would. */
static int disrupted_pods(struct dec *d, jv st, struct api_pdb *p)
{
	jv m;
	int rc;
	if ((rc = api__dec_get_obj(d, st, "disruptedPods", &m)) || !m)
		return rc;
	size_t mark = api__dec_push_key(d, "disruptedPods");
	size_t n = m->u.object.len;
	if (n > UINT32_MAX)
		return fail(d, "too many items");
	if (n && !(p->disrupted_pods = api__dec_alloc(d, n * sizeof(*p->disrupted_pods))))
		return api__dec_nomem(d);
	for (size_t i = 0; i < n; i++) {
		const char *name = m->u.object.keys[i];
		jv v = m->u.object.values[i];
		if (v && !YAJL_IS_NULL(v)) {
			int64_t us;
			if (!YAJL_IS_STRING(v))
				return WITH_KEY(d, name, fail(d, "expected string, got %s", api__dec_jtype(v)));
			if (!rfc3339_parse(v->u.string, &us))
				return WITH_KEY(d, name, fail(d, "invalid time \"%.64s\"", v->u.string));
		}
		/* duplicate keys: one entry, as in Go's map */
		uint32_t j = 0;
		while (j < p->n_disrupted && strcmp(p->disrupted_pods[j], name) != 0)
			j++;
		if (j < p->n_disrupted)
			continue;
		if (!(p->disrupted_pods[p->n_disrupted] = arena_strdup(d->a, name)))
			return api__dec_nomem(d);
		p->n_disrupted++;
	}
	api__dec_pop(d, mark);
	return 0;
}

static int pdb_status(struct dec *d, jv st, struct api_pdb *p)
{
	int rc = api__dec_get_i32(d, st, "disruptionsAllowed", NULL, &p->disruptions_allowed);
	return rc ? rc : disrupted_pods(d, st, p);
}

static int pdb_fill(struct dec *d, jv obj, void *out)
{
	struct api_pdb *p = out;
	p->arena = d->a;
	p->refs = 1;
	jv spec, st;
	int rc;
	if ((rc = api__dec_object_parts(d, obj, &p->meta, &spec, &st)))
		return rc;
	if (spec && (rc = WITH_KEY(d, "spec", api__dec_get_selector(d, spec, "selector", &p->selector))))
		return rc;
	return st ? WITH_KEY(d, "status", pdb_status(d, st, p)) : 0;
}

static const struct dec_kind pdb_kind = { "poddisruptionbudget", false, sizeof(struct api_pdb), &pdb_hint, pdb_fill };

struct api_pdb *api_pdb_decode(const struct yajl_val_s *obj, struct err *e)
{
	return api__dec_object(&pdb_kind, obj, e);
}

struct api_pdb *api_pdb_decode_json(const char *json, size_t len, struct err *e)
{
	return api__dec_json(&pdb_kind, json, len, e);
}

struct api_pdb *api_pdb_ref(struct api_pdb *p)
{
	if (p)
		__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	return p;
}

void api_pdb_unref(struct api_pdb *p)
{
	if (p && __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		intern_release_n(p->meta.interned, p->meta.n_interned);
		arena_free(p->arena);
	}
}
