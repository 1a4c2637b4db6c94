/* Binder workers: the binding cycle of each scheduled pod (WaitOnPermit, PreBind, Bind, PostBind)
 * and the PodScheduled status patches, off the scheduling loop.
 *
 * DESIGN
 * A FIFO of jobs (binds and patches) guarded by one mutex and a condition variable; worker
 * threads, each with its own api_conn (the bind callback finds it through a thread-local pointer
 * because DefaultBinder calls back through the framework). The workers' connections share one
 * network connection through the binder's api_mux (apiclient/api_mux.c): HTTP/2 streams over
 * one TLS connection, as upstream's binding goroutines share client-go's, instead of a TCP + TLS
 * connection per thread (~85 KB each with 64 threads, csched's largest memory share at 500
 * nodes); a server without h2 (or a plain http:// one) gets at most BINDER_HTTP1_CONNS HTTP/1.1
 * connections. A worker takes a job under the lock and runs it unlocked. Binds are never dropped
 * (an assumed pod must end in a bind or a forget); at stop the workers finish every queued job
 * first, so the cache and the queue stay consistent.
 *
 * The pool grows on demand up to its maximum: a push that finds more queued jobs than idle and
 * starting workers starts one more thread, while fewer than SCHED_BINDER_ACTIVE workers are not
 * parked. A bind is one synchronous request, so binds in flight = busy workers; the muxer runs
 * at most 16 transfers at once (as many as its HTTP/1.1 connections), so a 17th busy worker only
 * waits for a slot there, holding its stack, its libcurl handle and its binding cycle: with 64
 * such workers csched's peak RSS at 500 nodes was 27.3 MiB, with 16 it is 23.2, at the same
 * rate. (Before the muxer each worker had its own connection: with 16 of them and the 60-150 ms a
 * loaded server took per bind, binds fell 3000 pods behind the loop, hence 64 then.) A worker
 * that waits without the network (WaitOnPermit, a PreBind polling for a volume or a device, up to
 * minutes) parks itself (sched_binder_park) and stops counting, so such waits never hold up the
 * other pods' binds (upstream runs each binding cycle in its own goroutine); the pool's maximum
 * (64 by default) bounds them. Threads stay until stop; an idle one costs its stack and its
 * libcurl handle (the connection is the muxer's).
 *
 * The loop waits (sched_binder_wait_room) while SCHED_BIND_QUEUE_PER_THREAD jobs per active
 * worker wait for one: a binding cycle keeps its scheduling cycle's state (~10-20 KB with the
 * assumed pod) until it ends, and a loop that schedules faster than the server binds (30 us a
 * cycle against ~1 ms a bind) ran 15,500 pods ahead in PreemptionAsync_5000Nodes (333 MiB);
 * scheduling further ahead than the workers can take gains nothing, the binds are the limit.
 *
 * Failure (upstream handleBindingCycleError): Unreserve, ForgetPod, then if the forget succeeded
 * an AssignedPodDelete move for every other pod (the assumed pod freed room), then the common
 * failure handler (requeue with backoff, FailedScheduling, PodScheduled=False). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"
#include "extender_internal.h"
#include "sched_internal.h"

/* The HTTP/1.1 connections the workers share when the server does not negotiate HTTP/2 (at most
 * the number of workers): binds beyond them wait inside libcurl for a free one. */
#define BINDER_HTTP1_CONNS 16

enum job_kind { JOB_BIND, JOB_PATCH };

struct job {
	enum job_kind kind;
	struct job *next;
	void *payload; /* by kind: struct sched_bind_job or struct sched_patch_job (owned) */
};

struct sched_binder {
	struct scheduler *s;
	int max_threads;
	int max_active; /* workers not parked: SCHED_BINDER_ACTIVE, or max_threads if fewer */
	struct api_mux *mux; /* made by start, freed by stop after the workers; NULL: one connection each */
	pthread_t *threads; /* max_threads slots */

