/* Pools and node matching of the structured allocator (upstream structured/internal/incubating
 * pools_incubating.go: NodeMatches, GatherPools, buildPool and its validation), device taints
 * and tolerations (resourceclaim.ToleratesTaint) and DeviceTaintRules on slices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_helpers.h"
#include "dra_internal.h"
#include "common/arena.h"
#include "common/err.h"

const char *dra_kobj(const struct api_meta *m, char *buf, unsigned size)
{
	if (m->namespace && m->namespace[0])
		snprintf(buf, size, "%s/%s", m->namespace, m->name ? m->name : "");
	else
		snprintf(buf, size, "%s", m->name ? m->name : "");
	return buf;
}

/* ---------- Node matching ---------- */

bool dra_node_matches(const struct api_node *node, const char *node_name, bool all_nodes,
		      const struct api_node_selector *sel)
{
	if (node_name && node_name[0])
		return node && node->meta.name && strcmp(node->meta.name, node_name) == 0;
	if (all_nodes)
		return true;
	if (sel)
		return node && fw_node_selector_matches(sel->terms, sel->n_terms, node);
	return false;
}

bool dra_slice_matches_node(const struct api_resource_slice *s, const struct api_node *node)
{
	return dra_node_matches(node, s->node_name, s->all_nodes, s->node_selector);
}

bool dra_device_matches_node(const struct api_resource_slice *s, const struct api_dra_device *d,
			     const struct api_node *node)
{
	if (!s->per_device_node_selection)
		return dra_slice_matches_node(s, node);
	return dra_node_matches(node, d->node_name, d->all_nodes, d->node_selector);
}

/* ---------- Taints ---------- */

bool dra_toleration_tolerates(const struct api_dra_toleration *t, const struct api_dra_taint *taint)
{
	const char *effect = taint->effect_text ? taint->effect_text : "";
	if (t->effect && t->effect[0] && strcmp(t->effect, effect) != 0)
		return false;
	if (t->key && t->key[0] && strcmp(t->key, taint->key ? taint->key : "") != 0)
		return false;
	switch (t->op) {
	case API_DRA_TOL_EQUAL: return strcmp(t->value ? t->value : "", taint->value ? taint->value : "") == 0;
	case API_DRA_TOL_EXISTS: return true;
	default: return false;
	}
}

/* ---------- GatherPools ---------- */

static int slice_cmp(const void *a, const void *b)
{
	const struct api_resource_slice *x = *(const struct api_resource_slice *const *)a;
	const struct api_resource_slice *y = *(const struct api_resource_slice *const *)b;
	return strcmp(x->meta.name ? x->meta.name : "", y->meta.name ? y->meta.name : "");
}

static int ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (const char *const *)a, y = (uintptr_t) * (const char *const *)b;
	return x < y ? -1 : x > y;
}

static int pool_cmp(const void *a, const void *b)
{
	const struct dra_pool *x = a, *y = b;
	int c = strcmp(x->driver, y->driver);
	return c ? c : strcmp(x->pool, y->pool);
}

/* Whether slice s is relevant for node (GatherPools' first loop); *skip when it is ignored
 * altogether. */
static bool slice_relevant(const struct dra_features *f, const struct api_resource_slice *s, const struct api_node *node)
{
	if (!f->partitionable_devices && (s->per_device_node_selection || s->n_shared_counters))
		return false;
	if ((s->node_name && s->node_name[0]) || s->all_nodes || s->node_selector)
		return dra_node_matches(node, s->node_name, s->all_nodes, s->node_selector);
	if (s->per_device_node_selection) {
		for (uint32_t i = 0; i < s->n_devices; i++) {
			const struct api_dra_device *d = &s->devices[i];
			if (dra_node_matches(node, d->node_name, d->all_nodes, d->node_selector))
				return true;
		}
	}
	return false;
}

static char *reason(struct arena *a, const char *fmt, const char *x, const char *y)
{
	char buf[512];
	snprintf(buf, sizeof(buf), fmt, x, y);
	return arena_strdup(a, buf);
}

static const struct api_dra_counter_set *find_set(const struct dra_pool *p, const char *name)
{
	for (uint32_t i = 0; i < p->n_counter_sets; i++)
		if (p->counter_sets[i]->name == name)
			return p->counter_sets[i];
	return NULL;
}

