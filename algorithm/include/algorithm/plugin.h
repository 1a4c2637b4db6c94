/* What a plugin author needs: statuses, the plugin struct and its callbacks, the cycle state a
 * plugin keeps per pod, and the cluster-event vocabulary its EventsToRegister and queueing hints
 * use (queue/event.h). A plugin is one `const struct fw_plugin` in algorithm/plugins/<name>.c and
 * one row of the table in algorithm/registry.c; profiles and the cycle itself are in
 * algorithm/framework.h, which the scheduler uses.
 *
 * Threads: Filter and Score callbacks run on the worker pool and may only read their const
 * arguments (the pod, the node_info, the cycle state); what they need they allocate in PreFilter
 * / PreScore, which run on the scheduler thread. Reserve..PostBind may run on a binder thread,
 * one thread per cycle state at a time.
 *
 * Statuses follow upstream: a scheduling outcome is a code plus reason strings, never an error
 * (struct err is for broken input and resource exhaustion). */
#ifndef CSCHED_ALGORITHM_PLUGIN_H
#define CSCHED_ALGORITHM_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apiclient/api_types.h"
#include "cache/node_info.h"
#include "common/err.h"
#include "common/macros.h"
#include "config/plugin_args.h"
#include "queue/event.h"

#define FW_MAX_NODE_SCORE 100
#define FW_MIN_NODE_SCORE 0
#define FW_MAX_PLUGINS 32          /* distinct plugins in one profile */
#define FW_STATUS_TEXT_MAX 480     /* bytes of reason text one status holds */

/* ---------- Status ---------- */

/* Upstream's status codes, same order. */
enum fw_code {
	FW_SUCCESS,
	FW_ERROR,
	FW_UNSCHEDULABLE,
	FW_UNSCHEDULABLE_AND_UNRESOLVABLE,
	FW_WAIT,
	FW_SKIP,
	FW_PENDING,
};

/* "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending". */
const char *fw_code_str(enum fw_code c);

/* A code, reasons and the plugin that produced it. Reasons are copied into text (each
 * NUL-terminated, back to back), so a status is a self-contained value that may be copied with
 * `=`. A reason that does not fit is truncated, never dropped silently (it ends in "..."). */
struct fw_status {
	enum fw_code code;
	uint16_t n_reasons;
	uint16_t len;       /* bytes of text in use */
	const char *plugin; /* static plugin name; NULL when not from a plugin */
	char text[FW_STATUS_TEXT_MAX];
};

/* Code Success, no reasons, no plugin. Inline: it runs before every plugin call (thousands per
 * pod), and an out-of-line call cost more than the five stores. */
static inline void fw_status_reset(struct fw_status *st)
{
	st->code = FW_SUCCESS;
	st->n_reasons = 0;
	st->len = 0;
	st->plugin = NULL;
	st->text[0] = '\0';
}
/* Resets st to code with one reason (NULL = none) and returns code, so a plugin can write
 * `return fw_status_set(st, FW_UNSCHEDULABLE, "node(s) were unschedulable");`. */
