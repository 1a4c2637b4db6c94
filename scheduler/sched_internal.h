/* Internals shared by scheduler.c (setup, handlers, the loop), attempt.c (one scheduling attempt)
 * and binder.c (binding cycle). */
#ifndef CSCHED_SCHED_INTERNAL_H
#define CSCHED_SCHED_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "algorithm/framework.h"
#include "apiclient/informer.h"
#include "cache/cache.h"
#include "cache/snapshot.h"
#include "config/config.h"
#include "queue/queue.h"
#include "scheduler/events.h"
#include "scheduler/metrics.h"
#include "scheduler/scheduler.h"

/* Spare cycle states kept per profile for reuse (a pod's cycle lives until its bind ends). */
#define SCHED_SPARE_CYCLES 64
/* The loop schedules the next pod only while fewer than this many jobs per active binder worker
 * wait for a worker: see binder.c. */
#define SCHED_BIND_QUEUE_PER_THREAD 4
/* Binder workers using the network at once (not parked, sched_binder_park): the binder's muxer
 * runs at most 16 transfers at once (apiclient/api_mux.c MUX_MAX_ACTIVE), and a server without
 * HTTP/2 gets 16 connections (binder.c BINDER_HTTP1_CONNS); a 17th worker would only wait there
 * with its stack, libcurl handle and binding cycle (4 MiB of peak RSS at 500 nodes for 48 of them). */
#define SCHED_BINDER_ACTIVE 16

/* One profile: its framework instance and a stack of spare cycle states (one is in use per pod
 * between the loop and the end of its binding, so several exist at once). */
struct sched_profile {
	const char *name; /* interned scheduler name */
	struct fw_profile *fw;
	struct sched_metrics *metrics; /* the scheduler's (NULL: none) */
	/* upstream signs none of the profile's pods, so its batch metrics are known without batching
	 * (config_profile_upstream_signs_pods false); else the profile batches (fw_profile_batches) */
	bool batch_metrics;
	bool default_preemption; /* DefaultPreemption is a PostFilter plugin (preemption attempts metric) */
	/* cycles_lock guards spare/n_spare; a leaf lock. */
	pthread_mutex_t cycles_lock;
	struct fw_cycle **spare;
	uint32_t n_spare; /* spare holds SCHED_SPARE_CYCLES slots once allocated */
};

/* A pod between the end of its scheduling cycle and the end of its binding cycle (owned by the
 * binder job that carries it). */
struct sched_bind_job {
	struct sched_profile *prof;
	struct fw_cycle *cycle;
	struct queue_pod_info *qpi; /* the pod as scheduled (unassigned) */
	const char *node_name;      /* interned */
	bool permit_wait;           /* Permit said Wait */
	int64_t permit_timeout_ms;
	const char *permit_plugin;  /* static */
	int64_t start_ns;           /* the attempt's start (metrics) */
};

/* A status patch (PodScheduled=False, nominatedNodeName) to send off the loop: the body
 * api_pod_status_patch made. Strings are owned. */
struct sched_patch_job {
	char *ns, *name;
	char *body;
	size_t len;
};

struct sched_binder;
struct sched_preempt;

struct scheduler {
	struct sched_options o;
	uint64_t batch_cycles; /* pods popped (upstream's SchedulingCycle); scheduler thread only */
	struct config own_cfg; /* when o.cfg was NULL */
	const struct config *cfg;
	struct api_client *client, *event_client;
	struct sched_metrics *metrics;