	/* lock guards everything below; a leaf lock (jobs run unlocked; pthread_create is called
	 * under it so that stop sees every started thread). */
	pthread_mutex_t lock;
	pthread_cond_t cond; /* a job arrived or stopping */
	pthread_cond_t room; /* a job was taken or stopping (sched_binder_wait_room; monotonic clock) */
	struct job *head, *tail;
	uint32_t n_jobs;    /* queued */
	uint32_t running;   /* being run */
	uint32_t n_binds;   /* bind jobs queued or being run */
	uint32_t n_waiting; /* workers waiting for a job (a signalled one counts until it wakes) */
	uint32_t n_starting; /* workers created that have not yet reached their first wait */
	int n_started;
	int n_parked; /* workers in a wait without the network (sched_binder_park) */
	bool started, stopping;
	bool spawn_failed; /* logged once */
};

/* The connection of the binder thread running the current job (NULL on other threads). */
static _Thread_local struct api_conn *tl_conn;
/* The binder whose worker this thread is (NULL on other threads). */
static _Thread_local struct sched_binder *tl_binder;

struct api_conn *sched_binder_conn(void)
{
	return tl_conn;
}

int sched_bind_cb(void *ctx, const struct api_pod *pod, const char *node_name, struct err *e)
{
	(void)ctx;
	if (!tl_conn)
		return err_set(e, ERR_INVALID, "bind of %s/%s: not on a binder thread", pod->meta.namespace,
			       pod->meta.name);
	return api_bind_pod(tl_conn, pod->meta.namespace, pod->meta.name, pod->meta.uid, node_name, e);
}

struct sched_patch_job *sched_patch_job_new(const struct api_pod *pod, char *body, size_t len)
{
	struct sched_patch_job *j = calloc(1, sizeof(*j));
	if (!j) {
		free(body);
		return NULL;
	}
	j->body = body;
	j->len = len;
	j->ns = strdup(pod->meta.namespace);
	j->name = strdup(pod->meta.name);
	if (!j->ns || !j->name) {
		sched_patch_job_free(j);
		return NULL;
	}
	return j;
}

void sched_patch_job_free(struct sched_patch_job *j)
{
	if (!j)
		return;
	free(j->ns);
	free(j->name);
	free(j->body);
	free(j);
}

static bool other_pod(void *ctx, const struct api_pod *pod)
{
	return pod->meta.uid != (const char *)ctx;
}

static void run_patch(struct scheduler *s, struct sched_patch_job *j)
{
	struct err e = { 0 };
	if (!sched_may_write(s)) { /* a deposed leader writes nothing */
		LOG_V(2, "status of pod %s/%s not updated: not the leader", j->ns, j->name);
		sched_patch_job_free(j);
		return;
	}
	int rc = tl_conn ? api_patch_pod_status(tl_conn, j->ns, j->name, j->body, j->len, &e)
			 : err_set(&e, ERR_TRANSPORT, "no connection");
	if (rc < 0) {
		/* A pod deleted meanwhile is not worth a log line above V(2). */
		if (rc == ERR_NOT_FOUND)
			LOG_V(2, "status of pod %s/%s not updated: pod is gone", j->ns, j->name);
		else
			LOG_ERROR("Error updating pod %s/%s: %s", j->ns, j->name, e.msg);
	} else {
		atomic_fetch_add(&s->n_status_patches, 1);
	}
	sched_patch_job_free(j);
}

