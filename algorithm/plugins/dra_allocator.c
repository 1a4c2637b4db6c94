/* The structured device allocator (upstream k8s.io/dynamic-resource-allocation v0.37.2
 * structured/internal/incubating/allocator_incubating.go and constraint.go): a backtracking
 * search over the pools of a node, request by request and device by device, in upstream's
 * order, so that the first allocation found is the one upstream finds.
 *
 * DESIGN: what depends on the slices alone (grouped by pool, pools prepared, the CEL views) is
 * an immutable refcounted dra_inventory, built once and kept by the CEL cache for the next
 * pod's allocator while the slice objects stay the same; the plugin asks per node, from several
 * Filter threads, and the allocator is read-only afterwards (its search-step count is an
 * atomic). The CEL views of the devices are the CEL cache's, shared with every other pod's
 * allocator: each cached selector's result per device, remembered on first evaluation
 * (dra_cel.c). Everything one dra_allocator_allocate call needs lives in a struct alloc on its
 * stack, as upstream's per-call allocator struct, and a scratch arena with CEL evaluation state
 * that the call takes from the allocator's free list and gives back reset (scratch_lock, a leaf
 * lock, guards the list; a scratch is one call's at a time). */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "dra_internal.h"
#include "common/arena.h"
#include "common/clock.h"
#include "common/err.h"
#include "common/intern.h"
#include "common/macros.h"
#include "common/map.h"
#include "common/strbuf.h"

#define RESULTS_MAX 32 /* resourceapi.AllocationResultsMaxSize */

const struct dra_features dra_features_default = {
	.admin_access = true,
	.prioritized_list = true,
	.partitionable_devices = true,
	.device_taints = true,
	.device_binding_and_status = true,
	.consumable_capacity = true,
	.fractional_capacity_range = true,
};

struct node_groups {
	uint32_t n, cap;
	uint32_t *idx;
};

/* One call's scratch arena and CEL evaluation state, kept for the allocator's next call (the
 * plugin calls it once per node: making both per call was a third of its malloc/free). */
struct scratch {
	struct scratch *next;
	struct arena *ar;
	struct dra_cel_eval *ev;
};

/* What the allocator derives from the slices alone: they grouped by pool, the pools prepared, the
 * CEL views. Immutable once built and refcounted: the CEL cache keeps the last one, and the next
 * pod's allocator reuses it while the slice objects are the same (dra_cel_inventory_*). */
struct dra_inventory {
	int refs; /* atomic */
	struct dra_features f;
	uint32_t n_slices;
	struct api_resource_slice **slices; /* references */
	struct dra_slice_views **views;     /* per slice, references from the CEL cache */
	struct dra_dmap slice_index; /* (slice, slice, slice) -> slice number */
	uint32_t n_groups;
	struct dra_pool_group *groups;
	struct arena *pools_arena; /* the groups' prepared pools */
	uint32_t n_shared;
	uint32_t *shared_groups; /* groups with a slice without nodeName */
	struct map by_node;      /* nodeName -> struct node_groups (groups not in shared_groups) */
};

struct dra_allocator {
	struct dra_features f;
	const struct dra_allocated_state *st;
	dra_class_fn class_fn;
	void *class_ctx;
	struct dra_cel_cache *cc;
	struct dra_inventory *inv;      /* a reference */
	_Atomic int64_t invocations;    /* allocate_one calls (upstream numAllocateOneInvocations) */
	pthread_mutex_t scratch_lock;   /* guards free_scratch; leaf */
	struct scratch *free_scratch;   /* at most one per thread that called at once */
};

int64_t dra_allocator_invocations(const struct dra_allocator *a)
{
	return atomic_load_explicit(&a->invocations, memory_order_relaxed);
}

/* ---------- Construction ---------- */

struct dra_inventory *dra_inventory_ref(struct dra_inventory *a)
{
	if (a)
		__atomic_add_fetch(&a->refs, 1, __ATOMIC_RELAXED);
	return a;
}

