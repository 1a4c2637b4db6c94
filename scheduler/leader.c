/* Leader election on a coordination.k8s.io/v1 Lease (client-go leaderelection semantics).
 *
 * DESIGN: one election thread owns the api_conn, the last observed lease and the time it was
 * observed to change; no other thread touches them. It runs two phases, as client-go's
 * LeaderElector.Run: acquire (try every retry period until the lease is ours) and renew (try
 * every retry period; when no attempt has succeeded for renew_deadline, leadership is lost). Each
 * attempt is "get, decide, write": the decision is the pure function sched_leader_decide, and the
 * write carries the resourceVersion that was read, so of two candidates racing for an expired
 * lease exactly one update succeeds and the other gets ERR_CONFLICT. A leader tries the update
 * first with the record it already holds (client-go's fast path) and reads only when that fails.
 * Expiry is judged on the local monotonic clock from the moment the record was last seen to
 * change, never by comparing the lease's renewTime with our wall clock: replicas' clocks may differ.
 *
 * Other threads only read two atomics (leader, last_renew_ns) through sched_leader_is_leader and
 * sched_leader_healthy. sched_leader_stop sets a flag under `lock` and signals `wake`; the
 * election thread sleeps on `wake` between attempts, so stopping never waits for a retry period,
 * only for a request in flight (bounded by the client's request timeout).
 *
 * Every request of a renewal carries the renew deadline (api_conn_set_deadline: last successful
 * renewal + renew_deadline), as client-go's renew polls under a context with that timeout: a hung
 * connection cannot keep a leader that may have been deposed waiting in a request, it is told at
 * the deadline. A release (at stop, or after losing: client-go's ReleaseOnCancel) is bounded by
 * renew_deadline from its start, as client-go's release. */
#include "scheduler/leader.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "scheduler/metrics.h"

#define NS_PER_MS 1000000LL
#define NS_PER_S 1000000000LL

struct sched_leader {
	struct api_client *client;
	char *ns, *name, *identity;
	int64_t lease_ns, renew_ns, retry_ns;
	void *ctx;
	void (*on_started_leading)(void *ctx);
	void (*on_stopped_leading)(void *ctx);
	void (*on_new_leader)(void *ctx, const char *identity);
	struct sched_metrics *metrics;

	/* guards stop, release_on_stop, started and joined; `wake` (CLOCK_MONOTONIC) is signalled
	 * when stop is set. Leaf lock: never held across a request or a callback. */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop, release_on_stop, started, joined;
	pthread_t thread;

	atomic_bool leader;            /* we hold the lease (as of the last successful write) */
	atomic_int_least64_t last_renew_ns; /* monotonic time of the last successful acquire/renew */

	/* election thread only */
	struct api_conn *conn;
	struct api_lease observed;
	bool have_observed;
	int64_t observed_ns;
	char *reported_leader;
};

/* ---------- Pure decision ---------- */

static bool holder_is(const struct api_lease *l, const char *identity)
{
	return l->holder_identity && identity && strcmp(l->holder_identity, identity) == 0;
}

enum sched_leader_action sched_leader_decide(const struct api_lease *observed, int64_t observed_ns, int64_t now_ns,
					     const char *identity)
{
	if (!observed)
		return SCHED_LEADER_CREATE;
	if (holder_is(observed, identity))
		return SCHED_LEADER_RENEW;
	bool held = observed->holder_identity && observed->holder_identity[0];
	/* client-go isLeaseValid: observedTime + leaseDuration > now */
	bool valid = observed_ns + (int64_t)observed->lease_duration_seconds * NS_PER_S > now_ns;
	if (held && valid)
		return SCHED_LEADER_WAIT;
	return SCHED_LEADER_ACQUIRE;
}

const char *sched_leader_action_str(enum sched_leader_action a)
{
	switch (a) {
	case SCHED_LEADER_CREATE:
		return "create";
	case SCHED_LEADER_ACQUIRE:
		return "acquire";
	case SCHED_LEADER_RENEW:
		return "renew";
	case SCHED_LEADER_WAIT:
		return "wait";
	}
	return "unknown";
}

/* ---------- Helpers ---------- */

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static bool str_eq(const char *a, const char *b)
{
	return (!a || !*a) ? (!b || !*b) : (b && strcmp(a, b) == 0);
}

/* The spec fields client-go compares to decide whether the record changed. */
static bool record_equal(const struct api_lease *a, const struct api_lease *b)
{
	return str_eq(a->holder_identity, b->holder_identity) &&
	       a->lease_duration_seconds == b->lease_duration_seconds && a->acquire_time_us == b->acquire_time_us &&
	       a->renew_time_us == b->renew_time_us && a->lease_transitions == b->lease_transitions;
}

