/* resource.k8s.io/v1 (Dynamic Resource Allocation): ResourceClaims, ResourceSlices, DeviceClasses
 * and DeviceTaintRules, reduced to what the DynamicResources plugin, its allocator and
 * `csched devices` read. Included by api_types.h; not meant to be included alone.
 *
 * Like every decoded object: refcounted (atomic refs, _ref/_unref), immutable once decoded,
 * everything it points to in its arena. Names the allocator compares (drivers, pools, devices,
 * classes, attribute and capacity names, request names) are interned, so they compare by
 * pointer; other strings live in the arena. A map of the API (attributes, capacity, counters) is
 * an array sorted by name (strcmp), as Go's encoding/json orders map keys; an absent or empty
 * list is n = 0 with a NULL pointer. */
#ifndef CSCHED_API_DRA_H
#define CSCHED_API_DRA_H

#include <stdbool.h>
#include <stdint.h>

struct arena;

/* A v1.NodeSelector (DRA slices, devices and allocation results use the whole selector): its
 * terms are ORed; no term matches no node (upstream nodeaffinity.NewNodeSelector). */
struct api_node_selector {
	uint32_t n_terms;
	struct api_node_selector_term *terms;
};

/* A resource.Quantity as DRA carries it: the text as served (canonical: the apiserver
 * re-serializes quantities), which CEL's quantity() values and written allocation results are
 * made from, and its MilliValue() (api_quantity_parse) for arithmetic. */
struct api_dra_quantity {
	const char *s; /* arena */
	int64_t milli;
};

/* ---------- ResourceSlice ---------- */

enum api_dra_attr_type {
	API_DRA_ATTR_INT,     /* "int" */
	API_DRA_ATTR_BOOL,    /* "bool" */
	API_DRA_ATTR_STRING,  /* "string" */
	API_DRA_ATTR_VERSION, /* "version": semver text, CEL's semver() parses it */
};

/* One entry of a device's attributes map. The list-typed values (ints, bools, strings,
 * versions: DRAListTypeAttributes, alpha, off in v1.37) are not kept: an attribute with only
 * those is dropped, as the apiserver with the gate off drops the fields. */
struct api_dra_attribute {
	const char *name; /* interned, the map key as served: "domain/id" or "id" (the driver's domain) */
	enum api_dra_attr_type type;
	int64_t i;
	bool b;
	const char *s; /* arena: the string or version text */
};

/* capacity.<name>.requestPolicy (DRAConsumableCapacity). */
struct api_dra_request_policy {
	bool has_default;
	struct api_dra_quantity def;
	uint32_t n_valid_values; /* sorted ascending as the apiserver validates them */
	struct api_dra_quantity *valid_values;
	bool has_valid_range;
	bool has_min, has_max, has_step;
	struct api_dra_quantity min, max, step;
};

struct api_dra_capacity {
	const char *name; /* interned */
	struct api_dra_quantity value;
	const struct api_dra_request_policy *request_policy; /* NULL when absent */
};

struct api_dra_counter {
	const char *name; /* interned */
	struct api_dra_quantity value;
};

/* A CounterSet of spec.sharedCounters, or a device's consumesCounters entry (name = counterSet). */
struct api_dra_counter_set {
	const char *name; /* interned */
	uint32_t n_counters;
	struct api_dra_counter *counters; /* sorted by name */
};

enum api_dra_taint_effect {
	API_DRA_EFFECT_NONE,        /* "None" */
	API_DRA_EFFECT_NO_SCHEDULE, /* "NoSchedule" */
	API_DRA_EFFECT_NO_EXECUTE,  /* "NoExecute" */
	API_DRA_EFFECT_OTHER,       /* another string (kept in effect_text) */
};

struct api_dra_taint {
	const char *key;   /* arena */
	const char *value; /* arena, "" when absent */
	enum api_dra_taint_effect effect;
	const char *effect_text; /* arena, the effect as served */
	bool has_time_added;
	int64_t time_added; /* Unix seconds */
};

enum api_dra_toleration_op {
	API_DRA_TOL_EQUAL,  /* "Equal", and absent */
	API_DRA_TOL_EXISTS, /* "Exists" */
	API_DRA_TOL_OTHER,  /* another string: tolerates nothing (upstream ToleratesTaint's default) */
};

/* A DeviceToleration (a request's, or a result's copy of them). */
struct api_dra_toleration {
	const char *key; /* arena, "" = every key (with Exists) */
	enum api_dra_toleration_op op;
	const char *op_text; /* arena, "" when absent (written back verbatim in results) */
	const char *value;   /* arena, "" when absent */
	const char *effect;  /* arena, "" = every effect */
	bool has_toleration_seconds;
	int64_t toleration_seconds;
};

