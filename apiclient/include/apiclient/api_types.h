/* The object model: Pods and Nodes as the scheduler sees them.
 *
 * Decoding produces immutable, reference-counted values. Every pointer inside an object points
 * into the object's own arena or to an interned string (label keys and values, namespaces, node
 * names, pod UIDs, resource names, images, topology keys): compare those by pointer. Strings
 * unique to one object and never compared by identity (pod names, node UIDs, annotations,
 * resourceVersions, condition reasons and messages) stay in the arena, so that they go with the
 * object instead of living as long as the process. The cache, queue and snapshot share one object; an update
 * replaces the pointer, never the contents.
 *
 * Ownership: api_*_decode returns an object with one reference owned by the caller; each holder
 * takes its own with api_*_ref and drops it with api_*_unref (the last one frees the arena).
 * ref/unref are atomic, so any thread may drop a reference. */
#ifndef CSCHED_API_TYPES_H
#define CSCHED_API_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct arena;

/* ---------- Resources ---------- */

/* One named quantity. name is interned. value: millicores for "cpu", base units (bytes, count)
 * for everything else, rounded up as resource.Quantity's Value()/MilliValue() do. */
struct api_resource {
	const char *name;
	int64_t value;
};

/* A ResourceList with the well-known names split out for the hot path. has_* tells whether the
 * key was present (an explicit 0 differs from absent when defaults apply). scalar holds every
 * other name, in the order seen. */
struct api_resources {
	int64_t cpu;    /* millicores */
	int64_t memory; /* bytes */
	int64_t ephemeral_storage; /* bytes */
	int64_t pods;   /* count */
	bool has_cpu, has_memory, has_ephemeral_storage, has_pods;
	uint32_t n_scalar;
	struct api_resource *scalar;
};

/* Value of a scalar resource by interned name, 0 when absent. */
int64_t api_resources_scalar(const struct api_resources *r, const char *interned_name);

/* ---------- Labels and selectors ---------- */

struct api_kv {
	const char *key;   /* interned */
	const char *value; /* interned */
};

struct api_labels {
	uint32_t n;
	struct api_kv *items;
};

/* Interned value for interned key, or NULL when the key is absent. */
const char *api_labels_get(const struct api_labels *l, const char *interned_key);

enum api_op {
	API_OP_IN,
	API_OP_NOT_IN,
	API_OP_EXISTS,
	API_OP_DOES_NOT_EXIST,
	API_OP_GT,
	API_OP_LT,
	API_OP_UNKNOWN, /* an operator this version does not know: never matches */
};

/* A label/field requirement: matchExpressions entry of a LabelSelector or NodeSelectorTerm. */
struct api_requirement {
	const char *key; /* interned */
	enum api_op op;
	uint32_t n_values;
	const char **values; /* interned */
};

/* metav1.LabelSelector. A NULL pointer to one means "no selector" (matches nothing in affinity
 * terms); an empty one matches everything. */
struct api_label_selector {
	struct api_labels match_labels;
	uint32_t n_exprs;
	struct api_requirement *exprs;
};

bool api_label_selector_matches(const struct api_label_selector *s, const struct api_labels *labels);

/* ---------- Node affinity ---------- */

struct api_node_selector_term {
	uint32_t n_exprs;
	struct api_requirement *exprs; /* against node labels */
	uint32_t n_fields;
	struct api_requirement *fields; /* against node fields: only metadata.name is defined */
};

struct api_preferred_node_term {
	int32_t weight;
	struct api_node_selector_term term;
};

struct api_node_affinity {
	bool has_required; /* requiredDuringSchedulingIgnoredDuringExecution present */
	uint32_t n_required;
	struct api_node_selector_term *required; /* ORed */
	uint32_t n_preferred;
	struct api_preferred_node_term *preferred;
};

/* ---------- Pod (anti-)affinity ---------- */

struct api_pod_affinity_term {
	struct api_label_selector *label_selector; /* NULL = none */
	uint32_t n_namespaces;
	const char **namespaces; /* interned */
	struct api_label_selector *namespace_selector; /* NULL = none */
	const char *topology_key; /* interned */
	uint32_t n_match_label_keys;
	const char **match_label_keys; /* interned */
	uint32_t n_mismatch_label_keys;
	const char **mismatch_label_keys; /* interned */
};

struct api_weighted_pod_affinity_term {
	int32_t weight;
	struct api_pod_affinity_term term;
};

struct api_pod_affinity {
	uint32_t n_required;
	struct api_pod_affinity_term *required;
	uint32_t n_preferred;
	struct api_weighted_pod_affinity_term *preferred;
};