/* The end of a successful binding cycle: the Scheduled event, the metrics, PostBind. */
static void bound(struct scheduler *s, struct sched_bind_job *j)
{
	struct sched_profile *prof = j->prof;
	struct api_pod *pod = j->qpi->pod;
	const char *node = j->node_name;

	LOG_V(2, "Successfully bound pod to node pod=\"%s/%s\" node=\"%s\"", pod->meta.namespace, pod->meta.name,
	      node);
	sched_events_record(s->events, pod, "Normal", "Scheduled", "Binding", prof->name,
			    "Successfully assigned %s/%s to %s", pod->meta.namespace, pod->meta.name, node);
	sched_metrics_schedule_attempt(s->metrics, SCHED_METRICS_SCHEDULED, prof->name, sched_since_s(j->start_ns));
	double sli = j->qpi->initial_attempt_timestamp ? sched_since_s(j->qpi->initial_attempt_timestamp) : 0;
	sched_metrics_pod_scheduled(s->metrics, (int)j->qpi->attempts, sli);
	fw_run_post_bind(prof->fw, j->cycle, pod, node);
	atomic_fetch_add(&s->n_scheduled, 1);
	queue_pod_info_free(j->qpi);
}

/* upstream handleBindingCycleError: undo the assumption, then the common failure handling (takes
 * j->qpi). */
static void handle_binding_cycle_error(struct scheduler *s, struct sched_bind_job *j, enum fw_code code,
				       const struct fw_status *st)
{
	struct api_pod *pod = j->qpi->pod;
	const char *node = j->node_name;

	atomic_fetch_add(&s->n_bind_failures, 1);
	/* The assumed pod occupied room on the node: its forgetting is an AssignedPodDelete of the
	 * assumed pod (bound to node, as upstream's assumed copy is). */
	struct api_pod *assumed = NULL;
	if (sched_unreserve_and_forget(s, j->prof, j->cycle, pod, node) == 0 &&
	    !(assumed = api_pod_assigned_copy(pod, node)))
		assumed = api_pod_ref(pod);
	struct queue_event ev = { QUEUE_RES_ASSIGNED_POD, QUEUE_ACT_DELETE, NULL };
	char msg[FW_STATUS_TEXT_MAX + 64];
	struct queue_failure f = { 0 };
	const char *plugin = NULL;
	bool rejected = sched_failure_on_node(code, node, st, msg, sizeof(msg), &f, &plugin);
	/* upstream: an error moves every pod at once; a rejection moves the others only after the
	 * pod's own requeue, so that the event does not count for the pod itself */
	if (assumed && !rejected)
		queue_move_on_event(s->queue, &ev, assumed, NULL, NULL, NULL);
	/* upstream clears a nomination after a binding failure (clearNominatedNode) */
	sched_handle_failure(s, j->prof, j->qpi, rejected, msg, &f, "", j->start_ns);
	if (assumed && rejected)
		queue_move_on_event(s->queue, &ev, assumed, NULL, other_pod, (void *)assumed->meta.uid);
	api_pod_unref(assumed);
}