struct api_dra_device {
	const char *name; /* interned */
	uint32_t n_attributes;
	struct api_dra_attribute *attributes; /* sorted by name */
	uint32_t n_capacity;
	struct api_dra_capacity *capacity; /* sorted by name */
	uint32_t n_consumes_counters;
	struct api_dra_counter_set *consumes_counters; /* in the order served */
	/* Per-device node selection (the slice's perDeviceNodeSelection): exactly one of node_name,
	 * node_selector, all_nodes is set then; all unset otherwise. */
	const char *node_name;                    /* interned, NULL when absent */
	const struct api_node_selector *node_selector; /* NULL when absent */
	bool all_nodes;
	uint32_t n_taints;
	struct api_dra_taint *taints;
	bool binds_to_node; /* bindsToNode, false when absent */
	uint32_t n_binding_conditions, n_binding_failure_conditions;
	const char **binding_conditions, **binding_failure_conditions; /* arena */
	bool allow_multiple_allocations; /* false when absent */
};

struct api_resource_slice {
	int refs;
	struct arena *arena;
	struct api_meta meta; /* cluster-scoped: namespace "" */
	const char *driver;    /* interned */
	const char *pool_name; /* interned */
	int64_t pool_generation;
	int64_t pool_slice_count; /* pool.resourceSliceCount */
	/* Exactly one of these is set (the apiserver validates it): */
	const char *node_name;                    /* interned, NULL when absent */
	const struct api_node_selector *node_selector; /* NULL when absent */
	bool all_nodes;
	bool per_device_node_selection;
	uint32_t n_devices;
	struct api_dra_device *devices; /* in the order served */
	uint32_t n_shared_counters;
	struct api_dra_counter_set *shared_counters;
	/* A copy made by dra_slice_with_taint_rules (DeviceTaintRules applied): the slice whose
	 * arena holds everything the copy does not own (referenced, released with the copy as
	 * api_pod's base is: api_resource_slice_unref unrefs it); the copy's meta.n_interned is 0.
	 * NULL for a decoded slice. */
	struct api_resource_slice *base;
};

/* ---------- DeviceClass ---------- */

/* A DeviceClaimConfiguration, DeviceClassConfiguration or DeviceAllocationConfiguration: only
 * the opaque kind exists in v1. */
enum api_dra_config_source {
	API_DRA_CONFIG_NONE,       /* a claim's or class's own config (no source) */
	API_DRA_CONFIG_FROM_CLASS, /* "FromClass" (allocation results) */
	API_DRA_CONFIG_FROM_CLAIM, /* "FromClaim" (allocation results) */
};

struct api_dra_config {
	enum api_dra_config_source source;
	uint32_t n_requests; /* the requests it applies to; none: all */
	const char **requests; /* arena */
	const char *driver;    /* opaque.driver, arena; NULL when opaque is absent */
	/* opaque.parameters re-encoded as compact JSON (the object the apiserver served), arena;
	 * copied verbatim into an allocation result. NULL when absent. */
	const char *parameters_json;
	uint32_t parameters_len;
};

struct api_device_class {
	int refs;
	struct arena *arena;
	struct api_meta meta;  /* cluster-scoped; meta.name interned */
	uint32_t n_selectors;
	const char **selectors; /* CEL expressions (selectors[].cel.expression), arena */
	uint32_t n_config;
	struct api_dra_config *config;
	const char *extended_resource_name; /* spec.extendedResourceName, interned; NULL when absent */
};

/* ---------- DeviceTaintRule ---------- */

struct api_device_taint_rule {
	int refs;
	struct arena *arena;
	struct api_meta meta;
	/* spec.deviceSelector: each NULL when absent (matches every value) */
	const char *driver, *pool, *device; /* interned */
	struct api_dra_taint taint;
};

/* ---------- ResourceClaim ---------- */

enum api_dra_allocation_mode {
	API_DRA_MODE_EXACT_COUNT, /* "ExactCount", and absent */
	API_DRA_MODE_ALL,         /* "All" */
	API_DRA_MODE_OTHER,       /* another string (upstream: "unsupported count mode") */
};

/* A capacity request or a result's consumed capacity: one map entry. */
struct api_dra_named_quantity {
	const char *name; /* interned */
	struct api_dra_quantity value;
};

/* An ExactDeviceRequest (spec.devices.requests[].exactly) or a DeviceSubRequest
 * (requests[].firstAvailable[]): the fields they share. */
struct api_dra_device_request {
	const char *name; /* interned: the subrequest's name; for exactly, the request's name */
	const char *device_class_name; /* interned */
	uint32_t n_selectors;
	const char **selectors; /* CEL expressions, arena */
	enum api_dra_allocation_mode allocation_mode;
	const char *allocation_mode_text; /* arena, as served ("" when absent) */
	int64_t count;                    /* as served; 0 when absent (upstream: 1 with ExactCount) */
	bool has_admin_access;
	bool admin_access;
	uint32_t n_tolerations;
	struct api_dra_toleration *tolerations;
	bool has_capacity; /* capacity present */
	uint32_t n_capacity_requests;
	struct api_dra_named_quantity *capacity_requests; /* capacity.requests, sorted by name */
};