struct api_affinity {
	struct api_node_affinity *node_affinity;     /* NULL = none */
	struct api_pod_affinity *pod_affinity;       /* NULL = none */
	struct api_pod_affinity *pod_anti_affinity;  /* NULL = none */
};

/* ---------- Taints and tolerations ---------- */

enum api_taint_effect {
	API_EFFECT_NONE, /* "" (tolerations only: matches every effect) */
	API_EFFECT_NO_SCHEDULE,
	API_EFFECT_PREFER_NO_SCHEDULE,
	API_EFFECT_NO_EXECUTE,
	API_EFFECT_UNKNOWN,
};

struct api_taint {
	const char *key;   /* interned */
	const char *value; /* interned, "" when absent */
	enum api_taint_effect effect;
};

enum api_toleration_op {
	API_TOLERATION_EQUAL, /* "" or "Equal" */
	API_TOLERATION_EXISTS,
	API_TOLERATION_UNKNOWN,
};

struct api_toleration {
	const char *key;   /* interned, "" = every key */
	enum api_toleration_op op;
	bool op_given;     /* operator set (not ""): upstream's scheduling signature tells them apart */
	const char *value; /* interned, "" when absent */
	enum api_taint_effect effect;
	bool has_toleration_seconds;
	int64_t toleration_seconds;
};

/* Upstream's Toleration.ToleratesTaint. */
bool api_toleration_tolerates(const struct api_toleration *t, const struct api_taint *taint);

/* ---------- Topology spread ---------- */

enum api_unsatisfiable { API_DO_NOT_SCHEDULE, API_SCHEDULE_ANYWAY };
enum api_inclusion_policy { API_POLICY_UNSET, API_POLICY_HONOR, API_POLICY_IGNORE };

struct api_topology_spread_constraint {
	int32_t max_skew;
	const char *topology_key; /* interned */
	enum api_unsatisfiable when_unsatisfiable;
	struct api_label_selector *label_selector; /* NULL = none */
	bool has_min_domains;
	int32_t min_domains;
	enum api_inclusion_policy node_affinity_policy;
	enum api_inclusion_policy node_taints_policy;
	uint32_t n_match_label_keys;
	const char **match_label_keys; /* interned */
};

/* ---------- Containers and volumes ---------- */

struct api_container_port {
	int32_t container_port;
	int32_t host_port;    /* 0 = none */
	const char *protocol; /* interned, "TCP" when absent */
	const char *host_ip;  /* interned, "" when absent */
};

struct api_container {
	const char *name;  /* interned */
	const char *image; /* interned, as written in the spec */
	uint32_t n_ports;
	struct api_container_port *ports;
	struct api_resources requests;
	struct api_resources limits;
	bool restart_policy_always; /* init containers: restartPolicy Always (a sidecar) */
	/* What NodeDeclaredFeatures infers from (upstream nodedeclaredfeatures/features): a
	 * restartPolicyRules action RestartAllContainers; a volumeMount with bindMountOptions. */
	bool restart_all_containers, bind_mount_options;
};

/* What the kubelet reports of a container's resources (status.containerStatuses[] and
 * initContainerStatuses[]): in-place resize makes them differ from the spec, and upstream's
 * PodRequests counts the larger. has_* is "the field is present" (Go: non-nil). */
struct api_container_status {
	const char *name; /* interned */
	bool has_allocated, has_actual;
	struct api_resources allocated; /* allocatedResources: what the kubelet admitted */
	struct api_resources actual;    /* resources.requests: what the runtime applied */
};

enum api_volume_kind {
	API_VOLUME_OTHER,
	API_VOLUME_PVC,
	API_VOLUME_GCE_PD,
	API_VOLUME_AWS_EBS,
	API_VOLUME_RBD,
	API_VOLUME_ISCSI,
	API_VOLUME_IMAGE, /* an OCI image or artifact (ImageVolumeSource) */
	/* The sources NodeVolumeLimits and VolumeBinding read (upstream csi.go, GetPodVolumeClaims;
	 * csi-translation-lib's CanSupportInline for the in-tree ones). */
	API_VOLUME_CSI,        /* inline CSI: csi_driver */
	API_VOLUME_EPHEMERAL,  /* generic ephemeral: claim_name is upstream's VolumeClaimName, "<pod>-<volume>" */
	API_VOLUME_AZURE_DISK, /* volume_id = diskURI */
	API_VOLUME_AZURE_FILE, /* volume_id = shareName, secret_name */
	API_VOLUME_CINDER,     /* volume_id = volumeID */
	API_VOLUME_VSPHERE,    /* volume_id = volumePath */
	API_VOLUME_PORTWORX,   /* volume_id = volumeID */
};

#define API_VOLUME_FP_LEN 16

