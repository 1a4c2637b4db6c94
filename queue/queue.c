/* DESIGN: the scheduling queue (upstream backend/queue/scheduling_queue.go, v1.34).
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
#include "queue/queue.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/intern.h"
#include "common/log.h"
#include "common/map.h"

#define NS_PER_SEC 1000000000LL

enum strategy { STRAT_SKIP, STRAT_AFTER_BACKOFF, STRAT_IMMEDIATELY };

enum { INC_ACTIVE, INC_BACKOFF, INC_UNSCHEDULABLE, INC_GATED, INC_N };
static const char *const inc_names[INC_N] = { "active", "backoff", "unschedulable", "gated" };

struct qpi {
	struct queue_pod_info pub; /* first: the caller sees only this */
	uint32_t cap_unsched, cap_pending;
	enum queue_tier tier; /* ACTIVE, BACKOFF, UNSCHEDULABLE (gated included) or NONE */
	bool error_heap;      /* which backoff heap holds it */
	uint32_t heap_idx;
	bool backoff_valid; /* backoff_expiry is cached (cleared at pop and at requeue) */
	int64_t backoff_expiry;
	struct qpi *uprev, *unext;
};

struct heap {
	struct qpi **v;
	uint32_t n, cap;
	bool backoff; /* ordered by backoff expiry, then the active order */
};

/* An entry of the in-flight list: a popped pod's marker (uid set) or a cluster event. */
struct ifl {
	struct ifl *prev, *next;
	const char *uid;
	bool deleted; /* marker: the pod was deleted while in flight */
	struct queue_event ev;
	void *old_obj, *new_obj; /* referenced (api_pod or api_node by ev.resource) */
};

struct qprofile {
	const char *scheduler_name; /* interned */
	struct queue_hint_reg *regs; /* plugin names interned */
	uint32_t n_regs;
	queue_pre_enqueue_fn pre_enqueue;
	void *pre_enqueue_ctx;
};

struct nom {
	struct api_pod *pod; /* referenced */
	const char *node_name; /* interned */
};

struct queue {
	/* Guards every field below (see DESIGN). */
	pthread_mutex_t lock;
	pthread_cond_t cond;  /* with lock: something poppable, or closed */
	pthread_cond_t tcond; /* with lock: timer thread wake-up at close */

	/* options, read-only after queue_new */
	bool (*less)(void *ctx, const struct queue_pod_info *a, const struct queue_pod_info *b);
	void *less_ctx;
	int64_t initial_backoff, max_backoff, max_in_unsched;
	bool pop_from_backoff;
	queue_now_fn now;
	void *now_ctx;
	bool (*pod_scaled_down)(const struct api_pod *old_pod, const struct api_pod *new_pod);
	struct qprofile *profiles;
	uint32_t n_profiles;
	const char *scheduling_gates; /* interned "SchedulingGates" */

	struct heap active, backoff, error_backoff;
	struct qpi *unsched; /* list head */
	uint32_t n_unsched;
	struct map pods; /* uid -> qpi, every tiered pod */

	struct map in_flight; /* uid -> its marker in the in-flight list */
	struct ifl *ifl_head, *ifl_tail;
	uint32_t n_ifl_events;

	struct map nominated; /* uid -> struct nom */
	struct map incoming;  /* interned label -> uint64_t[INC_N] */

	bool closed;
	bool timer_started;
	pthread_t timer;
};

/* ---------- Events ---------- */

static const char *const res_names[QUEUE_RES_COUNT_] = {
	"*", "Pod", "AssignedPod", "UnschedulablePod", "Node", "PersistentVolume", "PersistentVolumeClaim",
	"StorageClass", "CSINode", "CSIDriver", "CSIStorageCapacity", "VolumeAttachment", "ResourceClaim",
	"ResourceSlice", "DeviceClass",
};

static const char *const act_names[] = {
	"Add", "Delete", "UpdateNodeAllocatable", "UpdateNodeLabel", "UpdateNodeTaint", "UpdateNodeCondition",
	"UpdateNodeAnnotation", "UpdatePodLabel", "UpdatePodScaleDown", "UpdatePodToleration",
	"UpdatePodSchedulingGatesEliminated", "UpdatePodGeneratedResourceClaim",
};

bool queue_event_is_wildcard(const struct queue_event *ev)
{
	return ev->resource == QUEUE_RES_WILDCARD && ev->actions == QUEUE_ACT_ALL;
}

static bool resource_matches(uint32_t reg, uint32_t in)
{
	return reg == QUEUE_RES_WILDCARD || reg == in ||
	       (reg == QUEUE_RES_POD && (in == QUEUE_RES_ASSIGNED_POD || in == QUEUE_RES_UNSCHEDULED_POD));
}

