/* The event recorder (contract in events.h).
 *
 * DESIGN
 * One mutex guards a map of recent events (key = uid, type, reason, note -> struct ev_entry) and
 * a FIFO of entries waiting to be sent. sched_events_record only touches memory under the lock:
 * it merges into a known entry (aggregation) or appends a new one, dropping the FIFO's head when
 * the FIFO is at capacity. The sender thread takes the head under the lock, copies the counters,
 * and sends it unlocked with its own connection, after waiting for a token of the rate limiter.
 * Entries are freed only by the sender thread (expiry) or by a dropping record() for an entry that
 * was never sent (the sender never holds such an entry: it marks an entry sent when it takes it).
 *
 * Once a second the sender queues series whose count grew since they were last sent (at most one
 * send per series interval) and forgets entries not observed within the aggregation window.
 *
 * Priority: before each send the sender asks busy() (without its lock); while it says yes and an
 * event went out less than busy_interval ago, the sender sleeps EV_BUSY_POLL_NS and asks again.
 * Upstream posts events at the client's rate limit, binds or not; here a burst's Scheduled events
 * (10000 pods on SchedulingBasic 5000 nodes) wait until the binds are done, then go at qps. */
#include "scheduler/events.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apiclient/api_types.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/map.h"

#define EV_MAINT_NS 1000000000LL    /* maintenance pass period */
#define EV_BUSY_POLL_NS 20000000LL  /* how often busy() is asked while it says yes */

/* Thousands can wait at once (a burst's Scheduled events wait for its binds: 2,000 on
 * Quick_100Nodes), so the uid, type, reason and note are kept once, in the key, and split out
 * when the entry is sent (key_split). */
struct ev_entry {
	const char *key; /* uid \x1f type \x1f reason \x1f note; points into buf */
	const char *ns, *name, *action, *controller; /* into buf */
	int32_t count;      /* observations so far */
	int32_t sent_count; /* count when last taken for sending; 0 = never */
	int64_t first_us, last_us;  /* wall clock, first and last observation */
	int64_t last_seen_ns;       /* monotonic, last observation */
	int64_t last_sent_ns;       /* monotonic, when last taken for sending */
	bool queued;                /* in the FIFO */
	bool sending;               /* the sender thread is sending it (never freed meanwhile) */
	struct ev_entry *next;      /* FIFO link */
	char buf[];
};

struct sched_events {
	struct sched_events_options o;
	char instance[256];
	struct api_limiter *limiter;

	/* lock guards everything below up to the counters; a leaf lock (nothing is called while it
	 * is held except map operations and malloc/free). */
	pthread_mutex_t lock;
	pthread_cond_t cond; /* FIFO non-empty or stopping */
	struct map map;      /* key -> entry */
	struct ev_entry *head, *tail;
	uint32_t n_queued;
	bool stopping;
	int64_t drain_deadline_ns;

	pthread_t thread;
	bool running; /* owner thread only */

	atomic_uint_fast64_t recorded, sent, aggregated, dropped, errors, deferred;
};

const char *sched_events_truncate(const char *msg, char *buf, size_t max)
{
	size_t n = strlen(msg);
	if (n <= max) {
		memcpy(buf, msg, n + 1);
		return buf;
	}
	/* upstream truncateMessage: message[:max-len(" ...")] + " ..." */
	memcpy(buf, msg, max - 4);
	memcpy(buf + max - 4, " ...", 5);
	return buf;
}

struct sched_events *sched_events_new(const struct sched_events_options *o, struct err *e)
{
	struct sched_events *ev = NULL;
	if (!o || (!o->client && !o->send) || o->capacity <= 0 || o->window_ms < 0 || o->series_ms < 0) {
		err_set(e, ERR_INVALID, "sched_events_new: a client (or send hook) and a positive capacity are required");
		return NULL;
	}
	if (!(ev = calloc(1, sizeof(*ev))))
		goto nomem;
	ev->o = *o;
	if (o->instance) {
		snprintf(ev->instance, sizeof(ev->instance), "%s", o->instance);
	} else {
		char host[200] = "unknown";
		gethostname(host, sizeof(host) - 1);
		snprintf(ev->instance, sizeof(ev->instance), "%s", host);
	}
	if (!(ev->limiter = api_limiter_new(o->qps, o->burst > 0 ? o->burst : 1)))
		goto nomem;
	map_init(&ev->map);
	pthread_mutex_init(&ev->lock, NULL);
	mono_cond_init(&ev->cond);
	return ev;
nomem:
	free(ev);
	err_set(e, ERR_NOMEM, "sched_events_new: out of memory");
	return NULL;
}

