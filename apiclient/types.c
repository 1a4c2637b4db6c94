/* Small helpers on the object model: lookups, selector and toleration matching, refcounting.
 *
 * Interned strings compare by pointer: callers pass interned keys, and every string these
 * functions compare (label keys and values, taint keys and values) was interned by the decoder.
 * ref/unref are atomic so any thread may drop a reference; the release on the last unref pairs
 * with the acquire so the freeing thread sees every write made before other threads let go. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiclient/api_types.h"
#include "common/arena.h"
#include "common/intern.h"

int64_t api_resources_scalar(const struct api_resources *r, const char *interned_name)
{
	if (!r)
		return 0;
	for (uint32_t i = 0; i < r->n_scalar; i++)
		if (r->scalar[i].name == interned_name)
			return r->scalar[i].value;
	return 0;
}

const char *api_labels_get(const struct api_labels *l, const char *interned_key)
{
	if (!l)
		return NULL;
	for (uint32_t i = 0; i < l->n; i++)
		if (l->items[i].key == interned_key)
			return l->items[i].value;
	return NULL;
}

static bool value_in(const struct api_requirement *r, const char *v)
{
	for (uint32_t i = 0; i < r->n_values; i++)
		if (r->values[i] == v)
			return true;
	return false;
}

/* labels.Requirement.Matches for the operators a metav1.LabelSelector may use. Gt/Lt are not
 * valid in a LabelSelector (LabelSelectorAsSelector rejects them), and a selector that fails to
 * convert matches nothing, as do In/NotIn without values and Exists/DoesNotExist with values. */
static bool requirement_matches(const struct api_requirement *r, const struct api_labels *labels)
{
	const char *v = api_labels_get(labels, r->key);
	switch (r->op) {
	case API_OP_IN:
		return r->n_values > 0 && v && value_in(r, v);
	case API_OP_NOT_IN:
		return r->n_values > 0 && (!v || !value_in(r, v));
	case API_OP_EXISTS:
		return r->n_values == 0 && v;
	case API_OP_DOES_NOT_EXIST:
		return r->n_values == 0 && !v;
	default:
		return false;
	}
}

bool api_label_selector_matches(const struct api_label_selector *s, const struct api_labels *labels)
{
	if (!s)
		return false;
	/* Every requirement must be valid for the selector to exist at all, even one that a
	 * failed earlier requirement would make irrelevant. */
	for (uint32_t i = 0; i < s->n_exprs; i++) {
		const struct api_requirement *r = &s->exprs[i];
		bool valid = (r->op == API_OP_IN || r->op == API_OP_NOT_IN) ? r->n_values > 0
			     : (r->op == API_OP_EXISTS || r->op == API_OP_DOES_NOT_EXIST) ? r->n_values == 0
											   : false;
		if (!valid)
			return false;
	}
	for (uint32_t i = 0; i < s->match_labels.n; i++)
		if (api_labels_get(labels, s->match_labels.items[i].key) != s->match_labels.items[i].value)
			return false;
	for (uint32_t i = 0; i < s->n_exprs; i++)
		if (!requirement_matches(&s->exprs[i], labels))
			return false;
	return true;
}

bool api_toleration_tolerates(const struct api_toleration *t, const struct api_taint *taint)
{
	if (!t || !taint)
		return false;
	if (t->effect != API_EFFECT_NONE && t->effect != taint->effect)
		return false;
	if (t->key[0] && t->key != taint->key)
		return false;
	switch (t->op) {
	case API_TOLERATION_EQUAL:
		return t->value == taint->value;
	case API_TOLERATION_EXISTS:
		return true;
	default:
		return false;
	}
}

bool api_node_taints_equal(const struct api_node *a, const struct api_node *b)
{
	if (a->n_taints != b->n_taints)
		return false;
	for (uint32_t i = 0; i < a->n_taints; i++)
		if (a->taints[i].key != b->taints[i].key || a->taints[i].value != b->taints[i].value ||
		    a->taints[i].effect != b->taints[i].effect)
			return false;
	return true;
}

/* ---------- reference counting ---------- */

struct api_pod *api_pod_ref(struct api_pod *p)
{
	if (p)
		__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	return p;
}

void api_pod_unref(struct api_pod *p)
{
	/* The pod itself lives in its arena: freeing the arena frees everything. */
	if (p && __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		struct api_pod *base = p->base;
		intern_release_n(p->meta.interned, p->meta.n_interned);
		arena_free(p->arena);
		api_pod_unref(base);
	}
}

struct api_pod *api_pod_assigned_copy(struct api_pod *p, const char *node_name)
{
	struct arena *a = arena_new(sizeof(*p) + 64);
	struct api_pod *c = a ? arena_alloc(a, sizeof(*c)) : NULL;
	/* the base holds p's strings; the copy holds node_name (which may outlive its node) */
	bool counted = node_name && !intern_pinned(node_name);
	const char **held = c && counted ? arena_alloc(a, sizeof(*held)) : NULL;
	if (!c || (counted && !held)) {
		arena_free(a);
		return NULL;
	}
	*c = *p;
	c->refs = 1;
	c->arena = a;
	c->node_name = node_name;
	c->meta.interned = held;
	c->meta.n_interned = counted;
	if (counted)
		held[0] = intern_ref(node_name);
	c->base = api_pod_ref(p);
	return c;
}

struct api_node *api_node_ref(struct api_node *n)
{
	if (n)
		__atomic_add_fetch(&n->refs, 1, __ATOMIC_RELAXED);
	return n;
}

void api_node_unref(struct api_node *n)
{
	if (n && __atomic_sub_fetch(&n->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		intern_release_n(n->meta.interned, n->meta.n_interned);
		arena_free(n->arena);
	}
}

struct api_pvc *api_pvc_ref(struct api_pvc *p)
{
	if (p)
		__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
	return p;
}

void api_pvc_unref(struct api_pvc *p)
{
	if (p && __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		intern_release_n(p->meta.interned, p->meta.n_interned);
		arena_free(p->arena);
	}
}

void api_lease_release(struct api_lease *l)
{
	if (!l)
		return;
	free(l->name);
	free(l->namespace);
	free(l->resource_version);
	free(l->holder_identity);
	memset(l, 0, sizeof(*l));
}

/* ---------- small helpers ---------- */

const char *api_pod_key(const struct api_pod *p, char *buf, unsigned size)
{
	if (!size)
		return buf;
	snprintf(buf, size, "%s/%s", p && p->meta.namespace ? p->meta.namespace : "",
		 p && p->meta.name ? p->meta.name : "");
	return buf;
}

bool api_pod_is_assigned(const struct api_pod *p)
{
	return p && p->node_name && p->node_name[0];
}

const struct api_condition *api_node_condition(const struct api_node *n, const char *interned_type)
{
	if (!n)
		return NULL;
	for (uint32_t i = 0; i < n->n_conditions; i++)
		if (n->conditions[i].type == interned_type)
			return &n->conditions[i];
	return NULL;
}
