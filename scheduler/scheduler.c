/* The scheduler: setup, informer event handlers, the scheduling loop (contract in scheduler.h).
 *
 * DESIGN
 * Threads: the pod and node informers call the handlers below (one event at a time per kind):
 * assigned pods and nodes go to the cache, unassigned pods of our profiles to the queue, and
 * every cluster event that may help a waiting pod asks the queue to move pods
 * (queue_move_on_event). The loop thread (one) pops a pod and runs one scheduling attempt
 * (attempt.c: snapshot, framework cycle, assume, Reserve, Permit, hand-off to the binder workers
 * of binder.c): it never waits for the server. Failures go through sched_handle_failure (requeue,
 * event, status patch queued for a binder). Events go to the recorder thread (events.c). The
 * queue's own timer thread flushes backoff (1 s) and unschedulable leftovers (30 s).
 *
 * Metrics: the framework records extension-point timings (and, in the sampled cycles, every
 * plugin call) in the cycle state; whoever owns the cycle hands them to the metrics: the loop
 * before the binder takes it, then sched_cycle_put at its end. Queue and cache gauges and the
 * queue's counters are read at scrape time (the src_* callbacks, on the HTTP thread).
 *
 * Locks: this file holds none across calls into other modules. start_lock only orders the
 * owner's start/stop calls. The cache and the queue lock internally; handlers call the cache
 * before the queue, as upstream does.
 *
 * Ownership: the informers own the objects they pass to handlers; the cache and the queue take
 * their own references. A popped queue_pod_info is owned by the loop, then by the bind job, and
 * is given back to the queue (requeue) or freed. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/intern.h"
#include "common/log.h"
#include "common/map.h"
#include "extender_internal.h"
#include "sched_internal.h"

/* How often a loop that may not schedule (lease possibly lost) asks again. */
#define LEADER_POLL_NS (50 * 1000000LL)
#define POD_FIELD_SELECTOR "status.phase!=Succeeded,status.phase!=Failed"

double sched_since_s(int64_t start_ns)
{
	return (double)(api_now_ns() - start_ns) / 1e9;
}

/* ---------- Profiles and cycle states ---------- */

static void sink_ep(void *ctx, const struct fw_ep_timing *t)
{
	const struct sched_profile *prof = ctx;
	sched_metrics_extension_point_duration(prof->metrics, fw_ep_str(t->ep), fw_code_str(t->code), prof->name,
					       (double)t->ns / 1e9);
}

static void sink_plugin(void *ctx, const struct fw_plugin_timing *t)
{
	const struct sched_profile *prof = ctx;
	sched_metrics_plugin_durations(prof->metrics, t->plugin, fw_ep_str(t->ep), fw_code_str(t->code), t->buckets,
				       FW_PLUGIN_TIMING_BUCKETS + 1, t->sum_s);
}

void sched_cycle_flush_timings(struct sched_profile *prof, struct fw_cycle *c)
{
	struct fw_timing_sink sink = { prof, sink_ep, sink_plugin };
	fw_cycle_drain_timings(c, prof->metrics ? &sink : NULL);
}

struct sched_profile *sched_profile_for(struct scheduler *s, const struct api_pod *pod)
{
	/* scheduler names are interned on both sides */
	for (uint32_t i = 0; i < s->n_profiles; i++)
		if (s->profiles[i].name == pod->scheduler_name)
			return &s->profiles[i];
	return NULL;
}

struct fw_cycle *sched_cycle_get(struct sched_profile *prof)
{
	struct fw_cycle *c = NULL;
	pthread_mutex_lock(&prof->cycles_lock);
	if (prof->n_spare)
		c = prof->spare[--prof->n_spare];
	pthread_mutex_unlock(&prof->cycles_lock);
	return c ? c : fw_cycle_new(prof->fw); /* spares were reset by sched_cycle_put */
}

void sched_cycle_put(struct sched_profile *prof, struct fw_cycle *c)
{
	if (!c)
		return;
	sched_cycle_flush_timings(prof, c);
	fw_cycle_reset(c); /* drop plugin state now rather than when reused */
	pthread_mutex_lock(&prof->cycles_lock);
	/* Keep at most SCHED_SPARE_CYCLES: when binds lag, thousands of cycles are in flight at once,
	 * and keeping every one afterwards held hundreds of MB (heaptrack, 9358 cycles). */
	if (!prof->spare)
		prof->spare = malloc(SCHED_SPARE_CYCLES * sizeof(*prof->spare));
	if (prof->spare && prof->n_spare < SCHED_SPARE_CYCLES) {
		prof->spare[prof->n_spare++] = c;
		c = NULL;
	}
	pthread_mutex_unlock(&prof->cycles_lock);
	fw_cycle_free(c);
}

/* ---------- Event handlers (informer threads) ---------- */

static bool responsible_for(struct scheduler *s, const struct api_pod *pod)
{
	return sched_profile_for(s, pod) != NULL;
}

static void move(struct scheduler *s, uint32_t resource, uint32_t actions, const void *old_obj, const void *new_obj)
{
	struct queue_event ev = { resource, actions, NULL };
	queue_move_on_event(s->queue, &ev, old_obj, new_obj, NULL, NULL);
}

static void cache_err(const char *what, const struct api_pod *pod, const struct err *e)
{
	LOG_ERROR("scheduler cache %s failed for pod %s/%s: %s", what, pod->meta.namespace, pod->meta.name, e->msg);
}

