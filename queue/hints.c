/* In-flight pods and cluster events: the events recorded while pods are in flight, the rejector
 * plugins' queueing hints, and the moves they cause. Every static or queue__ function here: caller
 * holds q->lock. */
#include "queue_internal.h"

#include <stdlib.h>

#include "common/intern.h"
#include "common/log.h"

static bool is_pod_resource(uint32_t r)
{
	return r == QUEUE_RES_POD || r == QUEUE_RES_ASSIGNED_POD || r == QUEUE_RES_UNSCHEDULED_POD ||
	       r == QUEUE_RES_TARGET_POD;
}

static void *obj_ref(uint32_t resource, const void *obj)
{
	if (!obj)
		return NULL;
	if (is_pod_resource(resource))
		return api_pod_ref((struct api_pod *)obj);
	if (resource == QUEUE_RES_NODE)
		return api_node_ref((struct api_node *)obj);
	switch (resource) {
	case QUEUE_RES_PERSISTENT_VOLUME_CLAIM:
		return api_pvc_ref((struct api_pvc *)obj);
	case QUEUE_RES_PERSISTENT_VOLUME:
		return api_pv_ref((struct api_pv *)obj);
	case QUEUE_RES_STORAGE_CLASS:
		return api_storage_class_ref((struct api_storage_class *)obj);
	case QUEUE_RES_CSI_NODE:
		return api_csinode_ref((struct api_csinode *)obj);
	case QUEUE_RES_CSI_DRIVER:
		return api_csidriver_ref((struct api_csidriver *)obj);
	case QUEUE_RES_CSI_STORAGE_CAPACITY:
		return api_csi_storage_capacity_ref((struct api_csi_storage_capacity *)obj);
	case QUEUE_RES_VOLUME_ATTACHMENT:
		return api_volume_attachment_ref((struct api_volume_attachment *)obj);
	case QUEUE_RES_RESOURCE_CLAIM:
		return api_resource_claim_ref((struct api_resource_claim *)obj);
	case QUEUE_RES_RESOURCE_SLICE:
		return api_resource_slice_ref((struct api_resource_slice *)obj);
	case QUEUE_RES_DEVICE_CLASS:
		return api_device_class_ref((struct api_device_class *)obj);
	default:
		return NULL; /* no object model for other resources: hints get NULL */
	}
}

static void obj_unref(uint32_t resource, void *obj)
{
	if (is_pod_resource(resource))
		api_pod_unref(obj);
	else if (resource == QUEUE_RES_NODE)
		api_node_unref(obj);
	else if (resource == QUEUE_RES_PERSISTENT_VOLUME_CLAIM)
		api_pvc_unref(obj);
	else if (resource == QUEUE_RES_PERSISTENT_VOLUME)
		api_pv_unref(obj);
	else if (resource == QUEUE_RES_STORAGE_CLASS)
		api_storage_class_unref(obj);
	else if (resource == QUEUE_RES_CSI_NODE)
		api_csinode_unref(obj);
	else if (resource == QUEUE_RES_CSI_DRIVER)
		api_csidriver_unref(obj);
	else if (resource == QUEUE_RES_CSI_STORAGE_CAPACITY)
		api_csi_storage_capacity_unref(obj);
	else if (resource == QUEUE_RES_VOLUME_ATTACHMENT)
		api_volume_attachment_unref(obj);
	else if (resource == QUEUE_RES_RESOURCE_CLAIM)
		api_resource_claim_unref(obj);
	else if (resource == QUEUE_RES_RESOURCE_SLICE)
		api_resource_slice_unref(obj);
	else if (resource == QUEUE_RES_DEVICE_CLASS)
		api_device_class_unref(obj);
}

/* ---------- Hints ---------- */

/* upstream isPodWorthRequeuing */
enum strategy queue__worth_requeuing(const struct queue *q, const struct qpi *p, const struct queue_event *ev,
				     const void *old_obj, const void *new_obj)
{
	if (!queue__has_rejectors(p) || queue_event_is_wildcard(ev))
		return STRAT_AFTER_BACKOFF;
	const struct qprofile *pr = queue__profile_of(q, p->pub.pod);
	if (!pr)
		return STRAT_AFTER_BACKOFF;
	enum strategy s = STRAT_SKIP;
	for (uint32_t i = 0; i < pr->n_regs; i++) {
		const struct queue_hint_reg *r = &pr->regs[i];
		if (!queue_event_matches(&r->event, ev) || !queue__rejected_by(p, r->plugin))
			continue;
		enum queue_hint h = r->hint ? r->hint(r->ctx, p->pub.pod, old_obj, new_obj) : QUEUE_HINT_QUEUE;
		if (h == QUEUE_HINT_SKIP)
			continue;
		/* QUEUE_HINT_ERROR counts as Queue: a broken hint must not strand the pod */
		if (queue__name_in(p->pub.pending_plugins, p->pub.n_pending_plugins, r->plugin))
			return STRAT_IMMEDIATELY;
		if (!p->pub.n_pending_plugins)
			return STRAT_AFTER_BACKOFF;
		s = STRAT_AFTER_BACKOFF;
	}
	return s;
}