bool queue_event_matches(const struct queue_event *reg, const struct queue_event *ev)
{
	return queue_event_is_wildcard(reg) ||
	       (resource_matches(reg->resource, ev->resource) && ev->actions && (reg->actions & ev->actions) == ev->actions);
}

const char *queue_event_label(const struct queue_event *ev, char *buf, unsigned size)
{
	if (ev->label) {
		snprintf(buf, size, "%s", ev->label);
		return buf;
	}
	const char *r = ev->resource < QUEUE_RES_COUNT_ ? res_names[ev->resource] : "Unknown";
	if (ev->actions == QUEUE_ACT_ALL) {
		snprintf(buf, size, "%sAll", r);
	} else if (ev->actions == QUEUE_ACT_UPDATE) {
		snprintf(buf, size, "%sUpdate", r);
	} else {
		int off = snprintf(buf, size, "%s", r);
		bool first = true;
		for (unsigned i = 0; i < sizeof(act_names) / sizeof(act_names[0]); i++) {
			if (!(ev->actions & (1u << i)) || off < 0 || (unsigned)off >= size)
				continue;
			off += snprintf(buf + off, size - (unsigned)off, "%s%s", first ? "" : "|", act_names[i]);
			first = false;
		}
	}
	return buf;
}

static bool labels_equal(const struct api_labels *a, const struct api_labels *b)
{
	if (a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++) {
		uint32_t j = 0;
		while (j < b->n && b->items[j].key != a->items[i].key)
			j++;
		if (j == b->n || b->items[j].value != a->items[i].value)
			return false;
	}
	return true;
}

/* Annotations are not interned (apiclient keeps them in the object's arena): compared by content. */
static bool annotations_equal(const struct api_labels *a, const struct api_labels *b)
{
	if (a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++) {
		uint32_t j = 0;
		while (j < b->n && strcmp(b->items[j].key, a->items[i].key) != 0)
			j++;
		if (j == b->n || strcmp(b->items[j].value, a->items[i].value) != 0)
			return false;
	}
	return true;
}

static bool resources_equal(const struct api_resources *a, const struct api_resources *b)
{
	if (a->has_cpu != b->has_cpu || a->has_memory != b->has_memory ||
	    a->has_ephemeral_storage != b->has_ephemeral_storage || a->has_pods != b->has_pods ||
	    a->cpu != b->cpu || a->memory != b->memory || a->ephemeral_storage != b->ephemeral_storage ||
	    a->pods != b->pods || a->n_scalar != b->n_scalar)
		return false;
	for (uint32_t i = 0; i < a->n_scalar; i++) {
		uint32_t j = 0;
		while (j < b->n_scalar && b->scalar[j].name != a->scalar[i].name)
			j++;
		if (j == b->n_scalar || b->scalar[j].value != a->scalar[i].value)
			return false;
	}
	return true;
}

static bool taints_equal(const struct api_node *a, const struct api_node *b)
{
	if (a->n_taints != b->n_taints)
		return false;
	for (uint32_t i = 0; i < a->n_taints; i++)
		if (a->taints[i].key != b->taints[i].key || a->taints[i].value != b->taints[i].value ||
		    a->taints[i].effect != b->taints[i].effect)
			return false;
	return true;
}

/* Conditions compared as a type -> status map (the last entry of a type wins, as a Go map). */
static const char *cond_status(const struct api_node *n, const char *type)
{
	const char *st = NULL;
	for (uint32_t i = 0; i < n->n_conditions; i++)
		if (n->conditions[i].type == type)
			st = n->conditions[i].status;
	return st;
}

static bool conditions_cover(const struct api_node *a, const struct api_node *b)
{
	for (uint32_t i = 0; i < a->n_conditions; i++)
		if (cond_status(b, a->conditions[i].type) != cond_status(a, a->conditions[i].type))
			return false;
	return true;
}

uint32_t queue_node_update_events(const struct api_node *old_node, const struct api_node *new_node,
				  struct queue_event out[6])
{
	uint32_t n = 0;
#define NODE_EV(bit) (out[n++] = (struct queue_event){ QUEUE_RES_NODE, (bit), NULL })
	if (old_node->unschedulable != new_node->unschedulable && !new_node->unschedulable)
		NODE_EV(QUEUE_ACT_UPDATE_NODE_TAINT);
	if (!resources_equal(&old_node->allocatable, &new_node->allocatable))
		NODE_EV(QUEUE_ACT_UPDATE_NODE_ALLOCATABLE);
	if (!labels_equal(&old_node->meta.labels, &new_node->meta.labels))
		NODE_EV(QUEUE_ACT_UPDATE_NODE_LABEL);
	if (!taints_equal(old_node, new_node))
		NODE_EV(QUEUE_ACT_UPDATE_NODE_TAINT);
	if (!conditions_cover(old_node, new_node) || !conditions_cover(new_node, old_node))
		NODE_EV(QUEUE_ACT_UPDATE_NODE_CONDITION);
	if (!annotations_equal(&old_node->meta.annotations, &new_node->meta.annotations))
		NODE_EV(QUEUE_ACT_UPDATE_NODE_ANNOTATION);
#undef NODE_EV
	return n;
}