/* upstream addPodToCache */
static void assigned_pod_added(struct scheduler *s, struct api_pod *pod)
{
	struct err e = { 0 };
	LOG_V(3, "Add event for scheduled pod %s/%s", pod->meta.namespace, pod->meta.name);
	if (cache_add_pod(s->cache, pod, &e) < 0)
		cache_err("AddPod", pod, &e);
	move(s, QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_ADD, NULL, pod);
}

/* upstream deletePodFromCache */
static void assigned_pod_deleted(struct scheduler *s, struct api_pod *pod)
{
	struct err e = { 0 };
	LOG_V(3, "Delete event for scheduled pod %s/%s", pod->meta.namespace, pod->meta.name);
	if (cache_remove_pod(s->cache, pod, &e) < 0)
		cache_err("RemovePod", pod, &e);
	move(s, QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_DELETE, pod, NULL);
}

/* upstream getLEPriorityPreCheck: only pods of priority <= *ctx. */
static bool le_priority(void *ctx, const struct api_pod *pod)
{
	return pod->priority <= *(const int32_t *)ctx;
}

/* A pod that held a nomination freed it (deleted, or nominated elsewhere): the lower or equal
 * priority pods treated it as assigned there (upstream deletePodFromSchedulingQueue and
 * updatePodInSchedulingQueue). */
static void nomination_released(struct scheduler *s, const struct api_pod *pod)
{
	struct queue_event ev = { QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_DELETE, NULL };
	int32_t prio = pod->priority;
	queue_move_on_event(s->queue, &ev, pod, NULL, le_priority, &prio);
}

/* upstream handleAssumedPodDeletion: an assumed pod (being bound) was deleted; its room on the
 * node is freed now rather than when its binding fails. csched's Permit waits are timeouts in the
 * binder (no default plugin waits), so there is no waiting pod to reject first. */
static void assumed_pod_deleted(struct scheduler *s, struct api_pod *pod)
{
	struct err e = { 0 };
	const char *node = cache_assumed_node(s->cache, pod->meta.uid);
	if (!node) {
		LOG_V(5, "Assumed pod was already forgotten pod=\"%s/%s\"", pod->meta.namespace, pod->meta.name);
		return;
	}
	if (cache_forget_pod(s->cache, pod, node, &e) < 0)
		cache_err("RemoveAssumedPod", pod, &e);
	/* the event carries the assumed pod: bound to node */
	struct api_pod *assumed = api_pod_assigned_copy(pod, node);
	move(s, QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_DELETE, assumed ? assumed : pod, NULL);
	api_pod_unref(assumed);
	intern_release(node);
}

/* upstream deletePodFromSchedulingQueue(pod, inBinding=false) */
static void queue_pod_deleted(struct scheduler *s, struct api_pod *pod)
{
	LOG_V(3, "Delete event for unscheduled pod %s/%s", pod->meta.namespace, pod->meta.name);
	queue_delete(s->queue, pod);
	if (cache_is_assumed(s->cache, pod->meta.uid))
		assumed_pod_deleted(s, pod);
	else if (pod->nominated_node_name && pod->nominated_node_name[0])
		nomination_released(s, pod);
}

static void queue_pod_added(struct scheduler *s, struct api_pod *pod)
{
	struct err e = { 0 };
	LOG_V(3, "Add event for unscheduled pod %s/%s", pod->meta.namespace, pod->meta.name);
	if (queue_add(s->queue, pod, &e) < 0)
		LOG_ERROR("queue: adding pod %s/%s: %s", pod->meta.namespace, pod->meta.name, e.msg);
}

static void on_pod_add(void *ctx, void *obj)
{
	struct scheduler *s = ctx;
	struct api_pod *pod = obj;
	if (api_pod_is_assigned(pod))
		assigned_pod_added(s, pod);
	else if (responsible_for(s, pod))
		queue_pod_added(s, pod);
}

static void on_pod_update(void *ctx, void *old_obj, void *new_obj)
{
	struct scheduler *s = ctx;
	struct api_pod *old_pod = old_obj, *new_pod = new_obj;
	bool old_a = api_pod_is_assigned(old_pod), new_a = api_pod_is_assigned(new_pod);
	struct err e = { 0 };

	/* Cache side (filter: assigned), as client-go's FilteringResourceEventHandler. */
	if (old_a && new_a) {
		LOG_V(4, "Update event for scheduled pod %s/%s", new_pod->meta.namespace, new_pod->meta.name);
		if (cache_update_pod(s->cache, old_pod, new_pod, &e) < 0)
			cache_err("UpdatePod", new_pod, &e);
		struct queue_event evs[QUEUE_POD_UPDATE_EVENTS_MAX];
		uint32_t n = queue_pod_update_events(old_pod, new_pod, node_res_scaled_down, false, evs);
		for (uint32_t i = 0; i < n; i++)
			queue_move_on_event(s->queue, &evs[i], old_pod, new_pod, NULL, NULL);
	} else if (new_a) {
		assigned_pod_added(s, new_pod);
	} else if (old_a) {
		assigned_pod_deleted(s, old_pod);
	}

	/* Queue side (filter: unassigned and ours). A bind shows up here as a delete. */
	bool old_q = !old_a && responsible_for(s, old_pod), new_q = !new_a && responsible_for(s, new_pod);
	if (old_q && new_q) {
		/* identical objects (a resync) carry nothing new; an assumed pod is being bound */
		if (old_pod->meta.resource_version && new_pod->meta.resource_version &&
		    strcmp(old_pod->meta.resource_version, new_pod->meta.resource_version) == 0)
			return;
		if (cache_is_assumed(s->cache, new_pod->meta.uid)) {
			/* its deletion started: it cannot be updated in any structure */
			if (new_pod->meta.being_deleted && !old_pod->meta.being_deleted)
				assumed_pod_deleted(s, new_pod);
			return;
		}
		LOG_V(4, "Update event for unscheduled pod %s/%s", new_pod->meta.namespace, new_pod->meta.name);
		if (queue_update(s->queue, old_pod, new_pod, &e) < 0)
			LOG_ERROR("queue: updating pod %s/%s: %s", new_pod->meta.namespace, new_pod->meta.name, e.msg);
		/* upstream hasNominatedNodeNameChanged: as if deleted from the old nominated node */
		if (old_pod->nominated_node_name && old_pod->nominated_node_name[0] &&
		    old_pod->nominated_node_name != new_pod->nominated_node_name)
			nomination_released(s, old_pod);
	} else if (new_q) {
		queue_pod_added(s, new_pod);
	} else if (old_q) {
		/* bound (inBinding: nothing else to do), or no longer ours */
		LOG_V(3, "Delete event for unscheduled pod %s/%s", old_pod->meta.namespace, old_pod->meta.name);
		queue_delete(s->queue, old_pod);
	}
}