/* Whether plugin registered an event matching ev in the pod's profile (upstream
 * MatchAnyClusterEvent over GatingPluginEvents). */
static bool plugin_wants(const struct queue *q, const struct api_pod *pod, const char *plugin,
			 const struct queue_event *ev)
{
	const struct qprofile *pr = queue__profile_of(q, pod);
	for (uint32_t i = 0; pr && i < pr->n_regs; i++)
		if (pr->regs[i].plugin == plugin && queue_event_matches(&pr->regs[i].event, ev))
			return true;
	return false;
}

static bool event_of_interest(const struct queue *q, const struct queue_event *ev)
{
	if (queue_event_is_wildcard(ev))
		return true;
	for (uint32_t i = 0; i < q->n_profiles; i++)
		for (uint32_t j = 0; j < q->profiles[i].n_regs; j++) {
			const struct queue_hint_reg *r = &q->profiles[i].regs[j];
			if (queue_event_matches(&r->event, ev))
				return true;
		}
	return false;
}

/* ---------- In-flight list ---------- */

struct ifl *queue__ifl_append(struct queue *q)
{
	struct ifl *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->prev = q->ifl_tail;
	if (q->ifl_tail)
		q->ifl_tail->next = e;
	else
		q->ifl_head = e;
	q->ifl_tail = e;
	return e;
}

void queue__ifl_unlink_free(struct queue *q, struct ifl *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		q->ifl_head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		q->ifl_tail = e->prev;
	if (!e->uid) {
		obj_unref(e->ev.resource, e->old_obj);
		obj_unref(e->ev.resource, e->new_obj);
		q->n_ifl_events--;
	}
	intern_release(e->uid);
	free(e);
}

/* Records an event for the in-flight pods (upstream addEventIfAnyInFlight). */
void queue__ifl_add_event(struct queue *q, const struct queue_event *ev, const void *old_obj, const void *new_obj)
{
	struct ifl *e = queue__ifl_append(q);
	if (!e) {
		LOG_ERROR("queue: out of memory recording a cluster event for in-flight pods");
		return;
	}
	e->ev = *ev;
	e->old_obj = obj_ref(ev->resource, old_obj);
	e->new_obj = obj_ref(ev->resource, new_obj);
	q->n_ifl_events++;
}

/* upstream done(): drop the marker, then the events no marker precedes. */
void queue__done_locked(struct queue *q, const char *uid)
{
	struct ifl *m = map_del(&q->in_flight, uid);
	if (!m)
		return;
	queue__ifl_unlink_free(q, m);
	while (q->ifl_head && !q->ifl_head->uid)
		queue__ifl_unlink_free(q, q->ifl_head);
}

/* upstream determineSchedulingHintForInFlightPod */
enum strategy queue__in_flight_strategy(const struct queue *q, const struct qpi *p, const struct ifl *marker)
{
	if (!marker) {
		/* done() already ran (a binding-cycle failure): no events to replay */
		LOG_V(4, "queue: pod %s/%s is not in flight; requeued after backoff", p->pub.pod->meta.namespace,
		      p->pub.pod->meta.name);
		return STRAT_AFTER_BACKOFF;
	}
	if (!queue__has_rejectors(p))
		return STRAT_AFTER_BACKOFF;
	enum strategy s = STRAT_SKIP;
	for (const struct ifl *e = marker->next; e; e = e->next) {
		if (e->uid)
			continue; /* another pod's marker */
		switch (queue__worth_requeuing(q, p, &e->ev, e->old_obj, e->new_obj)) {
		case STRAT_SKIP:
			break;
		case STRAT_IMMEDIATELY:
			return STRAT_IMMEDIATELY;
		case STRAT_AFTER_BACKOFF:
			s = STRAT_AFTER_BACKOFF;
			if (!p->pub.n_pending_plugins)
				return s;
			break;
		}
	}
	return s;
}

/* ---------- Cluster events ---------- */

typedef bool (*move_filter_fn)(struct queue *q, struct qpi *p, void *ctx);