/* upstream bindingCycle: WaitOnPermit, PreBind, Bind, then PostBind or the failure handling. */
static void run_bind(struct scheduler *s, struct sched_bind_job *j)
{
	struct sched_profile *prof = j->prof;
	struct api_pod *pod = j->qpi->pod;
	const char *node = j->node_name;
	struct fw_status st;
	enum fw_code code = FW_SUCCESS;

	fw_status_reset(&st);
	if (j->permit_wait) {
		/* No csched plugin allows a waiting pod early, so WaitOnPermit ends at the timeout. */
		sched_binder_park(true);
		sleep_ns(j->permit_timeout_ms * NSEC_PER_MSEC);
		sched_binder_park(false);
		code = fw_status_setf(&st, FW_UNSCHEDULABLE, "rejected due to timeout after waiting %" PRId64 "ms at plugin %s",
				      j->permit_timeout_ms, j->permit_plugin ? j->permit_plugin : "");
		st.plugin = j->permit_plugin;
	}
	if (code == FW_SUCCESS) {
		/* Events from here on cannot make the pod schedulable (upstream: Done before PreBind). */
		queue_done(s->queue, pod->meta.uid);
		code = fw_run_pre_bind(prof->fw, j->cycle, pod, node, &st); /* timed by the framework */
		if (code == FW_SUCCESS && !sched_may_write(s))
			code = fw_status_set(&st, FW_ERROR, "not binding: this replica is no longer the leader");
		if (code == FW_SUCCESS) {
			if (s->o.hooks.before_bind)
				s->o.hooks.before_bind(s->o.hooks.ctx, pod, node);
			/* upstream bind: a bind extender interested in the pod, then the Bind plugins */
			bool ext_bound = false;
			struct err xe = { 0 };
			if (s->extenders && sched_extenders_bind(s->extenders, pod, node, &ext_bound, &xe) < 0)
				code = fw_status_set(&st, FW_ERROR, xe.msg);
			else if (!ext_bound)
				code = fw_run_bind(prof->fw, j->cycle, pod, node, &st);
			if (code == FW_SKIP) /* no bind plugin bound it */
				code = fw_status_set(&st, FW_ERROR, "no Bind plugin bound the pod");
		}
		struct err e = { 0 };
		if (cache_finish_binding(s->cache, pod, &e) < 0)
			LOG_V(2, "scheduler cache FinishBinding failed for %s/%s: %s", pod->meta.namespace, pod->meta.name,
			      e.msg);
	}

	if (code == FW_SUCCESS)
		bound(s, j);
	else
		handle_binding_cycle_error(s, j, code, &st);
	sched_cycle_put(prof, j->cycle);
	free(j);
}

static void run(struct scheduler *s, enum job_kind kind, void *payload)
{
	if (kind == JOB_BIND)
		run_bind(s, payload);
	else
		run_patch(s, payload);
}

/* Takes the first job off the FIFO. Caller holds b->lock; b->head is not NULL. */
static struct job *take_locked(struct sched_binder *b)
{
	struct job *j = b->head;
	b->head = j->next;
	if (!b->head)
		b->tail = NULL;
	b->n_jobs--;
	pthread_cond_signal(&b->room); /* only the scheduling loop waits on it */
	return j;
}

/* Runs a job taken off the FIFO with b->lock released, then frees it. Caller holds b->lock; it
 * is held again on return. */
static void run_unlocked(struct sched_binder *b, struct job *j)
{
	pthread_mutex_unlock(&b->lock);
	run(b->s, j->kind, j->payload);
	pthread_mutex_lock(&b->lock);
	if (j->kind == JOB_BIND)
		b->n_binds--;
	free(j);
}

static void *worker_main(void *arg)
{
	struct sched_binder *b = arg;
	struct err e = { 0 };
	/* b->mux is set before the thread is created and freed after it is joined */
	tl_conn = b->mux ? api_conn_new_mux(b->s->client, b->mux, &e) : api_conn_new(b->s->client, &e);
	if (!tl_conn)
		LOG_ERROR("binder: no connection (%s): binds will fail and be retried", e.msg);
	tl_binder = b;
	pthread_mutex_lock(&b->lock);
	b->n_starting--;
	for (;;) {
		while (!b->head && !b->stopping) {
			b->n_waiting++;
			pthread_cond_wait(&b->cond, &b->lock);
			b->n_waiting--;
		}
		if (!b->head) /* stopping and drained */
			break;
		struct job *j = take_locked(b);
		b->running++;
		run_unlocked(b, j);
		b->running--;
	}
	pthread_mutex_unlock(&b->lock);
	api_conn_free(tl_conn);
	tl_conn = NULL;
	tl_binder = NULL;
	return NULL;
}

