/* DESIGN: the scheduling queue (upstream backend/queue/scheduling_queue.go, v1.37).
 *
 * One mutex, q->lock, guards every field of struct queue (tiers, in-flight list, nominations,
 * counters, closed). Lock order: q->lock is a leaf for other modules; hint, PreEnqueue and less
 * callbacks run under it and must not call back into the queue. Two condition variables use it:
 * q->cond wakes queue_pop when a pod becomes poppable or the queue closes; q->tcond wakes the
 * timer thread at close.
 *
 * Every queued pod has one struct qpi, in exactly one tier: the active heap, one of the two
 * backoff heaps (intrusive: heap_idx), or the unschedulable list (intrusive: uprev/unext; gated
 * pods live there too, with gating_plugin set). q->pods maps UID -> qpi for every tiered pod.
 * queue_pop hands the qpi to the caller (it leaves q->pods) and appends a marker for its UID to
 * the in-flight list; cluster events are appended after it while any pod is in flight. When the
 * pod comes back (queue_add_unschedulable_if_not_present) only the entries after its marker are
 * replayed against its rejector plugins' hints; queue_done drops the marker and the events no
 * remaining marker precedes. */
#include "queue_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/intern.h"
#include "common/log.h"

/* ---------- Construction ---------- */

struct queue *queue_new(const struct queue_options *o, struct err *e)
{
	static const struct queue_options defaults;
	if (!o)
		o = &defaults;
	struct queue *q = calloc(1, sizeof(*q));
	if (!q) {
		err_set(e, ERR_NOMEM, "queue_new: out of memory");
		return NULL;
	}
	if (pthread_mutex_init(&q->lock, NULL) != 0) {
		free(q);
		err_set(e, ERR_NOMEM, "queue_new: mutex");
		return NULL;
	}
	pthread_cond_init(&q->cond, NULL);
	mono_cond_init(&q->tcond);
	map_init(&q->pods);
	map_init(&q->in_flight);
	map_init(&q->nominated);
	map_init(&q->incoming);
	q->backoff.backoff = q->error_backoff.backoff = true;
	q->less = o->less ? o->less : queue_less_priority_sort;
	q->less_ctx = o->less_ctx;
	q->initial_backoff = o->initial_backoff_ns > 0 ? o->initial_backoff_ns : NS_PER_SEC;
	q->max_backoff = o->max_backoff_ns > 0 ? o->max_backoff_ns : 10 * NS_PER_SEC;
	q->max_in_unsched = o->max_in_unschedulable_ns > 0 ? o->max_in_unschedulable_ns : 300 * NS_PER_SEC;
	q->pop_from_backoff = !o->no_pop_from_backoff;
	q->now = o->now ? o->now : queue__mono_now;
	q->now_ctx = o->now_ctx;
	q->pod_scaled_down = o->pod_scaled_down;
	q->scheduling_gates = intern_str("SchedulingGates");
	if (!q->scheduling_gates)
		goto nomem;
	if (o->n_profiles && !(q->profiles = calloc(o->n_profiles, sizeof(*q->profiles))))
		goto nomem;
	for (uint32_t i = 0; i < o->n_profiles; i++) {
		const struct queue_profile *src = &o->profiles[i];
		struct qprofile *dst = &q->profiles[i];
		q->n_profiles = i + 1;
		dst->scheduler_name = intern_str(src->scheduler_name ? src->scheduler_name : "default-scheduler");
		dst->pre_enqueue = src->pre_enqueue;
		dst->pre_enqueue_ctx = src->pre_enqueue_ctx;
		if (src->n_hints && !(dst->regs = calloc(src->n_hints, sizeof(*dst->regs))))
			goto nomem;
		for (uint32_t j = 0; j < src->n_hints; j++) {
			struct queue_hint_reg r = src->hints[j];
			if (!r.plugin || r.event.resource >= QUEUE_RES_COUNT_) {
				err_set(e, ERR_INVALID, "queue_new: profiles[%u].hints[%u]: %s", i, j,
					!r.plugin ? "no plugin name" : "unknown resource");
				goto fail;
			}
			if (!(r.plugin = intern_str(r.plugin)))
				goto nomem;
			/* as registered: v1.37 adds nothing (buildQueueingHintMap) */
			dst->regs[dst->n_regs++] = r;
		}
	}
	return q;
nomem:
	err_set(e, ERR_NOMEM, "queue_new: out of memory");
fail:
	queue_free(q);
	return NULL;
}