/* upstream validateDeviceCounterConsumption; NULL or the reason */
static char *check_consumption(struct arena *a, const struct dra_pool *p, const struct api_resource_slice *const *sl,
			       uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < sl[i]->n_devices; j++) {
			const struct api_dra_device *d = &sl[i]->devices[j];
			for (uint32_t k = 0; k < d->n_consumes_counters; k++) {
				const struct api_dra_counter_set *c = &d->consumes_counters[k];
				const struct api_dra_counter_set *set = find_set(p, c->name);
				if (!set)
					return reason(a, "counter set %s not found%s", c->name, "");
				for (uint32_t m = 0; m < c->n_counters; m++) {
					bool found = false;
					for (uint32_t q = 0; q < set->n_counters && !found; q++)
						found = set->counters[q].name == c->counters[m].name;
					if (!found)
						return reason(a, "counter %s not found in counter set %s", c->counters[m].name,
							      set->name);
				}
			}
		}
	return NULL;
}

/* upstream buildPool: slices (those for the node, at one generation) and, when the pool had to
 * be completed from the other slices, all (the pool's slices at that generation). */
static int build_pool(const struct dra_features *f, struct dra_pool *p, const struct api_resource_slice **slices,
		      uint32_t n, const struct api_resource_slice **all, uint32_t n_all, struct arena *a)
{
	qsort(slices, n, sizeof(*slices), slice_cmp);
	uint32_t cap = n + n_all;
	const struct api_resource_slice **counter_slices = arena_alloc(a, (cap + 1) * sizeof(*counter_slices));
	p->target = arena_alloc(a, (cap + 1) * sizeof(*p->target));
	p->not_target = arena_alloc(a, (cap + 1) * sizeof(*p->not_target));
	if (!counter_slices || !p->target || !p->not_target)
		return ERR_NOMEM;
	uint32_t n_counter = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (f->partitionable_devices && slices[i]->n_shared_counters)
			counter_slices[n_counter++] = slices[i];
		else
			p->target[p->n_target++] = slices[i];
	}
	if (n < n_all) {
		for (uint32_t i = 0; i < n_all; i++) {
			bool targeting = false;
			for (uint32_t j = 0; j < n && !targeting; j++)
				targeting = strcmp(slices[j]->meta.name, all[i]->meta.name) == 0;
			if (targeting)
				continue;
			if (f->partitionable_devices && all[i]->n_shared_counters)
				counter_slices[n_counter++] = all[i];
			else
				p->not_target[p->n_not_target++] = all[i];
		}
	}
	/* validateDeviceNames over the targeting device slices: names are interned, so sorting
	 * their addresses finds a duplicate in O(n log n) */
	uint32_t n_names = 0;
	for (uint32_t i = 0; i < p->n_target; i++)
		n_names += p->target[i]->n_devices;
	if (n_names > 1) {
		const char **names = arena_alloc(a, n_names * sizeof(*names));
		if (!names)
			return ERR_NOMEM;
		n_names = 0;
		for (uint32_t i = 0; i < p->n_target; i++)
			for (uint32_t j = 0; j < p->target[i]->n_devices; j++)
				names[n_names++] = p->target[i]->devices[j].name;
		qsort(names, n_names, sizeof(*names), ptr_cmp);
		for (uint32_t i = 1; i < n_names; i++)
			if (names[i] == names[i - 1]) {
				p->invalid = true;
				p->invalid_reason = reason(a, "duplicate device name %s%s", names[i], "");
				goto invalid;
			}
	}
	if (!f->partitionable_devices)
		return 0;
	uint32_t n_sets = 0;
	for (uint32_t i = 0; i < n_counter; i++)
		n_sets += counter_slices[i]->n_shared_counters;
	p->counter_sets = arena_alloc(a, (n_sets + 1) * sizeof(*p->counter_sets));
	if (!p->counter_sets)
		return ERR_NOMEM;
	for (uint32_t i = 0; i < n_counter; i++)
		for (uint32_t j = 0; j < counter_slices[i]->n_shared_counters; j++) {
			const struct api_dra_counter_set *cs = &counter_slices[i]->shared_counters[j];
			if (find_set(p, cs->name)) {
				p->invalid = true;
				p->invalid_reason = reason(a, "duplicate counter set name %s%s", cs->name, "");
				goto invalid;
			}
			p->counter_sets[p->n_counter_sets++] = cs;
		}
	p->invalid_reason = check_consumption(a, p, p->target, p->n_target);
	if (!p->invalid_reason)
		p->invalid_reason = check_consumption(a, p, p->not_target, p->n_not_target);
	if (p->invalid_reason) {
		p->invalid = true;
		goto invalid;
	}
	return 0;