static void on_pod_delete(void *ctx, void *obj)
{
	struct scheduler *s = ctx;
	struct api_pod *pod = obj;
	if (api_pod_is_assigned(pod)) {
		assigned_pod_deleted(s, pod);
	} else if (responsible_for(s, pod)) {
		queue_pod_deleted(s, pod);
	}
}

static void on_node_add(void *ctx, void *obj)
{
	struct scheduler *s = ctx;
	struct api_node *node = obj;
	struct err e = { 0 };
	LOG_V(3, "Add event for node %s", node->meta.name);
	if (cache_add_node(s->cache, node, &e) < 0)
		LOG_ERROR("scheduler cache AddNode failed for node %s: %s", node->meta.name, e.msg);
	move(s, QUEUE_RES_NODE, QUEUE_ACT_ADD, NULL, node);
}

static void on_node_update(void *ctx, void *old_obj, void *new_obj)
{
	struct scheduler *s = ctx;
	struct api_node *old_node = old_obj, *new_node = new_obj;
	struct err e = { 0 };
	LOG_V(4, "Update event for node %s", new_node->meta.name);
	if (cache_update_node(s->cache, old_node, new_node, &e) < 0)
		LOG_ERROR("scheduler cache UpdateNode failed for node %s: %s", new_node->meta.name, e.msg);
	/* one move per kind of change, in upstream's order; none when nothing relevant changed */
	struct queue_event evs[QUEUE_NODE_UPDATE_EVENTS_MAX];
	uint32_t n = queue_node_update_events(old_node, new_node, evs);
	for (uint32_t i = 0; i < n; i++)
		queue_move_on_event(s->queue, &evs[i], old_node, new_node, NULL, NULL);
}

static void on_node_delete(void *ctx, void *obj)
{
	struct scheduler *s = ctx;
	struct api_node *node = obj;
	struct err e = { 0 };
	LOG_V(3, "Delete event for node %s", node->meta.name);
	move(s, QUEUE_RES_NODE, QUEUE_ACT_DELETE, node, NULL);
	if (cache_remove_node(s->cache, node, &e) < 0)
		LOG_ERROR("scheduler cache RemoveNode failed for node %s: %s", node->meta.name, e.msg);
}

/* PVCs only move pods (upstream's PersistentVolumeClaim events); plugins read them through the
 * informer's store (pvc_lister). */
static void on_pvc_add(void *ctx, void *obj)
{
	move(ctx, QUEUE_RES_PERSISTENT_VOLUME_CLAIM, QUEUE_ACT_ADD, NULL, obj);
}

static void on_pvc_update(void *ctx, void *old_obj, void *new_obj)
{
	move(ctx, QUEUE_RES_PERSISTENT_VOLUME_CLAIM, QUEUE_ACT_UPDATE, old_obj, new_obj);
}

/* An object a plugin may keep state for is gone (VolumeBinding's assume caches drop its entry,
 * as upstream's AssumeCache does on the informer's delete). */
static void object_deleted(void *ctx, uint32_t resource, const void *obj)
{
	const struct scheduler *s = ctx;
	for (uint32_t i = 0; i < s->n_profiles; i++)
		if (s->profiles[i].fw)
			fw_profile_object_deleted(s->profiles[i].fw, (enum queue_resource)resource, obj);
}

static void on_pvc_delete(void *ctx, void *obj)
{
	move(ctx, QUEUE_RES_PERSISTENT_VOLUME_CLAIM, QUEUE_ACT_DELETE, obj, NULL);
	object_deleted(ctx, QUEUE_RES_PERSISTENT_VOLUME_CLAIM, obj);
}

static struct api_pvc *pvc_lister(void *ctx, const char *ns, const char *name)
{
	const struct scheduler *s = ctx;
	return s->pvc_inf ? api_informer_get(s->pvc_inf, ns, name) : NULL;
}

/* Namespaces move no pod (no default plugin registers their events); InterPodAffinity reads
 * their labels through the informer's store. */
static struct api_namespace *ns_lister(void *ctx, const char *name)
{
	const struct scheduler *s = ctx;
	return s->ns_inf ? api_informer_get(s->ns_inf, NULL, name) : NULL;
}

struct ns_each_ctx {
	int (*fn)(void *arg, const struct api_namespace *ns);
	void *arg;
	int rc;
};

static void ns_each_one(void *ctx, void *obj)
{
	struct ns_each_ctx *c = ctx;
	if (!c->rc)
		c->rc = c->fn(c->arg, obj);
}