uint32_t queue_pod_update_events(const struct api_pod *old_pod, const struct api_pod *new_pod, bool scaled_down,
				 struct queue_event out[4])
{
	uint32_t r = new_pod->node_name && new_pod->node_name[0] ? QUEUE_RES_ASSIGNED_POD : QUEUE_RES_UNSCHEDULED_POD;
	uint32_t n = 0;
	if (!labels_equal(&old_pod->meta.labels, &new_pod->meta.labels))
		out[n++] = (struct queue_event){ r, QUEUE_ACT_UPDATE_POD_LABEL, NULL };
	if (scaled_down)
		out[n++] = (struct queue_event){ r, QUEUE_ACT_UPDATE_POD_SCALE_DOWN, NULL };
	if (new_pod->n_scheduling_gates == 0 && old_pod->n_scheduling_gates != 0)
		out[n++] = (struct queue_event){ r, QUEUE_ACT_UPDATE_POD_SCHEDULING_GATES_ELIMINATED, NULL };
	if (new_pod->n_tolerations != old_pod->n_tolerations)
		out[n++] = (struct queue_event){ r, QUEUE_ACT_UPDATE_POD_TOLERATION, NULL };
	if (!n)
		out[n++] = (struct queue_event){ r, QUEUE_ACT_UPDATE, NULL };
	return n;
}

static bool is_pod_resource(uint32_t r)
{
	return r == QUEUE_RES_POD || r == QUEUE_RES_ASSIGNED_POD || r == QUEUE_RES_UNSCHEDULED_POD;
}

static void *obj_ref(uint32_t resource, const void *obj)
{
	if (!obj)
		return NULL;
	if (is_pod_resource(resource))
		return api_pod_ref((struct api_pod *)obj);
	if (resource == QUEUE_RES_NODE)
		return api_node_ref((struct api_node *)obj);
	return NULL; /* no object model for other resources: hints get NULL */
}

static void obj_unref(uint32_t resource, void *obj)
{
	if (is_pod_resource(resource))
		api_pod_unref(obj);
	else if (resource == QUEUE_RES_NODE)
		api_node_unref(obj);
}

/* ---------- Pod infos ---------- */

bool queue_less_priority_sort(void *ctx, const struct queue_pod_info *a, const struct queue_pod_info *b)
{
	(void)ctx;
	int32_t pa = a->pod->priority, pb = b->pod->priority;
	return pa > pb || (pa == pb && a->timestamp < b->timestamp);
}

static struct qpi *qpi_of(struct queue_pod_info *p)
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
	free(qpi_of(p));
}

void queue_pod_info_set_pod(struct queue_pod_info *p, struct api_pod *pod)
{
	if (p->pod == pod)
		return;
	api_pod_ref(pod);
	api_pod_unref(p->pod);
	p->pod = pod;
}

static bool name_in(const char *const *v, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == name)
			return true;
	return false;
}

