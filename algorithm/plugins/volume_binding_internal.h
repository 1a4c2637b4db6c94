/* VolumeBinding's pieces (upstream plugins/volumebinding): the plugin (volume_binding.c) and the
 * volume binder with its assume caches (volume_binder.c). Internal to algorithm/plugins. */
#ifndef CSCHED_ALGORITHM_VOLUME_BINDING_INTERNAL_H
#define CSCHED_ALGORITHM_VOLUME_BINDING_INTERNAL_H

#include <pthread.h>

#include "algorithm/plugin.h"
#include "common/map.h"

#define VB_ANN_SELECTED_NODE "volume.kubernetes.io/selected-node"
#define VB_ANN_BIND_COMPLETED "pv.kubernetes.io/bind-completed"
#define VB_ANN_BOUND_BY_CONTROLLER "pv.kubernetes.io/bound-by-controller"
#define VB_ANN_BETA_STORAGE_CLASS "volume.beta.kubernetes.io/storage-class"
#define VB_ANN_MIGRATED_PLUGINS "storage.alpha.kubernetes.io/migrated-plugins"
#define VB_NOT_SUPPORTED_PROVISIONER "kubernetes.io/no-provisioner"

/* upstream ConflictReason strings (binder.go) */
#define VB_REASON_BIND_CONFLICT "node(s) didn't find available persistent volumes to bind"
#define VB_REASON_NODE_CONFLICT "node(s) didn't match PersistentVolume's node affinity"
#define VB_REASON_NOT_ENOUGH_SPACE "node(s) did not have enough free storage"
#define VB_REASON_PV_NOT_EXIST "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
#define VB_REASON_UNBOUND_IMMEDIATE "pod has unbound immediate PersistentVolumeClaims"

#define VB_RV_MAX 32 /* bytes of a resourceVersion kept (etcd's are decimal uint64) */

/* upstream's passive assume cache, for PVs (keyed by name) and PVCs (keyed by namespace/name):
 * an assumed object is what the scheduler expects the object to become (a PV's claimRef, a
 * claim's selected-node annotation), valid while the informer's object still has the
 * resourceVersion it was derived from. A newer informer version replaces it: entries are
 * compared with the lister's object when read (upstream drops them on the informer event; the
 * answers are the same since a resourceVersion never comes back). A deleted object is never read
 * again, so its delete event drops its entry as upstream's does (vb_object_deleted). */
struct vb_assumed_pv {
	char *key; /* the PV name, owned: the map's key */
	char rv[VB_RV_MAX];
	bool has_claim_ref;
	char *ref_ns, *ref_name, *ref_uid; /* owned */
	bool bound_by_controller;         /* the annotation set */
};
struct vb_assumed_pvc {
	char *key; /* "ns/name", owned: the map's key */
	char rv[VB_RV_MAX];
	char *selected_node; /* owned; NULL = annotation absent */
};

/* The plugin instance (pl->priv): its args and the assume caches. lock guards pvs and pvcs
 * (leaf lock: held for map operations only, never while calling a lister). */
struct vb_priv {
	int64_t bind_timeout_ms;
	bool has_scorer;
	uint32_t n_shape;
	int64_t shape_util[16], shape_score[16];
	pthread_mutex_t lock;
	struct map pvs;  /* PV name -> struct vb_assumed_pv (which owns the key) */
	struct map pvcs; /* "ns/name" -> struct vb_assumed_pvc (which owns the key) */
};

/* A PV as the binder sees it: the informer's object (a reference) with the assumed claimRef. */
struct vb_pv {
	struct api_pv *pv;
	bool has_claim_ref;
	struct api_pv_claim_ref ref; /* strings borrowed from pv, owned (owns_ref) or the binding's */
	bool owns_ref;
	bool bound_by_controller;    /* the pv.kubernetes.io/bound-by-controller annotation present */
	char rv[VB_RV_MAX];          /* resourceVersion of this version (a written PV's new one) */
};

/* A PVC as the binder sees it: the informer's object (a reference) with the assumed
 * selected-node annotation. */
struct vb_pvc {
	struct api_pvc *pvc;
	const char *selected_node; /* NULL = absent; borrowed from pvc or owned (sel_owned) */
	char *sel_owned;
	char rv[VB_RV_MAX];
};