invalid:
	/* upstream returns a Pool with only the id and the reason */
	p->n_target = p->n_not_target = p->n_counter_sets = 0;
	return p->invalid_reason ? 0 : ERR_NOMEM;
}

static bool pool_has_binding_conditions(const struct dra_pool *p)
{
	for (uint32_t i = 0; i < p->n_target; i++)
		for (uint32_t j = 0; j < p->target[i]->n_devices; j++)
			if (p->target[i]->devices[j].n_binding_conditions)
				return true;
	return false;
}

int dra_gather_pools(const struct dra_features *f, const struct api_node *node, const struct dra_pool_group *groups,
		     const uint32_t *idx, uint32_t n_idx, struct arena *a, struct dra_pool **out, uint32_t *n_out,
		     uint32_t *n_devices, struct err *e)
{
	struct dra_pool *pools = arena_alloc(a, (n_idx + 1) * sizeof(*pools));
	uint32_t n = 0;
	if (!pools)
		goto nomem;
	for (uint32_t gi = 0; gi < n_idx; gi++) {
		const struct dra_pool_group *g = &groups[idx[gi]];
		const struct api_resource_slice **sl = arena_alloc(a, (g->n + 1) * sizeof(*sl));
		if (!sl)
			goto nomem;
		/* slicesForNode: those with this nodeName first, then the shared ones, each in the
		 * allocator's order; addSlice keeps the highest generation */
		uint32_t m = 0;
		int64_t gen = 0;
		for (int pass = 0; pass < 2; pass++)
			for (uint32_t i = 0; i < g->n; i++) {
				const struct api_resource_slice *s = g->slices[i];
				bool on_node = s->node_name && s->node_name[0];
				if (on_node != (pass == 0) || !slice_relevant(f, s, node))
					continue;
				if (m && s->pool_generation < gen)
					continue;
				if (m && s->pool_generation > gen)
					m = 0;
				gen = s->pool_generation;
				sl[m++] = s;
			}
		if (!m)
			continue;
		struct dra_pool *p = &pools[n];
		memset(p, 0, sizeof(*p));
		p->driver = g->driver;
		p->pool = g->pool;
		int64_t count = sl[0]->pool_slice_count;
		if (g->full && gen == g->full_generation && m == g->n_full && (int64_t)m == count) {
			/* every slice of the pool is relevant: built and validated by dra_allocator_new */
			*p = *g->full;
			n++;
			continue;
		}
		if ((int64_t)m == count) {
			if (build_pool(f, p, sl, m, NULL, 0, a) < 0)
				goto nomem;
			n++;
			continue;
		}
		/* checkSlicesInPool */
		const struct api_resource_slice **all = arena_alloc(a, (g->n + 1) * sizeof(*all));
		uint32_t n_all = 0;
		bool obsolete = false;
		if (!all)
			goto nomem;
		for (uint32_t i = 0; i < g->n && !obsolete; i++) {
			if (g->slices[i]->pool_generation == gen)
				all[n_all++] = g->slices[i];
			else if (g->slices[i]->pool_generation > gen)
				obsolete = true;
		}
		if (obsolete)
			continue;
		if ((int64_t)n_all != count) {
			p->incomplete = true;
			n++;
			continue;
		}
		if (build_pool(f, p, sl, m, all, n_all, a) < 0)
			goto nomem;
		n++;
	}
	/* each target slice's first device in this call's numbering (the match cache's columns) */
	uint32_t base = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct dra_pool *p = &pools[i];
		p->target_base = arena_alloc(a, (p->n_target + 1) * sizeof(*p->target_base));
		if (!p->target_base)
			goto nomem;
		for (uint32_t j = 0; j < p->n_target; j++) {
			p->target_base[j] = base;
			base += p->target[j]->n_devices;
		}
	}
	*n_devices = base;
	/* sorted by id, those with binding conditions after the others */
	struct dra_pool *sorted = arena_alloc(a, (n + 1) * sizeof(*sorted));
	if (!sorted)
		goto nomem;
	uint32_t k = 0, nb = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!pool_has_binding_conditions(&pools[i]))
			sorted[k++] = pools[i];
	qsort(sorted, k, sizeof(*sorted), pool_cmp);
	for (uint32_t i = 0; i < n; i++)
		if (pool_has_binding_conditions(&pools[i]))
			sorted[k + nb++] = pools[i];
	qsort(sorted + k, nb, sizeof(*sorted), pool_cmp);
	*out = sorted;
	*n_out = n;
	return 0;