void dra_inventory_unref(struct dra_inventory *a)
{
	if (!a || __atomic_sub_fetch(&a->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	for (uint32_t i = 0; i < a->n_slices; i++)
		api_resource_slice_unref(a->slices[i]);
	for (uint32_t i = 0; a->views && i < a->n_slices; i++)
		dra_slice_views_unref(a->views[i]);
	free(a->views);
	for (uint32_t i = 0; i < a->n_groups; i++)
		free(a->groups[i].slices);
	free(a->groups);
	free(a->shared_groups);
	const char *k;
	void *v;
	for (size_t it = 0; map_next(&a->by_node, &it, &k, &v);) {
		struct node_groups *ng = v;
		free(ng->idx);
		free(ng);
	}
	map_release(&a->by_node);
	arena_free(a->pools_arena);
	dra_dmap_release(&a->slice_index);
	free(a->slices);
	free(a);
}

void dra_allocator_free(struct dra_allocator *a)
{
	if (!a)
		return;
	while (a->free_scratch) {
		struct scratch *sc = a->free_scratch;
		a->free_scratch = sc->next;
		arena_free(sc->ar);
		dra_cel_eval_free(sc->ev);
		free(sc);
	}
	pthread_mutex_destroy(&a->scratch_lock);
	dra_inventory_unref(a->inv);
	free(a);
}

/* The group of s's (driver, pool), made (without its slices array) on first sight. */
static int group_of(struct dra_inventory *a, struct dra_dmap *gi, const struct api_resource_slice *s, uint32_t *g)
{
	/* keyed (driver, pool, driver): the map wants three pointers */
	if (dra_dmap_get(gi, s->driver, s->pool_name, s->driver, g))
		return 0;
	*g = a->n_groups++;
	memset(&a->groups[*g], 0, sizeof(a->groups[0]));
	a->groups[*g].driver = s->driver;
	a->groups[*g].pool = s->pool_name;
	return dra_dmap_put(gi, s->driver, s->pool_name, s->driver, *g);
}

/* Sized to what the node has (usually one pool): room for every group on every node is
 * quadratic in the nodes (1 MB at 500 nodes with a pool each). */
static int add_node_group(struct dra_inventory *a, const char *node, uint32_t g)
{
	struct node_groups *ng = map_get(&a->by_node, node);
	if (!ng) {
		ng = calloc(1, sizeof(*ng));
		if (!ng || map_put(&a->by_node, node, ng, NULL) < 0) {
			free(ng);
			return ERR_NOMEM;
		}
	}
	for (uint32_t i = 0; i < ng->n; i++)
		if (ng->idx[i] == g)
			return 0;
	if (ng->n == ng->cap) {
		uint32_t cap = ng->cap ? 2 * ng->cap : 1;
		uint32_t *idx = realloc(ng->idx, cap * sizeof(*idx));
		if (!idx)
			return ERR_NOMEM;
		ng->idx = idx;
		ng->cap = cap;
	}
	ng->idx[ng->n++] = g;
	return 0;
}

static struct dra_inventory *inventory_new(const struct dra_features *f, struct api_resource_slice *const *slices,
					   uint32_t n, struct dra_cel_cache *cc, struct err *e)
{
	struct dra_inventory *a = calloc(1, sizeof(*a));
	uint32_t *gno = NULL; /* per slice: its group */
	struct dra_dmap gi;
	dra_dmap_init(&gi);
	if (!a)
		goto nomem;
	a->refs = 1;
	map_init(&a->by_node);
	dra_dmap_init(&a->slice_index);
	a->f = *f;
	a->slices = calloc(n ? n : 1, sizeof(*a->slices));
	a->views = calloc(n ? n : 1, sizeof(*a->views));
	a->groups = calloc(n ? n : 1, sizeof(*a->groups));
	a->shared_groups = calloc(n ? n : 1, sizeof(*a->shared_groups));
	gno = calloc(n ? n : 1, sizeof(*gno));
	if (!a->slices || !a->views || !a->groups || !a->shared_groups || !gno)
		goto nomem;
	for (uint32_t i = 0; i < n; i++) {
		a->slices[a->n_slices++] = api_resource_slice_ref(slices[i]);
		if (dra_dmap_put(&a->slice_index, (const char *)slices[i], (const char *)slices[i],
				 (const char *)slices[i], i) < 0)
			goto nomem;
	}
	/* grouped in two passes, so that each group's array holds exactly its slices (room for
	 * every slice in every group is quadratic: 2 MB at 500 nodes with a pool each) */
	for (uint32_t i = 0; i < n; i++) {
		if (group_of(a, &gi, slices[i], &gno[i]) < 0)
			goto nomem;
		a->groups[gno[i]].n++;
	}
	for (uint32_t g = 0; g < a->n_groups; g++) {
		if (!(a->groups[g].slices = calloc(a->groups[g].n, sizeof(*a->groups[g].slices))))
			goto nomem;
		a->groups[g].n = 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct api_resource_slice *s = slices[i];
		uint32_t g = gno[i];
		struct dra_pool_group *grp = &a->groups[g];
		grp->slices[grp->n++] = s;
		if (!s->node_name || !s->node_name[0]) {
			if (!grp->has_shared)
				a->shared_groups[a->n_shared++] = g;
			grp->has_shared = true;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct api_resource_slice *s = slices[i];
		if (!s->node_name || !s->node_name[0])
			continue;
		if (!a->groups[gno[i]].has_shared && add_node_group(a, s->node_name, gno[i]) < 0)
			goto nomem;
	}
	a->pools_arena = arena_new(0);
	if (!a->pools_arena)
		goto nomem;
	if (n && dra_cel_views_acquire(cc, slices, n, a->views, e) < 0)
		goto fail;
	/* pool building and validation done once, reused by every node that sees the whole pool */
	for (uint32_t g = 0; g < a->n_groups; g++)
		if (dra_pool_group_prepare(&a->f, &a->groups[g], a->pools_arena) < 0)
			goto nomem;
	dra_dmap_release(&gi);
	free(gno);
	return a;
nomem:
	err_set(e, ERR_NOMEM, "dra allocator: out of memory");
fail:
	dra_dmap_release(&gi);
	free(gno);
	dra_inventory_unref(a);
	return NULL;
}

bool dra_inventory_matches(const struct dra_inventory *inv, const struct dra_features *f,
			   struct api_resource_slice *const *slices, uint32_t n)
{
	if (inv->n_slices != n || memcmp(&inv->f, f, sizeof(*f)) != 0)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (inv->slices[i] != slices[i])
			return false;
	return true;
}

struct dra_allocator *dra_allocator_new(const struct dra_features *f, const struct dra_allocated_state *st,
					dra_class_fn class_fn, void *class_ctx, struct api_resource_slice *const *slices,
					uint32_t n, struct dra_cel_cache *cc, struct err *e)
{
	struct dra_allocator *a = calloc(1, sizeof(*a));
	if (!a) {
		err_set(e, ERR_NOMEM, "dra allocator: out of memory");
		return NULL;
	}
	pthread_mutex_init(&a->scratch_lock, NULL);
	a->f = *f;
	a->st = st;
	a->class_fn = class_fn;
	a->class_ctx = class_ctx;
	a->cc = cc;
	/* the previous pod's inventory when the slices are the same objects (a DeviceTaintRules
	 * copy is made per pod, so slices with applied rules always build a new one) */
	a->inv = dra_cel_inventory_get(cc, f, slices, n);
	if (!a->inv) {
		if (!(a->inv = inventory_new(f, slices, n, cc, e))) {
			dra_allocator_free(a);
			return NULL;
		}
		dra_cel_inventory_keep(cc, a->inv);
	}
	return a;
}

/* Selector ent on device d of slice number sno through the cache's views, shared with every
 * other pod's allocator (a cached selector's result is remembered there). */
static int eval_device(struct dra_allocator *a, uint32_t sno, const struct api_resource_slice *s,
		       const struct api_dra_device *d, struct dra_cel_eval *ev, const struct dra_cel_entry *ent,
		       struct err *e)
{
	return dra_slice_views_eval(a->inv->views[sno], (uint32_t)(d - s->devices), ev, ent, e);
}

/* ---------- One allocation ---------- */

#define E_MAX_SIZE (-1000) /* errAllocationResultMaxSizeExceeded */
#define E_TIMEOUT (-1001)

struct devref {
	const struct api_resource_slice *slice;
	const struct api_dra_device *dev;
	uint32_t sno;  /* the slice's number in the allocator (its CEL views) */
	uint32_t lidx; /* in this call's devices (the match cache) */
	struct dra_pool *pool;
	uint32_t pool_idx;
};

/* upstream requestData: one per request without subrequests and one per subrequest */
struct reqdata {
	const struct api_dra_device_request *r;
	const struct api_dra_request *parent; /* the request holding this subrequest, or NULL */
	struct api_device_class *class;      /* a reference */
	int64_t num_devices;
	uint32_t n_all;
	struct devref *all; /* allocationMode All */
	uint32_t slot;      /* row of the match cache */
	const char *full_name; /* "request" or "request/subrequest", interned */
	bool admin;
};

struct request {
	uint32_t n_sub; /* 1 for exactly */
	struct reqdata *subs;
	uint32_t selected;
};

struct constraint {
	bool distinct;
	const struct api_dra_constraint *c;
	const char *attr;
	/* match: the first device's attribute and how many devices share it */
	const struct api_dra_attribute *first;
	const char *first_driver;
	int64_t num;
	/* distinct: the attributes so far */
	uint32_t n_attrs;
	const struct api_dra_attribute **attrs;
};

struct ires {
	struct reqdata *rd;
	struct devref dev;
	const char *share_id;
	uint32_t n_consumed;
	struct dra_consumed *consumed;
};

struct claim_state {
	const struct api_resource_claim *claim;
	char kobj[320];
	uint32_t n_req;
	struct request *reqs;
	uint32_t n_cons;
	struct constraint *cons;
	uint32_t n_res;
	struct ires res[RESULTS_MAX];
};

struct allocating {
	uint32_t n_claims;
	uint32_t *claims;   /* the claims allocating the device exclusively */
	bool cap_present;   /* allocatingCapacity has the device */
	struct dra_amounts cap;
};

struct pool_counters {
	bool init;
	int64_t **avail, **used; /* [counter set][counter] */
};

struct class_row {
	const struct api_device_class *class;
	uint32_t slot;
};

struct sel_memo {
	const char *expr;
	struct dra_cel_entry *ent;
	const char *cerr;
};

struct alloc {
	struct dra_allocator *a;
	const struct api_node *node;
	uint32_t n_claims;
	struct claim_state *cs;
	struct scratch *sc; /* ar and ev's holder, back to the allocator at the end */
	struct arena *ar;   /* scratch */
	struct err *e;
	int64_t deadline;
	uint32_t n_pools;
	struct dra_pool *pools;
	struct pool_counters *pc;
	uint32_t n_slots, n_devices;
	int8_t *match; /* [slot][lidx]: -1 unknown, 0, 1 */
	uint32_t n_class_rows;
	struct class_row class_rows[8]; /* the rows of requests without selectors, by class */
	struct dra_dmap dev_index; /* device id -> allocating[i] */
	uint32_t n_allocating, cap_allocating;
	struct allocating *allocating;
	struct dra_cel_eval *ev;
	uint32_t n_entries;
	struct dra_cel_entry *entries[64]; /* uncached entries to release */
	/* the last selectors looked up (by their string's address, stable for the call): the
	 * cache's lookup hashes the text under its lock, once per device and selector otherwise */
	uint32_t n_memo;
	struct sel_memo memo[16];
	/* allocate_one steps of this call, added to the allocator's count at its end (one atomic
	 * add per call instead of one per step on a counter the Filter threads share) */
	int64_t invocations;
};

static const char *dev_str(const struct devref *d, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s/%s", d->slice->driver, d->slice->pool_name, d->dev->name);
	return buf;
}

static struct allocating *allocating_get(struct alloc *al, const struct devref *d, bool create)
{
	uint32_t i;
	if (dra_dmap_get(&al->dev_index, d->slice->driver, d->slice->pool_name, d->dev->name, &i))
		return &al->allocating[i];
	if (!create)
		return NULL;
	if (al->n_allocating == al->cap_allocating) {
		uint32_t cap = al->cap_allocating ? al->cap_allocating * 2 : 16;
		struct allocating *v = realloc(al->allocating, cap * sizeof(*v));
		if (!v)
			return NULL;
		al->allocating = v;
		al->cap_allocating = cap;
	}
	struct allocating *x = &al->allocating[al->n_allocating];
	memset(x, 0, sizeof(*x));
	x->claims = arena_alloc(al->ar, (al->n_claims + 1) * sizeof(*x->claims));
	if (!x->claims ||
	    dra_dmap_put(&al->dev_index, d->slice->driver, d->slice->pool_name, d->dev->name, al->n_allocating) < 0)
		return NULL;
	return &al->allocating[al->n_allocating++];
}

static bool allocating_for_claim(struct alloc *al, const struct devref *d, uint32_t claim)
{
	struct allocating *x = allocating_get(al, d, false);
	for (uint32_t i = 0; x && i < x->n_claims; i++)
		if (x->claims[i] == claim)
			return true;
	return false;
}

static bool device_in_use(struct alloc *al, const struct devref *d)
{
	if (dra_allocated_state_has(al->a->st, d->slice->driver, d->slice->pool_name, d->dev->name))
		return true;
	struct allocating *x = allocating_get(al, d, false);
	return x && x->n_claims > 0;
}

static bool device_capacity_in_use(struct alloc *al, const struct devref *d)
{
	const struct dra_state_dev *s = dra_allocated_state_find(al->a->st, d->slice->driver, d->slice->pool_name,
								 d->dev->name);
	if (s && (s->has_capacity || s->shared))
		return true;
	struct allocating *x = allocating_get(al, d, false);
	return x && x->cap_present;
}

/* The compiled selector for expr; uncached ones are kept for the call (up to 64) and released at
 * its end. 0 or ERR_NOMEM; *release set when the caller must release it right away. */
static int get_entry(struct alloc *al, const char *expr, struct dra_cel_entry **ent, const char **cerr, bool *release)
{
	*release = false;
	for (uint32_t i = 0; i < al->n_memo; i++)
		if (al->memo[i].expr == expr) {
			*ent = al->memo[i].ent;
			*cerr = al->memo[i].cerr;
			return 0;
		}
	*ent = dra_cel_get(al->a->cc, expr, cerr, al->e);
	if (!*ent)
		return ERR_NOMEM;
	if (!dra_cel_entry_cached(*ent)) {
		if (al->n_entries == 64) {
			*release = true;
			return 0;
		}
		al->entries[al->n_entries++] = *ent;
	}
	/* kept until the call's end (cached, or released by alloc_end): safe to hand out again */
	if (al->n_memo < 16)
		al->memo[al->n_memo++] = (struct sel_memo){ expr, *ent, *cerr };
	return 0;
}

/* upstream selectorsMatch: 1 all match, 0 one does not, negative with al->e */
static int selectors_match(struct alloc *al, uint32_t claim, const struct devref *d, const struct api_device_class *class,
			   const char *const *sel, uint32_t n)
{
	char id[512];
	for (uint32_t i = 0; i < n; i++) {
		struct dra_cel_entry *ent;
		const char *cerr;
		bool release;
		if (get_entry(al, sel[i], &ent, &cerr, &release) < 0)
			return ERR_NOMEM;
		if (cerr) {
			int rc = class ? err_set(al->e, ERR_INVALID, "class %s: selector #%u: CEL compile error: %s",
						 class->meta.name, i, cerr)
				       : err_set(al->e, ERR_INVALID, "claim %s: selector #%u: CEL compile error: %s",
						 al->cs[claim].kobj, i, cerr);
			if (release)
				dra_cel_entry_release(al->a->cc, ent);
			return rc;
		}
		struct err re; /* not = { 0 }: zeroing its message buffer per device was 10% of a search */
		re.code = re.http_status = 0;
		re.msg[0] = 0;
		int rc = eval_device(al->a, d->sno, d->slice, d->dev, al->ev, ent, &re);
		if (release)
			dra_cel_entry_release(al->a->cc, ent);
		if (rc < 0) {
			if (re.code == ERR_NOMEM)
				return err_set(al->e, ERR_NOMEM, "%s", re.msg);
			dev_str(d, id, sizeof(id));
			return class ? err_set(al->e, ERR_INVALID, "class %s: selector #%u on device %s: CEL runtime error: %s",
					       class->meta.name, i, id, re.msg)
				     : err_set(al->e, ERR_INVALID, "claim %s: selector #%u on device %s: CEL runtime error: %s",
					       al->cs[claim].kobj, i, id, re.msg);
		}
		if (!rc)
			return 0;
	}
	return 1;
}

/* upstream isSelectable (with the per-call match cache) */
static int is_selectable(struct alloc *al, uint32_t claim, struct reqdata *rd, const struct devref *d)
{
	if (!al->a->f.device_binding_and_status && d->dev->n_binding_conditions)
		return 0;
	int8_t *m = &al->match[(size_t)rd->slot * al->n_devices + d->lidx];
	if (*m >= 0)
		return *m;
	int rc;
	if (rd->class) {
		rc = selectors_match(al, claim, d, rd->class, (const char *const *)rd->class->selectors,
				     rd->class->n_selectors);
		if (rc <= 0)
			goto out;
	}
	rc = selectors_match(al, claim, d, NULL, (const char *const *)rd->r->selectors, rd->r->n_selectors);
	if (rc <= 0)
		goto out;
	if (d->slice->per_device_node_selection)
		rc = dra_node_matches(al->node, d->dev->node_name, d->dev->all_nodes, d->dev->node_selector);
out:
	if (rc >= 0)
		*m = (int8_t)rc;
	return rc;
}

/* upstream allocator.CmpRequestOverCapacity */
static int capacity_fits(struct alloc *al, const struct reqdata *rd, const struct devref *d)
{
	const struct dra_state_dev *s = dra_allocated_state_find(al->a->st, d->slice->driver, d->slice->pool_name,
								 d->dev->name);
	struct allocating *x = allocating_get(al, d, false);
	return dra_capacity_fits(s && s->has_capacity ? &s->capacity : NULL, rd->r, d->dev,
				 x && x->cap_present ? &x->cap : NULL, al->a->f.fractional_capacity_range, al->e);
}

/* ---------- Constraints ---------- */

/* upstream lookupAttribute */
static const struct api_dra_attribute *lookup_attr(const struct api_dra_device *d, const char *driver, const char *name)
{
	for (uint32_t i = 0; i < d->n_attributes; i++)
		if (strcmp(d->attributes[i].name, name) == 0)
			return &d->attributes[i];
	const char *slash = strchr(name, '/');
	if (!slash || strlen(driver) != (size_t)(slash - name) || strncmp(name, driver, (size_t)(slash - name)) != 0)
		return NULL;
	for (uint32_t i = 0; i < d->n_attributes; i++)
		if (strcmp(d->attributes[i].name, slash + 1) == 0)
			return &d->attributes[i];
	return NULL;
}

static bool constraint_applies(const struct constraint *c, const struct reqdata *rd)
{
	if (!c->c->n_requests)
		return true;
	const char *base = rd->parent ? rd->parent->name : rd->r->name;
	for (uint32_t i = 0; i < c->c->n_requests; i++) {
		const char *n = c->c->requests[i];
		if (strcmp(n, base) == 0 || (rd->parent && strcmp(n, rd->full_name) == 0))
			return true;
	}
	return false;
}

static bool attr_equal(const struct api_dra_attribute *x, const struct api_dra_attribute *y)
{
	if (x->type != y->type)
		return false;
	switch (x->type) {
	case API_DRA_ATTR_INT: return x->i == y->i;
	case API_DRA_ATTR_BOOL: return x->b == y->b;
	default: return strcmp(x->s ? x->s : "", y->s ? y->s : "") == 0;
	}
}

static bool constraint_add(struct constraint *c, const struct reqdata *rd, const struct devref *d)
{
	if (!constraint_applies(c, rd))
		return true;
	const struct api_dra_attribute *at = lookup_attr(d->dev, d->slice->driver, c->attr);
	if (!at)
		return false;
	if (!c->distinct) {
		if (c->num == 0) {
			c->first = at;
			c->num = 1;
			return true;
		}
		if (!attr_equal(at, c->first))
			return false;
		c->num++;
		return true;
	}
	for (uint32_t i = 0; i < c->n_attrs; i++)
		if (attr_equal(at, c->attrs[i]))
			return false;
	c->attrs[c->n_attrs++] = at;
	return true;
}

static void constraint_remove(struct constraint *c, const struct reqdata *rd)
{
	if (!constraint_applies(c, rd))
		return;
	if (c->distinct)
		c->n_attrs--;
	else
		c->num--;
}

/* ---------- Counters (partitionable devices) ---------- */

static int counter_pos(const struct dra_pool *p, const char *set, const char *counter, uint32_t *si, uint32_t *ci)
{
	for (uint32_t i = 0; i < p->n_counter_sets; i++) {
		if (p->counter_sets[i]->name != set)
			continue;
		for (uint32_t j = 0; j < p->counter_sets[i]->n_counters; j++)
			if (p->counter_sets[i]->counters[j].name == counter) {
				*si = i;
				*ci = j;
				return 1;
			}
		return 0;
	}
	return 0;
}

static int counters_init(struct alloc *al, uint32_t pi)
{
	struct pool_counters *pc = &al->pc[pi];
	struct dra_pool *p = &al->pools[pi];
	if (pc->init)
		return 0;
	pc->avail = arena_alloc(al->ar, (p->n_counter_sets + 1) * sizeof(*pc->avail));
	pc->used = arena_alloc(al->ar, (p->n_counter_sets + 1) * sizeof(*pc->used));
	if (!pc->avail || !pc->used)
		return ERR_NOMEM;
	for (uint32_t i = 0; i < p->n_counter_sets; i++) {
		uint32_t nc = p->counter_sets[i]->n_counters;
		pc->avail[i] = arena_alloc(al->ar, (nc + 1) * sizeof(int64_t));
		pc->used[i] = arena_alloc(al->ar, (nc + 1) * sizeof(int64_t));
		if (!pc->avail[i] || !pc->used[i])
			return ERR_NOMEM;
		for (uint32_t j = 0; j < nc; j++)
			pc->avail[i][j] = p->counter_sets[i]->counters[j].value.milli;
	}
	/* minus what allocated devices of the pool consume */
	for (int pass = 0; pass < 2; pass++) {
		uint32_t n = pass ? p->n_not_target : p->n_target;
		const struct api_resource_slice **sl = pass ? p->not_target : p->target;
		for (uint32_t i = 0; i < n; i++)
			for (uint32_t j = 0; j < sl[i]->n_devices; j++) {
				const struct api_dra_device *d = &sl[i]->devices[j];
				if (!dra_allocated_state_any(al->a->st, sl[i]->driver, sl[i]->pool_name, d->name))
					continue;
				for (uint32_t k = 0; k < d->n_consumes_counters; k++)
					for (uint32_t m = 0; m < d->consumes_counters[k].n_counters; m++) {
						uint32_t si, ci;
						if (counter_pos(p, d->consumes_counters[k].name,
								d->consumes_counters[k].counters[m].name, &si, &ci))
							pc->avail[si][ci] -= d->consumes_counters[k].counters[m].value.milli;
					}
			}
	}
	pc->init = true;
	return 0;
}

static void counters_add(struct alloc *al, const struct devref *d, int sign)
{
	struct pool_counters *pc = &al->pc[d->pool_idx];
	for (uint32_t k = 0; k < d->dev->n_consumes_counters; k++)
		for (uint32_t m = 0; m < d->dev->consumes_counters[k].n_counters; m++) {
			uint32_t si, ci;
			if (counter_pos(d->pool, d->dev->consumes_counters[k].name, d->dev->consumes_counters[k].counters[m].name,
					&si, &ci))
				pc->used[si][ci] += sign * d->dev->consumes_counters[k].counters[m].value.milli;
		}
}

/* upstream checkAvailableCounters: 1 reserved, 0 not enough, negative on out of memory */
static int counters_check(struct alloc *al, const struct devref *d)
{
	if (counters_init(al, d->pool_idx) < 0)
		return err_set(al->e, ERR_NOMEM, "dra allocator: out of memory");
	counters_add(al, d, 1);
	struct pool_counters *pc = &al->pc[d->pool_idx];
	for (uint32_t i = 0; i < d->pool->n_counter_sets; i++)
		for (uint32_t j = 0; j < d->pool->counter_sets[i]->n_counters; j++)
			if (pc->avail[i][j] < pc->used[i][j]) {
				counters_add(al, d, -1);
				return 0;
			}
	return 1;
}

/* ---------- Devices ---------- */

static bool taint_prevents(const struct api_dra_device *d, const struct api_dra_device_request *r)
{
	for (uint32_t i = 0; i < d->n_taints; i++) {
		const struct api_dra_taint *t = &d->taints[i];
		if (t->effect != API_DRA_EFFECT_NO_SCHEDULE && t->effect != API_DRA_EFFECT_NO_EXECUTE)
			continue;
		bool tolerated = false;
		for (uint32_t j = 0; j < r->n_tolerations && !tolerated; j++)
			tolerated = dra_toleration_tolerates(&r->tolerations[j], t);
		if (!tolerated)
			return true;
	}
	return false;
}

struct rollback {
	bool counters, marked, cap_inserted, cap_existed, result;
	uint32_t constraints, prev_results;
};

static void rollback(struct alloc *al, uint32_t claim, struct reqdata *rd, const struct devref *d,
		     const struct rollback *st)
{
	struct claim_state *cs = &al->cs[claim];
	if (st->result) {
		if (st->cap_inserted) {
			struct allocating *x = allocating_get(al, d, false);
			struct ires *r = &cs->res[st->prev_results];
			for (uint32_t i = 0; i < r->n_consumed; i++)
				(void)dra_amounts_add(&x->cap, r->consumed[i].name, -r->consumed[i].milli);
			bool empty = true;
			for (uint32_t i = 0; i < x->cap.n; i++)
				empty = empty && x->cap.v[i].milli == 0;
			if (empty)
				x->cap_present = st->cap_existed;
		}
		cs->n_res = st->prev_results;
	}
	if (st->marked) {
		struct allocating *x = allocating_get(al, d, false);
		for (uint32_t i = 0; i < x->n_claims; i++)
			if (x->claims[i] == claim) {
				x->claims[i] = x->claims[--x->n_claims];
				break;
			}
	}
	for (uint32_t i = st->constraints; i-- > 0;)
		constraint_remove(&cs->cons[i], rd);
	if (st->counters)
		counters_add(al, d, -1);
}

void dra_uuid_v4(char *buf)
{
	uint8_t r[16] = { 0 };
	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		/* no entropy yet: a time-derived id is unique enough for an in-memory id */
		int64_t t = mono_ns();
		memcpy(r, &t, sizeof(t));
		t = wall_us();
		memcpy(r + 8, &t, sizeof(t));
	}
	r[6] = (uint8_t)((r[6] & 0x0f) | 0x40); /* version 4 (uuid.NewUUID) */
	r[8] = (uint8_t)((r[8] & 0x3f) | 0x80);
	sprintf(buf, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3], r[4],
		r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]);
}

