/* Leader election on a coordination.k8s.io/v1 Lease, with client-go's leaderelection semantics.
 *
 * USAGE (scheduler):
 *   struct sched_leader_config lc = {
 *       .lease_namespace = "kube-system", .lease_name = "csched",   // from the configuration
 *       .ctx = s, .on_started_leading = start_scheduling,
 *       .on_stopped_leading = lost_lease,          // stop scheduling at once, exit non-zero
 *       .on_new_leader = log_leader, .metrics = metrics,
 *   };
 *   struct sched_leader *l = sched_leader_new(client, &lc, &e);
 *   sched_leader_start(l, &e);          // candidate thread: acquire, then renew
 *   ... SIGTERM:
 *   sched_leader_stop(l);               // releases the lease if held (ReleaseOnCancel)
 *   sched_leader_free(l);
 *
 * Semantics: the lease is acquired when absent, when its holder is empty (released), when it
 * has expired (the last *observed change* plus leaseDurationSeconds is in the past, measured on
 * the local monotonic clock as client-go does, so clock skew between replicas does not matter),
 * or when it is already ours. A leader renews every retry period, each request bounded by what
 * is left of renew_deadline; when no renewal has succeeded for renew_deadline it gives up
 * leadership: sched_leader_is_leader turns false, the lease is released if the record still
 * names it (client-go's ReleaseOnCancel; bounded by renew_deadline again), on_stopped_leading is
 * called and the thread ends. sched_leader_stop releases a held lease (holderIdentity cleared,
 * leaseDurationSeconds 1) so a standby takes over at its next retry. Writes use the
 * resourceVersion read before (optimistic concurrency: a conflict means someone else won).
 *
 * Callbacks run on the election thread, in order, and must return promptly (start threads, set
 * flags, log): on_started_leading once when the lease is first acquired; on_new_leader(identity)
 * whenever the observed holder changes (including to us); on_stopped_leading only when
 * leadership is lost while running (never after sched_leader_stop). A callback must not call
 * sched_leader_stop/abandon/free (they join the thread the callback runs on).
 *
 * THREADS: sched_leader_is_leader, sched_leader_healthy and sched_leader_identity may be called
 * from any thread. sched_leader_is_leader is time-bounded: it turns false once renew_deadline has
 * passed since the last successful renewal, even while the election thread is still blocked in a
 * request, so a scheduler that checks it before binding never acts on a lease it may have lost. */
#ifndef CSCHED_LEADER_H
#define CSCHED_LEADER_H

#include <stdbool.h>
#include <stdint.h>

#include "apiclient/api_client.h"
#include "common/err.h"

struct sched_metrics;

#define SCHED_LEADER_DEFAULT_LEASE_DURATION_MS 15000
#define SCHED_LEADER_DEFAULT_RENEW_DEADLINE_MS 10000
#define SCHED_LEADER_DEFAULT_RETRY_PERIOD_MS 2000
/* Extra tolerance of the liveness check past the lease duration (kube-scheduler: 20 s). */
#define SCHED_LEADER_HEALTH_TIMEOUT_MS 20000

struct sched_leader_config {
	const char *lease_namespace; /* required, e.g. "kube-system" */
	const char *lease_name;      /* required, e.g. "csched" */
	/* NULL: hostname + "_" + a random UUID, as kube-scheduler. Copied. */
	const char *identity;
	/* 0 = the defaults above. Must satisfy lease_duration > renew_deadline > retry_period
	 * (upstream's validation); sched_leader_new rejects anything else. */
	int64_t lease_duration_ms, renew_deadline_ms, retry_period_ms;
	void *ctx;
	void (*on_started_leading)(void *ctx);
	void (*on_stopped_leading)(void *ctx);
	void (*on_new_leader)(void *ctx, const char *identity);
	struct sched_metrics *metrics; /* optional: leader_election_master_status{name} */
};

struct sched_leader;

/* Copies cfg. The client must outlive the elector. NULL on invalid config (e says which field). */
struct sched_leader *sched_leader_new(struct api_client *client, const struct sched_leader_config *cfg,
				      struct err *e);
/* Starts the election thread. Returns 0, or ERR_* when the thread or its connection cannot be
 * created. Call once. */
int sched_leader_start(struct sched_leader *l, struct err *e);
/* Stops the election thread and waits for it. When the lease is held it is released first
 * (best effort: a failed release is logged; the lease then simply expires). Idempotent. */
void sched_leader_stop(struct sched_leader *l);
/* Stops the thread *without* releasing the lease (tests: simulate a crashed leader). */
void sched_leader_abandon(struct sched_leader *l);
void sched_leader_free(struct sched_leader *l); /* stops (releasing) if running; NULL no-op */

bool sched_leader_is_leader(const struct sched_leader *l);
/* Liveness: false when we believe we lead but have not renewed for lease duration +
 * SCHED_LEADER_HEALTH_TIMEOUT_MS (the election thread is stuck). True for a standby. */
bool sched_leader_healthy(const struct sched_leader *l);
const char *sched_leader_identity(const struct sched_leader *l);
const char *sched_leader_name(const struct sched_leader *l); /* the lease name (metrics label) */

/* ---------- The decision, as a pure function (exposed for tests) ---------- */

enum sched_leader_action {
	SCHED_LEADER_CREATE,  /* no lease: create it holding it */
	SCHED_LEADER_ACQUIRE, /* someone else's lease expired or released: take it over (transitions + 1) */
	SCHED_LEADER_RENEW,   /* ours: renew it (acquireTime and transitions kept) */
	SCHED_LEADER_WAIT,    /* held by a live leader: retry later */
};

/* observed: the lease as last read (NULL when absent). observed_ns: local monotonic time at
 * which the observed record last changed. now_ns: local monotonic time. */
enum sched_leader_action sched_leader_decide(const struct api_lease *observed, int64_t observed_ns, int64_t now_ns,
					     const char *identity);
const char *sched_leader_action_str(enum sched_leader_action a);

#endif