struct api_volume {
	const char *name;
	enum api_volume_kind kind;
	bool config_map_or_secret; /* API_VOLUME_OTHER from a configMap or secret source */
	bool read_only;
	const char *claim_name;  /* PVC; EPHEMERAL: "<pod name>-<volume name>" */
	const char *pd_name;     /* GCE PD */
	const char *volume_id;   /* AWS EBS; and the in-tree kinds listed with enum api_volume_kind */
	const char *csi_driver;  /* CSI: csi.driver (interned); NULL for other kinds */
	const char *secret_name; /* AZURE_FILE: azureFile.secretName */
	const char *azure_kind;  /* AZURE_DISK: azureDisk.kind, NULL when absent (csi-translation-lib
				  * migrates only "Managed", any case) */
	uint32_t n_monitors;     /* RBD */
	const char **monitors;
	const char *pool, *image;
	const char *target_portal, *iqn; /* iSCSI */
	int32_t lun;
	const char *reference; /* image volume: interned, "" when absent */
	/* SHA-256 (first 16 bytes) of the volume's source (its JSON but the name) in a canonical form,
	 * equal iff upstream's json.Marshal(vol.VolumeSource) is (VolumesSigner); unset for configMap
	 * and secret sources, which upstream does not sign */
	unsigned char source_fp[API_VOLUME_FP_LEN];
};

/* ---------- Metadata ---------- */

struct api_owner_ref {
	const char *api_version, *kind, *name, *uid;
	bool controller;
};

struct api_condition {
	const char *type;   /* interned */
	const char *status; /* interned: "True", "False", "Unknown" */
	const char *reason;
	const char *message;
	/* A pod's PodScheduled only (the status patch diffs against it), "" / 0 when absent and for
	 * other conditions: the times as the server wrote them (RFC 3339, compared verbatim). */
	const char *last_probe_time, *last_transition_time;
	int64_t observed_generation;
};

struct api_meta {
	const char *name;      /* interned for nodes; in the arena for pods (compare with strcmp) */
	const char *namespace; /* interned, "" for cluster-scoped objects */
	const char *uid;       /* interned for pods; in the arena for nodes (compare with strcmp) */
	const char *resource_version;
	int64_t generation; /* metadata.generation, 0 when absent */
	struct api_labels labels;
	/* Nodes only (the queue's NodeAnnotationChange event; no plugin reads a pod's): keys and
	 * values in the arena, not interned (compare with strcmp). Empty for pods. */
	struct api_labels annotations;
	uint32_t n_owner_refs;
	struct api_owner_ref *owner_refs;
	int64_t creation_timestamp; /* Unix seconds */
	bool being_deleted;         /* deletionTimestamp set */
	int64_t deletion_timestamp;
	/* The counted intern references the object holds (each distinct string once, pinned ones
	 * not listed), given back when its last reference goes. In the arena. */
	uint32_t n_interned;
	const char **interned;
};

#include "apiclient/api_dra.h" /* needs struct api_meta and api_node_selector_term */

/* ---------- Pod ---------- */

enum api_preemption_policy { API_PREEMPT_LOWER_PRIORITY, API_PREEMPT_NEVER };

struct api_pod {
	int refs; /* atomic; use api_pod_ref/unref */
	struct arena *arena;
	struct api_meta meta;

	/* spec */
	const char *node_name;      /* interned, "" when unassigned */
	const char *scheduler_name; /* interned, "default-scheduler" when absent */
	int32_t priority;           /* 0 when absent */
	bool has_priority;
	enum api_preemption_policy preemption_policy;
	struct api_labels node_selector;
	struct api_affinity affinity;
	uint32_t n_tolerations;
	struct api_toleration *tolerations;
	uint32_t n_spread_constraints;
	struct api_topology_spread_constraint *spread_constraints;
	uint32_t n_containers;
	struct api_container *containers;
	uint32_t n_init_containers;
	struct api_container *init_containers;
	struct api_resources overhead;
	struct api_resources pod_requests; /* spec.resources.requests (pod-level resources) */
	uint32_t n_volumes;
	struct api_volume *volumes;
	uint32_t n_scheduling_gates;
	const char **scheduling_gates; /* gate names, in the arena */
	bool host_network;
	bool host_users_false;             /* spec.hostUsers set to false (absent = true) */
	bool ephemeral_bind_mount_options; /* an ephemeral container's volumeMount has bindMountOptions */
	uint32_t n_resource_claims;
	struct api_pod_resource_claim *resource_claims; /* spec.resourceClaims */