/* upstream allocateDevice: 1 allocated (*st says how to undo it), 0 not, negative error */
static int allocate_device(struct alloc *al, uint32_t claim, struct reqdata *rd, const struct devref *d, bool must,
			   struct rollback *st)
{
	struct claim_state *cs = &al->cs[claim];
	char id[512];
	bool multi = al->a->f.consumable_capacity && d->dev->allow_multiple_allocations;
	memset(st, 0, sizeof(*st));
	if (!multi && rd->admin && allocating_for_claim(al, d, claim))
		return 0;
	if (!rd->admin && device_in_use(al, d))
		return 0;
	if (!al->a->f.partitionable_devices && d->dev->n_consumes_counters)
		return 0;
	bool skip_counters = multi && device_capacity_in_use(al, d);
	if (!skip_counters && d->dev->n_consumes_counters) {
		int rc = counters_check(al, d);
		if (rc <= 0)
			return rc;
		st->counters = true;
	}
	st->prev_results = cs->n_res;
	if (al->a->f.device_taints && taint_prevents(d->dev, rd->r)) {
		rollback(al, claim, rd, d, st);
		return 0;
	}
	for (uint32_t i = 0; i < cs->n_cons; i++) {
		if (!constraint_add(&cs->cons[i], rd, d)) {
			rollback(al, claim, rd, d, st);
			if (must)
				return err_set(al->e, ERR_INVALID,
					       "claim %s, request %s: cannot add device %s because a claim constraint would not be satisfied",
					       cs->kobj, rd->r->name, dev_str(d, id, sizeof(id)));
			return 0;
		}
		st->constraints++;
	}
	if (!multi) {
		struct allocating *x = allocating_get(al, d, true);
		if (!x) {
			rollback(al, claim, rd, d, st);
			return err_set(al->e, ERR_NOMEM, "dra allocator: out of memory");
		}
		x->claims[x->n_claims++] = claim;
		st->marked = true;
	}
	struct ires *r = &cs->res[cs->n_res];
	memset(r, 0, sizeof(*r));
	if (al->a->f.consumable_capacity) {
		int rc = capacity_fits(al, rd, d);
		if (rc < 0) {
			char msg[ERR_MSG_MAX];
			snprintf(msg, sizeof(msg), "%s", al->e->msg);
			rollback(al, claim, rd, d, st);
			return err_set(al->e, ERR_INVALID, "claim %s, request %s: rechecking capacity for device %s: %s",
				       cs->kobj, rd->r->name, dev_str(d, id, sizeof(id)), msg);
		}
		if (!rc) {
			rollback(al, claim, rd, d, st);
			return 0;
		}
		if (multi) {
			r->consumed = arena_alloc(al->ar, (d->dev->n_capacity + 1) * sizeof(*r->consumed));
			struct allocating *x = r->consumed ? allocating_get(al, d, true) : NULL;
			if (!x) {
				rollback(al, claim, rd, d, st);
				return err_set(al->e, ERR_NOMEM, "dra allocator: out of memory");
			}
			if (dra_capacity_consumed(rd->r, d->dev, al->a->f.fractional_capacity_range, r->consumed, al->e) < 0) {
				char msg[ERR_MSG_MAX];
				snprintf(msg, sizeof(msg), "%s", al->e->msg);
				rollback(al, claim, rd, d, st);
				return err_set(al->e, ERR_INVALID,
					       "claim %s, request %s: computing consumed capacity for device %s: %s", cs->kobj,
					       rd->r->name, dev_str(d, id, sizeof(id)), msg);
			}
			r->n_consumed = d->dev->n_capacity;
			char *sid = arena_alloc(al->ar, 40);
			if (!sid) {
				rollback(al, claim, rd, d, st);
				return err_set(al->e, ERR_NOMEM, "dra allocator: out of memory");
			}
			dra_uuid_v4(sid);
			r->share_id = sid;
			st->cap_existed = x->cap_present;
			for (uint32_t i = 0; i < r->n_consumed; i++)
				if (dra_amounts_add(&x->cap, r->consumed[i].name, r->consumed[i].milli) < 0) {
					rollback(al, claim, rd, d, st);
					return err_set(al->e, ERR_NOMEM, "dra allocator: out of memory");
				}
			x->cap_present = true;
			st->cap_inserted = true;
		}
	}
	r->rd = rd;
	r->dev = *d;
	cs->n_res++;
	st->result = true;
	return 1;
}

