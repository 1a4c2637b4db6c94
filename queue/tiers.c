/* Pod infos, backoff and the three tiers (activeQ, the backoffQ heaps, unschedulable): where a
 * queued pod is and how it moves between them. The static and queue__ functions here: caller holds
 * q->lock. */
#include "queue_internal.h"

#include <stdlib.h>

#include "common/clock.h"
#include "common/intern.h"
#include "common/log.h"

/* ---------- Pod infos ---------- */

bool queue_less_priority_sort(void *ctx, const struct queue_pod_info *a, const struct queue_pod_info *b)
{
	(void)ctx;
	int32_t pa = a->pod->priority, pb = b->pod->priority;
	return pa > pb || (pa == pb && a->timestamp < b->timestamp);
}

struct qpi *queue__qpi_of(struct queue_pod_info *p)
{
	return (struct qpi *)(void *)p; /* pub is the first member */
}

void queue_pod_info_free(struct queue_pod_info *p)
{
	if (!p)
		return;
	api_pod_unref(p->pod);
	free(p->unschedulable_plugins);
	free(p->pending_plugins);
	free(queue__qpi_of(p));
}

void queue_pod_info_set_pod(struct queue_pod_info *p, struct api_pod *pod)
{
	if (p->pod == pod)
		return;
	api_pod_ref(pod);
	api_pod_unref(p->pod);
	p->pod = pod;
}

bool queue__name_in(const char *const *v, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == name)
			return true;
	return false;
}