	/* status */
	const char *phase; /* interned, "" when absent */
	uint32_t n_conditions;
	struct api_condition *conditions;
	const char *nominated_node_name; /* interned, "" when absent */
	bool has_start_time;             /* status.startTime (preemption orders victims by it) */
	int64_t start_time_us;           /* microseconds since the epoch */
	/* in-place resize (read by node_res_of_pod; names match spec containers) */
	uint32_t n_container_statuses, n_init_container_statuses;
	struct api_container_status *container_statuses, *init_container_statuses;
	const struct api_pod_resize_status *status_resources; /* in the arena; NULL: no status.resources */
	uint32_t n_resource_claim_statuses;
	struct api_pod_resource_claim_status *resource_claim_statuses; /* status.resourceClaimStatuses */
	/* status.extendedResourceClaimStatus, in the arena; NULL when absent */
	const struct api_pod_extended_claim_status *extended_claim_status;

	/* The object's JSON re-encoded whole (for HTTP extenders, api_keep_json), in the arena; NULL
	 * otherwise and for assigned pods. */
	const char *json;
	size_t json_len;

	/* A copy made by api_pod_assigned_copy: the pod whose arena holds everything the copy points
	 * to (referenced, released with the copy). NULL for a decoded pod. */
	struct api_pod *base;
};

/* The pod-level resize status (InPlacePodLevelResourcesVerticalScaling). Upstream reads
 * status.allocatedResources only where status.resources is present, so a pod carries this only
 * then (most pods: no room taken). has_* is "the field is present" (Go: non-nil). */
struct api_pod_resize_status {
	bool has_allocated, has_requests;
	struct api_resources allocated; /* status.allocatedResources */
	struct api_resources requests;  /* status.resources.requests */
};

/* ---------- Node ---------- */

struct api_node_image {
	uint32_t n_names;
	const char **names; /* interned */
	int64_t size_bytes;
};

struct api_node {
	int refs;
	struct arena *arena;
	struct api_meta meta;
	bool unschedulable;
	uint32_t n_taints;
	struct api_taint *taints;
	struct api_resources capacity;
	struct api_resources allocatable;
	uint32_t n_conditions;
	struct api_condition *conditions;
	uint32_t n_images;
	struct api_node_image *images;
	uint32_t n_declared_features;
	const char **declared_features; /* status.declaredFeatures as listed (interned) */
	const char *json; /* the whole object (api_keep_json with nodes), in the arena; else NULL */
	size_t json_len;
};

/* ---------- PersistentVolumeClaim ---------- */

/* spec.accessModes as bits. */
enum {
	API_ACCESS_RWO = 1u << 0,  /* ReadWriteOnce */
	API_ACCESS_ROX = 1u << 1,  /* ReadOnlyMany */
	API_ACCESS_RWX = 1u << 2,  /* ReadWriteMany */
	API_ACCESS_RWOP = 1u << 3, /* ReadWriteOncePod */
};

/* A PVC, refcounted and immutable like pods and nodes. Its meta is decoded as a node's (name and
 * namespace interned: PVCs are few and long-lived; uid, resource_version, owner_refs (generic
 * ephemeral volumes: IsControlledBy the pod), being_deleted and annotations kept, for the volume
 * plugins: volume.kubernetes.io/selected-node, pv.kubernetes.io/bind-completed,
 * volume.beta.kubernetes.io/storage-provisioner, volume.kubernetes.io/storage-provisioner and the
 * beta storage-class annotation GetPersistentVolumeClaimClass prefers). */
struct api_pvc {
	int refs;
	struct arena *arena;
	struct api_meta meta;
	unsigned access_modes;         /* API_ACCESS_* bits; unknown modes are ignored */
	const char *volume_name;       /* spec.volumeName, "" when unbound */
	const char *storage_class_name; /* spec.storageClassName; NULL when absent (not "") */
	const char *phase;             /* status.phase, "" when absent */
	bool has_request_storage;      /* spec.resources.requests.storage present */
	int64_t request_storage;       /* its Value() in bytes (rounded up), 0 when absent */
	/* spec.selector: NULL when absent or null (no selector: every PV); a present {} is an empty
	 * selector, which upstream's LabelSelectorAsSelector also matches everything with */
	struct api_label_selector *selector;
	const char *volume_mode;       /* spec.volumeMode, interned, NULL when absent (upstream: Filesystem) */
	const char *volume_attributes_class_name; /* spec.volumeAttributesClassName, arena, NULL when absent */
};

/* ---------- PersistentVolume ---------- */

/* spec.claimRef: the claim a PV is bound (or pre-bound) to. Strings in the arena, "" when absent
 * (upstream compares namespace and name, and the uid only when set: IsVolumeBoundToClaim). */
struct api_pv_claim_ref {
	const char *namespace, *name, *uid;
};

/* The volume source of a PV, reduced to what the volume plugins and csi-translation-lib read.
 * kind says which source the object has (the first of those below found, as a PV has one). */