enum fw_code fw_status_set(struct fw_status *st, enum fw_code code, const char *reason);
enum fw_code fw_status_setf(struct fw_status *st, enum fw_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Appends a reason (code unchanged). */
void fw_status_add_reason(struct fw_status *st, const char *reason);
void fw_status_add_reasonf(struct fw_status *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Iteration: for (const char *r = fw_status_reason_next(st, NULL); r; r = fw_status_reason_next(st, r)) */
const char *fw_status_reason_next(const struct fw_status *st, const char *prev);
/* Upstream's Status.Message(): reasons joined with ", ". Returns buf (truncated to size). */
const char *fw_status_message(const struct fw_status *st, char *buf, size_t size);
static inline bool fw_status_is_success(const struct fw_status *st) { return st->code == FW_SUCCESS; }
/* Unschedulable or UnschedulableAndUnresolvable. */
static inline bool fw_code_is_rejected(enum fw_code c)
{
	return c == FW_UNSCHEDULABLE || c == FW_UNSCHEDULABLE_AND_UNRESOLVABLE;
}

/* Cluster events and queueing hints are the queue's vocabulary (queue/event.h): a plugin lists
 * struct queue_event_hint entries (upstream EventsToRegister) and its hints receive its instance
 * (const struct fw_pl *) as their plugin argument. */

struct fw_pl;

/* ---------- Plugins ---------- */

struct fw_cycle;
struct fw_profile;

/* A node-name set returned by PreFilter (upstream's PreFilterResult). all = every node;
 * otherwise names[0..n) (interned; allocated from the cycle arena) is the only candidates. */
struct fw_node_names {
	bool all;
	uint32_t n;
	const char **names;
};

/* A node and its score, for NormalizeScore. */
struct fw_node_score {
	const struct node_info *ni;
	int64_t score;
};

/* PostFilter output (preemption): the node nominated for the pod; "" clears the pod's nomination
 * (upstream ModeOverride with ""), NULL leaves it (upstream's nil result, ModeNoop). The framework
 * starts it at NULL. */
struct fw_post_filter_result {
	const char *nominated_node_name;
};

struct fw_diagnosis;
struct strbuf;

/* An enabled plugin in a profile. Read-only after fw_profile_new. */
struct fw_pl {
	const struct fw_plugin *plugin;
	uint32_t index;    /* its slot in the cycle state */
	const void *args;  /* the plugin's member of struct cfg_plugin_args, NULL = defaults */
	void *priv;        /* what plugin->init stored (parsed args, tables) */
	const struct fw_profile *profile;
};

/* Extension point callbacks. Every callback that returns enum fw_code also fills st (reset to
 * Success by the framework before the call) with its reasons, usually via fw_status_set. */
typedef enum fw_code (*fw_pre_enqueue_fn)(const struct fw_pl *pl, const struct api_pod *pod,
					  struct fw_status *st);
/* QueueSort: whether a sorts before b (timestamps are when each pod was added to the queue). */
typedef bool (*fw_less_fn)(const struct api_pod *a, int64_t a_timestamp, const struct api_pod *b,
			   int64_t b_timestamp);
/* PreFilter: out starts as {all = true}; a plugin narrowing the candidates sets all = false and
 * names (allocated with fw_cycle_alloc). Skip disables the plugin's Filter for this cycle. */
typedef enum fw_code (*fw_pre_filter_fn)(const struct fw_pl *pl, struct fw_cycle *c,
					 const struct api_pod *pod, struct fw_node_names *out,
					 struct fw_status *st);
/* Filter: runs on worker threads; the cycle state is read-only. */
typedef enum fw_code (*fw_filter_fn)(const struct fw_pl *pl, const struct fw_cycle *c,
				     const struct api_pod *pod, const struct node_info *ni,
				     struct fw_status *st);
typedef enum fw_code (*fw_post_filter_fn)(const struct fw_pl *pl, struct fw_cycle *c,
					  const struct api_pod *pod, const struct fw_diagnosis *d,
					  struct fw_post_filter_result *out, struct fw_status *st);
/* PreScore: Skip drops the plugin's Score for this cycle. */
typedef enum fw_code (*fw_pre_score_fn)(const struct fw_pl *pl, struct fw_cycle *c,
					const struct api_pod *pod, const struct node_info *const *nodes,
					uint32_t n, struct fw_status *st);
/* Score: runs on worker threads; the cycle state is read-only. */
typedef enum fw_code (*fw_score_fn)(const struct fw_pl *pl, const struct fw_cycle *c,
				    const struct api_pod *pod, const struct node_info *ni,
				    int64_t *score, struct fw_status *st);
typedef enum fw_code (*fw_normalize_fn)(const struct fw_pl *pl, const struct fw_cycle *c,
					const struct api_pod *pod, struct fw_node_score *scores,
					uint32_t n, struct fw_status *st);
/* Reserve, PreBind, Bind, PostBind (PostBind's status is ignored). */
typedef enum fw_code (*fw_node_op_fn)(const struct fw_pl *pl, struct fw_cycle *c,
				      const struct api_pod *pod, const char *node_name,
				      struct fw_status *st);
typedef void (*fw_unreserve_fn)(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
				const char *node_name);
/* Permit: Wait with *timeout_ms set asks the scheduler to hold the pod. */
typedef enum fw_code (*fw_permit_fn)(const struct fw_pl *pl, struct fw_cycle *c,
				     const struct api_pod *pod, const char *node_name,
				     int64_t *timeout_ms, struct fw_status *st);
/* Explain (csched explain only, never the scheduling loop): after a cycle whose Filter rejected
 * pod on ni, why, in more detail than the status's reasons (which stay upstream's), as lines
 * appended to out, each ending in '\n'. The cycle state is PreFilter's, read only; the call may
 * be slow (it is off the hot path by construction). 0, or a negative ERR_* code with e. */
typedef int (*fw_explain_fn)(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			     const struct node_info *ni, struct strbuf *out, struct err *e);

struct fw_plugin {
	const char *name;
	enum cfg_args_kind args_kind; /* CFG_ARGS_NONE when the plugin takes no args */
	/* Optional: validates pl->args (NULL = defaults) and stores derived data in pl->priv. */
	int (*init)(struct fw_pl *pl, struct err *e);
	void (*release)(struct fw_pl *pl);

	fw_pre_enqueue_fn pre_enqueue;
	fw_less_fn less;
	fw_pre_filter_fn pre_filter;
	fw_filter_fn filter;
	fw_post_filter_fn post_filter;
	fw_pre_score_fn pre_score;
	fw_score_fn score;
	fw_normalize_fn normalize_score;
	fw_node_op_fn reserve;
	fw_unreserve_fn unreserve;
	fw_permit_fn permit;
	fw_node_op_fn pre_bind;
	fw_node_op_fn bind;
	fw_node_op_fn post_bind;

	uint32_t n_events; /* 0 = every event ({*, All}) when the plugin can reject a pod */
	const struct queue_event_hint *events;

	fw_explain_fn explain; /* optional; see fw_explain_fn */
	/* Optional: an informer delivered the delete of obj (a struct api_pv for
	 * QUEUE_RES_PERSISTENT_VOLUME, struct api_pvc for QUEUE_RES_PERSISTENT_VOLUME_CLAIM, ...),
	 * so state the plugin keeps per object (upstream's AssumeCache delete handler) can go.
	 * Called on informer threads, concurrently with cycles; never under a scheduler lock. */
	void (*object_deleted)(const struct fw_pl *pl, enum queue_resource res, const void *obj);
};

/* Sets .n_events and .events of a struct fw_plugin from a static array of struct queue_event_hint. */
#define FW_EVENTS(arr) .n_events = ARRAY_SIZE(arr), .events = (arr)

/* ---------- Listers ---------- */

/* Object stores plugins read beyond the snapshot (upstream's informer listers), kept current by
 * the scheduler's informers: a lookup sees the latest object, not a per-cycle copy. A get
 * returns a new reference the caller drops (api_pvc_unref), or NULL when the object does not
 * exist or the profile has no such store. Any thread may call them. */
struct fw_listers {
	struct api_pvc *(*pvc)(void *ctx, const char *ns, const char *name);
	struct api_namespace *(*ns)(void *ctx, const char *name);
	/* Calls fn on each object (borrowed for the call; fn must not call a lister) until fn
	 * returns nonzero; returns that value, or 0. */
	int (*ns_each)(void *ctx, int (*fn)(void *arg, const struct api_namespace *ns), void *arg);
	/* kind API_SEL_RC, API_SEL_RS or API_SEL_SS: the object ns/name. */
	struct api_selector_owner *(*owner)(void *ctx, enum api_selector_kind kind, const char *ns, const char *name);
	/* The Services of namespace ns. */
	int (*services_each)(void *ctx, const char *ns, int (*fn)(void *arg, const struct api_selector_owner *svc),
			     void *arg);
	/* The pod ns/name as the pod informer last delivered it (upstream's pod lister). */
	struct api_pod *(*pod)(void *ctx, const char *ns, const char *name);
	/* Each PodDisruptionBudget of every namespace. */
	int (*pdb_each)(void *ctx, int (*fn)(void *arg, const struct api_pdb *pdb), void *arg);
	/* The volume kinds (upstream's PV, StorageClass, CSINode, CSIDriver, VolumeAttachment and
	 * CSIStorageCapacity listers). NULL members: the profile runs no plugin that needs the kind. */
	struct api_pv *(*pv)(void *ctx, const char *name);
	/* Each PV whose class (upstream GetPersistentVolumeClass: the beta annotation, else
	 * spec.storageClassName) is class_name; every PV when class_name is NULL. */
	int (*pv_each)(void *ctx, const char *class_name, int (*fn)(void *arg, const struct api_pv *pv), void *arg);
	struct api_storage_class *(*storage_class)(void *ctx, const char *name);
	struct api_csinode *(*csinode)(void *ctx, const char *name);
	struct api_csidriver *(*csidriver)(void *ctx, const char *name);
	/* Each VolumeAttachment whose spec.nodeName is node_name (upstream's va.spec.nodename index);
	 * every one when node_name is NULL. */
	int (*volume_attachment_each)(void *ctx, const char *node_name,
				      int (*fn)(void *arg, const struct api_volume_attachment *va), void *arg);
	/* Each CSIStorageCapacity of every namespace. */
	int (*csi_storage_capacity_each)(void *ctx, int (*fn)(void *arg, const struct api_csi_storage_capacity *c),
					 void *arg);
	/* The resource.k8s.io/v1 kinds (upstream's DRA manager: ResourceClaims, ResourceSlices,
	 * DeviceClasses, DeviceTaintRules). NULL members: the profile runs no plugin that needs the
	 * kind (DeviceTaintRules also when the server does not serve them). */
	struct api_resource_claim *(*resource_claim)(void *ctx, const char *ns, const char *name);
	/* Each ResourceClaim of every namespace (the allocated devices are collected from them). */
	int (*resource_claim_each)(void *ctx, int (*fn)(void *arg, const struct api_resource_claim *c), void *arg);
	int (*resource_slice_each)(void *ctx, int (*fn)(void *arg, const struct api_resource_slice *s), void *arg);
	struct api_device_class *(*device_class)(void *ctx, const char *name);
	int (*device_class_each)(void *ctx, int (*fn)(void *arg, const struct api_device_class *c), void *arg);
	int (*device_taint_rule_each)(void *ctx, int (*fn)(void *arg, const struct api_device_taint_rule *r),
				      void *arg);
	/* Registers fn as a sink of the ResourceClaim informer's events (upstream's DRA manager
	 * feeding allocateddevices.go's tracker): fn first sees each claim the store holds already
	 * (as an add), then each add (old NULL), update and delete (new_obj NULL) in the informer's
	 * order, on its thread. The objects are borrowed for the call; fn must not call a lister. The
	 * sink stays registered while ctx lives (the informers stop before the profiles are freed).
	 * 0; ERR_NOMEM; or 1 when fn will get no events (the scheduler's informers already run: a
	 * profile built later, such as the explainer's). NULL member or 1: DynamicResources gathers
	 * the allocated devices from every claim for every pod instead. */
	int (*resource_claim_sink)(void *ctx,
				   void (*fn)(void *arg, const struct api_resource_claim *old,
					      const struct api_resource_claim *new_obj),
				   void *arg);
	void *ctx;
};
/* The PVC ns/name of pl's profile's lister, or NULL (see struct fw_listers). */
struct api_pvc *fw_get_pvc(const struct fw_pl *pl, const char *ns, const char *name);
/* The Namespace name (new reference: api_namespace_unref), or NULL. */
struct api_namespace *fw_get_namespace(const struct fw_pl *pl, const char *name);
/* Each Namespace (see fw_listers.ns_each); 0 without a namespace lister. */
int fw_each_namespace(const struct fw_pl *pl, int (*fn)(void *arg, const struct api_namespace *ns), void *arg);
/* The RC, ReplicaSet or StatefulSet ns/name (new reference: api_selector_owner_unref), or NULL. */
struct api_selector_owner *fw_get_selector_owner(const struct fw_pl *pl, enum api_selector_kind kind, const char *ns,
						 const char *name);
/* Each Service of namespace ns; 0 without a service lister. */
int fw_each_service(const struct fw_pl *pl, const char *ns,
		    int (*fn)(void *arg, const struct api_selector_owner *svc), void *arg);

/* The pod ns/name (new reference: api_pod_unref), or NULL. */
struct api_pod *fw_get_pod(const struct fw_pl *pl, const char *ns, const char *name);
/* Each PodDisruptionBudget (see fw_listers.pdb_each); 0 without a PDB lister. */
int fw_each_pdb(const struct fw_pl *pl, int (*fn)(void *arg, const struct api_pdb *pdb), void *arg);

/* The PV name (new reference: api_pv_unref), or NULL. */
struct api_pv *fw_get_pv(const struct fw_pl *pl, const char *name);
/* Each PV of class class_name, NULL = every PV (borrowed for the call, see fw_listers.pv_each); 0
 * without a PV lister. */
int fw_each_pv(const struct fw_pl *pl, const char *class_name, int (*fn)(void *arg, const struct api_pv *pv),
	       void *arg);
/* The StorageClass name (new reference: api_storage_class_unref), or NULL. */
struct api_storage_class *fw_get_storage_class(const struct fw_pl *pl, const char *name);
/* The CSINode name (new reference: api_csinode_unref), or NULL. */
struct api_csinode *fw_get_csinode(const struct fw_pl *pl, const char *name);
/* The CSIDriver name (new reference: api_csidriver_unref), or NULL. */
struct api_csidriver *fw_get_csidriver(const struct fw_pl *pl, const char *name);
/* Each VolumeAttachment of node_name, NULL = every one (borrowed for the call); 0 without a lister. */
int fw_each_volume_attachment(const struct fw_pl *pl, const char *node_name,
			      int (*fn)(void *arg, const struct api_volume_attachment *va), void *arg);
/* Each CSIStorageCapacity (borrowed for the call); 0 without a lister. */
int fw_each_csi_storage_capacity(const struct fw_pl *pl,
				 int (*fn)(void *arg, const struct api_csi_storage_capacity *c), void *arg);

/* The ResourceClaim ns/name (new reference: api_resource_claim_unref), or NULL. */
struct api_resource_claim *fw_get_resource_claim(const struct fw_pl *pl, const char *ns, const char *name);
/* Each ResourceClaim / ResourceSlice / DeviceClass / DeviceTaintRule (borrowed for the call; fn
 * must not call a lister); 0 without the lister. */
int fw_each_resource_claim(const struct fw_pl *pl, int (*fn)(void *arg, const struct api_resource_claim *c),
			   void *arg);
int fw_each_resource_slice(const struct fw_pl *pl, int (*fn)(void *arg, const struct api_resource_slice *s),
			   void *arg);
/* The DeviceClass name (new reference: api_device_class_unref), or NULL. */
struct api_device_class *fw_get_device_class(const struct fw_pl *pl, const char *name);
int fw_each_device_class(const struct fw_pl *pl, int (*fn)(void *arg, const struct api_device_class *c), void *arg);
int fw_each_device_taint_rule(const struct fw_pl *pl, int (*fn)(void *arg, const struct api_device_taint_rule *r),
			      void *arg);
/* Registers fn with the profile's claim event sink (see fw_listers.resource_claim_sink): 0, 1 when
 * the listers have no sink or it gives no events (fn will never be called), or ERR_NOMEM. */
int fw_watch_resource_claims(const struct fw_pl *pl,
			     void (*fn)(void *arg, const struct api_resource_claim *old,
					const struct api_resource_claim *new_obj),
			     void *arg);

/* ---------- Preemption ---------- */

/* A preemption decision (upstream Candidate): the node and the pods to evict there, in upstream's
 * order (most important first). */
struct fw_preemption {
	const char *node_name; /* interned */
	uint32_t n_victims;
	struct api_pod *const *victims; /* borrowed for the call: the executor refs what it keeps */
	int64_t num_pdb_violations;
};

/* The scheduler's preemption executor (upstream framework/preemption Executor), which does the API
 * calls; NULL members (unit tests, dry runs) evict nothing and report no preemption running. */
struct fw_preempt_ops {
	/* upstream actuatePodPreemption with SchedulerAsyncPreemption: starts evicting p's victims
	 * for preemptor and clearing the nominations of lower-priority pods on p->node_name, off the
	 * scheduler thread, and returns. FW_ERROR with a reason when it cannot start. Scheduler thread. */
	enum fw_code (*actuate)(void *ctx, const struct api_pod *preemptor, const struct fw_preemption *p,
				struct fw_status *st);
	/* upstream Executor.IsPodRunningPreemption. Any thread (PreEnqueue runs under the queue lock). */
	bool (*is_running)(void *ctx, const char *pod_uid);
	void *ctx;
};
/* The profile's executor calls (see struct fw_preempt_ops); without an executor actuate succeeds
 * evicting nothing and is_running is false. */
enum fw_code fw_preempt_actuate(const struct fw_pl *pl, const struct api_pod *preemptor, const struct fw_preemption *p,
				struct fw_status *st);
bool fw_preempt_is_running(const struct fw_pl *pl, const char *pod_uid);

/* ---------- Volume binding ---------- */

/* The scheduler's side of VolumeBinding's PreBind (upstream volumeBinder.bindAPIUpdate's
 * kubeClient calls and checkBindings' node lister), called on the binder thread running PreBind.
 * NULL members (unit tests): the writes fail with an error naming the call, node finds nothing
 * and sleep sleeps. */
struct fw_volume_ops {
	/* upstream PersistentVolumes().Update of the PV with claimRef set: writes spec.claimRef =
	 * the claim (kind, apiVersion, namespace, name, uid, resourceVersion as reference.GetReference
	 * makes it) on PV pv_name and, when bound_by_controller, the annotation
	 * pv.kubernetes.io/bound-by-controller: "yes", with pv_rv as the resourceVersion
	 * precondition. Copies the PV's new resourceVersion into new_rv (size bytes). 0, or a
	 * negative code with e. */
	int (*bind_pv)(void *ctx, const char *pv_name, const char *pv_rv, const struct api_pvc *claim,
		       bool bound_by_controller, char *new_rv, size_t size, struct err *e);
	/* upstream PersistentVolumeClaims(ns).Update of the claim with annotation
	 * volume.kubernetes.io/selected-node = node_name, claim's resourceVersion as precondition.
	 * Copies the claim's new resourceVersion into new_rv. 0, or a negative code with e. */
	int (*select_node)(void *ctx, const struct api_pvc *claim, const char *node_name, char *new_rv, size_t size,
			   struct err *e);
	/* The node name as the node informer last delivered it (new reference), or NULL. */
	struct api_node *(*node)(void *ctx, const char *name);
	/* Waits ms milliseconds (upstream's poll interval); returns false early when the scheduler
	 * is stopping. */
	bool (*sleep)(void *ctx, int64_t ms);
	void *ctx;
};
int fw_volume_bind_pv(const struct fw_pl *pl, const char *pv_name, const char *pv_rv, const struct api_pvc *claim,
		      bool bound_by_controller, char *new_rv, size_t size, struct err *e);
int fw_volume_select_node(const struct fw_pl *pl, const struct api_pvc *claim, const char *node_name, char *new_rv,
			  size_t size, struct err *e);
struct api_node *fw_volume_node(const struct fw_pl *pl, const char *name);
bool fw_volume_sleep(const struct fw_pl *pl, int64_t ms);

/* ---------- Dynamic resource allocation ---------- */

/* The scheduler's side of DynamicResources' API writes (upstream's clientset calls in
 * dynamicresources.go and extendeddynamicresources.go), called on the binder thread (PreBind),
 * or the scheduling thread (PostFilter). Each write returns 0, or a negative code with e
 * (ERR_CONFLICT on a resourceVersion conflict, ERR_NOT_FOUND on 404). NULL members (unit
 * tests): the writes fail with an error naming the call. */
struct fw_dra_ops {
	/* GET of the claim ns/name from the server (the retry after a conflict): *out a new
	 * reference. */
	int (*get_claim)(void *ctx, const char *ns, const char *name, struct api_resource_claim **out, struct err *e);
	/* Update of claim adding finalizer resource.kubernetes.io/delete-protection to its
	 * metadata.finalizers, claim's resourceVersion as precondition; *out the updated claim. */
	int (*add_finalizer)(void *ctx, const struct api_resource_claim *claim, struct api_resource_claim **out,
			     struct err *e);
	/* UpdateStatus of claim (its resourceVersion as precondition): status.allocation = allocation
	 * when not NULL (else the claim's own, kept), status.reservedFor = the claim's entries plus
	 * consumer, and, when set_timestamp and the allocation has none, allocationTimestamp = now.
	 * *out the updated claim. */
	int (*reserve)(void *ctx, const struct api_resource_claim *claim, const struct api_dra_allocation *allocation,
		       const struct api_dra_consumer *consumer, bool set_timestamp, struct api_resource_claim **out,
		       struct err *e);
	/* UpdateStatus of claim with reservedFor, allocation and devices cleared (PostFilter's
	 * deallocation), its resourceVersion as precondition. */
	int (*deallocate)(void *ctx, const struct api_resource_claim *claim, struct err *e);
	/* The strategic merge patch of claim's status removing the reservedFor entry of uid
	 * (Unreserve, PostFilter): {"metadata":{"uid":U},"status":{"reservedFor":[{"$patch":"delete","uid":...}]}}. */
	int (*unreserve)(void *ctx, const struct api_resource_claim *claim, const char *uid, struct err *e);
	/* DRAExtendedResource: Create of the claim whose JSON body is json (*out the created
	 * claim), Delete of claim, and the pod status patch setting
	 * status.extendedResourceClaimStatus to status_json (an object, or "null"). */
	int (*create_claim)(void *ctx, const char *ns, const char *json, size_t len, struct api_resource_claim **out,
			    struct err *e);
	int (*delete_claim)(void *ctx, const struct api_resource_claim *claim, struct err *e);
	int (*patch_pod_extended_status)(void *ctx, const struct api_pod *pod, const char *status_json, struct err *e);
	/* Waits ms milliseconds (binding conditions' poll); false early when the scheduler stops. */
	bool (*sleep)(void *ctx, int64_t ms);
	void *ctx;
};
/* The profile's DRA ops (see struct fw_dra_ops; a member is NULL when the scheduler gave none). */
const struct fw_dra_ops *fw_dra_ops(const struct fw_pl *pl);

/* ---------- Cycle state ---------- */

/* The nodes of one scheduling cycle: a snapshot's node list in zone-interleaved order. get
 * (optional) finds a node by interned name; without it the list is searched. */
struct fw_node_list {
	uint32_t n;
	const struct node_info *const *nodes;
	const struct node_info *(*get)(const void *ctx, const char *interned_name);
	const void *get_ctx;
	/* When has_pod_lists (a snapshot's list): upstream's HavePodsWithAffinityList (nodes with a
	 * pod with pod (anti-)affinity) and HavePodsWithRequiredAntiAffinityList, in node-list order.
	 * Otherwise a plugin finds them by node_info's counters. */
	bool has_pod_lists;
	uint32_t n_with_affinity, n_with_required_anti;
	const struct node_info *const *with_affinity;
	const struct node_info *const *with_required_anti;
};

/* Zeroed memory from the cycle arena (scheduler thread, PreFilter/PreScore/PostFilter/Reserve..).
 * NULL on out of memory. */
void *fw_cycle_alloc(struct fw_cycle *c, size_t n);
void fw_cycle_set_state(struct fw_cycle *c, const struct fw_pl *pl, void *data);
void *fw_cycle_state(const struct fw_cycle *c, const struct fw_pl *pl);
/* Registers a cleanup run when the cycle is reset or freed (for malloc'd plugin state). */
int fw_cycle_on_release(struct fw_cycle *c, void (*fn)(void *), void *arg);
/* The node list of the current fw_schedule_pod call (valid only during it). */
const struct fw_node_list *fw_cycle_nodes(const struct fw_cycle *c);
/* The nominated pods that count on node_name in the current fw_schedule_pod call (priority >=
 * the pod's): *n of them, NULL when none. Filter's pass with nominated pods sees them appended to
 * the node's pods (upstream RunFilterPluginsWithNominatedPods, AddPod). */
const struct api_pod *const *fw_cycle_nominated_pods(const struct fw_cycle *c, const char *node_name, uint32_t *n);

/* upstream's DefaultNormalizeScore: scales scores to 0..max_priority by the highest score
 * (reverse: max_priority - scaled); all 0 -> 0, or max_priority when reverse. */
void fw_default_normalize_score(int64_t max_priority, bool reverse, struct fw_node_score *scores, uint32_t n);
/* NormalizeScore callbacks for plugins: DefaultNormalizeScore to FW_MAX_NODE_SCORE, and its reverse
 * (the highest raw score becomes 0). */
enum fw_code fw_normalize_to_max(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
				 struct fw_node_score *scores, uint32_t n, struct fw_status *st);
enum fw_code fw_normalize_to_max_reversed(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
					  struct fw_node_score *scores, uint32_t n, struct fw_status *st);

#endif