struct sched_binder *sched_binder_new(struct scheduler *s, int max_threads, struct err *e)
{
	struct sched_binder *b = NULL;
	if (max_threads < 1) {
		err_set(e, ERR_INVALID, "binder: at least one thread is needed (got %d)", max_threads);
		return NULL;
	}
	if (!(b = calloc(1, sizeof(*b))) || !(b->threads = calloc((size_t)max_threads, sizeof(*b->threads)))) {
		free(b);
		err_set(e, ERR_NOMEM, "binder: out of memory");
		return NULL;
	}
	b->s = s;
	b->max_threads = max_threads;
	b->max_active = max_threads < SCHED_BINDER_ACTIVE ? max_threads : SCHED_BINDER_ACTIVE;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cond, NULL);
	mono_cond_init(&b->room);
	return b;
}

/* Starts worker slot b->n_started. Caller holds b->lock. */
static int spawn_locked(struct sched_binder *b)
{
	int rc = pthread_create(&b->threads[b->n_started], NULL, worker_main, b);
	if (rc)
		return rc;
	b->n_started++;
	b->n_starting++;
	return 0;
}

/* Starts one more worker if queued jobs outnumber the workers that will take one without help:
 * the idle ones (woken or not) and the ones still starting, and fewer than max_active workers
 * are not parked. Counting only the idle ones started a thread for every push that came before
 * the last started one ran (a new thread needs a scheduler tick, the loop pushes the next pod
 * sooner), so the pool overshot the binds in flight, each thread costing its stack and a libcurl
 * handle (and, before the muxer, a TLS connection: ~85 KB in all).
 * Caller holds b->lock. */
static int grow_locked(struct sched_binder *b)
{
	if (!b->started || b->stopping || b->n_started >= b->max_threads ||
	    b->n_started - b->n_parked >= b->max_active || b->n_jobs <= b->n_waiting + b->n_starting)
		return 0;
	return spawn_locked(b);
}

void sched_binder_park(bool parked)
{
	struct sched_binder *b = tl_binder;
	if (!b)
		return;
	pthread_mutex_lock(&b->lock);
	if (parked) {
		b->n_parked++;
		(void)grow_locked(b); /* a failure is retried by the next push, which logs it */
	} else {
		b->n_parked--;
	}
	pthread_mutex_unlock(&b->lock);
}

int sched_binder_start(struct sched_binder *b, struct err *e)
{
	int rc = 0;
	if (!b->mux) {
		struct err me = { 0 };
		int conns = b->max_threads < BINDER_HTTP1_CONNS ? b->max_threads : BINDER_HTTP1_CONNS;
		if (!(b->mux = api_mux_new(conns, &me)))
			LOG_WARN("binder: %s: one connection per worker thread", me.msg);
	}
	pthread_mutex_lock(&b->lock);
	b->started = true;
	/* One worker at least; more for the jobs queued before the start. */
	if (b->n_started == 0)
		rc = spawn_locked(b);
	while (rc == 0 && b->n_started < b->max_active && b->n_jobs > (uint32_t)b->n_started)
		rc = spawn_locked(b);
	if (rc && b->n_started == 0)
		b->started = false;
	pthread_mutex_unlock(&b->lock);
	if (rc && !b->started)
		return err_set(e, ERR_NOMEM, "binder: pthread_create: %s", strerror(rc));
	if (rc) /* the pool runs with fewer threads; growth is retried on later pushes */
		LOG_WARN("binder: pthread_create: %s (running with %d threads)", strerror(rc), b->n_started);
	return 0;
}

/* Appends a job; when it cannot even allocate the list node it runs the job on the caller's
 * thread rather than lose an assumed pod (the loop then waits for the server once). */
static void push(struct sched_binder *b, struct job *j, enum job_kind kind, void *payload)
{
	if (!j) {
		LOG_ERROR("binder: out of memory queueing a job: running it inline");
		run(b->s, kind, payload);
		return;
	}
	j->kind = kind;
	j->next = NULL;
	j->payload = payload;
	pthread_mutex_lock(&b->lock);
	if (b->tail)
		b->tail->next = j;
	else
		b->head = j;
	b->tail = j;
	b->n_jobs++;
	if (kind == JOB_BIND)
		b->n_binds++;
	int rc = grow_locked(b);
	bool first_failure = rc && !b->spawn_failed;
	if (rc)
		b->spawn_failed = true;
	int n = b->n_started;
	pthread_cond_signal(&b->cond);
	pthread_mutex_unlock(&b->lock);
	if (first_failure) /* the running workers take the job */
		LOG_WARN("binder: cannot start another thread (%s): continuing with %d", strerror(rc), n);
}

