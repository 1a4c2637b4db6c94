/* The structured allocator's pieces (dra_allocator.c, dra_pools.c, dra_capacity.c, dra_state.c,
 * dra_cel.c), private to algorithm/plugins. Upstream: k8s.io/dynamic-resource-allocation v0.37.2
 * structured/internal/incubating and structured/internal/allocatedstate.go. */
#ifndef CSCHED_ALGORITHM_DRA_INTERNAL_H
#define CSCHED_ALGORITHM_DRA_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "dra_allocator.h"

/* ---------- Device maps ---------- */

/* An open-addressing map from a device id (driver, pool, device: interned, compared by pointer)
 * to a caller-defined uint32_t (an index into the caller's array). Entries are never removed: a
 * caller marks an entry unused in its own array. Not thread-safe. */
struct dra_dmap_slot {
	const char *driver, *pool, *device; /* driver NULL: empty slot */
	uint32_t val;
};
struct dra_dmap {
	uint32_t cap, n;
	struct dra_dmap_slot *slots;
};
void dra_dmap_init(struct dra_dmap *m);
void dra_dmap_release(struct dra_dmap *m);
bool dra_dmap_get(const struct dra_dmap *m, const char *driver, const char *pool, const char *device, uint32_t *val);
/* Inserts (the key must not be there yet). 0 or ERR_NOMEM. */
int dra_dmap_put(struct dra_dmap *m, const char *driver, const char *pool, const char *device, uint32_t val);

/* ---------- Capacity amounts ---------- */

/* A consumed or aggregated amount per capacity name, in milli units. */
struct dra_amount {
	const char *name; /* interned */
	int64_t milli;
};
/* A small map name -> amount (upstream ConsumedCapacity), sorted by name pointer order of
 * insertion; present: the entry exists at all (an empty one still counts, as upstream's map key). */
struct dra_amounts {
	uint32_t n, cap;
	struct dra_amount *v;
};
int dra_amounts_add(struct dra_amounts *a, const char *name, int64_t milli); /* 0 or ERR_NOMEM */
int64_t dra_amounts_get(const struct dra_amounts *a, const char *name, bool *found);
void dra_amounts_release(struct dra_amounts *a);

/* ---------- Allocated state internals (dra_state.c) ---------- */

/* What the allocated state records for one device. */
struct dra_state_dev {
	bool dedicated;     /* AllocatedDevices */
	bool shared;        /* some AllocatedSharedDeviceIDs entry names it */
	bool has_capacity;  /* AggregatedCapacity has it */
	struct dra_amounts capacity;
	/* how many results set each flag: a flag is its count > 0, so that an allocation can be
	 * taken back out (dra_allocated_state_adjust) */
	uint32_t n_dedicated, n_shared, n_capacity;
};
/* The device's record, or NULL. */
const struct dra_state_dev *dra_allocated_state_find(const struct dra_allocated_state *st, const char *driver,
						     const char *pool, const char *device);
/* upstream internal.IsDeviceAllocated: dedicated, shared or with aggregated capacity. */
bool dra_allocated_state_any(const struct dra_allocated_state *st, const char *driver, const char *pool,
			     const char *device);

/* ---------- Consumable capacity (dra_capacity.c) ---------- */

/* A consumed amount: its milli value and the text written into results. */
struct dra_consumed {
	const char *name; /* interned */
	int64_t milli;
	const char *s; /* a quantity's own text, or buf */
	char buf[40];
};

/* upstream CmpRequestOverCapacity: whether request r fits device d given the capacity already
 * consumed (allocated, may be NULL) and being allocated in this call (allocating, may be NULL).
 * 1 fits, 0 does not, negative with e->msg (upstream's "capacity \"x\": ...") on error. */
int dra_capacity_fits(const struct dra_amounts *allocated, const struct api_dra_device_request *r,
		      const struct api_dra_device *d, const struct dra_amounts *allocating, bool fractional,
		      struct err *e);
/* upstream GetConsumedCapacityFromRequest: one entry per device capacity into out[0..d->n_capacity).
 * 0 or negative with e->msg. */
int dra_capacity_consumed(const struct api_dra_device_request *r, const struct api_dra_device *d, bool fractional,
			  struct dra_consumed *out, struct err *e);

/* ---------- CEL (dra_cel.c) ---------- */

struct dra_cel_entry;
struct dra_cel_eval;

