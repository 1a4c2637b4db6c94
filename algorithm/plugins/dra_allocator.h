/* The structured-parameters device allocator (k8s.io/dynamic-resource-allocation v0.37.2
 * structured/, the "incubating" variant that v1.37's default feature gates select: AdminAccess,
 * PrioritizedList, PartitionableDevices, DeviceTaints, DeviceBindingAndStatus,
 * ConsumableCapacity, FractionalCapacityRange). Private to algorithm/: DynamicResources and the
 * explain/devices tooling use it.
 *
 * One allocator is made per scheduling cycle (upstream PreFilter's NewAllocator) from the
 * allocated state, the slices and the class lister, and then asked per node (Filter, from several
 * pool threads at once: dra_allocator_allocate is thread-safe, the allocator itself is read only
 * after dra_allocator_new). */
#ifndef CSCHED_DRA_ALLOCATOR_H
#define CSCHED_DRA_ALLOCATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "apiclient/api_types.h"
#include "common/err.h"

struct arena;
struct strbuf;

/* upstream structured.Features */
struct dra_features {
	bool admin_access, prioritized_list, partitionable_devices, device_taints;
	bool device_binding_and_status, consumable_capacity, fractional_capacity_range;
};

/* v1.37.2's default gates (all of the above on). */
extern const struct dra_features dra_features_default;

/* ---------- Allocated state (upstream schedulerapi.AllocatedState) ---------- */

/* The devices already handed out: allocated in claims' statuses, assumed, or in flight
 * (Reserve..PreBind). Devices are (driver, pool, device) of interned strings. A device that
 * allows multiple allocations is recorded by share id with its consumed capacity instead. */
struct dra_allocated_state;

/* A version 4 UUID (upstream uuid.NewUUID) into buf (37 bytes): share ids of allocated devices,
 * the uid of DRAExtendedResource's in-memory claim. */
void dra_uuid_v4(char *buf);

struct dra_allocated_state *dra_allocated_state_new(void);
void dra_allocated_state_free(struct dra_allocated_state *st); /* NULL is a no-op */
/* Adds every device of allocation (upstream GatherAllocatedState / allocateddevices.go: a result
 * without share id marks the device allocated; with one, the shared id plus its consumed
 * capacity are aggregated). Results with adminAccess are skipped (they do not block others).
 * 0 or ERR_NOMEM. */
int dra_allocated_state_add(struct dra_allocated_state *st, const struct api_dra_allocation *allocation);
/* Adds (sign 1) or takes back out (sign -1, an allocation added before) allocation's devices:
 * upstream allocateddevices.go's tracker applying a claim event. 0, or ERR_NOMEM. */
int dra_allocated_state_adjust(struct dra_allocated_state *st, const struct api_dra_allocation *allocation, int sign);
/* A copy of st (new: dra_allocated_state_free), or NULL on out of memory. */
struct dra_allocated_state *dra_allocated_state_copy(const struct dra_allocated_state *st);
/* Whether the device is allocated exclusively (AllocatedDevices). */
bool dra_allocated_state_has(const struct dra_allocated_state *st, const char *driver, const char *pool,
			     const char *device);

/* ---------- Selector programs ---------- */

/* Compiled CEL selectors keyed by expression (upstream cel.Cache), shared by every cycle and
 * thread; made once per plugin instance. */
struct dra_cel_cache;
struct dra_cel_cache *dra_cel_cache_new(uint32_t max_entries);
void dra_cel_cache_free(struct dra_cel_cache *cc);

/* ---------- The allocator ---------- */

/* DeviceClass lookup (upstream DeviceClassLister.Get): a new reference, or NULL when the class
 * does not exist. */
typedef struct api_device_class *(*dra_class_fn)(void *ctx, const char *name);

struct dra_allocator;

/* Takes references to the slices (n of them; the caller keeps its own) and borrows st, cc and
 * the class lookup, which must outlive the allocator. Slices are used as given: the caller has
 * already applied DeviceTaintRules (upstream ListWithDeviceTaintRules). Validates pools as
 * upstream's GatherPools does lazily. NULL with e on out of memory. */
struct dra_allocator *dra_allocator_new(const struct dra_features *f, const struct dra_allocated_state *st,
					dra_class_fn class_fn, void *class_ctx, struct api_resource_slice *const *slices,
					uint32_t n, struct dra_cel_cache *cc, struct err *e);
