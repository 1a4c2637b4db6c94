/* Internals of the queue shared by its files (queue.c, tiers.c, hints.c, nominator.c); see the
 * DESIGN comment in queue.c. Not for use outside queue/. */
#ifndef CSCHED_QUEUE_INTERNAL_H
#define CSCHED_QUEUE_INTERNAL_H

#include <pthread.h>

#include "common/map.h"
#include "queue/queue.h"

#define NS_PER_SEC 1000000000LL

enum strategy { STRAT_SKIP, STRAT_AFTER_BACKOFF, STRAT_IMMEDIATELY };

/* upstream's queue label of scheduler_queue_incoming_pods_total: gated pods count as
 * "unschedulable" (unschedulableEntities.addOrUpdate) */
enum { INC_ACTIVE, INC_BACKOFF, INC_UNSCHEDULABLE, INC_N };
static const char *const inc_names[INC_N] = { "active", "backoff", "unschedulable" };

struct qpi {
	struct queue_pod_info pub; /* first: the caller sees only this */
	uint32_t cap_unsched, cap_pending;
	enum queue_tier tier; /* ACTIVE, BACKOFF, UNSCHEDULABLE (gated included) or NONE */
	bool error_heap;      /* which backoff heap holds it */
	uint32_t heap_idx;
	bool backoff_valid; /* backoff_expiry is cached (cleared at pop and at requeue) */
	int64_t backoff_expiry;
	int64_t flush_timestamp; /* last leftover flush out of unschedulable, 0 since the last failure */
	bool flushing;           /* picked by the leftover flush in progress */
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
	queue_scaled_down_fn pod_scaled_down;
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

/* ---------- tiers.c ---------- */

struct qpi *queue__qpi_of(struct queue_pod_info *p);
bool queue__name_in(const char *const *v, uint32_t n, const char *name);
/* Adds an interned name to a small set. */
int queue__set_add(const char ***v, uint32_t *n, uint32_t *cap, const char *name);
bool queue__has_rejectors(const struct qpi *p);
bool queue__rejected_by(const struct qpi *p, const char *plugin);
int64_t queue__mono_now(void *ctx);
int64_t queue__now_locked(const struct queue *q);
bool queue__backing_off(const struct queue *q, struct qpi *p, int64_t now);
void queue__heap_fix(const struct queue *q, struct heap *h, struct qpi *p);
struct heap *queue__backoff_heap_of(struct queue *q, struct qpi *p);
void queue__tier_remove(struct queue *q, struct qpi *p);
void queue__incoming_inc(struct queue *q, int which, const char *label);
const struct qprofile *queue__profile_of(const struct queue *q, const struct api_pod *pod);
/* upstream moveToActiveQ: false when the pod is gated (it is then in unschedulable). */
bool queue__move_to_active(struct queue *q, struct qpi *p, const char *label, bool skip_pre_enqueue);
/* upstream requeuePodWithQueueingStrategy; returns the tier the pod ends in. */
enum queue_tier queue__requeue(struct queue *q, struct qpi *p, enum strategy s, const char *label);
bool queue__wakes_pop(const struct queue *q, enum queue_tier t);

/* ---------- hints.c ---------- */

/* upstream isPodWorthRequeuing */
enum strategy queue__worth_requeuing(const struct queue *q, const struct qpi *p, const struct queue_event *ev,
				     const void *old_obj, const void *new_obj);
struct ifl *queue__ifl_append(struct queue *q);
void queue__ifl_unlink_free(struct queue *q, struct ifl *e);
/* Records an event for the in-flight pods (upstream addEventIfAnyInFlight). */
void queue__ifl_add_event(struct queue *q, const struct queue_event *ev, const void *old_obj, const void *new_obj);
/* upstream done(): drop the marker, then the events no marker precedes. */
void queue__done_locked(struct queue *q, const char *uid);
/* upstream determineSchedulingHintForInFlightPod */
enum strategy queue__in_flight_strategy(const struct queue *q, const struct qpi *p, const struct ifl *marker);
void queue__flush_backoff_locked(struct queue *q);
void queue__flush_leftover_locked(struct queue *q);

/* ---------- nominator.c ---------- */

void queue__nom_delete_locked(struct queue *q, const char *uid);
/* upstream addNominatedPodUnlocked: node_name NULL = the pod's status.nominatedNodeName. */
void queue__nominate_locked(struct queue *q, struct api_pod *pod, const char *node_name);
/* upstream updateNominatedPod: keep an in-memory nomination across updates that carry none. */
void queue__nomination_update_locked(struct queue *q, const struct api_pod *old_pod, struct api_pod *new_pod);

/* Pods are identified by UID: one without cannot be queued. */
static inline bool queue__pod_ok(const struct api_pod *pod)
{
	return pod && pod->meta.uid && pod->meta.uid[0];
}

#endif