/* A device bound as upstream's DeviceMatches binds it (owns its CEL maps and objects). */
struct dra_bound_device;
/* NULL with e on out of memory or an attribute that does not convert (upstream: "attribute x:
 * parse semantic version: ..."). */
struct dra_bound_device *dra_bound_device_new(const char *driver, const struct api_dra_device *d, struct err *e);
void dra_bound_device_free(struct dra_bound_device *b);

/* The CEL views of one ResourceSlice's devices, kept by the cache across pods (refcounted):
 * each cached selector's result per device, and the device's view where an uncached selector
 * needed it (dra_cel.c's DESIGN). */
struct dra_slice_views;
/* out[i]: a reference to the views of slices[i] (of its base for a DeviceTaintRules copy: the
 * view has no taints), made on first sight of the slice. 0, or ERR_NOMEM with e (out untouched
 * past what was released). Thread-safe. */
int dra_cel_views_acquire(struct dra_cel_cache *cc, struct api_resource_slice *const *slices, uint32_t n,
			  struct dra_slice_views **out, struct err *e);
void dra_slice_views_unref(struct dra_slice_views *v);
/* How many slices the cache keeps views for (tests: that dropped slices' views go). */
uint32_t dra_cel_views_len(struct dra_cel_cache *cc);
/* Selector ent (from v's cache) on device i of the views' slice (the same index in a
 * DeviceTaintRules copy), as dra_cel_eval_device on the device bound as DeviceMatches binds it:
 * 1 match, 0 no match, negative with e (the device's bind error as ERR_INVALID, the runtime error,
 * or ERR_NOMEM). A cached entry's result is remembered: the device is bound for it once.
 * Thread-safe. */
int dra_slice_views_eval(struct dra_slice_views *v, uint32_t i, struct dra_cel_eval *ev,
			 const struct dra_cel_entry *ent, struct err *e);
/* dra_bound_device_matches on device i of the views' slice (through dra_slice_views_eval). */
enum dra_result dra_slice_views_matches(struct dra_cel_cache *cc, struct dra_cel_eval *ev, struct dra_slice_views *v,
					uint32_t i, const char *const *exprs, uint32_t n, struct err *e);
/* How many devices of v have a kept view (tests: cached selectors keep none). */
uint32_t dra_slice_views_kept(struct dra_slice_views *v);
/* How many cached selectors' results device i of v remembers (tests: that results are kept). */
uint32_t dra_slice_views_remembered(struct dra_slice_views *v, uint32_t i);

/* The allocator's slice-derived part (dra_allocator.c): pools grouped and prepared, CEL views.
 * Immutable, refcounted. */
struct dra_inventory;
struct dra_inventory *dra_inventory_ref(struct dra_inventory *inv);
void dra_inventory_unref(struct dra_inventory *inv);
/* Whether inv was built from exactly these slice objects, in this order, with features f. */
bool dra_inventory_matches(const struct dra_inventory *inv, const struct dra_features *f,
			   struct api_resource_slice *const *slices, uint32_t n);
/* The cache keeps the last inventory built: a reference to it when it matches (f, slices, n),
 * else NULL. Thread-safe. */
struct dra_inventory *dra_cel_inventory_get(struct dra_cel_cache *cc, const struct dra_features *f,
					    struct api_resource_slice *const *slices, uint32_t n);
/* Makes inv the kept inventory (taking a reference; the previous one is released). */
void dra_cel_inventory_keep(struct dra_cel_cache *cc, struct dra_inventory *inv);

/* A compiled selector (or its compile error), owned by the cache. */
struct dra_cel_entry;
/* The cache's entry for expr (compiling it on a miss). NULL with e on out of memory. *program_err
 * is set to the compile error text or NULL. When the cache is full, the entry is made for the
 * caller, who frees it with dra_cel_entry_release (a no-op for cached entries). */
struct dra_cel_entry *dra_cel_get(struct dra_cel_cache *cc, const char *expr, const char **compile_err,
				  struct err *e);
void dra_cel_entry_release(struct dra_cel_cache *cc, struct dra_cel_entry *ent);
/* Whether the cache keeps ent (no release needed). */
bool dra_cel_entry_cached(const struct dra_cel_entry *ent);
/* Per-thread evaluation state. */
struct dra_cel_eval;
struct dra_cel_eval *dra_cel_eval_new(struct dra_cel_cache *cc);
void dra_cel_eval_free(struct dra_cel_eval *ev);
/* Evaluates ent against b: 1 match, 0 no match, negative with e->msg the runtime error text
 * (already EnhanceRuntimeError'd). */