enum api_pv_source_kind {
	API_PV_OTHER,      /* hostPath, local, nfs, ...: none of the plugins reads them */
	API_PV_CSI,        /* csi: driver, volume_handle */
	API_PV_GCE_PD,     /* gcePersistentDisk: volume_id = pdName, partition */
	API_PV_AWS_EBS,    /* awsElasticBlockStore: volume_id = volumeID (possibly aws://zone/vol-..), partition */
	API_PV_AZURE_DISK, /* azureDisk: volume_id = diskURI, disk_name, azure_kind */
	API_PV_AZURE_FILE, /* azureFile: volume_id = shareName, secret_name, secret_namespace */
	API_PV_CINDER,     /* cinder: volume_id = volumeID */
	API_PV_VSPHERE,    /* vsphereVolume: volume_id = volumePath */
	API_PV_PORTWORX,   /* portworxVolume: volume_id = volumeID */
};

struct api_pv_source {
	enum api_pv_source_kind kind;
	const char *driver;        /* CSI: csi.driver, interned; NULL for other kinds */
	const char *volume_handle; /* CSI: csi.volumeHandle, arena; NULL for other kinds */
	const char *volume_id;     /* in-tree kinds (see the enum), arena; NULL for CSI and OTHER */
	const char *disk_name;     /* AZURE_DISK: diskName, "" when absent */
	const char *azure_kind;    /* AZURE_DISK: kind, NULL when absent (translation requires "Managed") */
	const char *secret_name;   /* AZURE_FILE: secretName, "" when absent */
	const char *secret_namespace; /* AZURE_FILE: secretNamespace, NULL when absent (then claimRef's) */
	const char *fs_type;       /* fsType, "" when absent (every kind that has one) */
	int32_t partition;         /* GCE_PD, AWS_EBS: partition, 0 when absent */
	bool read_only;            /* readOnly */
};

/* A v1 PersistentVolume (cluster-scoped). Refcounted and immutable like pods; meta decoded as a
 * node's: name interned (PVs are found by name and referenced by PVCs), labels interned
 * (VolumeZone reads the topology labels, the claim selector matches them), annotations kept in
 * the arena (the beta storage-class annotation, the pv.kubernetes.io keys), resource_version and
 * being_deleted (FindMatchingVolume skips a PV with deletionTimestamp). */
struct api_pv {
	int refs; /* atomic; use api_pv_ref/unref */
	struct arena *arena;
	struct api_meta meta;
	bool has_capacity_storage;  /* spec.capacity.storage present */
	int64_t capacity_storage;   /* its Value() in bytes (rounded up), 0 when absent */
	unsigned access_modes;      /* API_ACCESS_* bits; unknown modes are ignored */
	const char *storage_class_name; /* spec.storageClassName, interned, "" when absent (a plain string) */
	const char *volume_mode;    /* spec.volumeMode, interned, NULL when absent (upstream: Filesystem) */
	const char *volume_attributes_class_name; /* spec.volumeAttributesClassName, arena, NULL when absent */
	bool has_claim_ref;         /* spec.claimRef present */
	struct api_pv_claim_ref claim_ref;
	/* spec.nodeAffinity.required: NULL when spec.nodeAffinity or its required is absent (matches
	 * every node, upstream CheckNodeAffinity); otherwise has_required is set and required holds
	 * the terms (ORed; none present: matches no node). preferred is never set. */
	struct api_node_affinity *node_affinity;
	struct api_pv_source source;
	const char *phase;          /* status.phase, interned, "" when absent ("Available", "Bound", ...) */
};

/* ---------- storage.k8s.io/v1 ---------- */

enum api_binding_mode {
	API_BINDING_IMMEDIATE,              /* "Immediate", and absent (the apiserver defaults it) */
	API_BINDING_WAIT_FOR_FIRST_CONSUMER, /* "WaitForFirstConsumer" */
	API_BINDING_UNKNOWN,                /* another string: upstream treats it as not WFFC */
};

/* A TopologySelectorTerm: each expression's op is API_OP_IN (values ORed, expressions ANDed,
 * upstream MatchTopologySelectorTerms). Keys and values interned. */
struct api_topology_term {
	uint32_t n_exprs;
	struct api_requirement *exprs;
};

/* A StorageClass (cluster-scoped): what VolumeBinding and VolumeZone read. Refcounted and
 * immutable; meta decoded as a node's (name interned). parameters are not kept: no plugin reads
 * them. */