nomem:
	return err_set(e, ERR_NOMEM, "gather pool information: out of memory");
}

int dra_pool_group_prepare(const struct dra_features *f, struct dra_pool_group *g, struct arena *a)
{
	/* the slices of the highest generation, as GatherPools would see them if all were relevant */
	int64_t gen = 0;
	uint32_t m = 0;
	for (uint32_t i = 0; i < g->n; i++)
		if (!m || g->slices[i]->pool_generation > gen) {
			gen = g->slices[i]->pool_generation;
			m = 1;
		} else if (g->slices[i]->pool_generation == gen) {
			m++;
		}
	g->full = NULL;
	if (!m)
		return 0;
	const struct api_resource_slice **sl = arena_alloc(a, m * sizeof(*sl));
	struct dra_pool *p = arena_alloc(a, sizeof(*p));
	if (!sl || !p)
		return ERR_NOMEM;
	/* in GatherPools' order: those with a nodeName first (build_pool sorts them by name anyway) */
	uint32_t k = 0;
	for (uint32_t i = 0; i < g->n; i++)
		if (g->slices[i]->pool_generation == gen)
			sl[k++] = g->slices[i];
	p->driver = g->driver;
	p->pool = g->pool;
	if (build_pool(f, p, sl, m, NULL, 0, a) < 0)
		return ERR_NOMEM;
	g->full = p;
	g->full_generation = gen;
	g->n_full = m;
	return 0;
}

/* ---------- DeviceTaintRules (upstream resourceslice/tracker applyPatches) ---------- */

static bool rule_matches_device(const struct api_device_taint_rule *r, const struct api_resource_slice *s,
				const struct api_dra_device *d)
{
	return (!r->driver || strcmp(r->driver, s->driver) == 0) && (!r->pool || strcmp(r->pool, s->pool_name) == 0) &&
	       (!r->device || strcmp(r->device, d->name) == 0);
}

struct api_resource_slice *dra_slice_with_taint_rules(struct api_resource_slice *s,
						      const struct api_device_taint_rule *const *rules, uint32_t n,
						      struct err *e)
{
	uint32_t hits = 0;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < s->n_devices; j++)
			hits += rule_matches_device(rules[i], s, &s->devices[j]);
	if (!hits)
		return api_resource_slice_ref(s);
	/* the copy: its own devices (with their taints) in a new arena; everything else stays in
	 * s's arena, which the copy keeps alive through base */
	struct arena *a = arena_new(sizeof(*s) + s->n_devices * sizeof(*s->devices) + 256);
	struct api_resource_slice *c = a ? arena_alloc(a, sizeof(*c)) : NULL;
	struct api_dra_device *devs = c ? arena_alloc(a, s->n_devices * sizeof(*devs)) : NULL;
	if (!devs) {
		arena_free(a);
		err_set(e, ERR_NOMEM, "apply DeviceTaintRules to ResourceSlice %s: out of memory", s->meta.name);
		return NULL;
	}
	*c = *s;
	c->refs = 1;
	c->arena = a;
	c->meta.n_interned = 0;
	c->meta.interned = NULL;
	memcpy(devs, s->devices, s->n_devices * sizeof(*devs));
	c->devices = devs;
	for (uint32_t j = 0; j < s->n_devices; j++) {
		uint32_t k = 0;
		for (uint32_t i = 0; i < n; i++)
			k += rule_matches_device(rules[i], s, &s->devices[j]);
		if (!k)
			continue;
		struct api_dra_taint *t = arena_alloc(a, (devs[j].n_taints + k) * sizeof(*t));
		if (!t) {
			arena_free(a);
			err_set(e, ERR_NOMEM, "apply DeviceTaintRules to ResourceSlice %s: out of memory", s->meta.name);
			return NULL;
		}
		if (devs[j].n_taints)
			memcpy(t, devs[j].taints, devs[j].n_taints * sizeof(*t));
		/* rules in the given order, as upstream appends them rule by rule */
		for (uint32_t i = 0; i < n; i++)
			if (rule_matches_device(rules[i], s, &s->devices[j]))
				t[devs[j].n_taints++] = rules[i]->taint;
		devs[j].taints = t;
	}
	c->base = api_resource_slice_ref(s);
	return c;
}