static int ns_each_lister(void *ctx, int (*fn)(void *arg, const struct api_namespace *ns), void *arg)
{
	const struct scheduler *s = ctx;
	struct ns_each_ctx c = { fn, arg, 0 };
	if (s->ns_inf)
		api_informer_foreach(s->ns_inf, ns_each_one, &c);
	return c.rc;
}

void sched_pod_handlers(struct scheduler *s, struct api_informer_handlers *out)
{
	*out = (struct api_informer_handlers){ on_pod_add, on_pod_update, on_pod_delete, NULL, s };
}

/* ---------- The scheduling loop ---------- */

static void *loop_main(void *arg)
{
	struct scheduler *s = arg;
	struct sched_attempt_scratch *ls = sched_attempt_scratch_new();
	if (!ls) {
		LOG_ERROR("scheduling loop: out of memory");
		return NULL;
	}
	/* upstream WaitForCacheSync: never schedule against a partial view of the cluster */
	while (!atomic_load(&s->stop) && !sched_caches_synced(s)) {
		api_informer_wait_synced(s->node_inf, 100);
		api_informer_wait_synced(s->pod_inf, 100);
		api_informer_wait_synced(s->pvc_inf, 100);
		sched_owners_wait_synced(s->owners, 100);
		api_informer_wait_synced(s->ns_inf, 100);
		sched_pdbs_wait_synced(s->pdb_inf, 100);
		sched_volumes_wait_synced(s->volumes, 100);
		sched_dra_wait_synced(s->dra, 100);
		atomic_store(&s->heartbeat_ns, api_now_ns());
	}
	if (!atomic_load(&s->stop))
		LOG_INFO("caches synced: %zu nodes, %zu pods; scheduling", api_informer_len(s->node_inf),
			 api_informer_len(s->pod_inf));
	while (!atomic_load(&s->stop)) {
		struct queue_pod_info *qpi = NULL;
		atomic_store(&s->busy_since_ns, 0);
		atomic_store(&s->heartbeat_ns, api_now_ns());
		/* A replica that may have lost its lease schedules nothing: whatever it decided could
		 * only fail to bind and be written back as a failure by a deposed leader. */
		if (!sched_may_write(s)) {
			sleep_ns(LEADER_POLL_NS);
			continue;
		}
		/* The binds are the limit: wait while the binder's workers have a full queue ahead of
		 * them (heartbeat and stop are seen again at least every LEADER_POLL_NS). */
		if (!sched_binder_wait_room(s->binder, s->bind_queue_max, LEADER_POLL_NS))
			continue;
		if (queue_pop(s->queue, &qpi) < 0)
			break; /* closed */
		atomic_store(&s->busy_since_ns, api_now_ns());
		/* The pool's helpers only while the loop is the limit: pods wait behind this one and
		 * the binder's workers have taken every bind so far. Otherwise a shorter cycle gains
		 * nothing, and the hand-over and the helper's spin are CPU that the API server lacks
		 * on a small machine. */
		fw_pool_set_inline(s->pool, queue_active_len(s->queue) == 0 || sched_binder_queued(s->binder) > 0);
		sched_schedule_one(s, ls, qpi);
	}
	atomic_store(&s->busy_since_ns, 0);
	sched_attempt_scratch_free(ls);
	return NULL;
}

/* ---------- Metrics sources (HTTP thread) ---------- */

/* The event sender's busy callback: events wait while binds are queued or in flight. */
static bool binds_in_flight(void *ctx)
{
	struct scheduler *s = ctx;
	return sched_binder_binds_pending(s->binder) > 0;
}

static void src_pending(void *ctx, struct sched_metrics_pending *out)
{
	struct scheduler *s = ctx;
	struct queue_counts qc;
	queue_counts(s->queue, &qc);
	out->active = qc.active;
	out->backoff = qc.backoff;
	out->unschedulable = qc.unschedulable;
	out->gated = qc.gated;
}

static void src_cache(void *ctx, struct sched_metrics_cache_size *out)
{
	struct scheduler *s = ctx;
	struct cache_counts cc;
	cache_counts(s->cache, &cc);
	out->nodes = cc.nodes;
	out->pods = cc.pods;
	out->assumed_pods = cc.assumed_pods;
}

struct emit_adapter {
	sched_metrics_emit_fn emit;
	void *ctx;
};

static void emit_count(void *ctx, const char *l1, const char *l2, uint64_t count)
{
	const struct emit_adapter *a = ctx;
	a->emit(a->ctx, l1, l2, (double)count);
}

static void src_incoming(void *ctx, sched_metrics_emit_fn emit, void *emit_ctx)
{
	struct scheduler *s = ctx;
	struct emit_adapter a = { emit, emit_ctx };
	queue_incoming_foreach(s->queue, emit_count, &a);
}

static void src_unschedulable(void *ctx, sched_metrics_emit_fn emit, void *emit_ctx)
{
	struct scheduler *s = ctx;
	struct emit_adapter a = { emit, emit_ctx };
	queue_rejector_counts(s->queue, emit_count, &a);
}

/* ---------- Construction ---------- */

static bool less_adapter(void *ctx, const struct queue_pod_info *a, const struct queue_pod_info *b)
{
	const struct fw_profile *p = ctx;
	return fw_profile_less(p)(a->pod, a->timestamp, b->pod, b->timestamp);
}