	struct cache *cache;
	struct queue *queue;
	struct fw_pool *pool;
	struct sched_extenders *extenders; /* NULL without extenders (extender.c) */
	uint32_t n_profiles;
	struct sched_profile *profiles;
	/* Every informer below is also filled from a dump by csched simulate: one added here must be
	 * added to simulate.c's load() too. */
	struct api_informer *pod_inf, *node_inf;
	struct api_informer *pvc_inf; /* its store is the plugins' PVC lister (fw_listers) */
	struct sched_owners *owners;  /* PodTopologySpread's default-selector stores; NULL = not needed */
	struct api_informer *ns_inf;  /* Namespaces: the plugins' namespace lister (InterPodAffinity) */
	struct api_informer *pdb_inf; /* PodDisruptionBudgets (DefaultPreemption); NULL = not needed */
	struct sched_volumes *volumes; /* the volume plugins' stores (volumes.c); NULL = none needed */
	struct sched_dra *dra;         /* DynamicResources' stores (dra.c); NULL = none needed */
	/* The claim informer's event sinks (fw_listers.resource_claim_sink), registered by the
	 * profiles' plugins while they are built, before any informer starts; read-only after. */
	struct sched_claim_sink *claim_sinks;
	uint32_t n_claim_sinks;
	bool claim_sinks_closed; /* set once the informers exist: later profiles (the explainer's,
				  * built on first use) get no sink and gather per pod */
	struct sched_events *events;
	struct sched_binder *binder;
	uint32_t bind_queue_max; /* SCHED_BIND_QUEUE_PER_THREAD x the binder's active workers */
	struct sched_preempt *preempt; /* the preemption executor (preemption.c) */

	struct snapshot *snap; /* scheduler thread only */
	struct sched_explainer *explainer; /* explain.c: its own snapshot and profiles */

	/* start_lock guards the started flags and the thread handles (owner calls). */
	pthread_mutex_t start_lock;
	bool informers_started, scheduling_started, stopped;
	pthread_t loop_thread;
	atomic_bool stop;

	atomic_int_fast64_t busy_since_ns; /* 0 while the loop waits for a pod */
	atomic_int_fast64_t heartbeat_ns;

	atomic_uint_fast64_t n_attempts, n_scheduled, n_unschedulable, n_errors, n_bind_failures, n_skipped,
		n_dropped, n_status_patches;
};

/* The profile serving pod (by spec.schedulerName), or NULL. */
struct sched_profile *sched_profile_for(struct scheduler *s, const struct api_pod *pod);

/* A fresh cycle state of prof (recycled), or NULL on out of memory. */
struct fw_cycle *sched_cycle_get(struct sched_profile *prof);
/* Gives back a cycle state at the end of an attempt: its remaining timings go to the metrics. */
void sched_cycle_put(struct sched_profile *prof, struct fw_cycle *c);
/* Hands the timings the cycle recorded so far to the metrics (the owning thread calls it). */
void sched_cycle_flush_timings(struct sched_profile *prof, struct fw_cycle *c);

/* ---------- attempt.c ---------- */

/* The loop thread's scratch, reused across attempts. */
struct sched_attempt_scratch;
struct sched_attempt_scratch *sched_attempt_scratch_new(void); /* NULL on out of memory */
void sched_attempt_scratch_free(struct sched_attempt_scratch *ls);

/* upstream ScheduleOne for a popped pod: the scheduling cycle, then the hand-off of the binding
 * cycle to the binders. Takes qpi. The loop thread only (it owns s->snap and ls). */
void sched_schedule_one(struct scheduler *s, struct sched_attempt_scratch *ls, struct queue_pod_info *qpi);

/* Failure of a scheduling or binding attempt (upstream handleSchedulingFailure): requeue unless the
 * pod is gone or bound, record FailedScheduling, queue the PodScheduled=False patch; nothing of
 * this for a pod recreated under the same name meanwhile. Takes qpi. rejected: a fit error
 * (reason Unschedulable) vs an error (SchedulerError). f: rejector sets (NULL = none).
 * nominated: NULL = leave the nomination as is, "" = clear it, else the node. */
void sched_handle_failure(struct scheduler *s, struct sched_profile *prof, struct queue_pod_info *qpi,
			  bool rejected, const char *message, const struct queue_failure *f, const char *nominated,
			  int64_t start_ns);

/* The failure message of a Reserve, Permit or binding-cycle status (code) on node, written into
 * msg. A rejection is wrapped, as upstream does, in a FitError over that one node ("0/1 nodes are
 * available: 1 <reason>.") and its rejector set (the status's plugin, stored in *plugin) goes
 * into f; f is left alone otherwise. Returns whether code is a rejection. */
bool sched_failure_on_node(enum fw_code code, const char *node, const struct fw_status *st, char *msg, size_t size,
			   struct queue_failure *f, const char **plugin);