int dra_cel_eval_device(struct dra_cel_eval *ev, const struct dra_cel_entry *ent, const struct dra_bound_device *b,
			struct err *e);

/* dra_device_matches (dra_allocator.h) over a device already bound (b, of device d of slice s)
 * with the caller's evaluation state ev: no allocation per device. */
enum dra_result dra_bound_device_matches(struct dra_cel_cache *cc, struct dra_cel_eval *ev,
					 const struct dra_bound_device *b, const struct api_resource_slice *s,
					 const struct api_dra_device *d, const char *const *exprs, uint32_t n, struct err *e);

/* ---------- The allocated state outside DynamicResources (dynamic_resources.c) ---------- */

struct fw_pl;
/* upstream SharedDRAManager().ResourceClaims().GatherAllocatedState() for a plugin of a profile
 * other than DynamicResources (NodeResourcesFit's and BalancedAllocation's DRA-backed extended
 * resources): the profile's DynamicResources tracker (informer claims, assumed claims, in-flight
 * allocations) when the profile runs that plugin, else the devices of the claims in pl's claim
 * lister. New (dra_allocated_state_free), or NULL with e on out of memory. */
struct dra_allocated_state *dra_gather_allocated_for(const struct fw_pl *pl, struct err *e);

/* ---------- Node matching (dra_pools.c) ---------- */

/* upstream NodeMatches(node, nodeName, allNodes, nodeSelector) */
bool dra_node_matches(const struct api_node *node, const char *node_name, bool all_nodes,
		      const struct api_node_selector *sel);

/* upstream Allocator.GetStats().NumAllocateOneInvocations: the search steps taken so far by
 * every dra_allocator_allocate call on a (tests check the search order with it). */
int64_t dra_allocator_invocations(const struct dra_allocator *a);

/* "ns/name" as klog.KObj prints it ("name" when namespace is empty) into buf. */
const char *dra_kobj(const struct api_meta *m, char *buf, unsigned size);

/* ---------- Pools (dra_pools.c) ---------- */

struct arena;

/* upstream Pool: one (driver, pool) as gathered for a node. Slices by name; pointers borrowed
 * from the allocator's slices. */
struct dra_pool {
	const char *driver, *pool; /* interned */
	bool incomplete, invalid;
	char *invalid_reason; /* scratch arena */
	uint32_t n_target, n_not_target, n_counter_sets;
	const struct api_resource_slice **target;     /* DeviceSlicesTargetingNode */
	const struct api_resource_slice **not_target; /* DeviceSlicesNotTargetingNode */
	const struct api_dra_counter_set **counter_sets;
	uint32_t *target_base; /* per target slice: its first device's index in this call's devices */
};

/* The slices of one (driver, pool) among all the allocator's slices, grouped once by
 * dra_allocator_new. */
struct dra_pool_group {
	const char *driver, *pool;
	bool has_shared; /* a slice without nodeName */
	uint32_t n;
	const struct api_resource_slice **slices; /* in the allocator's order */
	/* The pool as gathered when every slice of the highest generation is relevant and they are
	 * resourceSliceCount many (the common case): built and validated once by
	 * dra_allocator_new (dra_pool_group_prepare); NULL when that case cannot arise. */
	struct dra_pool *full;
	int64_t full_generation;
	uint32_t n_full; /* slices at full_generation */
};

/* Builds g->full in a (the allocator's arena). 0 or ERR_NOMEM. */
int dra_pool_group_prepare(const struct dra_features *f, struct dra_pool_group *g, struct arena *a);

/* upstream GatherPools for node over the groups groups[idx[0..n_idx)] (the groups holding a
 * slice for node.Name or one without nodeName): pools sorted by (driver, pool), those with binding
 * conditions last; *n_devices: the devices of their target slices (numbered by target_base).
 * Everything in scratch. 0, or a negative code with e (out of memory). */
int dra_gather_pools(const struct dra_features *f, const struct api_node *node, const struct dra_pool_group *groups,
		     const uint32_t *idx, uint32_t n_idx, struct arena *scratch, struct dra_pool **out, uint32_t *n_out,
		     uint32_t *n_devices, struct err *e);

#endif