struct api_storage_class {
	int refs;
	struct arena *arena;
	struct api_meta meta;
	const char *provisioner; /* interned, "" when absent */
	enum api_binding_mode volume_binding_mode;
	/* volumeBindingMode present (Go: non-nil). The apiserver always sets it; VolumeZone tells an
	 * absent one apart ("VolumeBindingMode not set for StorageClass"). */
	bool has_volume_binding_mode;
	uint32_t n_allowed_topologies; /* none: every node (upstream: len(terms) == 0 -> true) */
	struct api_topology_term *allowed_topologies;
};

/* One spec.drivers[] entry of a CSINode. */
struct api_csinode_driver {
	const char *name;    /* interned (compared with a PV's csi driver) */
	const char *node_id; /* arena, "" when absent */
	uint32_t n_topology_keys;
	const char **topology_keys; /* interned */
	bool has_allocatable_count; /* allocatable.count present (Go: non-nil): else no limit */
	int32_t allocatable_count;
};

/* A CSINode (cluster-scoped, named after its node). meta.annotations holds
 * storage.alpha.kubernetes.io/migrated-plugins (comma-separated in-tree plugin names). */
struct api_csinode {
	int refs;
	struct arena *arena;
	struct api_meta meta;
	uint32_t n_drivers;
	struct api_csinode_driver *drivers;
};

/* A CSIDriver (cluster-scoped, named after the driver). has_* is "the field is present" (Go:
 * non-nil *bool); without it upstream's reading is the default given. */
struct api_csidriver {
	int refs;
	struct arena *arena;
	struct api_meta meta;
	bool has_attach_required, attach_required;   /* absent: true */
	bool has_storage_capacity, storage_capacity; /* absent: false (no capacity check) */
	bool has_prevent_pod_scheduling_if_missing, prevent_pod_scheduling_if_missing; /* absent: false */
};

/* A VolumeAttachment (cluster-scoped): NodeVolumeLimits counts a node's attached CSI volumes
 * from them (upstream getNodeVolumeAttachmentInfo). */
struct api_volume_attachment {
	int refs;
	struct arena *arena;
	struct api_meta meta;
	const char *attacher;  /* spec.attacher, interned, "" when absent */
	const char *node_name; /* spec.nodeName, interned, "" when absent */
	/* spec.source.persistentVolumeName, arena; NULL when absent (an inline volume spec) */
	const char *pv_name;
	bool attached; /* status.attached */
};

/* A CSIStorageCapacity (namespaced): VolumeBinding's capacity check (upstream hasEnoughCapacity). */
struct api_csi_storage_capacity {
	int refs;
	struct arena *arena;
	struct api_meta meta;
	const char *storage_class_name; /* interned, "" when absent */
	/* nodeTopology: NULL when absent or null (upstream: unavailable to every node); a present {}
	 * is an empty selector (every node) */
	struct api_label_selector *node_topology;
	bool has_capacity;              /* capacity present (Go: non-nil) */
	int64_t capacity;               /* bytes (Value()), 0 when absent */
	bool has_maximum_volume_size;   /* maximumVolumeSize present: preferred over capacity */
	int64_t maximum_volume_size;
};

/* ---------- Namespaces and pod-selecting workloads ---------- */

/* A Namespace: InterPodAffinity's namespaceSelector reads its labels (meta.labels). Refcounted
 * and immutable like pods; meta decoded as a node's (name interned). */
struct api_namespace {
	int refs;
	struct arena *arena;
	struct api_meta meta;
};

/* The objects whose pod selector PodTopologySpread's system default constraints use (upstream
 * helper.DefaultSelector). */
enum api_selector_kind {
	API_SEL_SERVICE, /* v1 Service: spec.selector (map) */
	API_SEL_RC,      /* v1 ReplicationController: spec.selector (map) */
	API_SEL_RS,      /* apps/v1 ReplicaSet: spec.selector (LabelSelector) */
	API_SEL_SS,      /* apps/v1 StatefulSet: spec.selector (LabelSelector) */
};

/* One of those, reduced to its metadata and selector. Refcounted and immutable. */
struct api_selector_owner {
	int refs;
	struct arena *arena;
	struct api_meta meta;
	enum api_selector_kind kind;
	/* Service and RC: the map as match_labels (no exprs); RS and SS: the LabelSelector. NULL when
	 * spec.selector is absent or null (a Service with a nil selector matches nothing, upstream
	 * GetPodServices); a present empty map/selector is an empty struct. */
	struct api_label_selector *selector;
};

/* ---------- PodDisruptionBudgets (policy/v1) ---------- */

/* What preemption reads of a PodDisruptionBudget (upstream FilterVictimsWithPDBViolation): its
 * namespace (meta), spec.selector, status.disruptionsAllowed and the pod names of
 * status.disruptedPods. Refcounted and immutable like pods; meta decoded as a node's. */