/* upstream movePodsToActiveOrBackoffQueue over the unschedulable pods passing filter. */
static void move_pods_locked(struct queue *q, const struct queue_event *ev, const void *old_obj,
			     const void *new_obj, move_filter_fn filter, void *ctx)
{
	char label[64];
	queue_event_label(ev, label, sizeof(label));
	bool activated = false;
	for (struct qpi *p = q->unsched, *next; p; p = next) {
		next = p->unext;
		if (filter && !filter(q, p, ctx))
			continue;
		/* a gated pod is re-evaluated only for its gating plugin's events, or a wildcard (the
		 * leftover flush): SchedulingGates registers only the pod's own update */
		if (p->pub.gating_plugin && !queue_event_is_wildcard(ev) &&
		    !plugin_wants(q, p->pub.pod, p->pub.gating_plugin, ev))
			continue;
		enum strategy s = queue__worth_requeuing(q, p, ev, old_obj, new_obj);
		if (s == STRAT_SKIP)
			continue;
		/* upstream deletes it from unschedulableEntities first: if PreEnqueue gates it again it
		 * re-enters (and is counted) under this event */
		queue__tier_remove(q, p);
		if (queue__wakes_pop(q, queue__requeue(q, p, s, label)))
			activated = true;
	}
	if (map_len(&q->in_flight))
		queue__ifl_add_event(q, ev, old_obj, new_obj);
	if (activated)
		pthread_cond_broadcast(&q->cond);
}

struct precheck_ctx {
	bool (*fn)(void *ctx, const struct api_pod *pod);
	void *ctx;
};

static bool precheck_filter(struct queue *q, struct qpi *p, void *ctx)
{
	(void)q;
	const struct precheck_ctx *pc = ctx;
	return pc->fn(pc->ctx, p->pub.pod);
}

void queue_move_on_event(struct queue *q, const struct queue_event *ev, const void *old_obj, const void *new_obj,
			 bool (*precheck)(void *ctx, const struct api_pod *pod), void *precheck_ctx)
{
	if (!ev || !event_of_interest(q, ev))
		return; /* no enabled plugin cares: not even in-flight pods need it */
	struct precheck_ctx pc = { precheck, precheck_ctx };
	pthread_mutex_lock(&q->lock);
	move_pods_locked(q, ev, old_obj, new_obj, precheck ? precheck_filter : NULL, &pc);
	pthread_mutex_unlock(&q->lock);
}

void queue__flush_backoff_locked(struct queue *q)
{
	int64_t now = queue__now_locked(q);
	bool moved = false;
	struct heap *heaps[2] = { &q->backoff, &q->error_backoff };
	for (int i = 0; i < 2; i++) {
		struct heap *h = heaps[i];
		while (h->n && !queue__backing_off(q, h->v[0], now)) {
			struct qpi *p = h->v[0];
			queue__tier_remove(q, p);
			/* PreEnqueue already ran when it entered backoffQ (pop-from-backoff mode) */
			if (queue__move_to_active(q, p, "BackoffComplete", q->pop_from_backoff))
				moved = true;
		}
	}
	if (moved)
		pthread_cond_broadcast(&q->cond);
}

void queue_flush_backoff_completed(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	queue__flush_backoff_locked(q);
	pthread_mutex_unlock(&q->lock);
}

static bool leftover_filter(struct queue *q, struct qpi *p, void *ctx)
{
	(void)q;
	(void)ctx;
	bool f = p->flushing;
	p->flushing = false;
	return f;
}

/* upstream flushUnschedulableEntitiesLeftover: pods unschedulable for longer than the maximum
 * since their last attempt or their last flush (a gated pod stays and is flushed again only
 * after another period). */
void queue__flush_leftover_locked(struct queue *q)
{
	int64_t now = queue__now_locked(q);
	bool any = false;
	for (struct qpi *p = q->unsched; p; p = p->unext) {
		int64_t last = p->flush_timestamp > p->pub.timestamp ? p->flush_timestamp : p->pub.timestamp;
		if (now - last > q->max_in_unsched) {
			p->flush_timestamp = now;
			p->flushing = any = true;
		}
	}
	if (!any)
		return;
	struct queue_event ev = { QUEUE_RES_WILDCARD, QUEUE_ACT_ALL, "UnschedulableTimeout" };
	move_pods_locked(q, &ev, NULL, NULL, leftover_filter, NULL);
}

void queue_flush_unschedulable_leftover(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	queue__flush_leftover_locked(q);
	pthread_mutex_unlock(&q->lock);
}