/* upstream BindingInfo / DynamicProvision / PodVolumes (one per node that passed Filter). */
struct vb_binding {
	struct vb_pv pv;
	char *ref_ns, *ref_name, *ref_uid; /* owned copies behind pv.ref after Assume */
	struct vb_pvc *claim;              /* borrowed from the state's claims */
};
struct vb_provision {
	struct vb_pvc claim; /* a reference of its own (the assumed clone after Assume) */
	bool has_node_capacity;
	int64_t node_capacity; /* the CSIStorageCapacity's capacity (Score) */
};
struct vb_pod_volumes {
	const char *node_name; /* owned copy */
	uint32_t n_static, n_dynamic;
	struct vb_binding *statics;
	struct vb_provision *dynamics;
};

/* upstream PodVolumeClaims + stateData. */
struct vb_state {
	bool skip;      /* no PVCs: PreFilter said Skip */
	bool all_bound; /* Reserve's answer */
	uint32_t n_bound, n_delay, n_immediate;
	struct vb_pvc *bound, *delay, *immediate;
	/* unboundVolumesDelayBinding: the PVs (with assumed claimRefs) of each delay claim's class */
	uint32_t n_classes;
	struct vb_class_pvs {
		const char *class_name; /* borrowed from a claim */
		uint32_t n;
		struct vb_pv *pvs;
	} *classes;
	pthread_mutex_t lock; /* guards by_node and has_static_bindings (Filter runs on workers) */
	struct map by_node;   /* node name -> struct vb_pod_volumes */
	bool has_static_bindings;
};

/* volume_binder.c */
int vb_priv_init(struct vb_priv *p);
void vb_priv_release(struct vb_priv *p);
void vb_state_free(void *state);
/* upstream GetPodVolumeClaims into s; FW_ERROR with st on failure. */
enum fw_code vb_get_pod_volume_claims(const struct fw_pl *pl, const struct api_pod *pod, struct vb_state *s,
				      struct fw_status *st);
/* upstream FindPodVolumes: *out (malloc'd) on success (reasons or not); FW_ERROR with st. Reasons
 * go into st as UnschedulableAndUnresolvable. */
enum fw_code vb_find_pod_volumes(const struct fw_pl *pl, const struct api_pod *pod, const struct vb_state *s,
				 const struct api_node *node, struct vb_pod_volumes **out, struct fw_status *st);
void vb_pod_volumes_free(struct vb_pod_volumes *v);
/* upstream AssumePodVolumes / RevertAssumedPodVolumes / BindPodVolumes. */
enum fw_code vb_assume_pod_volumes(const struct fw_pl *pl, const struct api_pod *pod, const char *node_name,
				   struct vb_pod_volumes *v, bool *all_bound, struct fw_status *st);
/* upstream AssumeCache's informer delete handler: drops the assumed entry of obj (a struct
 * api_pv or api_pvc by res; other resources are ignored). */
void vb_object_deleted(struct vb_priv *p, enum queue_resource res, const void *obj);
/* The assume caches' entry counts (tests: entries of deleted objects do not accumulate). */
void vb_assumed_counts(struct vb_priv *p, size_t *n_pvs, size_t *n_pvcs);
void vb_revert_assumed_pod_volumes(const struct fw_pl *pl, struct vb_pod_volumes *v);
enum fw_code vb_bind_pod_volumes(const struct fw_pl *pl, const struct api_pod *pod, const char *node_name,
				 struct vb_pod_volumes *v, struct fw_status *st);

/* volume_binding.c: upstream Score's class resources of one node's result through the shape. */
int64_t vb_score_pod_volumes(const struct vb_priv *p, const struct vb_pod_volumes *v);

/* Helpers shared with the hints and tests. */
const char *vb_annotation(const struct api_labels *a, const char *key); /* NULL when absent */
const char *vb_pvc_class(const struct api_pvc *pvc);                     /* GetPersistentVolumeClaimClass */
int vb_compare_rv(const char *a, const char *b);                         /* CompareResourceVersion */
/* The limit a CSIStorageCapacity offers (upstream volumeLimit): has = false when neither is set. */
int64_t vb_volume_limit(const struct api_csi_storage_capacity *c, bool *has);

#endif