struct api_pdb {
	int refs;
	struct arena *arena;
	struct api_meta meta;
	/* NULL when spec.selector is absent or null; a present {} is an empty struct. Upstream skips
	 * both (LabelSelectorAsSelector: nil -> Nothing, {} -> Empty) */
	struct api_label_selector *selector;
	int32_t disruptions_allowed;   /* status.disruptionsAllowed, 0 when absent */
	uint32_t n_disrupted;
	const char **disrupted_pods;   /* the keys of status.disruptedPods (pod names), arena */
};

/* ---------- Lease (leader election) ---------- */

struct api_lease {
	char *name, *namespace, *resource_version; /* malloc'd; api_lease_release frees */
	char *holder_identity;                     /* NULL when absent */
	int32_t lease_duration_seconds;
	int64_t acquire_time_us, renew_time_us; /* Unix microseconds, 0 when absent */
	int32_t lease_transitions;
};
void api_lease_release(struct api_lease *l);

/* ---------- Reference counting ---------- */

struct api_pod *api_pod_ref(struct api_pod *p);       /* returns p; NULL is a no-op */
void api_pod_unref(struct api_pod *p);                /* NULL is a no-op */
/* A copy of p with spec.nodeName = node_name (interned), sharing p's data: upstream's assumed pod,
 * for the events that describe it as assigned. Holds a reference on p and on node_name (which may
 * outlive its node). NULL when out of memory. */
struct api_pod *api_pod_assigned_copy(struct api_pod *p, const char *node_name);
struct api_node *api_node_ref(struct api_node *n);
void api_node_unref(struct api_node *n);
/* The same taints in the same order, by key, value and effect (for node-update events). */
bool api_node_taints_equal(const struct api_node *a, const struct api_node *b);
struct api_pvc *api_pvc_ref(struct api_pvc *p);
void api_pvc_unref(struct api_pvc *p);
struct api_namespace *api_namespace_ref(struct api_namespace *ns);
void api_namespace_unref(struct api_namespace *ns);
struct api_selector_owner *api_selector_owner_ref(struct api_selector_owner *o);
void api_selector_owner_unref(struct api_selector_owner *o);
struct api_pdb *api_pdb_ref(struct api_pdb *p);
void api_pdb_unref(struct api_pdb *p);
struct api_pv *api_pv_ref(struct api_pv *p);
void api_pv_unref(struct api_pv *p);
struct api_storage_class *api_storage_class_ref(struct api_storage_class *sc);
void api_storage_class_unref(struct api_storage_class *sc);
struct api_csinode *api_csinode_ref(struct api_csinode *n);
void api_csinode_unref(struct api_csinode *n);
struct api_csidriver *api_csidriver_ref(struct api_csidriver *d);
void api_csidriver_unref(struct api_csidriver *d);
struct api_volume_attachment *api_volume_attachment_ref(struct api_volume_attachment *va);
void api_volume_attachment_unref(struct api_volume_attachment *va);
struct api_csi_storage_capacity *api_csi_storage_capacity_ref(struct api_csi_storage_capacity *c);
void api_csi_storage_capacity_unref(struct api_csi_storage_capacity *c);
struct api_resource_claim *api_resource_claim_ref(struct api_resource_claim *c);
void api_resource_claim_unref(struct api_resource_claim *c);
struct api_resource_slice *api_resource_slice_ref(struct api_resource_slice *s);
void api_resource_slice_unref(struct api_resource_slice *s);
struct api_device_class *api_device_class_ref(struct api_device_class *c);
void api_device_class_unref(struct api_device_class *c);
struct api_device_taint_rule *api_device_taint_rule_ref(struct api_device_taint_rule *r);
void api_device_taint_rule_unref(struct api_device_taint_rule *r);

/* ---------- Decoding ---------- */

struct yajl_val_s;

/* Decode a v1 Pod / Node from a parsed JSON tree. On error returns NULL and e names the object
 * (namespace/name when known) and the field path ("spec.containers[0].resources.requests.cpu:
 * invalid quantity \"1.2.3\""). The tree is not kept. */
/* HTTP extenders send the pod (and, unless nodeCacheCapable, the nodes) as the apiserver served
 * them: with pods set, parsers skip no field and unassigned pods decoded afterwards keep their JSON
 * (api_pod.json); with nodes, nodes too. Set once before the informers start. */
void api_keep_json(bool pods, bool nodes);
/* With api_keep_json's pods: pods bound to a node keep their JSON too (the victims a preempt
 * extender that is not nodeCacheCapable is sent whole). Set once before the informers start. */