/* ---------- The search (upstream allocateOne) ---------- */

struct loc {
	uint32_t pool, slice, dev;
};

#define DEADLINE_STEPS 64

static int allocate_one(struct alloc *al, uint32_t claim, uint32_t req, uint32_t sub, int64_t devi, bool in_sub,
			struct loc start)
{
	/* the clock is read on the first step and every DEADLINE_STEPS after it: reading it on
	 * each step cost 2% of a five-request search */
	int64_t step = al->invocations++;
	if (al->deadline && step % DEADLINE_STEPS == 0 && mono_ns() > al->deadline)
		return E_TIMEOUT;
	if (claim >= al->n_claims)
		return 1;
	struct claim_state *cs = &al->cs[claim];
	if (req >= cs->n_req) {
		int rc = allocate_one(al, claim + 1, 0, 0, 0, false, (struct loc){ 0, 0, 0 });
		return rc == E_MAX_SIZE ? 0 : rc;
	}
	struct request *rq = &cs->reqs[req];
	if (!in_sub && rq->subs[0].parent) {
		bool all_exceeded = true;
		for (uint32_t s = 0; s < rq->n_sub; s++) {
			int rc = allocate_one(al, claim, req, s, devi, true, (struct loc){ 0, 0, 0 });
			if (rc == E_MAX_SIZE)
				continue;
			all_exceeded = false;
			if (rc < 0)
				return rc;
			if (rc) {
				rq->selected = s;
				return 1;
			}
		}
		return all_exceeded ? E_MAX_SIZE : 0;
	}
	struct reqdata *rd = &rq->subs[sub];
	bool all = rd->r->allocation_mode == API_DRA_MODE_ALL;
	if (all && !rd->n_all)
		return 0;
	if (devi >= rd->num_devices)
		return allocate_one(al, claim, req + 1, 0, 0, false, (struct loc){ 0, 0, 0 });
	if (rd->num_devices - devi > (int64_t)(RESULTS_MAX - cs->n_res))
		return E_MAX_SIZE;
	struct rollback st;
	if (all) {
		const struct devref *d = &rd->all[devi];
		int rc = allocate_device(al, claim, rd, d, true, &st);
		if (rc <= 0)
			return rc;
		rc = allocate_one(al, claim, req, sub, devi + 1, in_sub, (struct loc){ 0, 0, 0 });
		if (rc <= 0)
			rollback(al, claim, rd, d, &st);
		return rc;
	}
	for (uint32_t pi = start.pool; pi < al->n_pools; pi++) {
		struct dra_pool *p = &al->pools[pi];
		if (p->incomplete || p->invalid)
			continue;
		for (uint32_t si = pi == start.pool ? start.slice : 0; si < p->n_target; si++) {
			const struct api_resource_slice *s = p->target[si];
			uint32_t sno = 0;
			(void)dra_dmap_get(&al->a->inv->slice_index, (const char *)s, (const char *)s, (const char *)s, &sno);
			for (uint32_t di = pi == start.pool && si == start.slice ? start.dev : 0; di < s->n_devices; di++) {
				struct devref d = { s, &s->devices[di], sno, p->target_base[si] + di, p, pi };
				if (rd->admin && allocating_for_claim(al, &d, claim))
					continue;
				if (!rd->admin && device_in_use(al, &d))
					continue;
				int rc = is_selectable(al, claim, rd, &d);
				if (rc < 0)
					return rc;
				if (!rc)
					continue;
				if (al->a->f.consumable_capacity) {
					rc = capacity_fits(al, rd, &d);
					if (rc < 0) {
						char msg[ERR_MSG_MAX], id[512];
						snprintf(msg, sizeof(msg), "%s", al->e->msg);
						return err_set(al->e, ERR_INVALID,
							       "claim %s, request %s: checking capacity for device %s: %s",
							       cs->kobj, rd->r->name, dev_str(&d, id, sizeof(id)), msg);
					}
					if (!rc)
						continue;
				}
				rc = allocate_device(al, claim, rd, &d, false, &st);
				if (rc < 0)
					return rc;
				if (!rc)
					continue;
				rc = allocate_one(al, claim, req, sub, devi + 1, in_sub, (struct loc){ pi, si, di + 1 });
				if (rc == 1)
					return 1;
				rollback(al, claim, rd, &d, &st);
				if (rc < 0)
					return rc;
			}
		}
	}
	return 0;
}

/* ---------- Allocate ---------- */

/* rd's row of the match cache. Requests of one class without selectors of their own select the
 * same devices (is_selectable caches only 0 and 1, never an error and its message): they share
 * a row, so that five such requests evaluate the class's selectors once per device, not five
 * times. 0 or ERR_NOMEM. */
static int assign_slot(struct alloc *al, struct reqdata *rd)
{
	bool plain = rd->r->n_selectors == 0;
	for (uint32_t i = 0; plain && i < al->n_class_rows; i++)
		if (al->class_rows[i].class == rd->class) {
			rd->slot = al->class_rows[i].slot;
			return 0;
		}
	uint32_t slot = al->n_slots;
	size_t old = (size_t)slot * al->n_devices, now = (size_t)(slot + 1) * al->n_devices;
	int8_t *m = realloc(al->match, now ? now : 1);
	if (!m)
		return ERR_NOMEM;
	memset(m + old, -1, now - old);
	al->match = m;
	al->n_slots = slot + 1;
	rd->slot = slot;
	if (plain && al->n_class_rows < ARRAY_SIZE(al->class_rows))
		al->class_rows[al->n_class_rows++] = (struct class_row){ rd->class, slot };
	return 0;
}