/* The configuration: the caller's, or the defaults (then owned). */
static int use_config(struct scheduler *s, const struct sched_options *o, struct err *e)
{
	if (o->cfg) {
		s->cfg = o->cfg;
	} else {
		int rc = config_init_default(&s->own_cfg, fw_registry(), e);
		if (rc < 0)
			return rc;
		s->cfg = &s->own_cfg;
	}
	const struct config *cfg = s->cfg;
	if (cfg->n_profiles == 0)
		return err_set(e, ERR_INVALID, "sched_new: the configuration has no profile");
	if (cfg->n_extenders) {
		if (!(s->extenders = sched_extenders_new(cfg, s->metrics, e)))
			return e->code ? e->code : ERR_NOMEM;
		/* extenders are sent the pod (and nodes) as served: the informers keep that JSON */
		api_keep_json(true, sched_extenders_need_node_json(s->extenders));
		api_keep_assigned_pod_json(sched_extenders_need_victim_json(s->extenders));
	}
	return 0;
}

/* The fw_pool's threads. */
static int pool_parallelism(const struct config *cfg)
{
	/* Deliberate difference from upstream: more pool threads than CPUs only adds wake-ups (the
	 * cycle benchmark measured 2,511 pods/s with 16 threads vs 12,354 with 2 on 2 CPUs), so the
	 * pool is capped at the number of online CPUs. */
	int par = cfg->parallelism;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu > 0 && par > ncpu) {
		LOG_V(1, "parallelism %d capped at %ld online CPUs", par, ncpu);
		par = (int)ncpu;
	}
	return par;
}

void sched_fw_profile_options(struct scheduler *s, struct fw_profile_options *po)
{
	*po = (struct fw_profile_options){
		.percentage_of_nodes_to_score = s->cfg->percentage_of_nodes_to_score,
		.pool = s->pool,
		.bind = sched_bind_cb,
		.bind_ctx = s,
		.listers = { .pvc = pvc_lister,
			     .ns = ns_lister,
			     .ns_each = ns_each_lister,
			     .owner = sched_owners_get,
			     .services_each = sched_owners_services_each,
			     .pod = sched_pod_lister,
			     .pdb_each = sched_pdb_each,
			     .pv = sched_pv_lister,
			     .pv_each = sched_pv_each,
			     .storage_class = sched_storage_class_lister,
			     .csinode = sched_csinode_lister,
			     .csidriver = sched_csidriver_lister,
			     .volume_attachment_each = sched_volume_attachment_each,
			     .csi_storage_capacity_each = sched_csi_storage_capacity_each,
			     .resource_claim = sched_resource_claim_lister,
			     .resource_claim_each = sched_resource_claim_each,
			     .resource_claim_sink = sched_resource_claim_sink,
			     .resource_slice_each = sched_resource_slice_each,
			     .device_class = sched_device_class_lister,
			     .device_class_each = sched_device_class_each,
			     .device_taint_rule_each = sched_device_taint_rule_each,
			     .ctx = s },
	};
	po->preempt = (struct fw_preempt_ops){ sched_preempt_actuate, sched_preempt_is_running, s };
	po->volume = (struct fw_volume_ops){ sched_volume_bind_pv, sched_volume_select_node, sched_volume_node,
					     sched_volume_sleep, s };
	po->dra = (struct fw_dra_ops){ sched_dra_get_claim,    sched_dra_add_finalizer, sched_dra_reserve,
				       sched_dra_deallocate,   sched_dra_unreserve,     sched_dra_create_claim,
				       sched_dra_delete_claim, sched_dra_patch_pod_extended_status,
				       sched_dra_sleep,        s };
	po->extenders = sched_extenders_fw(s->extenders, &po->n_extenders);
	po->ext_prioritize_all = sched_extenders_prioritize_all;
}

/* One framework instance per configured profile; qprofs[i] receives profile i's queue view. */
static int new_profiles(struct scheduler *s, struct queue_profile *qprofs, struct err *e)
{
	const struct config *cfg = s->cfg;
	for (uint32_t i = 0; i < cfg->n_profiles; i++) {
		struct sched_profile *p = &s->profiles[i];
		struct fw_profile_config pc;
		struct fw_profile_options po;
		sched_fw_profile_options(s, &po);
		fw_profile_config_from_cfg(&cfg->profiles[i], &pc);
		pthread_mutex_init(&p->cycles_lock, NULL);
		p->metrics = s->metrics;
		s->n_profiles++;
		if (!(p->fw = fw_profile_new(&pc, &po, e)))
			return err_prefix(e, "profiles[%u] (%s)", i, cfg->profiles[i].scheduler_name);
		p->name = intern_str(fw_profile_name(p->fw));
		fw_profile_queue_profile(p->fw, &qprofs[i]);
		/* profiles upstream signs pods of run the batch path (fw_profile_batches) */
		p->batch_metrics = !fw_profile_batches(p->fw);
		uint32_t n_pf = 0;
		const struct fw_pl *const *pf = fw_profile_plugins(p->fw, CFG_EP_POST_FILTER, &n_pf);
		for (uint32_t j = 0; j < n_pf; j++)
			if (strcmp(pf[j]->plugin->name, "DefaultPreemption") == 0)
				p->default_preemption = true;
	}
	return 0;
}

bool sched_may_write(const struct scheduler *s)
{
	return !s->o.may_bind || s->o.may_bind(s->o.may_bind_ctx);
}

static bool may_send_event(void *ctx)
{
	return sched_may_write(ctx);
}