/* Undoes the assumption of pod on node (upstream: Unreserve, then ForgetPod; a failed forget is
 * logged). Returns cache_forget_pod's result. */
int sched_unreserve_and_forget(struct scheduler *s, struct sched_profile *prof, struct fw_cycle *c,
			       const struct api_pod *pod, const char *node);

/* ---------- binder.c ---------- */

/* A pool of at most max_threads workers, started on demand (one at start, another whenever a
 * job finds every worker busy), of which at most SCHED_BINDER_ACTIVE are not parked
 * (sched_binder_park). */
struct sched_binder *sched_binder_new(struct scheduler *s, int max_threads, struct err *e);
int sched_binder_start(struct sched_binder *b, struct err *e);
/* Hands a pod to the binders (takes job; never blocks on I/O). */
void sched_binder_bind(struct sched_binder *b, struct sched_bind_job *job);
/* Queues a status patch (takes job). */
void sched_binder_patch(struct sched_binder *b, struct sched_patch_job *job);
/* Finishes the jobs already queued, then stops and joins the workers. */
void sched_binder_stop(struct sched_binder *b);
void sched_binder_free(struct sched_binder *b);
/* Jobs queued or running. */
uint32_t sched_binder_pending(struct sched_binder *b);
/* Bind jobs queued or running (the event sender yields to them). */
uint32_t sched_binder_binds_pending(struct sched_binder *b);
/* Worker threads started since the last start (the pool grows on demand up to its maximum). */
int sched_binder_threads(struct sched_binder *b);
/* Called by a binder worker around a wait that needs no network (WaitOnPermit, a PreBind's
 * polling for a volume or a device): while parked it does not count against the
 * SCHED_BINDER_ACTIVE workers, so another may start for the queued jobs. No-op on other
 * threads. */
void sched_binder_park(bool parked);
/* Waits up to timeout_ns while max or more jobs wait for a worker (queued, not yet taken): true
 * when fewer do, false on timeout or stop. The scheduling loop calls it before each pod. */
bool sched_binder_wait_room(struct sched_binder *b, uint32_t max, int64_t timeout_ns);
/* Jobs queued that no worker has taken yet. */
uint32_t sched_binder_queued(struct sched_binder *b);
/* A patch job for pod (copies of its namespace and name) that takes body, or NULL on out of
 * memory (body freed). */
struct sched_patch_job *sched_patch_job_new(const struct api_pod *pod, char *body, size_t len);
void sched_patch_job_free(struct sched_patch_job *j);

/* ---------- preemption.c ---------- */

/* The preemption executor (upstream framework/preemption Executor, asynchronous). */
struct sched_preempt *sched_preempt_new(struct scheduler *s, struct err *e);
/* Lets actuate start workers (on demand, at most a few). */
void sched_preempt_start(struct sched_preempt *x);
/* Joins the workers after the jobs they run; queued jobs are dropped. Start may follow. */
void sched_preempt_stop(struct sched_preempt *x);
void sched_preempt_free(struct sched_preempt *x); /* NULL is a no-op */
/* fw_preempt_ops of every profile (ctx: the scheduler). */
enum fw_code sched_preempt_actuate(void *ctx, const struct api_pod *preemptor, const struct fw_preemption *c,
				   struct fw_status *st);
bool sched_preempt_is_running(void *ctx, const char *pod_uid);

/* The profiles' bind callback (fw_profile_options.bind): api_bind_pod on the calling binder
 * thread's connection. */
int sched_bind_cb(void *ctx, const struct api_pod *pod, const char *node_name, struct err *e);

/* The connection of the binder thread calling it (NULL on other threads). */
struct api_conn *sched_binder_conn(void);

/* volume_writes.c: fw_volume_ops of every profile (ctx: the scheduler), VolumeBinding's PreBind
 * writes on the binder thread's connection, the node informer's store, a sleep that ends when
 * the scheduler stops. */
int sched_volume_bind_pv(void *ctx, const char *pv_name, const char *pv_rv, const struct api_pvc *claim,
			 bool bound_by_controller, char *new_rv, size_t size, struct err *e);