/* upstream validateDeviceRequest */
static int validate_request(struct alloc *al, uint32_t claim, struct reqdata *rd)
{
	struct claim_state *cs = &al->cs[claim];
	const struct api_dra_device_request *r = rd->r;
	const char *name = r->name;
	for (uint32_t i = 0; i < r->n_selectors; i++)
		if (!r->selectors[i] || !r->selectors[i][0])
			return err_set(al->e, ERR_INVALID,
				       "claim %s, request %s, selector #%u: CEL expression empty (unsupported selector type?)",
				       cs->kobj, name, i);
	if (!al->a->f.admin_access && r->has_admin_access)
		return err_set(al->e, ERR_INVALID, "claim %s, request %s: admin access is requested, but the feature is disabled",
			       cs->kobj, name);
	if (!r->device_class_name || !r->device_class_name[0])
		return err_set(al->e, ERR_INVALID,
			       "claim %s, request %s: missing device class name (unsupported request type?)", cs->kobj, name);
	rd->class = al->a->class_fn(al->a->class_ctx, r->device_class_name);
	if (!rd->class)
		return err_set(al->e, ERR_INVALID,
			       "claim %s, request %s: could not retrieve device class %s: deviceclass.resource.k8s.io \"%s\" not found",
			       cs->kobj, name, r->device_class_name, r->device_class_name);
	if (assign_slot(al, rd) < 0)
		return err_set(al->e, ERR_NOMEM, "dra allocator: out of memory");
	switch (r->allocation_mode) {
	case API_DRA_MODE_EXACT_COUNT:
		rd->num_devices = r->count == 0 ? 1 : r->count; /* the apiserver defaults count to 1 */
		return 0;
	case API_DRA_MODE_ALL:
		break;
	default:
		return err_set(al->e, ERR_INVALID, "claim %s, request %s: unsupported count mode %s", cs->kobj, name,
			       r->allocation_mode_text ? r->allocation_mode_text : "");
	}
	uint32_t cap = 0;
	for (uint32_t pi = 0; pi < al->n_pools; pi++)
		for (uint32_t si = 0; si < al->pools[pi].n_target; si++)
			cap += al->pools[pi].target[si]->n_devices;
	rd->all = arena_alloc(al->ar, (cap + 1) * sizeof(*rd->all));
	if (!rd->all)
		return err_set(al->e, ERR_NOMEM, "dra allocator: out of memory");
	for (uint32_t pi = 0; pi < al->n_pools; pi++) {
		struct dra_pool *p = &al->pools[pi];
		if (p->incomplete)
			return err_set(al->e, ERR_INVALID,
				       "claim %s, request %s: asks for all devices, but resource pool %s/%s is currently being updated",
				       cs->kobj, name, p->driver, p->pool);
		if (p->invalid)
			return err_set(al->e, ERR_INVALID,
				       "claim %s, request %s: asks for all devices, but resource pool %s/%s is currently invalid",
				       cs->kobj, name, p->driver, p->pool);
		for (uint32_t si = 0; si < p->n_target; si++) {
			const struct api_resource_slice *s = p->target[si];
			uint32_t sno = 0;
			(void)dra_dmap_get(&al->a->inv->slice_index, (const char *)s, (const char *)s, (const char *)s, &sno);
			for (uint32_t di = 0; di < s->n_devices; di++) {
				struct devref d = { s, &s->devices[di], sno, p->target_base[si] + di, p, pi };
				int rc = is_selectable(al, claim, rd, &d);
				if (rc < 0)
					return rc;
				if (!rc)
					continue;
				if (al->a->f.consumable_capacity) {
					rc = dra_capacity_fits(NULL, r, d.dev, NULL, al->a->f.fractional_capacity_range, al->e);
					if (rc < 0) {
						char msg[ERR_MSG_MAX];
						snprintf(msg, sizeof(msg), "%s", al->e->msg);
						return err_set(al->e, ERR_INVALID,
							       "claim %s, request %s: checking capacity for device %s: %s", cs->kobj,
							       name, d.dev->name, msg);
					}
					if (!rc)
						continue;
				}
				rd->all[rd->n_all++] = d;
			}
		}
	}
	rd->num_devices = rd->n_all;
	return 0;
}

static const char *join_name(const char *req, const char *sub)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%s/%s", req, sub);
	return intern_str(buf);
}

/* Sets up the claims' requests and constraints (Allocate up to the search). */
static int prepare(struct alloc *al)
{
	const struct dra_features *f = &al->a->f;
	for (uint32_t ci = 0; ci < al->n_claims; ci++) {
		struct claim_state *cs = &al->cs[ci];
		const struct api_resource_claim *c = cs->claim;
		cs->n_req = c->n_requests;
		cs->reqs = arena_alloc(al->ar, (c->n_requests + 1) * sizeof(*cs->reqs));
		if (!cs->reqs)
			return err_set(al->e, ERR_NOMEM, "dra allocator: out of memory");
		int64_t per_claim = 0;
		for (uint32_t ri = 0; ri < c->n_requests; ri++) {
			const struct api_dra_request *r = &c->requests[ri];
			struct request *rq = &cs->reqs[ri];
			bool has_sub = r->n_first_available > 0;
			if (!f->prioritized_list && has_sub)
				return err_set(al->e, ERR_INVALID,
					       "claim %s, request %s: has subrequests, but the DRAPrioritizedList feature is disabled",
					       cs->kobj, r->name);
			if (!f->consumable_capacity) {
				if (r->exactly && r->exactly->has_capacity)
					return err_set(al->e, ERR_INVALID,
						       "claim %s, request %s: has capacity requests, but the DRAConsumableCapacity feature is disabled",
						       cs->kobj, r->name);
				for (uint32_t s = 0; s < r->n_first_available; s++)
					if (r->first_available[s].has_capacity)
						return err_set(al->e, ERR_INVALID,
							       "claim %s, subrequest %s: has capacity requests, but the DRAConsumableCapacity feature is disabled",
							       cs->kobj, r->first_available[s].name);
			}
			rq->n_sub = has_sub ? r->n_first_available : 1;
			rq->subs = arena_alloc(al->ar, rq->n_sub * sizeof(*rq->subs));
			if (!rq->subs)
				return err_set(al->e, ERR_NOMEM, "dra allocator: out of memory");
			if (!has_sub && !r->exactly)
				return err_set(al->e, ERR_INVALID,
					       "claim %s, request %s: missing device class name (unsupported request type?)",
					       cs->kobj, r->name);
			int64_t min_devices = INT64_MAX;
			for (uint32_t s = 0; s < rq->n_sub; s++) {
				struct reqdata *rd = &rq->subs[s];
				rd->r = has_sub ? &r->first_available[s] : r->exactly;
				rd->parent = has_sub ? r : NULL;
				rd->full_name = has_sub ? join_name(r->name, rd->r->name) : r->name;
				if (!rd->full_name)
					return err_set(al->e, ERR_NOMEM, "dra allocator: out of memory");
				/* a subrequest has no adminAccess */
				rd->admin = !has_sub && rd->r->has_admin_access && rd->r->admin_access;
			}
			for (uint32_t s = 0; s < rq->n_sub; s++) {
				int rc = validate_request(al, ci, &rq->subs[s]);
				if (rc < 0)
					return rc;
				if (rq->subs[s].num_devices < min_devices)
					min_devices = rq->subs[s].num_devices;
			}
			if (min_devices > RESULTS_MAX - per_claim)
				return err_set(al->e, ERR_INVALID,
					       "claim %s, request %s: adding %" PRId64
					       " devices exceeds the claim limit of %d, with %" PRId64 " already accounted for",
					       cs->kobj, r->name, min_devices, RESULTS_MAX, per_claim);
			per_claim += min_devices;
		}
		cs->n_cons = c->n_constraints;
		cs->cons = arena_alloc(al->ar, (c->n_constraints + 1) * sizeof(*cs->cons));
		if (!cs->cons)
			return err_set(al->e, ERR_NOMEM, "dra allocator: out of memory");
		for (uint32_t i = 0; i < c->n_constraints; i++) {
			struct constraint *k = &cs->cons[i];
			k->c = &c->constraints[i];
			if (k->c->match_attribute) {
				k->attr = k->c->match_attribute;
			} else if (k->c->distinct_attribute) {
				k->distinct = true;
				k->attr = k->c->distinct_attribute;
				k->attrs = arena_alloc(al->ar, (RESULTS_MAX + 1) * sizeof(*k->attrs));
				if (!k->attrs)
					return err_set(al->e, ERR_NOMEM, "dra allocator: out of memory");
			} else {
				return err_set(al->e, ERR_INVALID,
					       "claim %s, constraint #%u: empty constraint (unsupported constraint type?)", cs->kobj,
					       i);
			}
		}
	}
	return 0;
}

/* ---------- Results ---------- */

static const char *adup(struct arena *ar, const char *s, bool *ok)
{
	if (!s)
		return NULL;
	char *d = arena_strdup(ar, s);
	if (!d)
		*ok = false;
	return d;
}