/* Caller holds ev->lock. */
static void fifo_push_locked(struct sched_events *ev, struct ev_entry *x)
{
	x->next = NULL;
	x->queued = true;
	if (ev->tail)
		ev->tail->next = x;
	else
		ev->head = x;
	ev->tail = x;
	ev->n_queued++;
}

/* Caller holds ev->lock. */
static struct ev_entry *fifo_pop_locked(struct sched_events *ev)
{
	struct ev_entry *x = ev->head;
	if (!x)
		return NULL;
	ev->head = x->next;
	if (!ev->head)
		ev->tail = NULL;
	x->next = NULL;
	x->queued = false;
	ev->n_queued--;
	return x;
}

/* Drops the FIFO's head (queue full). An entry never sent is forgotten entirely; a sent series
 * only loses this update. Caller holds ev->lock. */
static void drop_oldest_locked(struct sched_events *ev)
{
	struct ev_entry *x = fifo_pop_locked(ev);
	if (!x)
		return;
	atomic_fetch_add(&ev->dropped, 1);
	if (x->sent_count == 0 && !x->sending) {
		map_del(&ev->map, x->key);
		free(x);
	}
}

/* The size of a key (sched_events_record's snprintf bounds it). */
#define EV_KEY_MAX (SCHED_EVENTS_NOTE_MAX + 512)

/* key's uid, type, reason and note, split at the first three separators (a note may hold one)
 * into buf, which receives a copy. */
static void key_split(const char *key, char *buf, size_t size, char *parts[4])
{
	snprintf(buf, size, "%s", key);
	char *p = buf;
	for (int i = 0; i < 4; i++) {
		parts[i] = p;
		char *sep = i < 3 ? strchr(p, '\x1f') : NULL;
		if (sep) {
			*sep = '\0';
			p = sep + 1;
		} else {
			p += strlen(p); /* a key without all its parts (cannot happen): "" for the rest */
		}
	}
}

/* An entry for key (made by sched_events_record from the uid, type, reason and note). */
static struct ev_entry *entry_new(const struct api_pod *pod, const char *key, const char *action,
				  const char *controller)
{
	const char *fields[] = { key, pod->meta.namespace ? pod->meta.namespace : "",
				 pod->meta.name ? pod->meta.name : "", action, controller };
	size_t need = 0;
	for (size_t i = 0; i < 5; i++)
		need += strlen(fields[i]) + 1;
	struct ev_entry *x = calloc(1, sizeof(*x) + need);
	if (!x)
		return NULL;
	char *p = x->buf;
	const char **dst[] = { &x->key, &x->ns, &x->name, &x->action, &x->controller };
	for (size_t i = 0; i < 5; i++) {
		size_t n = strlen(fields[i]);
		memcpy(p, fields[i], n + 1);
		*dst[i] = p;
		p += n + 1;
	}
	return x;
}

void sched_events_record(struct sched_events *ev, const struct api_pod *pod, const char *type, const char *reason,
			 const char *action, const char *controller, const char *fmt, ...)
{
	char raw[2048], note[SCHED_EVENTS_NOTE_MAX + 1], key[EV_KEY_MAX];
	va_list ap;
	if (!ev || !pod)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	sched_events_truncate(raw, note, SCHED_EVENTS_NOTE_MAX);
	snprintf(key, sizeof(key), "%s\x1f%s\x1f%s\x1f%s", pod->meta.uid ? pod->meta.uid : "", type, reason, note);
	atomic_fetch_add(&ev->recorded, 1);
	int64_t now = api_now_ns(), now_us = api_wall_us();

	pthread_mutex_lock(&ev->lock);
	if (ev->stopping) {
		pthread_mutex_unlock(&ev->lock);
		atomic_fetch_add(&ev->dropped, 1);
		return;
	}
	struct ev_entry *x = map_get(&ev->map, key);
	if (x && now - x->last_seen_ns <= ev->o.window_ms * 1000000LL) {
		/* Aggregated: a queued entry sends the new count when its turn comes; a sent one is
		 * queued again by the maintenance pass once its series interval has passed. */
		x->count++;
		x->last_us = now_us;
		x->last_seen_ns = now;
		pthread_mutex_unlock(&ev->lock);
		atomic_fetch_add(&ev->aggregated, 1);
		return;
	}
	if (x) { /* expired, not yet collected: start a new series */
		if (x->queued || x->sending) {
			x->count = 1;
			x->first_us = x->last_us = now_us;
			x->last_seen_ns = now;
			x->sent_count = 0;
			if (!x->queued) {
				while (ev->n_queued >= (uint32_t)ev->o.capacity)
					drop_oldest_locked(ev);
				fifo_push_locked(ev, x);
				pthread_cond_signal(&ev->cond);
			}
			pthread_mutex_unlock(&ev->lock);
			return;
		}
		map_del(&ev->map, x->key);
		free(x);
	}
	if (!(x = entry_new(pod, key, action, controller))) {
		pthread_mutex_unlock(&ev->lock);
		atomic_fetch_add(&ev->dropped, 1);
		LOG_ERROR("events: out of memory recording %s for %s/%s", reason, pod->meta.namespace, pod->meta.name);
		return;
	}
	x->count = 1;
	x->first_us = x->last_us = now_us;
	x->last_seen_ns = now;
	if (map_put(&ev->map, x->key, x, NULL) < 0) {
		pthread_mutex_unlock(&ev->lock);
		free(x);
		atomic_fetch_add(&ev->dropped, 1);
		return;
	}
	while (ev->n_queued >= (uint32_t)ev->o.capacity)
		drop_oldest_locked(ev);
	fifo_push_locked(ev, x);
	pthread_cond_signal(&ev->cond);
	pthread_mutex_unlock(&ev->lock);
}