/* spec.devices.requests[]: exactly one of exactly / firstAvailable is set. */
struct api_dra_request {
	const char *name; /* interned */
	const struct api_dra_device_request *exactly; /* NULL when absent */
	uint32_t n_first_available;
	struct api_dra_device_request *first_available;
};

struct api_dra_constraint {
	uint32_t n_requests; /* none: all requests */
	const char **requests; /* interned: request or "request/subrequest" names */
	const char *match_attribute;    /* interned fully qualified name; NULL when absent */
	const char *distinct_attribute; /* interned; NULL when absent */
};

/* status.allocation.devices.results[] */
struct api_dra_device_result {
	const char *request; /* interned: "request" or "request/subrequest" */
	const char *driver, *pool, *device; /* interned */
	bool has_admin_access;
	bool admin_access;
	uint32_t n_tolerations;
	struct api_dra_toleration *tolerations;
	uint32_t n_binding_conditions, n_binding_failure_conditions;
	const char **binding_conditions, **binding_failure_conditions; /* arena */
	const char *share_id; /* arena, NULL when absent */
	uint32_t n_consumed_capacity;
	struct api_dra_named_quantity *consumed_capacity; /* sorted by name */
};

/* status.allocation */
struct api_dra_allocation {
	uint32_t n_results;
	struct api_dra_device_result *results;
	uint32_t n_config;
	struct api_dra_config *config; /* source FromClass / FromClaim */
	const struct api_node_selector *node_selector; /* NULL when absent (every node) */
	bool has_allocation_timestamp;
	int64_t allocation_timestamp; /* Unix seconds */
};

/* status.reservedFor[] */
struct api_dra_consumer {
	const char *api_group; /* arena, "" for the core group (pods) */
	const char *resource;  /* arena: "pods" */
	const char *name;      /* arena */
	const char *uid;       /* interned (compared with a pod's uid) */
};

/* status.devices[] (AllocatedDeviceStatus): the conditions a driver reports for an allocated
 * device, which binding conditions wait for (DRAResourceClaimDeviceStatus). Added by
 * wt-draplugin (after the contract): DynamicResources' Filter and PreBind read them. */
struct api_dra_device_status {
	const char *driver, *pool, *device; /* interned */
	const char *share_id;               /* arena, NULL when absent */
	uint32_t n_conditions;
	struct api_condition *conditions; /* type and status interned */
};

struct api_resource_claim {
	int refs;
	struct arena *arena;
	/* meta as a pod's: name in the arena, namespace and uid interned, owner refs kept (upstream
	 * resourceclaim.IsForPod reads the controller reference). */
	struct api_meta meta;
	uint32_t n_finalizers;
	const char **finalizers; /* arena (the plugin adds resource.kubernetes.io/delete-protection) */
	/* annotation resource.kubernetes.io/extended-resource-claim == "true" (a DRAExtendedResource
	 * special claim) */
	bool extended_resource_claim;
	/* spec.devices */
	uint32_t n_requests;
	struct api_dra_request *requests;
	uint32_t n_constraints;
	struct api_dra_constraint *constraints;
	uint32_t n_config;
	struct api_dra_config *config; /* source NONE */
	/* status */
	const struct api_dra_allocation *allocation; /* NULL when not allocated */
	uint32_t n_reserved_for;
	struct api_dra_consumer *reserved_for;
	/* status.devices (appended after the contract; see struct api_dra_device_status) */
	uint32_t n_device_statuses;
	struct api_dra_device_status *device_statuses;
};

/* ---------- Pod fields ---------- */

/* spec.resourceClaims[]: exactly one of the two names is set. */
struct api_pod_resource_claim {
	const char *name;                         /* arena */
	const char *resource_claim_name;          /* arena, NULL when absent */
	const char *resource_claim_template_name; /* arena, NULL when absent */
};

/* status.resourceClaimStatuses[] (written by the resourceclaim controller for template claims). */
struct api_pod_resource_claim_status {
	const char *name;                /* arena: the spec.resourceClaims entry */
	const char *resource_claim_name; /* arena; NULL: no claim was needed */
};

/* status.extendedResourceClaimStatus.requestMappings[] */
struct api_pod_extended_mapping {
	const char *container_name, *resource_name, *request_name; /* arena */
};

/* status.extendedResourceClaimStatus (DRAExtendedResource) */
struct api_pod_extended_claim_status {
	const char *resource_claim_name; /* arena */
	uint32_t n_mappings;
	struct api_pod_extended_mapping *mappings;
};

#endif