void sched_binder_bind(struct sched_binder *b, struct sched_bind_job *job)
{
	push(b, malloc(sizeof(struct job)), JOB_BIND, job);
}

void sched_binder_patch(struct sched_binder *b, struct sched_patch_job *job)
{
	push(b, malloc(sizeof(struct job)), JOB_PATCH, job);
}

uint32_t sched_binder_pending(struct sched_binder *b)
{
	pthread_mutex_lock(&b->lock);
	uint32_t n = b->n_jobs + b->running;
	pthread_mutex_unlock(&b->lock);
	return n;
}

uint32_t sched_binder_binds_pending(struct sched_binder *b)
{
	pthread_mutex_lock(&b->lock);
	uint32_t n = b->n_binds;
	pthread_mutex_unlock(&b->lock);
	return n;
}

bool sched_binder_wait_room(struct sched_binder *b, uint32_t max, int64_t timeout_ns)
{
	struct timespec deadline = ns_to_timespec(mono_ns() + timeout_ns);
	int rc = 0;
	pthread_mutex_lock(&b->lock);
	while (b->n_jobs >= max && !b->stopping && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&b->room, &b->lock, &deadline);
	bool room = b->n_jobs < max;
	pthread_mutex_unlock(&b->lock);
	return room;
}

uint32_t sched_binder_queued(struct sched_binder *b)
{
	pthread_mutex_lock(&b->lock);
	uint32_t n = b->n_jobs;
	pthread_mutex_unlock(&b->lock);
	return n;
}

int sched_binder_threads(struct sched_binder *b)
{
	pthread_mutex_lock(&b->lock);
	int n = b->n_started;
	pthread_mutex_unlock(&b->lock);
	return n;
}

void sched_binder_stop(struct sched_binder *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&b->lock);
	b->stopping = true; /* no thread starts from now on */
	int n = b->n_started;
	pthread_cond_broadcast(&b->cond);
	pthread_cond_broadcast(&b->room);
	pthread_mutex_unlock(&b->lock);
	for (int i = 0; i < n; i++)
		pthread_join(b->threads[i], NULL);
	if (n)
		LOG_V(2, "binder: stopped %d of at most %d worker threads", n, b->max_threads);
	/* Workers that never started leave jobs behind: run them here (no connection: binds fail
	 * and the pods are forgotten and requeued, keeping the cache consistent). The lock is taken
	 * because the event sender may read the counters meanwhile. */
	pthread_mutex_lock(&b->lock);
	b->n_started = 0;
	while (b->head)
		run_unlocked(b, take_locked(b));
	b->started = false;
	b->stopping = false;
	pthread_mutex_unlock(&b->lock);
	/* every worker has freed its connection */
	if (b->mux) {
		struct api_mux_stats st;
		api_mux_stats(b->mux, &st);
		LOG_V(2, "binder: %" PRIu64 " requests over %" PRIu64 " connections (%" PRIu64 " over HTTP/2); %" PRIu64
		      " waits for the network, throttled %" PRIu64 " times (libcurl spinning)",
		      st.requests, st.connects, st.http2, st.polls, st.throttles);
	}
	api_mux_free(b->mux);
	b->mux = NULL;
}

void sched_binder_free(struct sched_binder *b)
{
	if (!b)
		return;
	sched_binder_stop(b);
	pthread_cond_destroy(&b->cond);
	pthread_cond_destroy(&b->room);
	pthread_mutex_destroy(&b->lock);
	free(b->threads);
	free(b);
}