/* Once a second: queue series that grew (series interval passed), forget entries not seen within
 * the window. Caller holds ev->lock. */
static void maintain_locked(struct sched_events *ev, int64_t now)
{
	const char *k;
	void *v;
	int64_t window = ev->o.window_ms * 1000000LL, series = ev->o.series_ms * 1000000LL;
	size_t n_stale = 0, cap_stale = 0;
	struct ev_entry **stale = NULL;
	for (size_t it = 0; map_next(&ev->map, &it, &k, &v);) {
		struct ev_entry *x = v;
		if (x->queued)
			continue;
		if (x->count > x->sent_count && now - x->last_sent_ns >= series) {
			if (ev->n_queued >= (uint32_t)ev->o.capacity)
				drop_oldest_locked(ev);
			fifo_push_locked(ev, x);
			continue;
		}
		if (now - x->last_seen_ns > window && x->count == x->sent_count) {
			if (n_stale == cap_stale) {
				size_t nc = cap_stale ? cap_stale * 2 : 64;
				struct ev_entry **ns = realloc(stale, nc * sizeof(*ns));
				if (!ns)
					break; /* collected next time */
				stale = ns;
				cap_stale = nc;
			}
			stale[n_stale++] = x;
		}
	}
	for (size_t i = 0; i < n_stale; i++) {
		map_del(&ev->map, stale[i]->key);
		free(stale[i]);
	}
	free(stale);
	if (ev->head)
		pthread_cond_signal(&ev->cond);
}