/* Adds an interned name to a small set. */
static int set_add(const char ***v, uint32_t *n, uint32_t *cap, const char *name)
{
	if (name_in(*v, *n, name))
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

static bool has_rejectors(const struct qpi *p)
{
	return p->pub.n_unschedulable_plugins || p->pub.n_pending_plugins;
}

static bool rejected_by(const struct qpi *p, const char *plugin)
{
	return name_in(p->pub.unschedulable_plugins, p->pub.n_unschedulable_plugins, plugin) ||
	       name_in(p->pub.pending_plugins, p->pub.n_pending_plugins, plugin);
}

/* ---------- Clock and backoff ---------- */

static int64_t mono_now(void *ctx)
{
	(void)ctx;
	return mono_ns();
}

static int64_t now_locked(const struct queue *q)
{
	return q->now(q->now_ctx);
}

int64_t queue_backoff_duration(const struct queue *q, uint32_t attempts, uint32_t unschedulable_count,
			       uint32_t consecutive_errors_count)
{
	if (attempts == 0)
		return 0; /* never tried: no penalty */
	uint32_t count = consecutive_errors_count > 0 ? consecutive_errors_count : unschedulable_count;
	int64_t d = q->initial_backoff;
	for (uint32_t i = 1; i < count; i++) {
		if (d > q->max_backoff - d)
			return q->max_backoff;
		d += d;
	}
	return d < q->max_backoff ? d : q->max_backoff;
}

/* Upstream getBackoffTime: timestamp + duration, truncated to the 1 s ordering window when pods
 * may pop from backoffQ; cached until the next pop or failure. 0 = no backoff. */
static int64_t backoff_expiry(const struct queue *q, struct qpi *p)
{
	if (p->pub.attempts == 0)
		return 0;
	if (!p->backoff_valid) {
		int64_t t = p->pub.timestamp + queue_backoff_duration(q, p->pub.attempts, p->pub.unschedulable_count,
								      p->pub.consecutive_errors_count);
		if (q->pop_from_backoff)
			t -= ((t % NS_PER_SEC) + NS_PER_SEC) % NS_PER_SEC;
		p->backoff_expiry = t;
		p->backoff_valid = true;
	}
	return p->backoff_expiry;
}

static bool backing_off(const struct queue *q, struct qpi *p, int64_t now)
{
	return p->pub.attempts > 0 && backoff_expiry(q, p) > now;
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

static void heap_fix(const struct queue *q, struct heap *h, struct qpi *p)
{
	heap_down(q, h, p->heap_idx);
	heap_up(q, h, p->heap_idx);
}

/* ---------- Tiers ---------- */

static struct heap *backoff_heap_of(struct queue *q, struct qpi *p)
{
	return p->error_heap ? &q->error_backoff : &q->backoff;
}

static void tier_remove(struct queue *q, struct qpi *p)
{
	switch (p->tier) {
	case QUEUE_TIER_ACTIVE:
		heap_remove(q, &q->active, p);
		break;
	case QUEUE_TIER_BACKOFF:
		heap_remove(q, backoff_heap_of(q, p), p);
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

static void incoming_inc(struct queue *q, int which, const char *label)
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
	tier_remove(q, p);
	p->uprev = NULL;
	p->unext = q->unsched;
	if (q->unsched)
		q->unsched->uprev = p;
	q->unsched = p;
	q->n_unsched++;
	p->tier = QUEUE_TIER_UNSCHEDULABLE;
	incoming_inc(q, p->pub.gating_plugin ? INC_GATED : INC_UNSCHEDULABLE, label);
}

static const struct qprofile *profile_of(const struct queue *q, const struct api_pod *pod)
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
	const struct qprofile *pr = profile_of(q, p->pub.pod);
	const char *gp = NULL;
	if (!pr || !pr->pre_enqueue || pr->pre_enqueue(pr->pre_enqueue_ctx, p->pub.pod, &gp)) {
		p->pub.gating_plugin = NULL;
		return;
	}
	const char *name = intern_str(gp && gp[0] ? gp : "PreEnqueue");
	p->pub.gating_plugin = name ? name : q->scheduling_gates;
	set_add(&p->pub.unschedulable_plugins, &p->pub.n_unschedulable_plugins, &p->cap_unsched, p->pub.gating_plugin);
}

static void nominate_locked(struct queue *q, struct api_pod *pod, const char *node_name);

/* upstream moveToActiveQ: false when the pod is gated (it is then in unschedulable). */
static bool move_to_active(struct queue *q, struct qpi *p, const char *label, bool skip_pre_enqueue)
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
		p->pub.initial_attempt_timestamp = now_locked(q);
	tier_remove(q, p);
	heap_push(q, &q->active, p);
	p->tier = QUEUE_TIER_ACTIVE;
	incoming_inc(q, INC_ACTIVE, label);
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
	bool err = !has_rejectors(p);
	struct heap *h = err ? &q->error_backoff : &q->backoff;
	if (heap_reserve(h) < 0) {
		LOG_ERROR("queue: out of memory moving pod %s/%s to backoffQ; parked as unschedulable",
			  p->pub.pod->meta.namespace, p->pub.pod->meta.name);
		unsched_add(q, p, label);
		return false;
	}
	tier_remove(q, p);
	p->error_heap = err;
	heap_push(q, h, p);
	p->tier = QUEUE_TIER_BACKOFF;
	incoming_inc(q, INC_BACKOFF, label);
	return true;
}

/* upstream requeuePodWithQueueingStrategy; returns the tier the pod ends in. */
static enum queue_tier requeue(struct queue *q, struct qpi *p, enum strategy s, const char *label)
{
	if (s == STRAT_SKIP) {
		unsched_add(q, p, label);
		return QUEUE_TIER_UNSCHEDULABLE;
	}
	if (s == STRAT_AFTER_BACKOFF && backing_off(q, p, now_locked(q)))
		return move_to_backoff(q, p, label) ? QUEUE_TIER_BACKOFF : QUEUE_TIER_UNSCHEDULABLE;
	return move_to_active(q, p, label, false) ? QUEUE_TIER_ACTIVE : QUEUE_TIER_UNSCHEDULABLE;
}

static bool wakes_pop(const struct queue *q, enum queue_tier t)
{
	return t == QUEUE_TIER_ACTIVE || (q->pop_from_backoff && t == QUEUE_TIER_BACKOFF);
}

/* ---------- Hints ---------- */

/* upstream isPodWorthRequeuing */
static enum strategy worth_requeuing(const struct queue *q, const struct qpi *p, const struct queue_event *ev,
				     const void *old_obj, const void *new_obj)
{
	if (!has_rejectors(p) || queue_event_is_wildcard(ev))
		return STRAT_AFTER_BACKOFF;
	const struct qprofile *pr = profile_of(q, p->pub.pod);
	if (!pr)
		return STRAT_AFTER_BACKOFF;
	enum strategy s = STRAT_SKIP;
	for (uint32_t i = 0; i < pr->n_regs; i++) {
		const struct queue_hint_reg *r = &pr->regs[i];
		struct queue_event re = { r->resource, r->actions, NULL };
		if (!queue_event_matches(&re, ev) || !rejected_by(p, r->plugin))
			continue;
		enum queue_hint h = r->hint ? r->hint(r->ctx, p->pub.pod, old_obj, new_obj) : QUEUE_HINT_QUEUE;
		if (h == QUEUE_HINT_SKIP)
			continue;
		/* QUEUE_HINT_ERROR counts as Queue: a broken hint must not strand the pod */
		if (name_in(p->pub.pending_plugins, p->pub.n_pending_plugins, r->plugin))
			return STRAT_IMMEDIATELY;
		if (!p->pub.n_pending_plugins)
			return STRAT_AFTER_BACKOFF;
		s = STRAT_AFTER_BACKOFF;
	}
	return s;
}

static bool event_of_interest(const struct queue *q, const struct queue_event *ev)
{
	if (queue_event_is_wildcard(ev))
		return true;
	for (uint32_t i = 0; i < q->n_profiles; i++)
		for (uint32_t j = 0; j < q->profiles[i].n_regs; j++) {
			const struct queue_hint_reg *r = &q->profiles[i].regs[j];
			struct queue_event re = { r->resource, r->actions, NULL };
			if (queue_event_matches(&re, ev))
				return true;
		}
	return false;
}

/* ---------- In-flight list ---------- */

static struct ifl *ifl_append(struct queue *q)
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

static void ifl_unlink_free(struct queue *q, struct ifl *e)
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
	free(e);
}