static struct sched_events_options events_options(struct scheduler *s)
{
	const struct sched_options *o = &s->o;
	return (struct sched_events_options){
		.client = s->event_client,
		.qps = o->event_qps ? o->event_qps : SCHED_DEFAULT_EVENT_QPS,
		.burst = o->event_burst ? o->event_burst : SCHED_DEFAULT_EVENT_BURST,
		.capacity = o->event_queue ? o->event_queue : SCHED_DEFAULT_EVENT_QUEUE,
		.window_ms = o->event_window_ms ? o->event_window_ms : SCHED_DEFAULT_EVENT_WINDOW_MS,
		.series_ms = o->event_series_ms ? o->event_series_ms : SCHED_DEFAULT_EVENT_SERIES_MS,
		.instance = o->instance,
		.busy = binds_in_flight,
		.busy_ctx = s,
		.may_send = may_send_event,
		.may_send_ctx = s,
	};
}

static void set_metrics_sources(struct scheduler *s)
{
	struct sched_metrics_sources src = {
		.ctx = s,
		.pending_pods = src_pending,
		.cache_size = src_cache,
		.queue_incoming = src_incoming,
		.unschedulable_pods = src_unschedulable,
	};
	sched_metrics_set_sources(s->metrics, &src);
}

struct scheduler *sched_new(const struct sched_options *o, struct err *e)
{
	struct scheduler *s = NULL;
	struct queue_profile *qprofs = NULL;

	if (!o || !o->client) {
		err_set(e, ERR_INVALID, "sched_new: a client is required");
		return NULL;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		err_set(e, ERR_NOMEM, "sched_new: out of memory");
		return NULL;
	}
	s->o = *o;
	pthread_mutex_init(&s->start_lock, NULL);
	s->client = o->client;
	s->event_client = o->event_client ? o->event_client : o->client;
	s->metrics = o->metrics;
	if (use_config(s, o, e) < 0)
		goto fail;
	const struct config *cfg = s->cfg;

	if (!(s->cache = cache_new()) || !(s->snap = snapshot_new())) {
		err_set(e, ERR_NOMEM, "sched_new: out of memory");
		goto fail;
	}
	int par = pool_parallelism(cfg);
	if (par > 1 && !(s->pool = fw_pool_new(par, e)))
		goto fail;

	if (!(s->profiles = calloc(cfg->n_profiles, sizeof(*s->profiles))) ||
	    !(qprofs = calloc(cfg->n_profiles, sizeof(*qprofs)))) {
		err_set(e, ERR_NOMEM, "sched_new: out of memory");
		goto fail;
	}
	if (new_profiles(s, qprofs, e) < 0)
		goto fail;

	struct queue_options qo = {
		.less = less_adapter,
		.less_ctx = s->profiles[0].fw,
		.initial_backoff_ns = cfg->pod_initial_backoff_seconds * 1000000000LL,
		.max_backoff_ns = cfg->pod_max_backoff_seconds * 1000000000LL,
		.pod_scaled_down = node_res_scaled_down,
		.profiles = qprofs,
		.n_profiles = cfg->n_profiles,
	};
	if (!(s->queue = queue_new(&qo, e)))
		goto fail;
	free(qprofs);
	qprofs = NULL;

	/* pods and nodes: a connection each (the load); the quiet kinds share one (HTTP/2) */
	struct api_informer_options pio = { .field_selector = POD_FIELD_SELECTOR };
	struct api_informer_options shared = { .shared_connection = true };
	struct api_informer_handlers ph;
	sched_pod_handlers(s, &ph);
	struct api_informer_handlers nh = { on_node_add, on_node_update, on_node_delete, NULL, s };
	struct api_informer_handlers vh = { on_pvc_add, on_pvc_update, on_pvc_delete, NULL, s };
	if (!(s->pod_inf = api_informer_new(s->client, API_KIND_POD, &pio, &ph, e)) ||
	    !(s->node_inf = api_informer_new(s->client, API_KIND_NODE, NULL, &nh, e)) ||
	    !(s->pvc_inf = api_informer_new(s->client, API_KIND_PVC, &shared, &vh, e)) ||
	    !(s->ns_inf = api_informer_new(s->client, API_KIND_NAMESPACE, &shared, NULL, e)))
		goto fail;
	if (sched_owners_needed(cfg) && !(s->owners = sched_owners_new(s->client, e)))
		goto fail;
	if (sched_pdbs_needed(cfg) && !(s->pdb_inf = api_informer_new(s->client, API_KIND_PDB, &shared, NULL, e)))
		goto fail;
	unsigned vol_kinds = sched_volume_kinds(s);
	if (vol_kinds && !(s->volumes = sched_volumes_new(s->client, vol_kinds, s->queue, e)))
		goto fail;
	if (s->volumes)
		sched_volumes_set_delete_hook(s->volumes, object_deleted, s);
	unsigned dra_kinds = sched_dra_kinds(s);
	if (dra_kinds && !(s->dra = sched_dra_new(s->client, dra_kinds, s->queue, e)))
		goto fail;
	sched_dra_set_claim_sinks(s->dra, s->claim_sinks, s->n_claim_sinks);
	s->claim_sinks_closed = true;

	struct sched_events_options eo = events_options(s);
	if (!(s->events = sched_events_new(&eo, e)))
		goto fail;
	int binders = o->binders > 0 ? o->binders : SCHED_DEFAULT_BINDERS;
	s->bind_queue_max = SCHED_BIND_QUEUE_PER_THREAD * (uint32_t)(binders < SCHED_BINDER_ACTIVE ? binders : SCHED_BINDER_ACTIVE);
	if (!(s->binder = sched_binder_new(s, binders, e)))
		goto fail;
	if (!(s->preempt = sched_preempt_new(s, e)))
		goto fail;
	if (!(s->explainer = sched_explainer_new(s, s->n_profiles))) {
		err_set(e, ERR_NOMEM, "sched_new: out of memory");
		goto fail;
	}
	if (s->metrics)
		set_metrics_sources(s);
	return s;
fail:
	free(qprofs);
	sched_free(s);
	return NULL;
}

