/* The allocated state (upstream structured/schedulerapi AllocatedState, filled as
 * dynamicresources/allocateddevices.go foreachAllocatedDevice does with DRAConsumableCapacity on)
 * and the small maps the allocator keys by device id. */
#include <stdlib.h>
#include <string.h>

#include "dra_internal.h"
#include "common/err.h"

/* ---------- Device maps ---------- */

static uint32_t dmap_hash(const char *d, const char *p, const char *v)
{
	/* the strings are interned: their addresses identify them */
	uint64_t h = (uint64_t)(uintptr_t)d * 0x9E3779B97F4A7C15ull;
	h ^= (uint64_t)(uintptr_t)p * 0xC2B2AE3D27D4EB4Full + (h >> 29);
	h ^= (uint64_t)(uintptr_t)v * 0x165667B19E3779F9ull + (h >> 32);
	h ^= h >> 31;
	return (uint32_t)h;
}

void dra_dmap_init(struct dra_dmap *m)
{
	memset(m, 0, sizeof(*m));
}

void dra_dmap_release(struct dra_dmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

bool dra_dmap_get(const struct dra_dmap *m, const char *driver, const char *pool, const char *device, uint32_t *val)
{
	if (!m->cap)
		return false;
	for (uint32_t i = dmap_hash(driver, pool, device) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		const struct dra_dmap_slot *s = &m->slots[i];
		if (!s->driver)
			return false;
		if (s->driver == driver && s->pool == pool && s->device == device) {
			*val = s->val;
			return true;
		}
	}
}

static void dmap_insert(struct dra_dmap_slot *slots, uint32_t cap, const struct dra_dmap_slot *in)
{
	uint32_t i = dmap_hash(in->driver, in->pool, in->device) & (cap - 1);
	while (slots[i].driver)
		i = (i + 1) & (cap - 1);
	slots[i] = *in;
}

int dra_dmap_put(struct dra_dmap *m, const char *driver, const char *pool, const char *device, uint32_t val)
{
	if ((m->n + 1) * 2 > m->cap) { /* load factor <= 1/2 */
		uint32_t cap = m->cap ? m->cap * 2 : 16;
		struct dra_dmap_slot *slots = calloc(cap, sizeof(*slots));
		if (!slots)
			return ERR_NOMEM;
		for (uint32_t i = 0; i < m->cap; i++)
			if (m->slots[i].driver)
				dmap_insert(slots, cap, &m->slots[i]);
		free(m->slots);
		m->slots = slots;
		m->cap = cap;
	}
	struct dra_dmap_slot s = { driver, pool, device, val };
	dmap_insert(m->slots, m->cap, &s);
	m->n++;
	return 0;
}

/* ---------- Amounts ---------- */

int dra_amounts_add(struct dra_amounts *a, const char *name, int64_t milli)
{
	for (uint32_t i = 0; i < a->n; i++)
		if (a->v[i].name == name) {
			a->v[i].milli += milli;
			return 0;
		}
	if (a->n == a->cap) {
		uint32_t cap = a->cap ? a->cap * 2 : 4;
		struct dra_amount *v = realloc(a->v, cap * sizeof(*v));
		if (!v)
			return ERR_NOMEM;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = (struct dra_amount){ name, milli };
	return 0;
}

int64_t dra_amounts_get(const struct dra_amounts *a, const char *name, bool *found)
{
	for (uint32_t i = 0; a && i < a->n; i++)
		if (a->v[i].name == name) {
			if (found)
				*found = true;
			return a->v[i].milli;
		}
	if (found)
		*found = false;
	return 0;
}

void dra_amounts_release(struct dra_amounts *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* ---------- Allocated state ---------- */

struct dra_allocated_state {
	struct dra_dmap index; /* device id -> devs[i] */
	uint32_t n, cap;
	struct dra_state_dev *devs;
};

struct dra_allocated_state *dra_allocated_state_new(void)
{
	struct dra_allocated_state *st = calloc(1, sizeof(*st));
	if (st)
		dra_dmap_init(&st->index);
	return st;
}

void dra_allocated_state_free(struct dra_allocated_state *st)
{
	if (!st)
		return;
	for (uint32_t i = 0; i < st->n; i++)
		dra_amounts_release(&st->devs[i].capacity);
	free(st->devs);
	dra_dmap_release(&st->index);
	free(st);
}

static struct dra_state_dev *state_dev(struct dra_allocated_state *st, const char *driver, const char *pool,
				       const char *device)
{
	uint32_t i;
	if (dra_dmap_get(&st->index, driver, pool, device, &i))
		return &st->devs[i];
	if (st->n == st->cap) {
		uint32_t cap = st->cap ? st->cap * 2 : 16;
		struct dra_state_dev *v = realloc(st->devs, cap * sizeof(*v));
		if (!v)
			return NULL;
		st->devs = v;
		st->cap = cap;
	}
	if (dra_dmap_put(&st->index, driver, pool, device, st->n) < 0)
		return NULL;
	memset(&st->devs[st->n], 0, sizeof(st->devs[0]));
	return &st->devs[st->n++];
}

int dra_allocated_state_add(struct dra_allocated_state *st, const struct api_dra_allocation *allocation)
{
	return dra_allocated_state_adjust(st, allocation, 1);
}

int dra_allocated_state_adjust(struct dra_allocated_state *st, const struct api_dra_allocation *allocation, int sign)
{
	if (!allocation)
		return 0;
	for (uint32_t i = 0; i < allocation->n_results; i++) {
		const struct api_dra_device_result *r = &allocation->results[i];
		if (r->has_admin_access && r->admin_access)
			continue; /* not considered allocated */
		struct dra_state_dev *d;
		if (sign > 0) {
			d = state_dev(st, r->driver, r->pool, r->device);
			if (!d)
				return ERR_NOMEM;
		} else {
			uint32_t k;
			if (!dra_dmap_get(&st->index, r->driver, r->pool, r->device, &k))
				continue; /* never added: nothing to take out */
			d = &st->devs[k];
		}
		if (!r->share_id) {
			d->n_dedicated = sign > 0 ? d->n_dedicated + 1 : d->n_dedicated - (d->n_dedicated > 0);
			d->dedicated = d->n_dedicated > 0;
			continue;
		}
		d->n_shared = sign > 0 ? d->n_shared + 1 : d->n_shared - (d->n_shared > 0);
		d->shared = d->n_shared > 0;
		if (!r->n_consumed_capacity)
			continue; /* upstream: ConsumedCapacity nil adds no aggregated entry */
		d->n_capacity = sign > 0 ? d->n_capacity + 1 : d->n_capacity - (d->n_capacity > 0);
		d->has_capacity = d->n_capacity > 0;
		if (!d->has_capacity) {
			d->capacity.n = 0; /* the last consumer left: no aggregated entry, as upstream deletes it */
			continue;
		}
		for (uint32_t j = 0; j < r->n_consumed_capacity; j++)
			if (dra_amounts_add(&d->capacity, r->consumed_capacity[j].name,
					    sign * r->consumed_capacity[j].value.milli) < 0)
				return ERR_NOMEM;
	}
	return 0;
}

struct dra_allocated_state *dra_allocated_state_copy(const struct dra_allocated_state *st)
{
	struct dra_allocated_state *cp = dra_allocated_state_new();
	if (!cp)
		return NULL;
	if (st->index.cap) {
		cp->index.slots = malloc(st->index.cap * sizeof(*cp->index.slots));
		if (!cp->index.slots)
			goto nomem;
		memcpy(cp->index.slots, st->index.slots, st->index.cap * sizeof(*cp->index.slots));
		cp->index.cap = st->index.cap;
		cp->index.n = st->index.n;
	}
	if (st->n) {
		/* the devices keep their indexes: the index's values stay valid */
		cp->devs = malloc(st->cap * sizeof(*cp->devs));
		if (!cp->devs)
			goto nomem;
		cp->cap = st->cap;
		for (uint32_t i = 0; i < st->n; i++) {
			cp->devs[i] = st->devs[i];
			memset(&cp->devs[i].capacity, 0, sizeof(cp->devs[i].capacity));
			cp->n = i + 1;
			const struct dra_amounts *a = &st->devs[i].capacity;
			if (!a->n)
				continue;
			cp->devs[i].capacity.v = malloc(a->n * sizeof(*a->v));
			if (!cp->devs[i].capacity.v)
				goto nomem;
			memcpy(cp->devs[i].capacity.v, a->v, a->n * sizeof(*a->v));
			cp->devs[i].capacity.n = cp->devs[i].capacity.cap = a->n;
		}
	}
	return cp;
nomem:
	dra_allocated_state_free(cp);
	return NULL;
}

const struct dra_state_dev *dra_allocated_state_find(const struct dra_allocated_state *st, const char *driver,
						     const char *pool, const char *device)
{
	uint32_t i;
	if (!st || !dra_dmap_get(&st->index, driver, pool, device, &i))
		return NULL;
	return &st->devs[i];
}

bool dra_allocated_state_has(const struct dra_allocated_state *st, const char *driver, const char *pool,
			     const char *device)
{
	const struct dra_state_dev *d = dra_allocated_state_find(st, driver, pool, device);
	return d && d->dedicated;
}

bool dra_allocated_state_any(const struct dra_allocated_state *st, const char *driver, const char *pool,
			     const char *device)
{
	const struct dra_state_dev *d = dra_allocated_state_find(st, driver, pool, device);
	return d && (d->dedicated || d->shared || d->has_capacity);
}