static const char **adup_list(struct arena *ar, const char *const *v, uint32_t n, bool *ok)
{
	if (!n)
		return NULL;
	const char **d = arena_alloc(ar, n * sizeof(*d));
	if (!d) {
		*ok = false;
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		d[i] = adup(ar, v[i], ok);
	return d;
}

static bool contains(const char *const *v, uint32_t n, const char *s)
{
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* One configuration entry into out (requests: room for cap names). */
static void put_config(struct arena *ar, struct api_dra_config *out, const struct api_dra_config *in,
		       enum api_dra_config_source src, bool *ok)
{
	out->source = src;
	out->driver = adup(ar, in->driver, ok);
	if (in->parameters_json) {
		char *p = arena_alloc(ar, in->parameters_len + 1);
		if (!p)
			*ok = false;
		else
			memcpy(p, in->parameters_json, in->parameters_len);
		out->parameters_json = p;
		out->parameters_len = in->parameters_len;
	}
}

static bool same_values(const struct api_requirement *x, const struct api_requirement *y)
{
	/* sets.Equal: every value of each in the other */
	for (uint32_t i = 0; i < x->n_values; i++)
		if (!contains(y->values, y->n_values, x->values[i]))
			return false;
	for (uint32_t i = 0; i < y->n_values; i++)
		if (!contains(x->values, x->n_values, y->values[i]))
			return false;
	return true;
}

static void add_requirements(const struct api_requirement *from, uint32_t n, struct api_requirement *to, uint32_t *nto)
{
	for (uint32_t i = 0; i < n; i++) {
		bool have = false;
		for (uint32_t j = 0; j < *nto && !have; j++)
			have = strcmp(to[j].key, from[i].key) == 0 && to[j].op == from[i].op && same_values(&to[j], &from[i]);
		if (!have)
			to[(*nto)++] = from[i];
	}
}

/* upstream createNodeSelector: 0 with *out (NULL: every node), or ERR_INVALID with e. */
static int node_selector(struct alloc *al, struct claim_state *cs, struct arena *ar,
			 const struct api_node_selector **out, struct err *e)
{
	*out = NULL;
	uint32_t nf = 0, ne = 0;
	for (uint32_t i = 0; i < cs->n_res; i++) {
		const struct api_resource_slice *s = cs->res[i].dev.slice;
		const struct api_node_selector *sel = s->per_device_node_selection ? cs->res[i].dev.dev->node_selector
										   : s->node_selector;
		if (sel && sel->n_terms == 1) {
			nf += sel->terms[0].n_fields;
			ne += sel->terms[0].n_exprs;
		}
	}
	struct api_node_selector *ns = arena_alloc(ar, sizeof(*ns));
	struct api_node_selector_term *t = arena_alloc(ar, sizeof(*t));
	if (!ns || !t)
		return err_set(e, ERR_NOMEM, "dra allocator: out of memory");
	ns->n_terms = 1;
	ns->terms = t;
	t->fields = arena_alloc(ar, (nf + 1) * sizeof(*t->fields));
	t->exprs = arena_alloc(ar, (ne + 1) * sizeof(*t->exprs));
	if (!t->fields || !t->exprs)
		return err_set(e, ERR_NOMEM, "dra allocator: out of memory");
	for (uint32_t i = 0; i < cs->n_res; i++) {
		const struct ires *r = &cs->res[i];
		const struct api_resource_slice *s = r->dev.slice;
		const char *node_name = s->per_device_node_selection ? r->dev.dev->node_name : s->node_name;
		const struct api_node_selector *sel = s->per_device_node_selection ? r->dev.dev->node_selector
										   : s->node_selector;
		if (node_name || r->dev.dev->binds_to_node) {
			struct api_requirement *req = arena_alloc(ar, sizeof(*req));
			const char **vals = arena_alloc(ar, sizeof(*vals));
			if (!req || !vals)
				return err_set(e, ERR_NOMEM, "dra allocator: out of memory");
			req->key = intern_str("metadata.name");
			req->op = API_OP_IN;
			req->n_values = 1;
			vals[0] = al->node->meta.name;
			req->values = vals;
			memset(t, 0, sizeof(*t));
			t->n_fields = 1;
			t->fields = req;
			*out = ns;
			return 0;
		}
		if (!sel)
			continue;
		if (sel->n_terms == 1) {
			add_requirements(sel->terms[0].fields, sel->terms[0].n_fields, t->fields, &t->n_fields);
			add_requirements(sel->terms[0].exprs, sel->terms[0].n_exprs, t->exprs, &t->n_exprs);
		} else if (sel->n_terms > 1) {
			return err_set(e, ERR_INVALID, "create NodeSelector for claim %s: unsupported ResourceSlice.NodeSelector with %u terms",
				       cs->claim->meta.name, sel->n_terms);
		}
	}
	if (t->n_fields || t->n_exprs)
		*out = ns;
	return 0;
}

/* The allocation result of claim cs into out, in ar (upstream Allocate after the search). */
static int make_result(struct alloc *al, struct claim_state *cs, struct arena *ar, struct api_dra_allocation *out)
{
	const struct api_resource_claim *c = cs->claim;
	bool ok = true;
	memset(out, 0, sizeof(*out));
	out->n_results = cs->n_res;
	out->results = arena_alloc(ar, (cs->n_res + 1) * sizeof(*out->results));
	if (!out->results)
		goto nomem;
	for (uint32_t i = 0; i < cs->n_res; i++) {
		const struct ires *r = &cs->res[i];
		struct api_dra_device_result *o = &out->results[i];
		o->request = r->rd->full_name;
		o->driver = r->dev.slice->driver;
		o->pool = r->dev.slice->pool_name;
		o->device = r->dev.dev->name;
		if (r->rd->admin) {
			o->has_admin_access = true;
			o->admin_access = true;
		}
		o->n_tolerations = r->rd->r->n_tolerations;
		if (o->n_tolerations) {
			struct api_dra_toleration *t = arena_alloc(ar, o->n_tolerations * sizeof(*t));
			if (!t)
				goto nomem;
			for (uint32_t j = 0; j < o->n_tolerations; j++) {
				const struct api_dra_toleration *in = &r->rd->r->tolerations[j];
				t[j] = *in;
				t[j].key = adup(ar, in->key, &ok);
				t[j].op_text = adup(ar, in->op_text, &ok);
				t[j].value = adup(ar, in->value, &ok);
				t[j].effect = adup(ar, in->effect, &ok);
			}
			o->tolerations = t;
		}
		if (al->a->f.device_binding_and_status) {
			o->n_binding_conditions = r->dev.dev->n_binding_conditions;
			o->binding_conditions = adup_list(ar, r->dev.dev->binding_conditions, o->n_binding_conditions, &ok);
			o->n_binding_failure_conditions = r->dev.dev->n_binding_failure_conditions;
			o->binding_failure_conditions = adup_list(ar, r->dev.dev->binding_failure_conditions,
								  o->n_binding_failure_conditions, &ok);
		}
		o->share_id = adup(ar, r->share_id, &ok);
		if (r->n_consumed) {
			struct api_dra_named_quantity *q = arena_alloc(ar, r->n_consumed * sizeof(*q));
			if (!q)
				goto nomem;
			for (uint32_t j = 0; j < r->n_consumed; j++) {
				q[j].name = r->consumed[j].name;
				q[j].value.milli = r->consumed[j].milli;
				q[j].value.s = adup(ar, r->consumed[j].s, &ok);
			}
			o->n_consumed_capacity = r->n_consumed;
			o->consumed_capacity = q;
		}
	}
	/* configuration: the classes' (one entry set per class, naming every request it serves),
	 * then the claim's that apply to an allocated request */
	uint32_t n_cfg = c->n_config;
	for (uint32_t ri = 0; ri < cs->n_req; ri++)
		for (uint32_t s = 0; s < cs->reqs[ri].n_sub; s++)
			if (cs->reqs[ri].subs[s].class)
				n_cfg += cs->reqs[ri].subs[s].class->n_config;
	out->config = arena_alloc(ar, (n_cfg + 1) * sizeof(*out->config));
	if (!out->config)
		goto nomem;
	const struct api_device_class **classes = arena_alloc(al->ar, (cs->n_req + 1) * sizeof(*classes));
	uint32_t *cstart = arena_alloc(al->ar, (cs->n_req + 1) * sizeof(*cstart));
	uint32_t *cend = arena_alloc(al->ar, (cs->n_req + 1) * sizeof(*cend));
	uint32_t n_classes = 0;
	if (!classes || !cstart || !cend)
		goto nomem;
	for (uint32_t ri = 0; ri < cs->n_req; ri++) {
		const struct reqdata *rd = &cs->reqs[ri].subs[cs->reqs[ri].subs[0].parent ? cs->reqs[ri].selected : 0];
		if (!rd->class)
			continue;
		uint32_t k;
		for (k = 0; k < n_classes; k++)
			if (classes[k]->meta.name == rd->class->meta.name ||
			    strcmp(classes[k]->meta.name, rd->class->meta.name) == 0)
				break;
		if (k < n_classes) {
			for (uint32_t i = cstart[k]; i < cend[k]; i++)
				out->config[i].requests[out->config[i].n_requests++] = rd->full_name;
			continue;
		}
		classes[n_classes] = rd->class;
		cstart[n_classes] = out->n_config;
		for (uint32_t i = 0; i < rd->class->n_config; i++) {
			struct api_dra_config *o = &out->config[out->n_config++];
			put_config(ar, o, &rd->class->config[i], API_DRA_CONFIG_FROM_CLASS, &ok);
			o->requests = arena_alloc(ar, (cs->n_req + 1) * sizeof(*o->requests));
			if (!o->requests)
				goto nomem;
			o->requests[o->n_requests++] = rd->full_name;
		}
		cend[n_classes++] = out->n_config;
	}
	for (uint32_t i = 0; i < c->n_config; i++) {
		const struct api_dra_config *in = &c->config[i];
		bool applies = in->n_requests == 0;
		for (uint32_t ri = 0; ri < cs->n_req && !applies; ri++) {
			const struct api_dra_request *r = &c->requests[ri];
			if (contains(in->requests, in->n_requests, r->name)) {
				applies = true;
				break;
			}
			if (!cs->reqs[ri].subs[0].parent)
				continue;
			applies = contains(in->requests, in->n_requests, cs->reqs[ri].subs[cs->reqs[ri].selected].full_name);
		}
		if (!applies)
			continue;
		struct api_dra_config *o = &out->config[out->n_config++];
		put_config(ar, o, in, API_DRA_CONFIG_FROM_CLAIM, &ok);
		o->n_requests = in->n_requests;
		o->requests = adup_list(ar, in->requests, in->n_requests, &ok);
	}
	/* a list of requests naming every request (or its selected subrequest) is dropped */
	for (uint32_t i = 0; i < out->n_config; i++) {
		struct api_dra_config *o = &out->config[i];
		if (!o->n_requests)
			continue;
		bool all = true;
		for (uint32_t ri = 0; ri < cs->n_req && all; ri++) {
			if (contains(o->requests, o->n_requests, c->requests[ri].name))
				continue;
			all = cs->reqs[ri].subs[0].parent &&
			      contains(o->requests, o->n_requests, cs->reqs[ri].subs[cs->reqs[ri].selected].full_name);
		}
		if (all) {
			o->n_requests = 0;
			o->requests = NULL;
		}
	}
	if (!out->n_config)
		out->config = NULL;
	if (!ok)
		goto nomem;
	return node_selector(al, cs, ar, &out->node_selector, al->e);
nomem:
	return err_set(al->e, ERR_NOMEM, "dra allocator: out of memory");
}

/* ---------- The entry point ---------- */

static uint32_t *groups_for_node(struct dra_allocator *a, const struct api_node *node, struct arena *ar, uint32_t *n)
{
	const struct node_groups *ng = node && node->meta.name ? map_get(&a->inv->by_node, node->meta.name) : NULL;
	uint32_t cnt = a->inv->n_shared + (ng ? ng->n : 0);
	uint32_t *idx = arena_alloc(ar, (cnt + 1) * sizeof(*idx));
	if (!idx)
		return NULL;
	memcpy(idx, a->inv->shared_groups, a->inv->n_shared * sizeof(*idx));
	if (ng)
		memcpy(idx + a->inv->n_shared, ng->idx, ng->n * sizeof(*idx));
	*n = cnt;
	return idx;
}

/* The per-call state of an allocation for node up to the search (upstream Allocate up to
 * allocateOne): pools gathered, requests and constraints prepared. *prepared tells whether
 * prepare ran (a negative return before it is out of memory or a pool error). al is released by
 * alloc_end in every case. 0 or negative with e. */
static int alloc_begin(struct alloc *al, struct dra_allocator *a, const struct api_node *node,
		       const struct api_resource_claim *const *claims, uint32_t n, int64_t deadline_ns, struct err *e,
		       bool *prepared)
{
	uint32_t n_idx = 0, *idx;
	memset(al, 0, sizeof(*al));
	*prepared = false;
	al->a = a;
	al->node = node;
	al->n_claims = n;
	al->e = e;
	al->deadline = deadline_ns;
	dra_dmap_init(&al->dev_index);
	pthread_mutex_lock(&a->scratch_lock);
	if ((al->sc = a->free_scratch))
		a->free_scratch = al->sc->next;
	pthread_mutex_unlock(&a->scratch_lock);
	if (!al->sc) {
		if (!(al->sc = calloc(1, sizeof(*al->sc))))
			goto nomem;
		al->sc->ar = arena_new(0);
		al->sc->ev = dra_cel_eval_new(a->cc);
	}
	al->ar = al->sc->ar;
	al->ev = al->sc->ev;
	if (!al->ar || !al->ev)
		goto nomem;
	al->cs = arena_alloc(al->ar, (n + 1) * sizeof(*al->cs));
	if (!al->cs)
		goto nomem;
	for (uint32_t i = 0; i < n; i++) {
		al->cs[i].claim = claims[i];
		dra_kobj(&claims[i]->meta, al->cs[i].kobj, sizeof(al->cs[i].kobj));
	}
	if (!(idx = groups_for_node(a, node, al->ar, &n_idx)))
		goto nomem;
	if (dra_gather_pools(&a->f, node, a->inv->groups, idx, n_idx, al->ar, &al->pools, &al->n_pools, &al->n_devices, e) < 0)
		return e && e->code ? e->code : ERR_NOMEM;
	al->pc = arena_alloc(al->ar, (al->n_pools + 1) * sizeof(*al->pc));
	if (!al->pc)
		goto nomem;
	*prepared = true;
	return prepare(al);
nomem:
	return err_set(e, ERR_NOMEM, "dra allocator: out of memory");
}

static void alloc_end(struct alloc *al)
{
	if (al->a)
		atomic_fetch_add_explicit(&al->a->invocations, al->invocations, memory_order_relaxed);
	for (uint32_t i = 0; al->cs && i < al->n_claims; i++)
		for (uint32_t r = 0; al->cs[i].reqs && r < al->cs[i].n_req; r++)
			for (uint32_t s = 0; al->cs[i].reqs[r].subs && s < al->cs[i].reqs[r].n_sub; s++)
				if (al->cs[i].reqs[r].subs[s].class)
					api_device_class_unref(al->cs[i].reqs[r].subs[s].class);
	for (uint32_t i = 0; i < al->n_allocating; i++)
		dra_amounts_release(&al->allocating[i].cap);
	free(al->allocating);
	for (uint32_t i = 0; i < al->n_entries; i++)
		dra_cel_entry_release(al->a->cc, al->entries[i]);
	free(al->match);
	dra_dmap_release(&al->dev_index);
	struct scratch *sc = al->sc;
	if (sc && sc->ar && sc->ev) {
		/* an arena that needed more than its first block is remade with room for what this
		 * call took, so that the next calls allocate nothing */
		if (arena_overflowed(sc->ar)) {
			struct arena *big = arena_new(arena_footprint(sc->ar));
			if (big) {
				arena_free(sc->ar);
				sc->ar = big;
			}
		}
		arena_reset(sc->ar);
		pthread_mutex_lock(&al->a->scratch_lock);
		sc->next = al->a->free_scratch;
		al->a->free_scratch = sc;
		pthread_mutex_unlock(&al->a->scratch_lock);
	} else if (sc) {
		arena_free(sc->ar);
		dra_cel_eval_free(sc->ev);
		free(sc);
	}
	memset(al, 0, sizeof(*al));
}

enum dra_result dra_allocator_allocate(struct dra_allocator *a, const struct api_node *node,
				       const struct api_resource_claim *const *claims, uint32_t n, int64_t deadline_ns,
				       struct arena *arena, struct api_dra_allocation *out, struct err *e)
{
	enum dra_result res = DRA_ERROR;
	struct alloc al;
	bool prepared;
	int rc;
	if (e)
		err_clear(e);
	if (alloc_begin(&al, a, node, claims, n, deadline_ns, e, &prepared) < 0)
		goto out;
	rc = allocate_one(&al, 0, 0, 0, 0, false, (struct loc){ 0, 0, 0 });
	if (rc == E_TIMEOUT) {
		err_set(e, ERR_TIMEOUT, "filter operation aborted: context deadline exceeded");
		res = DRA_TIMEOUT;
		goto out;
	}
	if (rc == E_MAX_SIZE) {
		/* upstream returns errAllocationResultMaxSizeExceeded when no subrequest loop caught it */
		err_set(e, ERR_INVALID, "allocation max size exceeded");
		goto out;
	}
	if (rc < 0)
		goto out;
	if (!rc) {
		res = DRA_UNSCHEDULABLE;
		for (uint32_t i = 0; i < al.n_pools; i++)
			if (al.pools[i].invalid) {
				err_set(e, ERR_INVALID, "invalid resource pools were encountered");
				goto out;
			}
		if (e)
			err_clear(e);
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		if (make_result(&al, &al.cs[i], arena, &out[i]) < 0)
			goto out;
	res = DRA_ALLOCATED;
out:
	alloc_end(&al);
	return res;
}

/* ---------- Diagnosis (csched explain) ----------
 *
 * Why dra_allocator_allocate found no allocation on a node, for a human: every request (and
 * firstAvailable subrequest) is walked against the node's devices with the checks the search
 * applies, in its order (selectors_match for the class and the request, the per-device node
 * selection, the allocated state, taint_prevents, counters_check, capacity_fits), and each device
 * is counted under the first check that rejects it. When every request alone has enough devices,
 * the search itself is rerun without the claims' constraints and then with one constraint at a
 * time, to name the constraint that cannot be met. Nothing here runs in a scheduling cycle. */

#define DIAG_OWNERS_MAX 4
#define DIAG_SEARCH_NS (2 * 1000000000LL) /* one trial search; explain must answer */

struct diag_counts {
	uint32_t total, class_rej, req_rej, other_node, allocated, tainted, counters, capacity, usable;
	char class_err[ERR_MSG_MAX], req_err[ERR_MSG_MAX], cap_err[ERR_MSG_MAX];
	const struct api_dra_taint *taint; /* the first untolerated taint */
	uint32_t n_owners, more_owners;
	char owners[DIAG_OWNERS_MAX][320];
	bool in_flight; /* an allocated device no listed claim holds (Reserve..PreBind) */
};

static bool result_names(const struct api_dra_device_result *r, const struct devref *d)
{
	return r->device && r->driver && r->pool && strcmp(r->device, d->dev->name) == 0 &&
	       strcmp(r->driver, d->slice->driver) == 0 && strcmp(r->pool, d->slice->pool_name) == 0;
}

/* Records the claims among owners whose allocation holds d (or that none does). */
static void diag_owner(struct diag_counts *k, const struct devref *d, const struct api_resource_claim *const *owners,
		       uint32_t n_owners)
{
	bool found = false;
	for (uint32_t i = 0; i < n_owners; i++) {
		const struct api_dra_allocation *al = owners[i]->allocation;
		for (uint32_t j = 0; al && j < al->n_results; j++) {
			if (!result_names(&al->results[j], d))
				continue;
			found = true;
			char name[320];
			dra_kobj(&owners[i]->meta, name, sizeof(name));
			bool have = false;
			for (uint32_t o = 0; o < k->n_owners && !have; o++)
				have = strcmp(k->owners[o], name) == 0;
			if (have)
				break;
			if (k->n_owners < DIAG_OWNERS_MAX)
				snprintf(k->owners[k->n_owners++], sizeof(k->owners[0]), "%s", name);
			else
				k->more_owners++;
			break;
		}
	}
	if (!found)
		k->in_flight = true;
}

/* The selectors of one kind on d: 1 match, 0 not (a CEL error counts as not, its text kept in
 * first_err once). Negative on out of memory. */
static int diag_selectors(struct alloc *al, uint32_t claim, const struct devref *d, const struct api_device_class *class,
			  const char *const *sel, uint32_t n, char *first_err)
{
	struct err e = { 0 };
	struct err *saved = al->e;
	al->e = &e;
	int rc = selectors_match(al, claim, d, class, sel, n);
	al->e = saved;
	if (rc >= 0)
		return rc;
	if (e.code == ERR_NOMEM)
		return err_set(al->e, ERR_NOMEM, "%s", e.msg);
	if (!first_err[0])
		snprintf(first_err, ERR_MSG_MAX, "%s", e.msg);
	return 0;
}

/* Counts the node's devices for request rd of claim ci under the first check that rejects them. */
static int diag_request(struct alloc *al, uint32_t ci, struct reqdata *rd, const struct api_resource_claim *const *owners,
			uint32_t n_owners, struct diag_counts *k)
{
	const struct dra_features *f = &al->a->f;
	memset(k, 0, sizeof(*k));
	for (uint32_t pi = 0; pi < al->n_pools; pi++) {
		struct dra_pool *p = &al->pools[pi];
		if (p->incomplete || p->invalid)
			continue; /* reported per pool */
		for (uint32_t si = 0; si < p->n_target; si++) {
			const struct api_resource_slice *s = p->target[si];
			uint32_t sno = 0;
			(void)dra_dmap_get(&al->a->inv->slice_index, (const char *)s, (const char *)s, (const char *)s, &sno);
			for (uint32_t di = 0; di < s->n_devices; di++) {
				struct devref d = { s, &s->devices[di], sno, p->target_base[si] + di, p, pi };
				int rc;
				k->total++;
				if (!f->device_binding_and_status && d.dev->n_binding_conditions) {
					k->class_rej++;
					continue;
				}
				/* the search skips a device in use before evaluating selectors: a CEL
				 * error on one is no reason, so its text is not kept */
				bool in_use = !rd->admin && device_in_use(al, &d);
				char scratch[ERR_MSG_MAX] = "";
				if ((rc = diag_selectors(al, ci, &d, rd->class, (const char *const *)rd->class->selectors,
							 rd->class->n_selectors, in_use ? scratch : k->class_err)) < 0)
					return rc;
				if (!rc && !scratch[0]) {
					k->class_rej++;
					continue;
				}
				if (!scratch[0] &&
				    (rc = diag_selectors(al, ci, &d, NULL, (const char *const *)rd->r->selectors,
							 rd->r->n_selectors, in_use ? scratch : k->req_err)) < 0)
					return rc;
				if (!rc && !scratch[0]) {
					k->req_rej++;
					continue;
				}
				if (s->per_device_node_selection &&
				    !dra_node_matches(al->node, d.dev->node_name, d.dev->all_nodes, d.dev->node_selector)) {
					k->other_node++;
					continue;
				}
				if (in_use) {
					k->allocated++;
					diag_owner(k, &d, owners, n_owners);
					continue;
				}
				if (f->device_taints && taint_prevents(d.dev, rd->r)) {
					k->tainted++;
					for (uint32_t t = 0; !k->taint && t < d.dev->n_taints; t++) {
						const struct api_dra_taint *tt = &d.dev->taints[t];
						bool tolerated = tt->effect != API_DRA_EFFECT_NO_SCHEDULE &&
								 tt->effect != API_DRA_EFFECT_NO_EXECUTE;
						for (uint32_t j = 0; j < rd->r->n_tolerations && !tolerated; j++)
							tolerated = dra_toleration_tolerates(&rd->r->tolerations[j], tt);
						if (!tolerated)
							k->taint = tt;
					}
					continue;
				}
				bool multi = f->consumable_capacity && d.dev->allow_multiple_allocations;
				if (f->partitionable_devices && d.dev->n_consumes_counters &&
				    !(multi && device_capacity_in_use(al, &d))) {
					if ((rc = counters_check(al, &d)) < 0)
						return rc;
					if (!rc) {
						k->counters++;
						continue;
					}
					counters_add(al, &d, -1);
				} else if (!f->partitionable_devices && d.dev->n_consumes_counters) {
					k->counters++;
					continue;
				}
				if (f->consumable_capacity) {
					struct err e = { 0 };
					struct err *saved = al->e;
					al->e = &e;
					rc = capacity_fits(al, rd, &d);
					al->e = saved;
					if (rc < 0 && !k->cap_err[0])
						snprintf(k->cap_err, sizeof(k->cap_err), "%s", e.msg);
					if (rc <= 0) {
						k->capacity++;
						continue;
					}
				}
				k->usable++;
			}
		}
	}
	return 0;
}

static void diag_counts_line(struct strbuf *out, const struct alloc *al, uint32_t ci, const struct reqdata *rd,
			     const struct diag_counts *k, int64_t needed)
{
	const char *sep = ": ";
	bool all = rd->r->allocation_mode == API_DRA_MODE_ALL;
	strbuf_addf(out, "claim %s, request %s (class %s): ", al->cs[ci].kobj, rd->full_name, rd->class->meta.name);
	if (k->total == 0) {
		strbuf_puts(out, "no device on this node's resource pools\n");
		return;
	}
	if (all)
		strbuf_addf(out, "allocationMode All, %" PRIu32 " of %" PRIu32 " devices usable", k->usable, k->total);
	else
		strbuf_addf(out, "%" PRIu32 " of %" PRIu32 " devices usable, %" PRId64 " needed", k->usable, k->total, needed);
	if (k->class_rej == k->total) {
		strbuf_addf(out, "%sno device matches class %s's selectors", sep, rd->class->meta.name);
		sep = "; ";
	} else if (k->class_rej) {
		strbuf_addf(out, "%s%" PRIu32 " do not match class %s's selectors", sep, k->class_rej, rd->class->meta.name);
		sep = "; ";
	}
	if (k->class_err[0]) {
		strbuf_addf(out, " (first CEL error: %s)", k->class_err);
	}
	if (k->req_rej) {
		strbuf_addf(out, "%sthe request's selectors rejected %" PRIu32, sep, k->req_rej);
		if (k->req_err[0])
			strbuf_addf(out, " (first CEL error: %s)", k->req_err);
		sep = "; ";
	}
	if (k->other_node) {
		strbuf_addf(out, "%s%" PRIu32 " not available on this node (per-device node selection)", sep, k->other_node);
		sep = "; ";
	}
	if (k->allocated) {
		strbuf_addf(out, "%s%" PRIu32 " already allocated", sep, k->allocated);
		const char *osep = " (to claims ";
		for (uint32_t o = 0; o < k->n_owners; o++) {
			strbuf_addf(out, "%s%s", osep, k->owners[o]);
			osep = ", ";
		}
		if (k->more_owners)
			strbuf_addf(out, " and %" PRIu32 " more", k->more_owners);
		if (k->in_flight)
			strbuf_puts(out, k->n_owners ? "; and to claims being bound now" : " (to claims being bound now");
		if (k->n_owners || k->in_flight)
			strbuf_puts(out, ")");
		sep = "; ";
	}
	if (k->tainted) {
		strbuf_addf(out, "%s%" PRIu32 " have a taint the request does not tolerate", sep, k->tainted);
		if (k->taint)
			strbuf_addf(out, " (%s%s%s:%s)", k->taint->key ? k->taint->key : "",
				    k->taint->value && k->taint->value[0] ? "=" : "", k->taint->value ? k->taint->value : "",
				    k->taint->effect_text ? k->taint->effect_text : "");
		sep = "; ";
	}
	if (k->counters) {
		strbuf_addf(out, "%s%" PRIu32 " lack counters (their shared counter sets are used up)", sep, k->counters);
		sep = "; ";
	}
	if (k->capacity) {
		strbuf_addf(out, "%s%" PRIu32 " lack the requested capacity", sep, k->capacity);
		if (k->cap_err[0])
			strbuf_addf(out, " (%s)", k->cap_err);
	}
	strbuf_puts(out, "\n");
}

/* One trial search with only the constraints keep() selects. 1 found, 0 not, E_TIMEOUT, or
 * negative with e (prepare's error included). */
static int diag_search(struct dra_allocator *a, const struct api_node *node, const struct api_resource_claim *const *claims,
		       uint32_t n, int32_t only_claim, int32_t only_cons, struct err *e)
{
	struct alloc al;
	bool prepared;
	int rc = alloc_begin(&al, a, node, claims, n, mono_ns() + DIAG_SEARCH_NS, e, &prepared);
	if (rc == 0) {
		for (uint32_t ci = 0; ci < n; ci++) {
			if ((int32_t)ci != only_claim) {
				al.cs[ci].n_cons = 0;
			} else if (only_cons >= 0) {
				al.cs[ci].cons[0] = al.cs[ci].cons[only_cons];
				al.cs[ci].n_cons = 1;
			}
		}
		rc = allocate_one(&al, 0, 0, 0, 0, false, (struct loc){ 0, 0, 0 });
	}
	alloc_end(&al);
	return rc;
}

static void diag_constraint_name(struct strbuf *out, const char *kobj, uint32_t i, const struct api_dra_constraint *c)
{
	strbuf_addf(out, "claim %s, constraint #%" PRIu32 " (%s %s", kobj, i,
		    c->match_attribute ? "matchAttribute" : "distinctAttribute",
		    c->match_attribute ? c->match_attribute : c->distinct_attribute);
	if (c->n_requests) {
		strbuf_puts(out, " over requests");
		for (uint32_t r = 0; r < c->n_requests; r++)
			strbuf_addf(out, "%s%s", r ? ", " : " ", c->requests[r]);
	}
	strbuf_puts(out, ")");
}

int dra_allocator_diagnose(struct dra_allocator *a, const struct api_node *node,
			   const struct api_resource_claim *const *claims, uint32_t n,
			   const struct api_resource_claim *const *owners, uint32_t n_owners, struct strbuf *out,
			   struct err *e)
{
	struct alloc al;
	struct err pe = { 0 };
	bool prepared, short_request = false;
	int rc = alloc_begin(&al, a, node, claims, n, 0, &pe, &prepared);
	if (rc < 0) {
		if (pe.code == ERR_NOMEM) {
			rc = err_set(e, ERR_NOMEM, "%s", pe.msg);
			goto out;
		}
		/* the allocator refuses the claims before searching: its error is the answer */
		strbuf_addf(out, "the allocator rejects the claims: %s\n", pe.msg);
		rc = 0;
		goto out;
	}
	al.e = &pe;
	for (uint32_t pi = 0; pi < al.n_pools; pi++) {
		const struct dra_pool *p = &al.pools[pi];
		if (p->incomplete)
			strbuf_addf(out, "resource pool %s/%s is being updated (not all of its slices are published): its devices are not used\n",
				    p->driver, p->pool);
		else if (p->invalid)
			strbuf_addf(out, "resource pool %s/%s is invalid (%s): its devices are not used\n", p->driver, p->pool,
				    p->invalid_reason ? p->invalid_reason : "");
	}
	for (uint32_t ci = 0; ci < n; ci++) {
		struct claim_state *cs = &al.cs[ci];
		for (uint32_t ri = 0; ri < cs->n_req; ri++) {
			struct request *rq = &cs->reqs[ri];
			bool any_ok = false;
			for (uint32_t s = 0; s < rq->n_sub; s++) {
				struct reqdata *rd = &rq->subs[s];
				struct diag_counts k;
				if ((rc = diag_request(&al, ci, rd, owners, n_owners, &k)) < 0) {
					rc = err_set(e, ERR_NOMEM, "%s", pe.msg);
					goto out;
				}
				bool all = rd->r->allocation_mode == API_DRA_MODE_ALL;
				/* All: every matching device (rd->n_all, selectors and capacity) must be usable */
				bool ok = all ? rd->n_all > 0 && k.usable >= rd->n_all : k.usable >= (uint32_t)rd->num_devices;
				if (!ok || rq->n_sub > 1) {
					diag_counts_line(out, &al, ci, rd, &k, rd->num_devices);
					if (all && !rd->n_all && k.total)
						strbuf_addf(out, "claim %s, request %s: allocationMode All, but no device matches\n",
							    cs->kobj, rd->full_name);
				}
				any_ok = any_ok || ok;
			}
			if (!any_ok) {
				short_request = true;
				if (rq->n_sub > 1)
					strbuf_addf(out, "claim %s, request %s: none of its %" PRIu32 " firstAvailable subrequests can be satisfied\n",
						    cs->kobj, rq->subs[0].parent->name, rq->n_sub);
			}
		}
	}
	if (short_request)
		goto out;
	/* every request alone has devices enough: the search decides, without the constraints and
	 * then with one at a time */
	err_clear(&pe);
	rc = diag_search(a, node, claims, n, -1, -1, &pe);
	if (rc == 0) {
		strbuf_puts(out, "each request alone has devices enough, but not all of them together: they compete for the same devices or shared counters\n");
		goto out;
	}
	if (rc != 1)
		goto search_failed;
	bool named = false;
	for (uint32_t ci = 0; ci < n; ci++)
		for (uint32_t i = 0; i < al.cs[ci].n_cons; i++) {
			err_clear(&pe);
			rc = diag_search(a, node, claims, n, (int32_t)ci, (int32_t)i, &pe);
			if (rc == 1)
				continue;
			if (rc != 0)
				goto search_failed;
			diag_constraint_name(out, al.cs[ci].kobj, i, al.cs[ci].cons[i].c);
			strbuf_puts(out, ": no choice of the usable devices satisfies it\n");
			named = true;
		}
	if (!named)
		strbuf_puts(out, "the claims' constraints are satisfiable one by one, but not together\n");
	rc = 0;
	goto out;
search_failed:
	if (rc == E_MAX_SIZE) {
		strbuf_puts(out, "the claims need more than 32 devices (allocation max size exceeded)\n");
		rc = 0;
	} else if (rc == E_TIMEOUT) {
		strbuf_puts(out, "each request alone has devices enough; the search for a combination timed out\n");
		rc = 0;
	} else if (pe.code == ERR_NOMEM || rc == ERR_NOMEM) {
		rc = err_set(e, ERR_NOMEM, "dra diagnosis: out of memory");
	} else {
		strbuf_addf(out, "the allocator fails: %s\n", pe.msg);
		rc = 0;
	}
out:
	alloc_end(&al);
	if (!rc && out->oom)
		rc = err_set(e, ERR_NOMEM, "dra diagnosis: out of memory");
	return rc;
}