/* Replaces l->observed by a copy of got; the change time moves only when the record changed. */
static int observe(struct sched_leader *l, const struct api_lease *got, int64_t now_ns)
{
	struct api_lease copy = *got;
	copy.name = dup_or_null(got->name);
	copy.namespace = dup_or_null(got->namespace);
	copy.resource_version = dup_or_null(got->resource_version);
	copy.holder_identity = dup_or_null(got->holder_identity);
	if ((got->name && !copy.name) || (got->namespace && !copy.namespace) ||
	    (got->resource_version && !copy.resource_version) || (got->holder_identity && !copy.holder_identity)) {
		api_lease_release(&copy);
		return ERR_NOMEM;
	}
	if (!l->have_observed || !record_equal(&l->observed, &copy))
		l->observed_ns = now_ns;
	if (l->have_observed)
		api_lease_release(&l->observed);
	l->observed = copy;
	l->have_observed = true;
	return 0;
}

static void forget_observed(struct sched_leader *l)
{
	if (l->have_observed)
		api_lease_release(&l->observed);
	memset(&l->observed, 0, sizeof l->observed);
	l->have_observed = false;
}

static bool stop_requested(struct sched_leader *l)
{
	pthread_mutex_lock(&l->lock);
	bool s = l->stop;
	pthread_mutex_unlock(&l->lock);
	return s;
}

/* Sleeps until `until_ns` (monotonic) or a stop request. Returns true when asked to stop. */
static bool sleep_until(struct sched_leader *l, int64_t until_ns)
{
	struct timespec ts = ns_to_timespec(until_ns);
	pthread_mutex_lock(&l->lock);
	while (!l->stop && mono_ns() < until_ns)
		pthread_cond_timedwait(&l->wake, &l->lock, &ts);
	bool s = l->stop;
	pthread_mutex_unlock(&l->lock);
	return s;
}

static void set_leader(struct sched_leader *l, bool on)
{
	atomic_store(&l->leader, on);
	sched_metrics_set_leader(l->metrics, l->name, on);
}

static void report_leader(struct sched_leader *l)
{
	const char *holder = l->have_observed ? l->observed.holder_identity : NULL;
	if (!holder || !*holder || str_eq(holder, l->reported_leader))
		return;
	char *copy = strdup(holder);
	if (!copy)
		return;
	free(l->reported_leader);
	l->reported_leader = copy;
	if (strcmp(holder, l->identity) != 0)
		LOG_INFO("leader election: lease %s/%s is held by %s", l->ns, l->name, holder);
	if (l->on_new_leader)
		l->on_new_leader(l->ctx, copy);
}

/* Writes a record holding the lease for us; `renew` keeps acquireTime and transitions. */
static int write_record(struct sched_leader *l, enum sched_leader_action action, struct err *e)
{
	int64_t wall = api_wall_us();
	struct api_lease rec = {
		.name = l->name,
		.namespace = l->ns,
		.holder_identity = l->identity,
		.lease_duration_seconds = (int32_t)(l->lease_ns / NS_PER_S),
		.acquire_time_us = wall,
		.renew_time_us = wall,
	};
	if (action != SCHED_LEADER_CREATE) {
		rec.resource_version = l->observed.resource_version;
		rec.lease_transitions = l->observed.lease_transitions;
		if (action == SCHED_LEADER_RENEW)
			rec.acquire_time_us = l->observed.acquire_time_us ? l->observed.acquire_time_us : wall;
		else
			rec.lease_transitions++;
	}
	struct api_lease out = {0};
	int rc = action == SCHED_LEADER_CREATE ? api_lease_create(l->conn, &rec, &out, e)
					       : api_lease_update(l->conn, &rec, &out, e);
	if (rc == 0) {
		rc = observe(l, &out, mono_ns());
		if (rc != 0)
			err_set(e, rc, "leader election: out of memory");
	}
	api_lease_release(&out);
	return rc;
}

/* client-go tryAcquireOrRenew. Returns true when the lease is ours after the call. *lost is set
 * when a live lease is held by someone else (a leader then knows it has lost at once). */