static void *sender_main(void *arg)
{
	struct sched_events *ev = arg;
	struct api_conn *conn = NULL;
	struct err e = { 0 };
	int64_t next_maint = api_now_ns() + EV_MAINT_NS;
	int64_t busy_interval = (ev->o.busy_interval_ms > 0 ? ev->o.busy_interval_ms : 1000) * 1000000LL;
	int64_t last_send = INT64_MIN / 2; /* monotonic; long ago */
	char reporting_instance[300], key_copy[EV_KEY_MAX];

	if (ev->o.client && !ev->o.send && !(conn = api_conn_new(ev->o.client, &e)))
		LOG_ERROR("events: no connection (%s): events will be counted as errors", e.msg);

	pthread_mutex_lock(&ev->lock);
	for (;;) {
		int64_t now = api_now_ns();
		if (now >= next_maint) {
			maintain_locked(ev, now);
			next_maint = now + EV_MAINT_NS;
		}
		if (ev->stopping && (!ev->head || now >= ev->drain_deadline_ns))
			break;
		if (!ev->head) {
			struct timespec ts = ns_to_timespec(next_maint); /* api_now_ns is mono_ns */
			pthread_cond_timedwait(&ev->cond, &ev->lock, &ts);
			continue;
		}
		if (ev->o.busy && !ev->stopping && now - last_send < busy_interval) {
			pthread_mutex_unlock(&ev->lock);
			bool busy = ev->o.busy(ev->o.busy_ctx);
			if (busy) {
				/* A plain sleep: record() signals on every event, which would spin a wait. */
				atomic_fetch_add(&ev->deferred, 1);
				struct timespec ts = { 0, EV_BUSY_POLL_NS };
				nanosleep(&ts, NULL);
			}
			pthread_mutex_lock(&ev->lock);
			if (busy)
				continue;
			now = api_now_ns();
			if (!ev->head) /* dropped meanwhile (capacity) */
				continue;
		}
		last_send = now;
		struct ev_entry *x = fifo_pop_locked(ev);
		/* the key never changes: copied here, split in the copy */
		char *parts[4];
		key_split(x->key, key_copy, sizeof(key_copy), parts);
		x->sent_count = x->count;
		x->last_sent_ns = now;
		x->sending = true;
		struct api_event out = {
			.namespace = x->ns,
			.regarding_kind = "Pod",
			.regarding_name = x->name,
			.regarding_uid = parts[0],
			.regarding_api_version = "v1",
			.type = parts[1],
			.reason = parts[2],
			.action = x->action,
			.note = parts[3],
			.reporting_controller = x->controller,
			.reporting_instance = reporting_instance,
			.count = x->count,
			.first_us = x->first_us,
			.last_us = x->last_us,
		};
		pthread_mutex_unlock(&ev->lock);

		/* upstream: reportingInstance = reportingController + "-" + hostname */
		snprintf(reporting_instance, sizeof(reporting_instance), "%s-%s", x->controller, ev->instance);
		int64_t wait = api_limiter_reserve(ev->limiter, api_now_ns());
		sleep_ns(wait);
		int rc;
		err_clear(&e);
		if (ev->o.may_send && !ev->o.may_send(ev->o.may_send_ctx)) {
			atomic_fetch_add(&ev->dropped, 1);
			LOG_V(2, "events: %s for %s/%s dropped: not the leader", out.reason, out.namespace,
			      out.regarding_name);
			pthread_mutex_lock(&ev->lock);
			x->sending = false;
			continue;
		}
		if (ev->o.send)
			rc = ev->o.send(ev->o.send_ctx, &out, &e);
		else if (conn)
			rc = api_create_event(conn, &out, &e);
		else
			rc = err_set(&e, ERR_TRANSPORT, "no connection");
		if (rc < 0) {
			atomic_fetch_add(&ev->errors, 1);
			LOG_WARN("events: sending %s for %s/%s: %s", out.reason, out.namespace, out.regarding_name, e.msg);
		} else {
			atomic_fetch_add(&ev->sent, 1);
		}
		pthread_mutex_lock(&ev->lock);
		x->sending = false;
	}
	/* What is left at the drain deadline is dropped. */
	while (ev->head) {
		struct ev_entry *x = fifo_pop_locked(ev);
		atomic_fetch_add(&ev->dropped, 1);
		if (x->sent_count == 0) {
			map_del(&ev->map, x->key);
			free(x);
		}
	}
	pthread_mutex_unlock(&ev->lock);
	api_conn_free(conn);
	return NULL;
}

int sched_events_start(struct sched_events *ev, struct err *e)
{
	if (ev->running)
		return 0;
	pthread_mutex_lock(&ev->lock);
	ev->stopping = false;
	pthread_mutex_unlock(&ev->lock);
	int rc = pthread_create(&ev->thread, NULL, sender_main, ev);
	if (rc)
		return err_set(e, ERR_NOMEM, "sched_events_start: pthread_create: %s", strerror(rc));
	ev->running = true;
	return 0;
}

void sched_events_stop(struct sched_events *ev, long drain_ms)
{
	if (!ev || !ev->running)
		return;
	pthread_mutex_lock(&ev->lock);
	ev->stopping = true;
	ev->drain_deadline_ns = api_now_ns() + (int64_t)drain_ms * 1000000LL;
	pthread_cond_signal(&ev->cond);
	pthread_mutex_unlock(&ev->lock);
	pthread_join(ev->thread, NULL);
	ev->running = false;
}

void sched_events_free(struct sched_events *ev)
{
	if (!ev)
		return;
	sched_events_stop(ev, 1000);
	const char *k;
	void *v;
	for (size_t it = 0; map_next(&ev->map, &it, &k, &v);)
		free(v);
	map_release(&ev->map);
	api_limiter_free(ev->limiter);
	pthread_cond_destroy(&ev->cond);
	pthread_mutex_destroy(&ev->lock);
	free(ev);
}

void sched_events_stats(struct sched_events *ev, struct sched_events_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!ev)
		return;
	out->recorded = atomic_load(&ev->recorded);
	out->sent = atomic_load(&ev->sent);
	out->aggregated = atomic_load(&ev->aggregated);
	out->dropped = atomic_load(&ev->dropped);
	out->errors = atomic_load(&ev->errors);
	out->deferred = atomic_load(&ev->deferred);
	pthread_mutex_lock(&ev->lock);
	out->queued = ev->n_queued;
	pthread_mutex_unlock(&ev->lock);
}