void api_keep_assigned_pod_json(bool on);
struct api_pod *api_pod_decode(const struct yajl_val_s *obj, struct err *e);
struct api_node *api_node_decode(const struct yajl_val_s *obj, struct err *e);
/* Decode from JSON text (tests, fixtures). */
struct api_pod *api_pod_decode_json(const char *json, size_t len, struct err *e);
struct api_node *api_node_decode_json(const char *json, size_t len, struct err *e);
struct api_pvc *api_pvc_decode(const struct yajl_val_s *obj, struct err *e);
struct api_pvc *api_pvc_decode_json(const char *json, size_t len, struct err *e);
struct api_namespace *api_namespace_decode(const struct yajl_val_s *obj, struct err *e);
struct api_namespace *api_namespace_decode_json(const char *json, size_t len, struct err *e);
/* kind says which object obj is (the informer's kind; the JSON's own "kind" is not read). */
struct api_selector_owner *api_selector_owner_decode(enum api_selector_kind kind, const struct yajl_val_s *obj,
						     struct err *e);
struct api_selector_owner *api_selector_owner_decode_json(enum api_selector_kind kind, const char *json, size_t len,
							  struct err *e);
struct api_pdb *api_pdb_decode(const struct yajl_val_s *obj, struct err *e);
struct api_pdb *api_pdb_decode_json(const char *json, size_t len, struct err *e);
/* v1 PersistentVolume and the storage.k8s.io/v1 kinds; errors name the object and field as above. */
struct api_pv *api_pv_decode(const struct yajl_val_s *obj, struct err *e);
struct api_pv *api_pv_decode_json(const char *json, size_t len, struct err *e);
struct api_storage_class *api_storage_class_decode(const struct yajl_val_s *obj, struct err *e);
struct api_storage_class *api_storage_class_decode_json(const char *json, size_t len, struct err *e);
struct api_csinode *api_csinode_decode(const struct yajl_val_s *obj, struct err *e);
struct api_csinode *api_csinode_decode_json(const char *json, size_t len, struct err *e);
struct api_csidriver *api_csidriver_decode(const struct yajl_val_s *obj, struct err *e);
struct api_csidriver *api_csidriver_decode_json(const char *json, size_t len, struct err *e);
struct api_volume_attachment *api_volume_attachment_decode(const struct yajl_val_s *obj, struct err *e);
struct api_volume_attachment *api_volume_attachment_decode_json(const char *json, size_t len, struct err *e);
struct api_csi_storage_capacity *api_csi_storage_capacity_decode(const struct yajl_val_s *obj, struct err *e);
struct api_csi_storage_capacity *api_csi_storage_capacity_decode_json(const char *json, size_t len, struct err *e);
/* resource.k8s.io/v1 (api_dra.h); errors name the object and field as above. */
struct api_resource_claim *api_resource_claim_decode(const struct yajl_val_s *obj, struct err *e);
struct api_resource_claim *api_resource_claim_decode_json(const char *json, size_t len, struct err *e);
struct api_resource_slice *api_resource_slice_decode(const struct yajl_val_s *obj, struct err *e);
struct api_resource_slice *api_resource_slice_decode_json(const char *json, size_t len, struct err *e);
struct api_device_class *api_device_class_decode(const struct yajl_val_s *obj, struct err *e);
struct api_device_class *api_device_class_decode_json(const char *json, size_t len, struct err *e);
struct api_device_taint_rule *api_device_taint_rule_decode(const struct yajl_val_s *obj, struct err *e);
struct api_device_taint_rule *api_device_taint_rule_decode_json(const char *json, size_t len, struct err *e);
int api_lease_decode(const struct yajl_val_s *obj, struct api_lease *out, struct err *e);

/* ---------- Quantities ---------- */

/* Parses a resource.Quantity string ("100m", "1.5Gi", "2e3", "129M") exactly as upstream's
 * ParseQuantity (apimachinery v0.37), including what it accepts that looks odd ("+", "-", ".",
 * "Gi" and "1." parse as 0 or 1). *milli receives MilliValue() and *value Value(), bit for bit as
 * upstream computes them: fractions round away from zero, binary-suffixed amounts cap at
 * 2^63-1, and beyond int64 the results wrap or read 0 where upstream's do. Returns 0 or
 * ERR_INVALID with "invalid quantity \"S\": why". Decoders additionally accept JSON numbers,
 * null (0) and surrounding spaces, as Quantity.UnmarshalJSON does. */
int api_quantity_parse(const char *s, int64_t *value, int64_t *milli, struct err *e);

/* ---------- Small helpers used by several modules ---------- */

/* "namespace/name" into buf (truncated to size); returns buf. */
const char *api_pod_key(const struct api_pod *p, char *buf, unsigned size);
bool api_pod_is_assigned(const struct api_pod *p); /* node_name != "" */
const struct api_condition *api_node_condition(const struct api_node *n, const char *interned_type);

#endif