static bool try_acquire_or_renew(struct sched_leader *l, bool *lost)
{
	struct err e = {0};
	*lost = false;

	/* fast path: a leader updates with the record it holds, without reading first */
	if (l->have_observed && holder_is(&l->observed, l->identity) && l->observed.resource_version) {
		if (write_record(l, SCHED_LEADER_RENEW, &e) == 0)
			return true;
		LOG_V(2, "leader election: optimistic renew of %s/%s failed: %s", l->ns, l->name, e.msg);
		err_clear(&e);
	}

	struct api_lease got = {0};
	int rc = api_lease_get(l->conn, l->ns, l->name, &got, &e);
	int64_t now = mono_ns();
	enum sched_leader_action action;
	if (rc == ERR_NOT_FOUND) {
		forget_observed(l);
		action = SCHED_LEADER_CREATE;
	} else if (rc != 0) {
		LOG_ERROR("leader election: error retrieving lease %s/%s: %s", l->ns, l->name, e.msg);
		api_lease_release(&got);
		return false;
	} else {
		rc = observe(l, &got, now);
		api_lease_release(&got);
		if (rc != 0) {
			LOG_ERROR("leader election: out of memory observing lease %s/%s", l->ns, l->name);
			return false;
		}
		action = sched_leader_decide(&l->observed, l->observed_ns, now, l->identity);
	}
	if (action == SCHED_LEADER_WAIT) {
		*lost = true;
		LOG_V(4, "leader election: lock %s/%s is held by %s and has not yet expired", l->ns, l->name,
		      l->observed.holder_identity);
		return false;
	}
	rc = write_record(l, action, &e);
	if (rc == 0)
		return true;
	if (rc == ERR_CONFLICT)
		LOG_V(2, "leader election: %s of lease %s/%s lost a race: %s", sched_leader_action_str(action), l->ns,
		      l->name, e.msg);
	else
		LOG_ERROR("leader election: failed to %s lease %s/%s: %s", sched_leader_action_str(action), l->ns,
			  l->name, e.msg);
	return false;
}

static bool release_on_stop(struct sched_leader *l)
{
	pthread_mutex_lock(&l->lock);
	bool release = l->release_on_stop;
	pthread_mutex_unlock(&l->lock);
	return release;
}

/* client-go release(): holder cleared, leaseDurationSeconds 1, so standbys take over at once;
 * bounded by renew_deadline. */
static void release_lease(struct sched_leader *l)
{
	if (!l->have_observed || !holder_is(&l->observed, l->identity))
		return;
	api_conn_set_deadline(l->conn, mono_ns() + l->renew_ns);
	int64_t wall = api_wall_us();
	struct api_lease rec = {
		.name = l->name,
		.namespace = l->ns,
		.resource_version = l->observed.resource_version,
		.holder_identity = NULL,
		.lease_duration_seconds = 1,
		.acquire_time_us = wall,
		.renew_time_us = wall,
		.lease_transitions = l->observed.lease_transitions,
	};
	struct api_lease out = {0};
	struct err e = {0};
	if (api_lease_update(l->conn, &rec, &out, &e) == 0)
		LOG_INFO("leader election: released lease %s/%s", l->ns, l->name);
	else
		LOG_ERROR("leader election: failed to release lease %s/%s (it will expire): %s", l->ns, l->name,
			  e.msg);
	api_lease_release(&out);
}

/* ---------- The election thread ---------- */

/* When a candidate tries again after an attempt that started at `start`: one retry period later,
 * or, when it found the lease held, as soon as that lease expires if that is sooner. Waiting for
 * the next retry tick instead would put the takeover up to one more retry period past the expiry
 * (a crashed leader replaced up to leaseDuration + 2 * retryPeriod after its last renewal). The
 * decision is unchanged: at that moment the lease has expired as observed, so a live one is never
 * taken over. */
static int64_t next_attempt(const struct sched_leader *l, int64_t start, bool held)
{
	int64_t next = start + l->retry_ns;
	if (held && l->have_observed) {
		int64_t expiry = l->observed_ns + (int64_t)l->observed.lease_duration_seconds * NS_PER_S;
		if (expiry > mono_ns() && expiry < next)
			next = expiry;
	}
	return next;
}