/* Adds an interned name to a small set. */
int queue__set_add(const char ***v, uint32_t *n, uint32_t *cap, const char *name)
{
	if (queue__name_in(*v, *n, name))
		return 0;
	if (*n == *cap) {
		uint32_t c = *cap ? *cap * 2 : 4;
		const char **nv = realloc(*v, c * sizeof(*nv));
		if (!nv)
			return ERR_NOMEM;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = name;
	return 0;
}

bool queue__has_rejectors(const struct qpi *p)
{
	return p->pub.n_unschedulable_plugins || p->pub.n_pending_plugins;
}

bool queue__rejected_by(const struct qpi *p, const char *plugin)
{
	return queue__name_in(p->pub.unschedulable_plugins, p->pub.n_unschedulable_plugins, plugin) ||
	       queue__name_in(p->pub.pending_plugins, p->pub.n_pending_plugins, plugin);
}

/* ---------- Clock and backoff ---------- */

int64_t queue__mono_now(void *ctx)
{
	(void)ctx;
	return mono_ns();
}

int64_t queue__now_locked(const struct queue *q)
{
	return q->now(q->now_ctx);
}

/* upstream calculateBackoffDuration (entity size 1): initial << (count-1), capped at max. */
static int64_t backoff_duration_of(const struct queue *q, uint32_t count)
{
	if (count == 0)
		return 0;
	uint32_t shift = count - 1;
	/* Go's >> by 64 or more yields 0 */
	int64_t max_shifted = shift >= 63 ? 0 : q->max_backoff >> shift;
	if (q->initial_backoff > max_shifted)
		return q->max_backoff;
	return q->initial_backoff << shift;
}

/* upstream getBackoffTime's count: the consecutive errors when the last attempt erred, else the
 * unschedulable failures. */
static uint32_t backoff_count(uint32_t unschedulable_count, uint32_t consecutive_errors_count)
{
	return consecutive_errors_count > 0 ? consecutive_errors_count : unschedulable_count;
}

int64_t queue_backoff_duration(const struct queue *q, uint32_t attempts, uint32_t unschedulable_count,
			       uint32_t consecutive_errors_count)
{
	(void)attempts; /* upstream keys the backoff on the failure counts alone */
	return backoff_duration_of(q, backoff_count(unschedulable_count, consecutive_errors_count));
}

/* upstream alignToWindow: with pop-from-backoff, times are truncated to the 1 s ordering window
 * (backoffQOrderingWindowDuration), as Go's Time.Truncate (toward the past). */
static int64_t align_to_window(const struct queue *q, int64_t t)
{
	if (!q->pop_from_backoff)
		return t;
	return t - (((t % NS_PER_SEC) + NS_PER_SEC) % NS_PER_SEC);
}

/* Upstream getBackoffTime: the aligned timestamp + duration; cached until the next failure.
 * 0 = no backoff (never failed, or max backoff 0). */
static int64_t backoff_expiry(const struct queue *q, struct qpi *p)
{
	uint32_t count = backoff_count(p->pub.unschedulable_count, p->pub.consecutive_errors_count);
	if (q->max_backoff == 0 || count == 0)
		return 0;
	if (!p->backoff_valid) {
		p->backoff_expiry = align_to_window(q, p->pub.timestamp + backoff_duration_of(q, count));
		p->backoff_valid = true;
	}
	return p->backoff_expiry;
}

/* upstream isEntityBackingoff: the pod waits while its expiry is not before the current window,
 * so with windows it leaves backoff only once the window after its expiry's has begun. */
bool queue__backing_off(const struct queue *q, struct qpi *p, int64_t now)
{
	int64_t exp = backoff_expiry(q, p);
	return exp != 0 && exp >= align_to_window(q, now);
}

/* ---------- Heaps ---------- */

static bool heap_less(const struct queue *q, const struct heap *h, struct qpi *a, struct qpi *b)
{
	if (h->backoff) {
		int64_t ea = backoff_expiry(q, a), eb = backoff_expiry(q, b);
		if (ea != eb)
			return ea < eb;
	}
	return q->less(q->less_ctx, &a->pub, &b->pub);
}

static void heap_set(struct heap *h, uint32_t i, struct qpi *p)
{
	h->v[i] = p;
	p->heap_idx = i;
}

static void heap_up(const struct queue *q, struct heap *h, uint32_t i)
{
	struct qpi *p = h->v[i];
	while (i > 0) {
		uint32_t parent = (i - 1) / 2;
		if (!heap_less(q, h, p, h->v[parent]))
			break;
		heap_set(h, i, h->v[parent]);
		i = parent;
	}
	heap_set(h, i, p);
}

static void heap_down(const struct queue *q, struct heap *h, uint32_t i)
{
	struct qpi *p = h->v[i];
	for (;;) {
		uint32_t l = 2 * i + 1, best = i;
		struct qpi *bp = p;
		if (l < h->n && heap_less(q, h, h->v[l], bp)) {
			best = l;
			bp = h->v[l];
		}
		if (l + 1 < h->n && heap_less(q, h, h->v[l + 1], bp)) {
			best = l + 1;
			bp = h->v[l + 1];
		}
		if (best == i)
			break;
		heap_set(h, i, bp);
		i = best;
	}
	heap_set(h, i, p);
}

static int heap_reserve(struct heap *h)
{
	if (h->n < h->cap)
		return 0;
	uint32_t cap = h->cap ? h->cap * 2 : 64;
	struct qpi **v = realloc(h->v, cap * sizeof(*v));
	if (!v)
		return ERR_NOMEM;
	h->v = v;
	h->cap = cap;
	return 0;
}

/* Capacity must have been reserved. */
static void heap_push(const struct queue *q, struct heap *h, struct qpi *p)
{
	heap_set(h, h->n++, p);
	heap_up(q, h, h->n - 1);
}

static void heap_remove(const struct queue *q, struct heap *h, struct qpi *p)
{
	uint32_t i = p->heap_idx;
	struct qpi *last = h->v[--h->n];
	if (i == h->n)
		return;
	heap_set(h, i, last);
	heap_down(q, h, i);
	heap_up(q, h, last->heap_idx);
}

void queue__heap_fix(const struct queue *q, struct heap *h, struct qpi *p)
{
	heap_down(q, h, p->heap_idx);
	heap_up(q, h, p->heap_idx);
}

/* ---------- Tiers ---------- */

struct heap *queue__backoff_heap_of(struct queue *q, struct qpi *p)
{
	return p->error_heap ? &q->error_backoff : &q->backoff;
}

void queue__tier_remove(struct queue *q, struct qpi *p)
{
	switch (p->tier) {
	case QUEUE_TIER_ACTIVE:
		heap_remove(q, &q->active, p);
		break;
	case QUEUE_TIER_BACKOFF:
		heap_remove(q, queue__backoff_heap_of(q, p), p);
		break;
	case QUEUE_TIER_UNSCHEDULABLE:
		if (p->uprev)
			p->uprev->unext = p->unext;
		else
			q->unsched = p->unext;
		if (p->unext)
			p->unext->uprev = p->uprev;
		p->uprev = p->unext = NULL;
		q->n_unsched--;
		break;
	default:
		break;
	}
	p->tier = QUEUE_TIER_NONE;
}

void queue__incoming_inc(struct queue *q, int which, const char *label)
{
	uint64_t *c = map_get(&q->incoming, label);
	if (!c) {
		const char *key = intern_str(label);
		if (!key || !(c = calloc(INC_N, sizeof(*c))))
			return;
		if (map_put(&q->incoming, key, c, NULL) < 0) {
			free(c);
			return;
		}
	}
	c[which]++;
}

/* upstream unschedulablePods.addOrUpdate: no-op when already there. */
static void unsched_add(struct queue *q, struct qpi *p, const char *label)
{
	if (p->tier == QUEUE_TIER_UNSCHEDULABLE)
		return;
	queue__tier_remove(q, p);
	p->uprev = NULL;
	p->unext = q->unsched;
	if (q->unsched)
		q->unsched->uprev = p;
	q->unsched = p;
	q->n_unsched++;
	p->tier = QUEUE_TIER_UNSCHEDULABLE;
	queue__incoming_inc(q, INC_UNSCHEDULABLE, label);
}

const struct qprofile *queue__profile_of(const struct queue *q, const struct api_pod *pod)
{
	for (uint32_t i = 0; i < q->n_profiles; i++)
		if (q->profiles[i].scheduler_name == pod->scheduler_name)
			return &q->profiles[i];
	return NULL;
}

/* PreEnqueue: sets or clears gating_plugin; the gating plugin joins the rejector set so that its
 * events can ungate the pod. */
static void run_pre_enqueue(struct queue *q, struct qpi *p)
{
	const struct qprofile *pr = queue__profile_of(q, p->pub.pod);
	const char *gp = NULL;
	if (!pr || !pr->pre_enqueue || pr->pre_enqueue(pr->pre_enqueue_ctx, p->pub.pod, &gp)) {
		p->pub.gating_plugin = NULL;
		return;
	}
	const char *name = intern_str(gp && gp[0] ? gp : "PreEnqueue");
	p->pub.gating_plugin = name ? name : q->scheduling_gates;
	queue__set_add(&p->pub.unschedulable_plugins, &p->pub.n_unschedulable_plugins, &p->cap_unsched, p->pub.gating_plugin);
}

/* upstream moveToActiveQ: false when the pod is gated (it is then in unschedulable). */
bool queue__move_to_active(struct queue *q, struct qpi *p, const char *label, bool skip_pre_enqueue)
{
	if (!skip_pre_enqueue)
		run_pre_enqueue(q, p);
	if (p->pub.gating_plugin || heap_reserve(&q->active) < 0) {
		if (!p->pub.gating_plugin)
			LOG_ERROR("queue: out of memory moving pod %s/%s to activeQ; parked as unschedulable",
				  p->pub.pod->meta.namespace, p->pub.pod->meta.name);
		if (p->tier == QUEUE_TIER_NONE || p->tier == QUEUE_TIER_UNSCHEDULABLE)
			unsched_add(q, p, label);
		return false;
	}
	if (!p->pub.initial_attempt_timestamp)
		p->pub.initial_attempt_timestamp = queue__now_locked(q);
	queue__tier_remove(q, p);
	heap_push(q, &q->active, p);
	p->tier = QUEUE_TIER_ACTIVE;
	queue__incoming_inc(q, INC_ACTIVE, label);
	return true;
}

/* upstream moveToBackoffQ: with pop-from-backoff, PreEnqueue runs here (not again at completion). */
static bool move_to_backoff(struct queue *q, struct qpi *p, const char *label)
{
	if (q->pop_from_backoff) {
		run_pre_enqueue(q, p);
		if (p->pub.gating_plugin) {
			unsched_add(q, p, label);
			return false;
		}
	}
	bool err = !queue__has_rejectors(p);
	struct heap *h = err ? &q->error_backoff : &q->backoff;
	if (heap_reserve(h) < 0) {
		LOG_ERROR("queue: out of memory moving pod %s/%s to backoffQ; parked as unschedulable",
			  p->pub.pod->meta.namespace, p->pub.pod->meta.name);
		unsched_add(q, p, label);
		return false;
	}
	queue__tier_remove(q, p);
	p->error_heap = err;
	heap_push(q, h, p);
	p->tier = QUEUE_TIER_BACKOFF;
	queue__incoming_inc(q, INC_BACKOFF, label);
	return true;
}

/* upstream requeuePodWithQueueingStrategy; returns the tier the pod ends in. */
enum queue_tier queue__requeue(struct queue *q, struct qpi *p, enum strategy s, const char *label)
{
	if (s == STRAT_SKIP) {
		unsched_add(q, p, label);
		return QUEUE_TIER_UNSCHEDULABLE;
	}
	if (s == STRAT_AFTER_BACKOFF && queue__backing_off(q, p, queue__now_locked(q)))
		return move_to_backoff(q, p, label) ? QUEUE_TIER_BACKOFF : QUEUE_TIER_UNSCHEDULABLE;
	return queue__move_to_active(q, p, label, false) ? QUEUE_TIER_ACTIVE : QUEUE_TIER_UNSCHEDULABLE;
}

bool queue__wakes_pop(const struct queue *q, enum queue_tier t)
{
	return t == QUEUE_TIER_ACTIVE || (q->pop_from_backoff && t == QUEUE_TIER_BACKOFF);
}