/* ---------- Start / stop ---------- */

int sched_start_informers(struct scheduler *s, struct err *e)
{
	int rc = 0;
	pthread_mutex_lock(&s->start_lock);
	if (s->informers_started || s->stopped)
		goto out;
	if ((rc = api_informer_start(s->node_inf, e)) < 0)
		goto out;
	if ((rc = api_informer_start(s->pod_inf, e)) < 0) {
		api_informer_stop(s->node_inf);
		goto out;
	}
	if ((rc = api_informer_start(s->pvc_inf, e)) < 0) {
		api_informer_stop(s->pod_inf);
		api_informer_stop(s->node_inf);
		goto out;
	}
	if ((rc = api_informer_start(s->ns_inf, e)) < 0) {
		api_informer_stop(s->pvc_inf);
		api_informer_stop(s->pod_inf);
		api_informer_stop(s->node_inf);
		goto out;
	}
	if ((rc = sched_owners_start(s->owners, e)) < 0) {
		api_informer_stop(s->ns_inf);
		api_informer_stop(s->pvc_inf);
		api_informer_stop(s->pod_inf);
		api_informer_stop(s->node_inf);
		goto out;
	}
	if ((rc = sched_pdbs_start(s->pdb_inf, e)) < 0) {
		sched_owners_stop(s->owners);
		api_informer_stop(s->ns_inf);
		api_informer_stop(s->pvc_inf);
		api_informer_stop(s->pod_inf);
		api_informer_stop(s->node_inf);
		goto out;
	}
	if ((rc = sched_volumes_start(s->volumes, e)) < 0) {
		api_informer_stop(s->pdb_inf);
		sched_owners_stop(s->owners);
		api_informer_stop(s->ns_inf);
		api_informer_stop(s->pvc_inf);
		api_informer_stop(s->pod_inf);
		api_informer_stop(s->node_inf);
		goto out;
	}
	if ((rc = sched_dra_start(s->dra, e)) < 0) {
		sched_volumes_stop(s->volumes);
		api_informer_stop(s->pdb_inf);
		sched_owners_stop(s->owners);
		api_informer_stop(s->ns_inf);
		api_informer_stop(s->pvc_inf);
		api_informer_stop(s->pod_inf);
		api_informer_stop(s->node_inf);
		goto out;
	}
	s->informers_started = true;
out:
	pthread_mutex_unlock(&s->start_lock);
	return rc;
}

int sched_start_scheduling(struct scheduler *s, struct err *e)
{
	int rc = 0;
	if ((rc = sched_start_informers(s, e)) < 0)
		return rc;
	pthread_mutex_lock(&s->start_lock);
	if (s->scheduling_started || s->stopped)
		goto out;
	if ((rc = queue_start_timers(s->queue, e)) < 0 || (rc = sched_events_start(s->events, e)) < 0 ||
	    (rc = sched_binder_start(s->binder, e)) < 0)
		goto out;
	sched_preempt_start(s->preempt);
	if ((rc = pthread_create(&s->loop_thread, NULL, loop_main, s)) != 0) {
		rc = err_set(e, ERR_NOMEM, "sched_start_scheduling: pthread_create: %s", strerror(rc));
		goto out;
	}
	atomic_store(&s->heartbeat_ns, api_now_ns());
	s->scheduling_started = true;
	LOG_INFO("scheduling started (%u profile%s, up to %d binder threads)", s->n_profiles, s->n_profiles == 1 ? "" : "s",
		 s->o.binders > 0 ? s->o.binders : SCHED_DEFAULT_BINDERS);
out:
	pthread_mutex_unlock(&s->start_lock);
	return rc;
}

bool sched_wait_synced(struct scheduler *s, long timeout_ms)
{
	int64_t deadline = api_now_ns() + (int64_t)timeout_ms * 1000000LL;
	if (!api_informer_wait_synced(s->node_inf, timeout_ms))
		return false;
	long left = (long)((deadline - api_now_ns()) / 1000000LL);
	if (!api_informer_wait_synced(s->pod_inf, left > 0 ? left : 0))
		return false;
	left = (long)((deadline - api_now_ns()) / 1000000LL);
	if (!api_informer_wait_synced(s->pvc_inf, left > 0 ? left : 0))
		return false;
	left = (long)((deadline - api_now_ns()) / 1000000LL);
	if (!api_informer_wait_synced(s->ns_inf, left > 0 ? left : 0))
		return false;
	left = (long)((deadline - api_now_ns()) / 1000000LL);
	if (!sched_owners_wait_synced(s->owners, left > 0 ? left : 0))
		return false;
	left = (long)((deadline - api_now_ns()) / 1000000LL);
	if (!sched_pdbs_wait_synced(s->pdb_inf, left > 0 ? left : 0))
		return false;
	left = (long)((deadline - api_now_ns()) / 1000000LL);
	if (!sched_volumes_wait_synced(s->volumes, left > 0 ? left : 0))
		return false;
	left = (long)((deadline - api_now_ns()) / 1000000LL);
	return sched_dra_wait_synced(s->dra, left > 0 ? left : 0);
}