void dra_allocator_free(struct dra_allocator *a); /* NULL is a no-op */

enum dra_result {
	DRA_ALLOCATED = 0,      /* out[0..n) hold one allocation per claim */
	DRA_UNSCHEDULABLE = 1,  /* the claims do not fit this node (upstream: nil result, or an error
				 * wrapping ErrFailedAllocationOnNode, whose text is in e->msg;
				 * e->msg is "" for the plain nil result) */
	DRA_ERROR = -1,         /* a fatal error (CEL compile or runtime error, invalid claim, ...):
				 * e->msg is upstream's error text */
	DRA_TIMEOUT = -2,       /* deadline passed (upstream context.DeadlineExceeded) */
};

/* upstream Allocator.Allocate for node: allocates claims[0..n) (all unallocated) together.
 * On DRA_ALLOCATED, out[i] is claim i's allocation (results in upstream's order, config from
 * the classes then the claim, node selector as createNodeSelector makes it), everything in
 * arena (the caller's, e.g. the cycle's or a node's). deadline_ns: CLOCK_MONOTONIC nanoseconds
 * after which the allocation gives up (0 = none). Thread-safe. */
enum dra_result dra_allocator_allocate(struct dra_allocator *a, const struct api_node *node,
				       const struct api_resource_claim *const *claims, uint32_t n, int64_t deadline_ns,
				       struct arena *arena, struct api_dra_allocation *out, struct err *e);

/* Why dra_allocator_allocate finds no allocation of claims[0..n) on node, for `csched explain`
 * (never called by a scheduling cycle): appends to out one line ('\n'-ended) per request that
 * cannot be satisfied, counting the node's devices under the first check of the allocator's that
 * rejects them (class selectors, request selectors with the first CEL error, per-device node
 * selection, allocated already with the owning claims among owners[0..n_owners) as ns/name,
 * untolerated taint, shared counters, consumable capacity), plus a line per resource pool that
 * is incomplete or invalid; when every request alone has enough devices, it reruns the search
 * without constraints and with one at a time and names the matchAttribute/distinctAttribute
 * constraint that fails. The allocator's own error (unknown class, ...) is reported as a line.
 * Thread-safe as dra_allocator_allocate. 0, or ERR_NOMEM with e. */
int dra_allocator_diagnose(struct dra_allocator *a, const struct api_node *node,
			   const struct api_resource_claim *const *claims, uint32_t n,
			   const struct api_resource_claim *const *owners, uint32_t n_owners, struct strbuf *out,
			   struct err *e);

/* ---------- Helpers the plugin shares with the allocator ---------- */

/* upstream ResourceSlices().ListWithDeviceTaintRules for one slice: s with the taints of the
 * matching rules (driver, pool, device; NULL = any) appended to its devices' taints. Returns a
 * new reference: s itself when no rule matches, else a patched copy. NULL with e on out of
 * memory. */
struct api_resource_slice *dra_slice_with_taint_rules(struct api_resource_slice *s,
						      const struct api_device_taint_rule *const *rules, uint32_t n,
						      struct err *e);

/* Whether device d of slice s satisfies the CEL selectors exprs[0..n) (evaluated in order, as
 * upstream's selectorsMatch binds a device: driver, allowMultipleAllocations, attributes and
 * capacity by domain). DRA_ALLOCATED: all match; DRA_UNSCHEDULABLE: one does not (e->msg empty);
 * DRA_ERROR: a compile or runtime error, e->msg upstream's text with "selector #i". Used by
 * `csched devices` and explain. */
enum dra_result dra_device_matches(struct dra_cel_cache *cc, const struct api_resource_slice *s,
				   const struct api_dra_device *d, const char *const *exprs, uint32_t n, struct err *e);
/* upstream's DeviceTaint/Toleration rule: whether t tolerates taint. */
bool dra_toleration_tolerates(const struct api_dra_toleration *t, const struct api_dra_taint *taint);
/* Whether a slice (or, with per-device node selection, a device) is available on node (upstream
 * NodeMatches: nodeName, nodeSelector, allNodes). */
bool dra_slice_matches_node(const struct api_resource_slice *s, const struct api_node *node);
bool dra_device_matches_node(const struct api_resource_slice *s, const struct api_dra_device *d,
			     const struct api_node *node);

#endif
