/* Upstream's nodeTree: nodes grouped by zone, listed round robin across zones, so that the
 * filter's early stop (numFeasibleNodesToFind) samples every zone. */
#include <stdlib.h>
#include <string.h>

#include "cache_internal.h"
#include "common/array.h"
#include "common/intern.h"

static const char *label_get(const struct api_labels *l, const char *key)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (l->items[i].key == key)
			return l->items[i].value;
	return NULL;
}

void node_tree_zone_of(const struct api_node *node, const char **region, const char **zone)
{
	/* interned once; intern_str is idempotent, so a race only re-reads the same pointer */
	static const char *beta_zone, *ga_zone, *beta_region, *ga_region, *empty;
	if (!__atomic_load_n(&empty, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&beta_zone, intern_str("failure-domain.beta.kubernetes.io/zone"), __ATOMIC_RELAXED);
		__atomic_store_n(&ga_zone, intern_str("topology.kubernetes.io/zone"), __ATOMIC_RELAXED);
		__atomic_store_n(&beta_region, intern_str("failure-domain.beta.kubernetes.io/region"),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&ga_region, intern_str("topology.kubernetes.io/region"), __ATOMIC_RELAXED);
		__atomic_store_n(&empty, intern_str(""), __ATOMIC_RELEASE);
	}
	const struct api_labels *l = &node->meta.labels;
	const char *z = label_get(l, __atomic_load_n(&beta_zone, __ATOMIC_RELAXED));
	if (!z)
		z = label_get(l, __atomic_load_n(&ga_zone, __ATOMIC_RELAXED));
	const char *r = label_get(l, __atomic_load_n(&beta_region, __ATOMIC_RELAXED));
	if (!r)
		r = label_get(l, __atomic_load_n(&ga_region, __ATOMIC_RELAXED));
	*zone = z ? z : empty;
	*region = r ? r : empty;
}

static int32_t zone_index(const struct node_tree *t, const char *region, const char *zone)
{
	for (uint32_t i = 0; i < t->n_zones; i++)
		if (t->zones[i].region == region && t->zones[i].zone == zone)
			return (int32_t)i;
	return -1;
}

static void zone_release(struct node_tree_zone *z)
{
	free(z->names);
	map_release(&z->members);
}

/* Drops zone zi (it has no nodes). */
static void zone_drop(struct node_tree *t, uint32_t zi)
{
	zone_release(&t->zones[zi]);
	memmove(&t->zones[zi], &t->zones[zi + 1], (t->n_zones - zi - 1) * sizeof(*t->zones));
	t->n_zones--;
}

int node_tree_add(struct node_tree *t, const char *region, const char *zone, const char *name)
{
	int32_t zi = zone_index(t, region, zone);
	if (zi < 0) {
		if (ARRAY_RESERVE(t->zones, t->n_zones, t->cap_zones, 4) < 0)
			return ERR_NOMEM;
		zi = (int32_t)t->n_zones++;
		t->zones[zi] = (struct node_tree_zone){ region, zone, NULL, 0, 0, { 0 } };
		map_init(&t->zones[zi].members);
	}
	struct node_tree_zone *z = &t->zones[zi];
	if (map_get(&z->members, name))
		return 0; /* already there, as upstream's addNode */
	if (z->n == z->cap) {
		uint32_t cap = z->cap ? z->cap * 2 : 8;
		const char **names = realloc(z->names, cap * sizeof(*names));
		if (!names)
			goto nomem;
		z->names = names;
		z->cap = cap;
	}
	if (map_put(&z->members, name, (void *)name, NULL) < 0)
		goto nomem;
	z->names[z->n++] = name;
	t->num_nodes++;
	return 0;
nomem:
	if (!z->n) /* do not leave an empty zone behind */
		zone_drop(t, (uint32_t)zi);
	return ERR_NOMEM;
}

int node_tree_remove(struct node_tree *t, const char *region, const char *zone, const char *name)
{
	int32_t zi = zone_index(t, region, zone);
	if (zi < 0)
		return ERR_NOT_FOUND;
	struct node_tree_zone *z = &t->zones[zi];
	if (!map_del(&z->members, name))
		return ERR_NOT_FOUND;
	for (uint32_t i = 0; i < z->n; i++) {
		if (z->names[i] != name)
			continue;
		memmove(&z->names[i], &z->names[i + 1], (z->n - i - 1) * sizeof(*z->names));
		z->n--;
		t->num_nodes--;
		if (!z->n)
			zone_drop(t, (uint32_t)zi);
		return 0;
	}
	return ERR_NOT_FOUND; /* members and names disagree: cannot happen */
}

uint32_t node_tree_list(const struct node_tree *t, const char **out)
{
	uint32_t n = 0;
	for (uint32_t i = 0; n < t->num_nodes; i++) {
		bool any = false;
		for (uint32_t zi = 0; zi < t->n_zones; zi++) {
			if (i < t->zones[zi].n) {
				out[n++] = t->zones[zi].names[i];
				any = true;
			}
		}
		if (!any)
			break; /* every zone exhausted: counts disagree (cannot happen) */
	}
	return n;
}

void node_tree_release(struct node_tree *t)
{
	for (uint32_t i = 0; i < t->n_zones; i++)
		zone_release(&t->zones[i]);
	free(t->zones);
	memset(t, 0, sizeof(*t));
}