int sched_volume_select_node(void *ctx, const struct api_pvc *claim, const char *node_name, char *new_rv, size_t size,
			     struct err *e);
struct api_node *sched_volume_node(void *ctx, const char *name);
bool sched_volume_sleep(void *ctx, int64_t ms);
/* dra_writes.c: struct fw_dra_ops's members (ctx: the scheduler), on the binder thread's
 * connection or one opened for the call elsewhere. */
int sched_dra_get_claim(void *ctx, const char *ns, const char *name, struct api_resource_claim **out, struct err *e);
int sched_dra_add_finalizer(void *ctx, const struct api_resource_claim *claim, struct api_resource_claim **out,
			    struct err *e);
int sched_dra_reserve(void *ctx, const struct api_resource_claim *claim, const struct api_dra_allocation *allocation,
		      const struct api_dra_consumer *consumer, bool set_timestamp, struct api_resource_claim **out,
		      struct err *e);
int sched_dra_deallocate(void *ctx, const struct api_resource_claim *claim, struct err *e);
int sched_dra_unreserve(void *ctx, const struct api_resource_claim *claim, const char *uid, struct err *e);
int sched_dra_create_claim(void *ctx, const char *ns, const char *json, size_t len, struct api_resource_claim **out,
			   struct err *e);
int sched_dra_delete_claim(void *ctx, const struct api_resource_claim *claim, struct err *e);
int sched_dra_patch_pod_extended_status(void *ctx, const struct api_pod *pod, const char *status_json, struct err *e);
bool sched_dra_sleep(void *ctx, int64_t ms);

/* Seconds since start_ns (api_now_ns clock), for the metrics. */
double sched_since_s(int64_t start_ns);

/* The pod informer's handlers (scheduler.c; unit tests call them directly). */
void sched_pod_handlers(struct scheduler *s, struct api_informer_handlers *out);
/* sched_options.may_bind's answer (true without it): whether this replica may write to the API
 * server (bind, patch status, send events) and schedule. */
bool sched_may_write(const struct scheduler *s);

/* upstream's scheduler_batch_* metrics of one fw_schedule_pod: from what the batch path did when
 * the profile batches, else the values upstream's unsigned path gives (attempt.c). */
void sched_record_batch_metrics(struct sched_metrics *m, const char *profile, bool batches,
				const struct fw_schedule_result *res);

/* explain.c: the state of `csched explain` (its own snapshot and framework profiles). */
struct sched_explainer;
struct sched_explainer *sched_explainer_new(struct scheduler *s, uint32_t n_profiles); /* NULL: no memory */
void sched_explainer_free(struct sched_explainer *x);
/* The nominated pods the loop's cycle would see for pod (every node, any priority, but the pod's
 * own), as fw_schedule_pod takes them (nom); explain and simulate (explain.c). */
struct sched_nominated {
	struct fw_nominated nom;
	struct queue_nominated *qn;
	struct fw_nominated_pod *pods;
	uint32_t n;
};
int sched_nominated_get(struct scheduler *s, const struct api_pod *pod, struct sched_nominated *out, struct err *e);
void sched_nominated_release(struct sched_nominated *n);

struct strbuf;
/* s as a JSON string (quoted, escaped), or null for NULL, appended to sb (explain.c). */
void sched_json_str(struct strbuf *sb, const char *s);
/* The rendering of one cycle (as explain's, no PostFilter part), appended to sb: what simulate
 * shows per pod. rec must be the cycle's record, res its result, list its nodes. */
int sched_explain_render(const struct api_pod *pod, const char *profile, const struct fw_node_list *list,
			 const struct fw_schedule_result *res, const struct fw_record *rec, bool json, struct strbuf *sb,
			 struct err *e);
/* The framework options of the loop's profiles (listers, executor, extenders, pool, bind). */
void sched_fw_profile_options(struct scheduler *s, struct fw_profile_options *po);

/* owners.c: the Service, ReplicationController, ReplicaSet and StatefulSet informers behind
 * PodTopologySpread's default constraints (fw_listers.owner / services_each). */