void queue_free(struct queue *q)
{
	if (!q)
		return;
	queue_close(q);
	const char *k;
	void *v;
	for (size_t it = 0; map_next(&q->pods, &it, &k, &v);)
		queue_pod_info_free(&((struct qpi *)v)->pub);
	while (q->ifl_head)
		queue__ifl_unlink_free(q, q->ifl_head);
	for (size_t it = 0; map_next(&q->nominated, &it, &k, &v);) {
		api_pod_unref(((struct nom *)v)->pod);
		intern_release(((struct nom *)v)->node_name);
		free(v);
	}
	for (size_t it = 0; map_next(&q->incoming, &it, &k, &v);)
		free(v);
	map_release(&q->pods);
	map_release(&q->in_flight);
	map_release(&q->nominated);
	map_release(&q->incoming);
	free(q->active.v);
	free(q->backoff.v);
	free(q->error_backoff.v);
	for (uint32_t i = 0; i < q->n_profiles; i++)
		free(q->profiles[i].regs);
	free(q->profiles);
	pthread_cond_destroy(&q->cond);
	pthread_cond_destroy(&q->tcond);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

/* ---------- Informer side ---------- */

static struct qpi *qpi_new(struct queue *q, struct api_pod *pod)
{
	struct qpi *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pub.pod = api_pod_ref(pod);
	p->pub.timestamp = queue__now_locked(q);
	return p;
}

/* A new qpi into activeQ (or unschedulable when gated). */
static int add_new_locked(struct queue *q, struct api_pod *pod, const char *label, struct err *e)
{
	struct qpi *p = qpi_new(q, pod);
	if (!p || map_put(&q->pods, pod->meta.uid, p, NULL) < 0) {
		if (p)
			queue_pod_info_free(&p->pub);
		return err_set(e, ERR_NOMEM, "queue: adding pod %s/%s: out of memory", pod->meta.namespace,
			       pod->meta.name);
	}
	/* upstream addPod: the pod's status.nominatedNodeName is recorded first, gated or not
	 * (TestPriorityQueue_AddNominatedGatedPod) */
	queue__nominate_locked(q, pod, NULL);
	if (queue__move_to_active(q, p, label, false))
		pthread_cond_signal(&q->cond);
	return 0;
}

static int update_locked(struct queue *q, const struct api_pod *old_pod, struct api_pod *new_pod, struct err *e)
{
	const char *uid = new_pod->meta.uid;
	if (old_pod && old_pod != new_pod && old_pod->meta.resource_version && new_pod->meta.resource_version &&
	    strcmp(old_pod->meta.resource_version, new_pod->meta.resource_version) == 0)
		return 0; /* a resync carrying the same object */
	/* the pod itself is updated: TargetPod events (upstream Update) */
	struct queue_event evs[QUEUE_POD_UPDATE_EVENTS_MAX];
	uint32_t n_evs = 0;
	if (old_pod)
		n_evs = queue_pod_update_events(old_pod, new_pod, q->pod_scaled_down, true, evs);

	if (map_get(&q->in_flight, uid)) {
		/* being scheduled: remember the update for its possible queue__requeue */
		for (uint32_t i = 0; i < n_evs; i++)
			queue__ifl_add_event(q, &evs[i], old_pod, new_pod);
		return 0;
	}
	struct qpi *p = map_get(&q->pods, uid);
	if (!p) {
		/* upstream Update of an unknown pod: addPod, counted as UnscheduledPodAdd */
		char label[64];
		struct queue_event ev = { QUEUE_RES_UNSCHEDULED_POD, QUEUE_ACT_ADD, NULL };
		return add_new_locked(q, new_pod, queue_event_label(&ev, label, sizeof(label)), e);
	}
	const struct api_pod *prev = old_pod ? old_pod : p->pub.pod;
	api_pod_ref((struct api_pod *)prev); /* keep it alive across the pod swap */
	queue_pod_info_set_pod(&p->pub, new_pod);
	if (map_get(&q->nominated, uid) || (new_pod->nominated_node_name && new_pod->nominated_node_name[0]))
		queue__nomination_update_locked(q, prev, new_pod);
	if (p->tier == QUEUE_TIER_ACTIVE) {
		queue__heap_fix(q, &q->active, p);
	} else if (p->tier == QUEUE_TIER_BACKOFF) {
		queue__heap_fix(q, queue__backoff_heap_of(q, p), p);
	} else if (p->tier == QUEUE_TIER_UNSCHEDULABLE) {
		/* the update itself may make it schedulable: ask the rejectors' hints */
		for (uint32_t i = 0; i < n_evs; i++) {
			char label[64];
			enum strategy s = queue__worth_requeuing(q, p, &evs[i], prev, new_pod);
			enum queue_tier t = queue__requeue(q, p, s, queue_event_label(&evs[i], label, sizeof(label)));
			if (t != QUEUE_TIER_UNSCHEDULABLE) {
				if (queue__wakes_pop(q, t))
					pthread_cond_signal(&q->cond);
				break;
			}
		}
	}
	api_pod_unref((struct api_pod *)prev);
	return 0;
}

int queue_add(struct queue *q, struct api_pod *pod, struct err *e)
{
	if (!queue__pod_ok(pod))
		return err_set(e, ERR_INVALID, "queue_add: pod without a UID");
	pthread_mutex_lock(&q->lock);
	int rc;
	struct qpi *known = map_get(&q->pods, pod->meta.uid);
	if (known || map_get(&q->in_flight, pod->meta.uid)) {
		rc = update_locked(q, known ? known->pub.pod : NULL, pod, e);
	} else {
		char label[64];
		struct queue_event ev = { QUEUE_RES_UNSCHEDULED_POD, QUEUE_ACT_ADD, NULL };
		rc = add_new_locked(q, pod, queue_event_label(&ev, label, sizeof(label)), e);
	}
	pthread_mutex_unlock(&q->lock);
	return rc;
}

int queue_update(struct queue *q, const struct api_pod *old_pod, struct api_pod *new_pod, struct err *e)
{
	if (!queue__pod_ok(new_pod))
		return err_set(e, ERR_INVALID, "queue_update: pod without a UID");
	pthread_mutex_lock(&q->lock);
	int rc = update_locked(q, old_pod, new_pod, e);
	pthread_mutex_unlock(&q->lock);
	return rc;
}

void queue_delete(struct queue *q, const struct api_pod *pod)
{
	if (!queue__pod_ok(pod))
		return;
	pthread_mutex_lock(&q->lock);
	queue__nom_delete_locked(q, pod->meta.uid);
	struct qpi *p = map_del(&q->pods, pod->meta.uid);
	if (p) {
		queue__tier_remove(q, p);
		queue_pod_info_free(&p->pub);
	} else {
		struct ifl *m = map_get(&q->in_flight, pod->meta.uid);
		if (m)
			m->deleted = true;
	}
	pthread_mutex_unlock(&q->lock);
}

/* ---------- Scheduler side ---------- */

static int pop_locked(struct queue *q, bool block, struct queue_pod_info **out)
{
	struct qpi *p = NULL;
	*out = NULL;
	for (;;) {
		if (q->closed)
			return ERR_STOPPED;
		if (q->active.n) {
			p = q->active.v[0];
			break;
		}
		if (q->pop_from_backoff && q->backoff.n) {
			/* an idle scheduler may as well retry a backing-off pod (never an erroring one) */
			p = q->backoff.v[0];
			queue__incoming_inc(q, INC_ACTIVE, "PopFromBackoffQ");
			break;
		}
		if (!block)
			return ERR_NOT_FOUND;
		pthread_cond_wait(&q->cond, &q->lock);
	}
	queue__tier_remove(q, p);
	map_del(&q->pods, p->pub.pod->meta.uid);
	p->pub.attempts++;
	p->backoff_valid = false;
	struct ifl *m = queue__ifl_append(q);
	if (m) {
		m->uid = intern_ref(p->pub.pod->meta.uid); /* the marker may outlive the pod */
		if (map_put(&q->in_flight, m->uid, m, NULL) < 0) {
			queue__ifl_unlink_free(q, m);
			m = NULL;
		}
	}
	if (!m)
		LOG_ERROR("queue: out of memory tracking pod %s/%s in flight", p->pub.pod->meta.namespace,
			  p->pub.pod->meta.name);
	p->pub.n_unschedulable_plugins = 0;
	p->pub.n_pending_plugins = 0;
	p->pub.gating_plugin = NULL;
	*out = &p->pub;
	return 0;
}

int queue_pop(struct queue *q, struct queue_pod_info **out)
{
	pthread_mutex_lock(&q->lock);
	int rc = pop_locked(q, true, out);
	pthread_mutex_unlock(&q->lock);
	return rc;
}

int queue_try_pop(struct queue *q, struct queue_pod_info **out)
{
	pthread_mutex_lock(&q->lock);
	int rc = pop_locked(q, false, out);
	pthread_mutex_unlock(&q->lock);
	return rc;
}

static int set_rejectors(struct qpi *p, const struct queue_failure *f)
{
	p->pub.n_unschedulable_plugins = p->pub.n_pending_plugins = 0;
	if (!f)
		return 0;
	for (uint32_t i = 0; i < f->n_unschedulable_plugins; i++) {
		const char *n = intern_str(f->unschedulable_plugins[i]);
		if (!n || queue__set_add(&p->pub.unschedulable_plugins, &p->pub.n_unschedulable_plugins, &p->cap_unsched, n) < 0)
			return ERR_NOMEM;
	}
	for (uint32_t i = 0; i < f->n_pending_plugins; i++) {
		const char *n = intern_str(f->pending_plugins[i]);
		if (!n || queue__set_add(&p->pub.pending_plugins, &p->pub.n_pending_plugins, &p->cap_pending, n) < 0)
			return ERR_NOMEM;
	}
	return 0;
}

int queue_add_unschedulable_if_not_present(struct queue *q, struct queue_pod_info *info,
					   const struct queue_failure *f, struct err *e)
{
	if (!info || !queue__pod_ok(info->pod)) {
		queue_pod_info_free(info);
		return err_set(e, ERR_INVALID, "queue_add_unschedulable_if_not_present: no pod");
	}
	struct qpi *p = queue__qpi_of(info);
	const char *uid = info->pod->meta.uid;
	int rc = 0;
	pthread_mutex_lock(&q->lock);
	struct ifl *marker = map_get(&q->in_flight, uid);
	if (marker && marker->deleted)
		goto drop; /* deleted while being scheduled */
	if (map_get(&q->pods, uid)) {
		rc = err_set(e, ERR_CONFLICT, "queue: pod %s/%s is already queued", info->pod->meta.namespace,
			     info->pod->meta.name);
		goto drop;
	}
	if (set_rejectors(p, f) < 0 || map_put(&q->pods, uid, p, NULL) < 0) {
		rc = err_set(e, ERR_NOMEM, "queue: requeueing pod %s/%s: out of memory", info->pod->meta.namespace,
			     info->pod->meta.name);
		goto drop;
	}
	if (queue__has_rejectors(p)) {
		p->pub.unschedulable_count++;
		p->pub.consecutive_errors_count = 0;
	} else {
		p->pub.consecutive_errors_count++;
	}
	p->pub.timestamp = queue__now_locked(q);
	p->backoff_valid = false;
	p->flush_timestamp = 0;
	enum queue_tier t = queue__requeue(q, p, queue__in_flight_strategy(q, p, marker), "ScheduleAttemptFailure");
	if (queue__wakes_pop(q, t))
		pthread_cond_signal(&q->cond);
	queue__done_locked(q, uid);
	pthread_mutex_unlock(&q->lock);
	return 0;
drop:
	queue__done_locked(q, uid);
	pthread_mutex_unlock(&q->lock);
	queue_pod_info_free(info);
	return rc;
}

void queue_done(struct queue *q, const char *pod_uid)
{
	if (!pod_uid)
		return;
	pthread_mutex_lock(&q->lock);
	queue__done_locked(q, pod_uid);
	pthread_mutex_unlock(&q->lock);
}

void queue_activate(struct queue *q, const char *pod_uid)
{
	if (!pod_uid)
		return;
	pthread_mutex_lock(&q->lock);
	struct qpi *p = map_get(&q->pods, pod_uid);
	if (p && (p->tier == QUEUE_TIER_UNSCHEDULABLE || p->tier == QUEUE_TIER_BACKOFF)) {
		/* upstream activate: out of unschedulableEntities or backoffQ, then moveToActiveQ (a
		 * pod PreEnqueue gates again is parked as unschedulable) */
		queue__tier_remove(q, p);
		if (queue__move_to_active(q, p, "ForceActivate", false))
			pthread_cond_broadcast(&q->cond);
	} else if (map_get(&q->in_flight, pod_uid)) {
		/* upstream addEventsIfPodInFlight(EventForceActivate): requeued when it comes back */
		struct queue_event ev = { QUEUE_RES_WILDCARD, QUEUE_ACT_ALL, "ForceActivate" };
		queue__ifl_add_event(q, &ev, NULL, NULL);
	}
	pthread_mutex_unlock(&q->lock);
}

void queue_activate_gated(struct queue *q, const char *pod_uid, const char *plugin)
{
	const char *name = plugin ? intern_str(plugin) : NULL;
	if (!pod_uid || !name)
		return;
	pthread_mutex_lock(&q->lock);
	struct qpi *p = map_get(&q->pods, pod_uid);
	if (p && p->tier == QUEUE_TIER_UNSCHEDULABLE && p->pub.gating_plugin == name) {
		queue__tier_remove(q, p);
		if (queue__move_to_active(q, p, "ForceActivate", false))
			pthread_cond_broadcast(&q->cond);
	}
	pthread_mutex_unlock(&q->lock);
}

/* ---------- Timers and shutdown ---------- */

static void *timer_main(void *arg)
{
	struct queue *q = arg;
	pthread_mutex_lock(&q->lock);
	int64_t next_leftover = queue__mono_now(NULL) + 30 * NS_PER_SEC;
	while (!q->closed) {
		/* upstream waitUntilAlignedWithOrderingWindow: with pop-from-backoff, flush at the start
		 * of each 1 s ordering window, so a whole window completes at once */
		int64_t wake = queue__mono_now(NULL) + NS_PER_SEC;
		if (q->pop_from_backoff)
			wake -= wake % NS_PER_SEC;
		struct timespec ts = ns_to_timespec(wake);
		pthread_cond_timedwait(&q->tcond, &q->lock, &ts);
		if (q->closed)
			break;
		queue__flush_backoff_locked(q);
		if (queue__mono_now(NULL) >= next_leftover) {
			queue__flush_leftover_locked(q);
			next_leftover += 30 * NS_PER_SEC;
		}
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

int queue_start_timers(struct queue *q, struct err *e)
{
	pthread_mutex_lock(&q->lock);
	int rc = 0;
	if (q->timer_started || q->closed) {
		rc = err_set(e, ERR_INVALID, "queue_start_timers: %s", q->closed ? "queue closed" : "already started");
	} else if (pthread_create(&q->timer, NULL, timer_main, q) != 0) {
		rc = err_set(e, ERR_NOMEM, "queue_start_timers: cannot create the timer thread");
	} else {
		q->timer_started = true;
	}
	pthread_mutex_unlock(&q->lock);
	return rc;
}

void queue_close(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	bool join = q->timer_started;
	q->timer_started = false;
	pthread_cond_broadcast(&q->cond);
	pthread_cond_broadcast(&q->tcond);
	pthread_mutex_unlock(&q->lock);
	if (join)
		pthread_join(q->timer, NULL);
}

/* ---------- Metrics ---------- */

uint32_t queue_active_len(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	uint32_t n = (uint32_t)q->active.n;
	pthread_mutex_unlock(&q->lock);
	return n;
}

void queue_counts(struct queue *q, struct queue_counts *out)
{
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&q->lock);
	out->active = q->active.n;
	out->backoff = q->backoff.n + q->error_backoff.n;
	for (const struct qpi *p = q->unsched; p; p = p->unext) {
		if (p->pub.gating_plugin)
			out->gated++;
		else
			out->unschedulable++;
	}
	out->in_flight = (uint32_t)map_len(&q->in_flight);
	out->in_flight_events = q->n_ifl_events;
	out->nominated = (uint32_t)map_len(&q->nominated);
	pthread_mutex_unlock(&q->lock);
}

enum queue_tier queue_pod_tier(struct queue *q, const char *pod_uid)
{
	if (!pod_uid)
		return QUEUE_TIER_NONE;
	pthread_mutex_lock(&q->lock);
	enum queue_tier t = QUEUE_TIER_NONE;
	const struct qpi *p = map_get(&q->pods, pod_uid);
	if (p)
		t = p->tier == QUEUE_TIER_UNSCHEDULABLE && p->pub.gating_plugin ? QUEUE_TIER_GATED : p->tier;
	else if (map_get(&q->in_flight, pod_uid))
		t = QUEUE_TIER_IN_FLIGHT;
	pthread_mutex_unlock(&q->lock);
	return t;
}

void queue_incoming_foreach(struct queue *q, void (*cb)(void *ctx, const char *queue, const char *event,
							uint64_t count),
			    void *ctx)
{
	pthread_mutex_lock(&q->lock);
	const char *k;
	void *v;
	for (size_t it = 0; map_next(&q->incoming, &it, &k, &v);) {
		const uint64_t *c = v;
		for (int i = 0; i < INC_N; i++)
			if (c[i])
				cb(ctx, inc_names[i], k, c[i]);
	}
	pthread_mutex_unlock(&q->lock);
}

struct rejector_count {
	const char *plugin, *profile; /* interned */
	uint64_t n;
};

void queue_rejector_counts(struct queue *q, void (*cb)(void *ctx, const char *plugin, const char *profile,
						       uint64_t count),
			   void *ctx)
{
	struct rejector_count *v = NULL;
	size_t n = 0, cap = 0;
	pthread_mutex_lock(&q->lock);
	const char *k;
	void *val;
	for (size_t it = 0; map_next(&q->pods, &it, &k, &val);) {
		const struct queue_pod_info *pi = &((const struct qpi *)val)->pub;
		uint32_t nu = pi->n_unschedulable_plugins, total = nu + pi->n_pending_plugins;
		for (uint32_t i = 0; i < total; i++) {
			const char *plugin = i < nu ? pi->unschedulable_plugins[i] : pi->pending_plugins[i - nu];
			if (i >= nu && queue__name_in(pi->unschedulable_plugins, nu, plugin))
				continue; /* the union of both sets */
			size_t j = 0;
			while (j < n && (v[j].plugin != plugin || v[j].profile != pi->pod->scheduler_name))
				j++;
			if (j == n) {
				if (n == cap) {
					size_t nc = cap ? cap * 2 : 16;
					struct rejector_count *nv = realloc(v, nc * sizeof(*nv));
					if (!nv)
						continue; /* out of memory: this pod goes uncounted */
					v = nv;
					cap = nc;
				}
				v[n++] = (struct rejector_count){ plugin, pi->pod->scheduler_name, 0 };
			}
			v[j].n++;
		}
	}
	for (size_t j = 0; j < n; j++)
		cb(ctx, v[j].plugin, v[j].profile, v[j].n);
	pthread_mutex_unlock(&q->lock);
	free(v);
}

void queue_pending_foreach(struct queue *q, void (*cb)(void *ctx, const char *uid), void *ctx)
{
	const char *k;
	void *v;
	pthread_mutex_lock(&q->lock);
	for (size_t it = 0; map_next(&q->pods, &it, &k, &v);)
		cb(ctx, k);
	pthread_mutex_unlock(&q->lock);
}