/* Records an event for the in-flight pods (upstream addEventIfAnyInFlight). */
static void ifl_add_event(struct queue *q, const struct queue_event *ev, const void *old_obj, const void *new_obj)
{
	struct ifl *e = ifl_append(q);
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
static void done_locked(struct queue *q, const char *uid)
{
	struct ifl *m = map_del(&q->in_flight, uid);
	if (!m)
		return;
	ifl_unlink_free(q, m);
	while (q->ifl_head && !q->ifl_head->uid)
		ifl_unlink_free(q, q->ifl_head);
}

/* upstream determineSchedulingHintForInFlightPod */
static enum strategy in_flight_strategy(const struct queue *q, const struct qpi *p, const struct ifl *marker)
{
	if (!marker) {
		/* done() already ran (a binding-cycle failure): no events to replay */
		LOG_V(4, "queue: pod %s/%s is not in flight; requeued after backoff", p->pub.pod->meta.namespace,
		      p->pub.pod->meta.name);
		return STRAT_AFTER_BACKOFF;
	}
	if (!has_rejectors(p))
		return STRAT_AFTER_BACKOFF;
	enum strategy s = STRAT_SKIP;
	for (const struct ifl *e = marker->next; e; e = e->next) {
		if (e->uid)
			continue; /* another pod's marker */
		switch (worth_requeuing(q, p, &e->ev, e->old_obj, e->new_obj)) {
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

/* ---------- Nominator ---------- */

static void nom_delete_locked(struct queue *q, const char *uid)
{
	struct nom *n = map_del(&q->nominated, uid);
	if (n) {
		api_pod_unref(n->pod);
		free(n);
	}
}

/* upstream addNominatedPodUnlocked: node_name NULL = the pod's status.nominatedNodeName. */
static void nominate_locked(struct queue *q, struct api_pod *pod, const char *node_name)
{
	nom_delete_locked(q, pod->meta.uid);
	const char *nn = node_name ? node_name : pod->nominated_node_name;
	if (!nn || !nn[0])
		return;
	struct nom *n = malloc(sizeof(*n));
	if (!n || map_put(&q->nominated, pod->meta.uid, n, NULL) < 0) {
		free(n);
		LOG_ERROR("queue: out of memory nominating pod %s/%s", pod->meta.namespace, pod->meta.name);
		return;
	}
	n->pod = api_pod_ref(pod);
	n->node_name = nn;
}

/* upstream updateNominatedPod: keep an in-memory nomination across updates that carry none. */
static void nomination_update_locked(struct queue *q, const struct api_pod *old_pod, struct api_pod *new_pod)
{
	const char *keep = NULL;
	if ((!old_pod || !old_pod->nominated_node_name || !old_pod->nominated_node_name[0]) &&
	    (!new_pod->nominated_node_name || !new_pod->nominated_node_name[0])) {
		struct nom *n = map_get(&q->nominated, new_pod->meta.uid);
		if (n)
			keep = n->node_name;
	}
	nominate_locked(q, new_pod, keep);
}

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
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->cond, NULL);
	pthread_cond_init(&q->tcond, &ca);
	pthread_condattr_destroy(&ca);
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
	q->now = o->now ? o->now : mono_now;
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
		/* room for one synthesized Node UpdateNodeTaint per registration */
		if (src->n_hints && !(dst->regs = calloc(2 * (size_t)src->n_hints, sizeof(*dst->regs))))
			goto nomem;
		for (uint32_t j = 0; j < src->n_hints; j++) {
			struct queue_hint_reg r = src->hints[j];
			if (!r.plugin || r.resource >= QUEUE_RES_COUNT_) {
				err_set(e, ERR_INVALID, "queue_new: profiles[%u].hints[%u]: %s", i, j,
					!r.plugin ? "no plugin name" : "unknown resource");
				goto fail;
			}
			if (!(r.plugin = intern_str(r.plugin)))
				goto nomem;
			dst->regs[dst->n_regs++] = r;
			if (r.resource == QUEUE_RES_NODE && (r.actions & QUEUE_ACT_ADD) &&
			    !(r.actions & QUEUE_ACT_UPDATE_NODE_TAINT)) {
				/* upstream: a node added tainted (not-ready) is usually untainted soon after */
				dst->regs[dst->n_regs++] = (struct queue_hint_reg){ r.plugin, QUEUE_RES_NODE,
										    QUEUE_ACT_UPDATE_NODE_TAINT, NULL, NULL };
			}
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
		ifl_unlink_free(q, q->ifl_head);
	for (size_t it = 0; map_next(&q->nominated, &it, &k, &v);) {
		api_pod_unref(((struct nom *)v)->pod);
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

static bool pod_ok(const struct api_pod *pod)
{
	return pod && pod->meta.uid && pod->meta.uid[0];
}

static struct qpi *qpi_new(struct queue *q, struct api_pod *pod)
{
	struct qpi *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pub.pod = api_pod_ref(pod);
	p->pub.timestamp = now_locked(q);
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
	if (move_to_active(q, p, label, false)) {
		/* upstream nominates on unscheduled pod add/update events */
		nominate_locked(q, pod, NULL);
		pthread_cond_signal(&q->cond);
	}
	return 0;
}

static int update_locked(struct queue *q, const struct api_pod *old_pod, struct api_pod *new_pod, struct err *e)
{
	const char *uid = new_pod->meta.uid;
	if (old_pod && old_pod != new_pod && old_pod->meta.resource_version && new_pod->meta.resource_version &&
	    strcmp(old_pod->meta.resource_version, new_pod->meta.resource_version) == 0)
		return 0; /* a resync carrying the same object */
	struct queue_event evs[4];
	uint32_t n_evs = 0;
	if (old_pod)
		n_evs = queue_pod_update_events(old_pod, new_pod,
						q->pod_scaled_down && q->pod_scaled_down(old_pod, new_pod), evs);

	if (map_get(&q->in_flight, uid)) {
		/* being scheduled: remember the update for its possible requeue */
		for (uint32_t i = 0; i < n_evs; i++)
			ifl_add_event(q, &evs[i], old_pod, new_pod);
		return 0;
	}
	struct qpi *p = map_get(&q->pods, uid);
	if (!p) {
		char label[64];
		struct queue_event ev = { QUEUE_RES_UNSCHEDULED_POD, QUEUE_ACT_UPDATE, NULL };
		return add_new_locked(q, new_pod, queue_event_label(&ev, label, sizeof(label)), e);
	}
	const struct api_pod *prev = old_pod ? old_pod : p->pub.pod;
	api_pod_ref((struct api_pod *)prev); /* keep it alive across the pod swap */
	queue_pod_info_set_pod(&p->pub, new_pod);
	if (map_get(&q->nominated, uid) || (new_pod->nominated_node_name && new_pod->nominated_node_name[0]))
		nomination_update_locked(q, prev, new_pod);
	if (p->tier == QUEUE_TIER_ACTIVE) {
		heap_fix(q, &q->active, p);
	} else if (p->tier == QUEUE_TIER_BACKOFF) {
		heap_fix(q, backoff_heap_of(q, p), p);
	} else if (p->tier == QUEUE_TIER_UNSCHEDULABLE) {
		/* the update itself may make it schedulable: ask the rejectors' hints */
		for (uint32_t i = 0; i < n_evs; i++) {
			char label[64];
			enum strategy s = worth_requeuing(q, p, &evs[i], prev, new_pod);
			enum queue_tier t = requeue(q, p, s, queue_event_label(&evs[i], label, sizeof(label)));
			if (t != QUEUE_TIER_UNSCHEDULABLE) {
				if (wakes_pop(q, t))
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
	if (!pod_ok(pod))
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
	if (!pod_ok(new_pod))
		return err_set(e, ERR_INVALID, "queue_update: pod without a UID");
	pthread_mutex_lock(&q->lock);
	int rc = update_locked(q, old_pod, new_pod, e);
	pthread_mutex_unlock(&q->lock);
	return rc;
}

void queue_delete(struct queue *q, const struct api_pod *pod)
{
	if (!pod_ok(pod))
		return;
	pthread_mutex_lock(&q->lock);
	nom_delete_locked(q, pod->meta.uid);
	struct qpi *p = map_del(&q->pods, pod->meta.uid);
	if (p) {
		tier_remove(q, p);
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
			incoming_inc(q, INC_ACTIVE, "PopFromBackoffQ");
			break;
		}
		if (!block)
			return ERR_NOT_FOUND;
		pthread_cond_wait(&q->cond, &q->lock);
	}
	tier_remove(q, p);
	map_del(&q->pods, p->pub.pod->meta.uid);
	p->pub.attempts++;
	p->backoff_valid = false;
	struct ifl *m = ifl_append(q);
	if (m) {
		m->uid = p->pub.pod->meta.uid;
		if (map_put(&q->in_flight, m->uid, m, NULL) < 0) {
			ifl_unlink_free(q, m);
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
		if (!n || set_add(&p->pub.unschedulable_plugins, &p->pub.n_unschedulable_plugins, &p->cap_unsched, n) < 0)
			return ERR_NOMEM;
	}
	for (uint32_t i = 0; i < f->n_pending_plugins; i++) {
		const char *n = intern_str(f->pending_plugins[i]);
		if (!n || set_add(&p->pub.pending_plugins, &p->pub.n_pending_plugins, &p->cap_pending, n) < 0)
			return ERR_NOMEM;
	}
	return 0;
}

int queue_add_unschedulable_if_not_present(struct queue *q, struct queue_pod_info *info,
					   const struct queue_failure *f, struct err *e)
{
	if (!info || !pod_ok(info->pod)) {
		queue_pod_info_free(info);
		return err_set(e, ERR_INVALID, "queue_add_unschedulable_if_not_present: no pod");
	}
	struct qpi *p = qpi_of(info);
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
	if (has_rejectors(p)) {
		p->pub.unschedulable_count++;
		p->pub.consecutive_errors_count = 0;
	} else {
		p->pub.consecutive_errors_count++;
	}
	p->pub.timestamp = now_locked(q);
	p->backoff_valid = false;
	enum queue_tier t = requeue(q, p, in_flight_strategy(q, p, marker), "ScheduleAttemptFailure");
	if (wakes_pop(q, t))
		pthread_cond_signal(&q->cond);
	done_locked(q, uid);
	pthread_mutex_unlock(&q->lock);
	return 0;
drop:
	done_locked(q, uid);
	pthread_mutex_unlock(&q->lock);
	queue_pod_info_free(info);
	return rc;
}

void queue_done(struct queue *q, const char *pod_uid)
{
	if (!pod_uid)
		return;
	pthread_mutex_lock(&q->lock);
	done_locked(q, pod_uid);
	pthread_mutex_unlock(&q->lock);
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
		/* gates go only by the pod's own update, never by cluster events (upstream #124384) */
		if (p->pub.gating_plugin == q->scheduling_gates)
			continue;
		enum strategy s = worth_requeuing(q, p, ev, old_obj, new_obj);
		if (s == STRAT_SKIP)
			continue;
		if (wakes_pop(q, requeue(q, p, s, label)))
			activated = true;
	}
	if (map_len(&q->in_flight))
		ifl_add_event(q, ev, old_obj, new_obj);
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

static void flush_backoff_locked(struct queue *q)
{
	int64_t now = now_locked(q);
	bool moved = false;
	struct heap *heaps[2] = { &q->backoff, &q->error_backoff };
	for (int i = 0; i < 2; i++) {
		struct heap *h = heaps[i];
		while (h->n && !backing_off(q, h->v[0], now)) {
			struct qpi *p = h->v[0];
			tier_remove(q, p);
			/* PreEnqueue already ran when it entered backoffQ (pop-from-backoff mode) */
			if (move_to_active(q, p, "BackoffComplete", q->pop_from_backoff))
				moved = true;
		}
	}
	if (moved)
		pthread_cond_broadcast(&q->cond);
}

void queue_flush_backoff_completed(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	flush_backoff_locked(q);
	pthread_mutex_unlock(&q->lock);
}

static bool leftover_filter(struct queue *q, struct qpi *p, void *ctx)
{
	return *(const int64_t *)ctx - p->pub.timestamp > q->max_in_unsched;
}

static void flush_leftover_locked(struct queue *q)
{
	int64_t now = now_locked(q);
	bool any = false;
	for (struct qpi *p = q->unsched; p && !any; p = p->unext)
		any = leftover_filter(q, p, &now);
	if (!any)
		return;
	struct queue_event ev = { QUEUE_RES_WILDCARD, QUEUE_ACT_ALL, "UnschedulableTimeout" };
	move_pods_locked(q, &ev, NULL, NULL, leftover_filter, &now);
}

void queue_flush_unschedulable_leftover(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	flush_leftover_locked(q);
	pthread_mutex_unlock(&q->lock);
}

/* ---------- Timers and shutdown ---------- */

static void *timer_main(void *arg)
{
	struct queue *q = arg;
	pthread_mutex_lock(&q->lock);
	int64_t next_leftover = mono_now(NULL) + 30 * NS_PER_SEC;
	while (!q->closed) {
		int64_t wake = mono_now(NULL) + NS_PER_SEC;
		struct timespec ts = ns_to_timespec(wake);
		pthread_cond_timedwait(&q->tcond, &q->lock, &ts);
		if (q->closed)
			break;
		flush_backoff_locked(q);
		if (mono_now(NULL) >= next_leftover) {
			flush_leftover_locked(q);
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

/* ---------- Nominated pods ---------- */

int queue_add_nominated_pod(struct queue *q, struct api_pod *pod, const char *node_name, struct err *e)
{
	if (!pod_ok(pod))
		return err_set(e, ERR_INVALID, "queue_add_nominated_pod: pod without a UID");
	const char *nn = NULL;
	if (node_name && !(nn = intern_str(node_name)))
		return err_set(e, ERR_NOMEM, "queue_add_nominated_pod: out of memory");
	pthread_mutex_lock(&q->lock);
	nominate_locked(q, pod, nn);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

void queue_delete_nominated_pod(struct queue *q, const char *pod_uid)
{
	if (!pod_uid)
		return;
	pthread_mutex_lock(&q->lock);
	nom_delete_locked(q, pod_uid);
	pthread_mutex_unlock(&q->lock);
}

int queue_nominated_pods(struct queue *q, const char *node_name, int32_t min_priority, const char *exclude_uid,
			 struct queue_nominated **out, uint32_t *n, struct err *e)
{
	int rc = 0;
	*out = NULL;
	*n = 0;
	pthread_mutex_lock(&q->lock);
	size_t total = map_len(&q->nominated);
	if (!total)
		goto out;
	struct queue_nominated *v = malloc(total * sizeof(*v));
	if (!v) {
		rc = err_set(e, ERR_NOMEM, "queue_nominated_pods: out of memory");
		goto out;
	}
	const char *k;
	void *val;
	uint32_t cnt = 0;
	for (size_t it = 0; map_next(&q->nominated, &it, &k, &val);) {
		const struct nom *nm = val;
		if (node_name && strcmp(nm->node_name, node_name) != 0)
			continue;
		if (nm->pod->priority < min_priority || (exclude_uid && strcmp(nm->pod->meta.uid, exclude_uid) == 0))
			continue;
		v[cnt++] = (struct queue_nominated){ nm->node_name, api_pod_ref(nm->pod) };
	}
	if (cnt) {
		*out = v;
		*n = cnt;
	} else {
		free(v);
	}
out:
	pthread_mutex_unlock(&q->lock);
	return rc;
}

void queue_nominated_release(struct queue_nominated *v, uint32_t n)
{
	for (uint32_t i = 0; v && i < n; i++)
		api_pod_unref(v[i].pod);
	free(v);
}

const char *queue_nominated_node(struct queue *q, const char *pod_uid)
{
	if (!pod_uid)
		return NULL;
	pthread_mutex_lock(&q->lock);
	const struct nom *nm = map_get(&q->nominated, pod_uid);
	const char *nn = nm ? nm->node_name : NULL; /* interned: outlives the nomination */
	pthread_mutex_unlock(&q->lock);
	return nn;
}

/* ---------- Metrics ---------- */

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
			if (i >= nu && name_in(pi->unschedulable_plugins, nu, plugin))
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