struct sched_owners;
bool sched_owners_needed(const struct config *cfg); /* a profile runs PodTopologySpread with defaults */
struct sched_owners *sched_owners_new(struct api_client *c, struct err *e);
int sched_owners_start(struct sched_owners *o, struct err *e); /* NULL: nothing to start */
void sched_owners_stop(struct sched_owners *o);
/* Fills the four stores from a dump (api_informer_load_list; csched simulate). NULL: nothing. */
int sched_owners_load(struct sched_owners *o, const char *json, size_t len, struct err *e);
void sched_owners_free(struct sched_owners *o);
bool sched_owners_synced(const struct sched_owners *o); /* NULL: true */
bool sched_owners_wait_synced(struct sched_owners *o, long timeout_ms);
struct api_selector_owner *sched_owners_get(void *sched, enum api_selector_kind kind, const char *ns, const char *name);
int sched_owners_services_each(void *sched, const char *ns,
			       int (*fn)(void *arg, const struct api_selector_owner *svc), void *arg);

/* volumes.c: the PV, StorageClass, CSINode, CSIDriver, VolumeAttachment and CSIStorageCapacity
 * informers of the volume plugins, their listers (fw_listers.pv ... csi_storage_capacity_each)
 * and their cluster events. Kinds as bits: */
enum {
	SCHED_VOL_PV = 1u << 0,
	SCHED_VOL_STORAGE_CLASS = 1u << 1,
	SCHED_VOL_CSINODE = 1u << 2,
	SCHED_VOL_CSIDRIVER = 1u << 3,
	SCHED_VOL_VOLUME_ATTACHMENT = 1u << 4,
	SCHED_VOL_CSI_STORAGE_CAPACITY = 1u << 5,
};
struct sched_volumes;
/* The kinds plugin p needs: the listers its upstream constructor takes, and the kinds of the
 * events it registers. */
unsigned sched_volume_kinds_of(const struct fw_plugin *p);
unsigned sched_volume_kinds(const struct scheduler *s); /* of every plugin of every profile */
/* Informers for kinds (0: none, and nothing to start); their events go to q (NULL: nowhere). */
struct sched_volumes *sched_volumes_new(struct api_client *c, unsigned kinds, struct queue *q, struct err *e);
/* fn(ctx, the event's enum queue_resource, obj) after each delete an informer delivers (the
 * plugins' per-object state goes with it); call before sched_volumes_start. */
void sched_volumes_set_delete_hook(struct sched_volumes *v, void (*fn)(void *ctx, uint32_t resource, const void *obj),
				   void *ctx);
int sched_volumes_start(struct sched_volumes *v, struct err *e); /* NULL: nothing to start */
void sched_volumes_stop(struct sched_volumes *v);
void sched_volumes_free(struct sched_volumes *v);
bool sched_volumes_synced(const struct sched_volumes *v); /* NULL: true */
bool sched_volumes_wait_synced(struct sched_volumes *v, long timeout_ms);
/* Loads a v1 List dump into the needed stores (csched simulate); NULL: nothing to load. */
int sched_volumes_load(struct sched_volumes *v, const char *json, size_t len, struct err *e);
/* The informer of kind, or NULL when not created (tests feed its store). */
struct api_informer *sched_volumes_informer(const struct sched_volumes *v, enum api_kind kind);
struct api_pv *sched_pv_lister(void *sched, const char *name);
int sched_pv_each(void *sched, const char *class_name, int (*fn)(void *arg, const struct api_pv *pv), void *arg);
struct api_storage_class *sched_storage_class_lister(void *sched, const char *name);
struct api_csinode *sched_csinode_lister(void *sched, const char *name);
struct api_csidriver *sched_csidriver_lister(void *sched, const char *name);
int sched_volume_attachment_each(void *sched, const char *node_name,
				 int (*fn)(void *arg, const struct api_volume_attachment *va), void *arg);
int sched_csi_storage_capacity_each(void *sched, int (*fn)(void *arg, const struct api_csi_storage_capacity *c),
				    void *arg);

/* dra.c: the ResourceClaim, ResourceSlice, DeviceClass and DeviceTaintRule informers of
 * DynamicResources, their listers (fw_listers.resource_claim ... device_taint_rule_each) and their
 * cluster events. Kinds as bits: */