void sched_stop(struct scheduler *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->start_lock);
	if (s->stopped) {
		pthread_mutex_unlock(&s->start_lock);
		return;
	}
	s->stopped = true;
	atomic_store(&s->stop, true);
	if (s->scheduling_started) {
		queue_close(s->queue); /* wakes the loop's pop, stops the flush timers */
		pthread_join(s->loop_thread, NULL);
		sched_preempt_stop(s->preempt); /* after the loop: no actuate meanwhile */
		sched_binder_stop(s->binder); /* bindings in flight end in a bind or a forget */
		sched_events_stop(s->events, 1000);
	}
	if (s->informers_started) {
		sched_dra_stop(s->dra);
		sched_volumes_stop(s->volumes);
		api_informer_stop(s->pdb_inf);
		sched_owners_stop(s->owners);
		api_informer_stop(s->ns_inf);
		api_informer_stop(s->pvc_inf);
		api_informer_stop(s->pod_inf);
		api_informer_stop(s->node_inf);
	}
	pthread_mutex_unlock(&s->start_lock);
	LOG_INFO("scheduler stopped");
}

void sched_free(struct scheduler *s)
{
	if (!s)
		return;
	sched_stop(s);
	sched_explainer_free(s->explainer); /* before the profiles' listers' stores */
	sched_preempt_free(s->preempt);
	sched_binder_free(s->binder);
	sched_events_free(s->events);
	sched_dra_free(s->dra);
	free(s->claim_sinks); /* after the informers that called them */
	sched_volumes_free(s->volumes);
	api_informer_free(s->pdb_inf);
	sched_owners_free(s->owners);
	api_informer_free(s->ns_inf);
	api_informer_free(s->pvc_inf);
	api_informer_free(s->pod_inf);
	api_informer_free(s->node_inf);
	queue_free(s->queue);
	for (uint32_t i = 0; i < s->n_profiles; i++) {
		struct sched_profile *p = &s->profiles[i];
		for (uint32_t j = 0; j < p->n_spare; j++)
			fw_cycle_free(p->spare[j]);
		free(p->spare);
		fw_profile_free(p->fw);
		pthread_mutex_destroy(&p->cycles_lock);
	}
	free(s->profiles);
	fw_pool_free(s->pool);
	sched_extenders_free(s->extenders);
	snapshot_free(s->snap);
	cache_free(s->cache);
	if (s->cfg == &s->own_cfg)
		config_free(&s->own_cfg);
	pthread_mutex_destroy(&s->start_lock);
	free(s);
}

/* ---------- Hooks and introspection ---------- */

bool sched_loop_alive(void *ctx)
{
	const struct scheduler *s = ctx;
	int64_t busy = atomic_load(&s->busy_since_ns);
	return busy == 0 || api_now_ns() - busy < (int64_t)SCHED_LOOP_STALL_MS * 1000000LL;
}

bool sched_caches_synced(void *ctx)
{
	const struct scheduler *s = ctx;
	return api_informer_synced(s->node_inf) && api_informer_synced(s->pod_inf) && api_informer_synced(s->pvc_inf) &&
	       api_informer_synced(s->ns_inf) && sched_owners_synced(s->owners) && sched_pdbs_synced(s->pdb_inf) &&
	       sched_volumes_synced(s->volumes) && sched_dra_synced(s->dra);
}

int64_t sched_heartbeat_ns(const struct scheduler *s)
{
	return atomic_load(&s->heartbeat_ns);
}

bool sched_is_scheduling(const struct scheduler *s)
{
	struct scheduler *m = (struct scheduler *)s;
	pthread_mutex_lock(&m->start_lock);
	bool r = s->scheduling_started && !s->stopped;
	pthread_mutex_unlock(&m->start_lock);
	return r;
}

void sched_stats(const struct scheduler *cs, struct sched_stats *out)
{
	struct scheduler *s = (struct scheduler *)cs;
	struct sched_events_stats es;
	struct cache_counts cc;
	struct queue_counts qc;
	memset(out, 0, sizeof(*out));
	out->attempts = atomic_load(&s->n_attempts);
	out->scheduled = atomic_load(&s->n_scheduled);
	out->unschedulable = atomic_load(&s->n_unschedulable);
	out->errors = atomic_load(&s->n_errors);
	out->bind_failures = atomic_load(&s->n_bind_failures);
	out->skipped = atomic_load(&s->n_skipped);
	out->dropped = atomic_load(&s->n_dropped);
	out->status_patches = atomic_load(&s->n_status_patches);
	sched_events_stats(s->events, &es);
	out->events_sent = es.sent;
	out->events_aggregated = es.aggregated;
	out->events_dropped = es.dropped;
	out->event_errors = es.errors;
	cache_counts(s->cache, &cc);
	out->cache_nodes = cc.nodes;
	out->cache_pods = cc.pods;
	out->cache_assumed = cc.assumed_pods;
	queue_counts(s->queue, &qc);
	out->queue_pending = qc.active + qc.backoff + qc.unschedulable + qc.gated;
	out->queue_in_flight = qc.in_flight;
}

bool sched_cache_is_assumed(struct scheduler *s, const char *pod_uid)
{
	return cache_is_assumed(s->cache, pod_uid); /* the cache's map compares by content */
}

int sched_cache_node_pods(struct scheduler *s, const char *node_name)
{
	struct err e = { 0 };
	int n = -1;
	struct snapshot *snap = snapshot_new(); /* a private one: the loop's belongs to its thread */
	if (!snap)
		return -1;
	if (cache_update_snapshot(s->cache, snap, &e) == 0) {
		const struct node_info *ni = snapshot_get(snap, node_name);
		if (ni)
			n = (int)ni->n_pods;
	}
	snapshot_free(snap);
	return n;
}