static void *election_main(void *arg)
{
	struct sched_leader *l = arg;
	bool lost;
	set_leader(l, false);
	LOG_INFO("leader election: attempting to acquire lease %s/%s as %s", l->ns, l->name, l->identity);

	/* acquire. Renewal times are taken *before* the request: the server wrote the record after
	 * that instant, so deadlines counted from it end no later than anyone else's view of them. */
	int64_t start;
	for (;;) {
		if (stop_requested(l))
			goto out;
		start = mono_ns();
		bool ok = try_acquire_or_renew(l, &lost);
		report_leader(l);
		if (ok)
			break;
		if (sleep_until(l, next_attempt(l, start, lost)))
			goto out;
	}
	atomic_store(&l->last_renew_ns, start);
	set_leader(l, true);
	LOG_INFO("leader election: successfully acquired lease %s/%s", l->ns, l->name);
	if (l->on_started_leading)
		l->on_started_leading(l->ctx);

	/* renew */
	for (;;) {
		int64_t last = atomic_load(&l->last_renew_ns);
		if (sleep_until(l, last + l->retry_ns))
			goto out;
		bool renewed = false;
		api_conn_set_deadline(l->conn, last + l->renew_ns);
		while (!renewed) {
			start = mono_ns();
			if (start - last >= l->renew_ns) {
				lost = false;
				break;
			}
			renewed = try_acquire_or_renew(l, &lost);
			report_leader(l);
			if (renewed || lost)
				break;
			/* the next try, or the deadline if that is sooner: a failure at the deadline is
			 * final at once, not one retry period later */
			int64_t next = start + l->retry_ns;
			if (sleep_until(l, next < last + l->renew_ns ? next : last + l->renew_ns))
				goto out;
		}
		if (!renewed) {
			set_leader(l, false);
			/* upstream renew(): logger.Info("Failed to renew lease", "lock", desc, "err", err) */
			LOG_INFO("\"Failed to renew lease\" lock=\"%s/%s\" err=\"%s\"", l->ns, l->name,
				 lost ? "another candidate holds it" : "context deadline exceeded");
			/* client-go renew(): with ReleaseOnCancel the lease is released however the
			 * renewal ended; the record still names us unless someone else wrote it (then the
			 * update conflicts and changes nothing) */
			if (release_on_stop(l))
				release_lease(l);
			if (l->on_stopped_leading)
				l->on_stopped_leading(l->ctx);
			goto out_lost;
		}
		atomic_store(&l->last_renew_ns, start);
	}

out:
	if (atomic_load(&l->leader) && release_on_stop(l))
		release_lease(l);
	set_leader(l, false);
out_lost:
	api_conn_set_deadline(l->conn, 0);
	return NULL;
}

/* ---------- Lifecycle ---------- */

/* hostname + "_" + a random (version 4) UUID, as kube-scheduler's default identity. */
static char *make_identity(struct err *e)
{
	char host[256] = "";
	if (gethostname(host, sizeof host - 1) != 0 || !host[0])
		snprintf(host, sizeof host, "csched");
	unsigned char r[16];
	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
		err_set(e, ERR_IO, "leader election: getrandom failed for the identity suffix");
		return NULL;
	}
	r[6] = (unsigned char)((r[6] & 0x0f) | 0x40);
	r[8] = (unsigned char)((r[8] & 0x3f) | 0x80);
	char *id = malloc(strlen(host) + 38);
	if (!id) {
		err_set(e, ERR_NOMEM, "leader election: out of memory");
		return NULL;
	}
	sprintf(id, "%s_%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", host, r[0], r[1],
		r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]);
	return id;
}