enum {
	SCHED_DRA_RESOURCE_CLAIM = 1u << 0,
	SCHED_DRA_RESOURCE_SLICE = 1u << 1,
	SCHED_DRA_DEVICE_CLASS = 1u << 2,
	SCHED_DRA_DEVICE_TAINT_RULE = 1u << 3,
	SCHED_DRA_ALL = (1u << 4) - 1,
};
struct sched_dra;
/* The kinds plugin p needs: all four for DynamicResources (upstream's DRA manager), else the
 * kinds of the events it registers. */
unsigned sched_dra_kinds_of(const struct fw_plugin *p);
unsigned sched_dra_kinds(const struct scheduler *s); /* of every plugin of every profile */
/* Informers for kinds (0: none); their events go to q (NULL: nowhere). */
/* A sink of the claim informer's events (see fw_listers.resource_claim_sink). */
struct sched_claim_sink {
	void (*fn)(void *arg, const struct api_resource_claim *old, const struct api_resource_claim *new_obj);
	void *arg;
};
struct sched_dra *sched_dra_new(struct api_client *c, unsigned kinds, struct queue *q, struct err *e);
/* The sinks d's claim handlers call (borrowed: the scheduler's, set before sched_dra_start). */
void sched_dra_set_claim_sinks(struct sched_dra *d, const struct sched_claim_sink *sinks, uint32_t n);
/* Starts them; first drops the DeviceTaintRule informer when the server answers 404 for the
 * kind (not served). NULL: nothing to start. */
int sched_dra_start(struct sched_dra *d, struct err *e);
void sched_dra_stop(struct sched_dra *d);
void sched_dra_free(struct sched_dra *d);
bool sched_dra_synced(const struct sched_dra *d); /* NULL: true */
bool sched_dra_wait_synced(struct sched_dra *d, long timeout_ms);
/* Loads a v1 List dump into the needed stores (csched simulate); NULL: nothing to load. */
int sched_dra_load(struct sched_dra *d, const char *json, size_t len, struct err *e);
/* The informer of kind, or NULL when not created (tests feed its store). */
struct api_informer *sched_dra_informer(const struct sched_dra *d, enum api_kind kind);
struct api_resource_claim *sched_resource_claim_lister(void *sched, const char *ns, const char *name);
int sched_resource_claim_each(void *sched, int (*fn)(void *arg, const struct api_resource_claim *c), void *arg);
/* fw_listers.resource_claim_sink: appends to the scheduler's sinks (the profiles are built before
 * the informers exist, so there is no claim yet to replay). 0, ERR_NOMEM, or 1 once the informers
 * exist (claim_sinks_closed: no events for a profile built later). */
int sched_resource_claim_sink(void *sched,
			      void (*fn)(void *arg, const struct api_resource_claim *old,
					 const struct api_resource_claim *new_obj),
			      void *arg);
int sched_resource_slice_each(void *sched, int (*fn)(void *arg, const struct api_resource_slice *s), void *arg);
struct api_device_class *sched_device_class_lister(void *sched, const char *name);
int sched_device_class_each(void *sched, int (*fn)(void *arg, const struct api_device_class *c), void *arg);
int sched_device_taint_rule_each(void *sched, int (*fn)(void *arg, const struct api_device_taint_rule *r),
				 void *arg);

/* pdbs.c: the pod and PodDisruptionBudget listers of preemption (fw_listers.pod / pdb_each). */
bool sched_pdbs_needed(const struct config *cfg); /* a profile runs DefaultPreemption at PostFilter */
int sched_pdbs_start(struct api_informer *pdb_inf, struct err *e); /* NULL: nothing to start */
bool sched_pdbs_synced(const struct api_informer *pdb_inf);          /* NULL: true */
bool sched_pdbs_wait_synced(struct api_informer *pdb_inf, long timeout_ms);
struct api_pod *sched_pod_lister(void *sched, const char *ns, const char *name);
int sched_pdb_each(void *sched, int (*fn)(void *arg, const struct api_pdb *pdb), void *arg);

#endif
