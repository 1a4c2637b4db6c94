/* The event recorder: Scheduled / FailedScheduling events about pods, sent by one thread so the
 * scheduling loop never waits for the API server.
 *
 * sched_events_record copies the event into a bounded queue and returns. Aggregation: an event
 * with the same pod (UID), type, reason and note as one observed within the aggregation window
 * is merged into it (count + 1, last time updated) instead of producing another object; when the
 * merged event was already sent, the series (count > 1, first and last observation) is sent
 * again at most once per series interval. Rate limit: a token bucket (qps, burst) in front of the
 * server. When more than `capacity` events wait to be sent, the oldest is dropped and counted.
 * Priority: while the optional `busy` callback says so (binds in flight), at most one event is
 * sent per busy_interval_ms; the rest wait in the queue (bounded as above) until it says no more,
 * so events never compete with binds for the server during a burst and are all sent after it.
 *
 * THREADS: record and stats from any thread; start/stop/free from one owner thread. */
#ifndef CSCHED_SCHED_EVENTS_H
#define CSCHED_SCHED_EVENTS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "apiclient/api_client.h"
#include "common/err.h"

/* Max bytes of an event note (events.k8s.io validation: 1 kB); longer notes end in " ...". */
#define SCHED_EVENTS_NOTE_MAX 1024

struct sched_events_options {
	struct api_client *client; /* borrowed; NULL only with send set */
	double qps;                /* <= 0: unlimited */
	int burst;                 /* tokens; <= 0: 1 */
	int capacity;              /* events waiting to be sent; > 0 */
	long window_ms;            /* aggregation window */
	long series_ms;            /* a series is re-sent at most this often */
	const char *instance;      /* reportingInstance suffix ("csched-HOST"); NULL = hostname */
	/* Optional: true while more urgent requests are in flight (the scheduler: binds). Called by
	 * the sender thread without its lock held, every 20 ms while it says so. */
	bool (*busy)(void *ctx);
	void *busy_ctx;
	long busy_interval_ms; /* one event per this many ms while busy; 0 = 1000 */
	/* Test hook: sends ev instead of api_create_event (conn is NULL then). */
	int (*send)(void *ctx, const struct api_event *ev, struct err *e);
	void *send_ctx;
	/* Optional: asked right before each send; false drops the event (counted as dropped): a
	 * replica that may have lost its lease writes nothing. */
	bool (*may_send)(void *ctx);
	void *may_send_ctx;
};

struct sched_events_stats {
	uint64_t recorded;   /* sched_events_record calls */
	uint64_t sent;       /* events (or series updates) the server accepted */
	uint64_t aggregated; /* observations merged into an earlier one */
	uint64_t dropped;    /* dropped because the queue was full or at stop */
	uint64_t errors;     /* sends the server refused or that failed */
	uint64_t deferred;   /* times the sender waited because busy() said so */
	uint32_t queued;     /* waiting to be sent now */
};

struct sched_events;
struct api_pod;

struct sched_events *sched_events_new(const struct sched_events_options *o, struct err *e);
/* Starts the sender thread. */
int sched_events_start(struct sched_events *ev, struct err *e);
/* Stops the thread after sending what is queued for at most drain_ms; the rest is dropped.
 * Idempotent. */
void sched_events_stop(struct sched_events *ev, long drain_ms);
void sched_events_free(struct sched_events *ev); /* stops (draining 1 s); NULL is a no-op */

/* Records an event regarding pod: type "Normal"/"Warning", reason, action, controller (the
 * reportingController: the profile's scheduler name) and a printf-style note. Never blocks on
 * I/O; copies everything. */
void sched_events_record(struct sched_events *ev, const struct api_pod *pod, const char *type, const char *reason,
			 const char *action, const char *controller, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

void sched_events_stats(struct sched_events *ev, struct sched_events_stats *out);

/* Upstream's truncateMessage: notes longer than max bytes are cut to max-4 and end in " ...".
 * Writes into buf (size > max). Returns buf. */
const char *sched_events_truncate(const char *msg, char *buf, size_t max);

#endif