struct sched_leader *sched_leader_new(struct api_client *client, const struct sched_leader_config *cfg,
				      struct err *e)
{
	struct sched_leader *l = NULL;
	if (!cfg)
		goto invalid_arg;
	/* the configuration is checked before the client so its errors read the same everywhere */
	if (!cfg->lease_namespace || !*cfg->lease_namespace) {
		err_set(e, ERR_INVALID, "leaderElection.resourceNamespace: required");
		return NULL;
	}
	if (!cfg->lease_name || !*cfg->lease_name) {
		err_set(e, ERR_INVALID, "leaderElection.resourceName: required");
		return NULL;
	}
	int64_t lease = cfg->lease_duration_ms ? cfg->lease_duration_ms : SCHED_LEADER_DEFAULT_LEASE_DURATION_MS;
	int64_t renew = cfg->renew_deadline_ms ? cfg->renew_deadline_ms : SCHED_LEADER_DEFAULT_RENEW_DEADLINE_MS;
	int64_t retry = cfg->retry_period_ms ? cfg->retry_period_ms : SCHED_LEADER_DEFAULT_RETRY_PERIOD_MS;
	/* upstream's validation (client-go NewLeaderElector) plus whole seconds for the Lease field */
	if (lease < 1000 || lease % 1000 != 0) {
		err_set(e, ERR_INVALID, "leaderElection.leaseDuration: must be a positive whole number of seconds");
		return NULL;
	}
	if (renew <= 0 || retry <= 0 || lease <= renew || renew * 10 <= retry * 12) {
		err_set(e, ERR_INVALID,
			"leaderElection: need leaseDuration > renewDeadline > 1.2 * retryPeriod > 0 (got %lld ms, "
			"%lld ms, %lld ms)",
			(long long)lease, (long long)renew, (long long)retry);
		return NULL;
	}
	if (!client)
		goto invalid_arg;
	l = calloc(1, sizeof *l);
	if (!l)
		goto nomem;
	l->client = client;
	l->ns = strdup(cfg->lease_namespace);
	l->name = strdup(cfg->lease_name);
	if (!l->ns || !l->name)
		goto nomem;
	if (cfg->identity && *cfg->identity) {
		if (!(l->identity = strdup(cfg->identity)))
			goto nomem;
	} else if (!(l->identity = make_identity(e))) {
		goto fail;
	}
	l->lease_ns = lease * NS_PER_MS;
	l->renew_ns = renew * NS_PER_MS;
	l->retry_ns = retry * NS_PER_MS;
	l->ctx = cfg->ctx;
	l->on_started_leading = cfg->on_started_leading;
	l->on_stopped_leading = cfg->on_stopped_leading;
	l->on_new_leader = cfg->on_new_leader;
	l->metrics = cfg->metrics;
	l->release_on_stop = true;
	atomic_init(&l->leader, false);
	atomic_init(&l->last_renew_ns, 0);
	pthread_mutex_init(&l->lock, NULL);
	mono_cond_init(&l->wake);
	return l;

invalid_arg:
	err_set(e, ERR_INVALID, "sched_leader_new: client and config are required");
	return NULL;
nomem:
	err_set(e, ERR_NOMEM, "leader election: out of memory");
fail:
	if (l) {
		free(l->ns);
		free(l->name);
		free(l->identity);
		free(l);
	}
	return NULL;
}

int sched_leader_start(struct sched_leader *l, struct err *e)
{
	if (!l)
		return err_set(e, ERR_INVALID, "sched_leader_start: no elector");
	pthread_mutex_lock(&l->lock);
	bool started = l->started;
	pthread_mutex_unlock(&l->lock);
	if (started)
		return err_set(e, ERR_INVALID, "sched_leader_start: already started");
	l->conn = api_conn_new(l->client, e);
	if (!l->conn)
		return err_prefix(e, "leader election");
	int rc = pthread_create(&l->thread, NULL, election_main, l);
	if (rc != 0) {
		api_conn_free(l->conn);
		l->conn = NULL;
		return err_set(e, ERR_IO, "leader election: pthread_create: %s", strerror(rc));
	}
	pthread_mutex_lock(&l->lock);
	l->started = true;
	pthread_mutex_unlock(&l->lock);
	return 0;
}

static void stop_thread(struct sched_leader *l, bool release)
{
	pthread_mutex_lock(&l->lock);
	bool join = l->started && !l->joined;
	l->stop = true;
	l->release_on_stop = release;
	l->joined = l->joined || join;
	pthread_cond_broadcast(&l->wake);
	pthread_mutex_unlock(&l->lock);
	if (join)
		pthread_join(l->thread, NULL);
}

void sched_leader_stop(struct sched_leader *l)
{
	if (l)
		stop_thread(l, true);
}

void sched_leader_abandon(struct sched_leader *l)
{
	if (l)
		stop_thread(l, false);
}

void sched_leader_free(struct sched_leader *l)
{
	if (!l)
		return;
	stop_thread(l, true);
	api_conn_free(l->conn);
	forget_observed(l);
	free(l->reported_leader);
	free(l->ns);
	free(l->name);
	free(l->identity);
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->wake);
	free(l);
}

bool sched_leader_is_leader(const struct sched_leader *l)
{
	if (!l || !atomic_load(&l->leader))
		return false;
	return mono_ns() - atomic_load(&l->last_renew_ns) < l->renew_ns;
}

bool sched_leader_healthy(const struct sched_leader *l)
{
	if (!l || !atomic_load(&l->leader))
		return true;
	int64_t last = atomic_load(&l->last_renew_ns);
	return mono_ns() - last <= l->lease_ns + SCHED_LEADER_HEALTH_TIMEOUT_MS * NS_PER_MS;
}

const char *sched_leader_identity(const struct sched_leader *l)
{
	return l ? l->identity : NULL;
}

const char *sched_leader_name(const struct sched_leader *l)
{
	return l ? l->name : NULL;
}
