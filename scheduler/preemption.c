/* The preemption executor (upstream framework/preemption/executor.go with SchedulerAsyncPreemption,
 * on by default in v1.37): the API calls that evict a chosen candidate's victims, off the
 * scheduling thread. DefaultPreemption reaches it through fw_preempt_ops (wired in new_profiles).
 *
 * DESIGN
 * actuate (the loop thread, from PostFilter) observes the victims metric, drops the victims whose
 * deletion already started, and when some remain records the preemptor as preempting and queues a
 * job; it never waits for the server. Worker threads (at most SCHED_PREEMPT_THREADS, started on
 * demand as the binder's are, each with its own api_conn) take jobs under the lock and run them
 * unlocked: clear the nominations of lower-priority pods nominated on the node, preempt every
 * victim but the last, record the last as pending and preempt it, then drop the preemptor from
 * the preempting set and, when something failed or the last victim was preempted in memory only
 * (no deletion event will come), activate the preemptor in the queue (upstream fh.Activate).
 *
 * Deliberate difference: the victims of one preemption are preempted one after another; upstream
 * preempts all but the last in parallel (Parallelizer, 16 goroutines). Preemptions of different
 * preemptors run in parallel on the workers. Upstream cancels the others at the first error;
 * here the first error stops the remaining ones likewise (the last victim is then skipped).
 *
 * is_running (upstream IsPodRunningPreemption) is called by DefaultPreemption's PreEnqueue under
 * the queue's lock, so it takes only this file's lock (a leaf) and reads the pod informer's store
 * (whose lock is a leaf too: the informer calls its handlers without it).
 *
 * Victims preempted in memory: upstream rejects a victim waiting at Permit (or cancels one in a
 * long PreBind) instead of deleting it. csched has no plugin that waits at Permit or blocks in
 * PreBind (a Permit Wait is a timeout sleep in the binder), so every victim goes through the API:
 * an assumed pod not yet bound is deleted there, which the informer reports and the handlers turn
 * into a forget (assumed_pod_deleted).
 *
 * Stop: the workers finish the job they run; queued jobs are dropped (their preemptors leave the
 * preempting set), as upstream's goroutines die with the process. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/map.h"
#include "sched_internal.h"

/* Preemptions evicting at once. Each victim is two requests one after another (the
 * DisruptionTarget patch, the delete): with 4 workers PreemptionBasic_1000Nodes' 1000 preemptors
 * (4,000 victims) took 55 s after their creation, the executor's queue being the limit; upstream
 * runs every preemption in its own goroutine. */
#define SCHED_PREEMPT_THREADS 16

/* A preemptor whose preemption is under way (upstream preempting + lastVictimsPendingPreemption). */
struct running {
	char *uid;      /* the key */
	uint32_t jobs;  /* its preemptions in flight (1 but for a pod re-admitted meanwhile) */
	char *last_ns;  /* the last victim, once its preemption started; NULL before */
	char *last_name;
};

struct pjob {
	struct pjob *next;
	struct api_pod *preemptor; /* referenced */
	char *node;                /* the candidate's node (a copy) */
	uint32_t n_all;            /* the candidate's victims (log) */
	uint32_t n;                /* victims to preempt: those not being deleted, in the candidate's order */
	struct api_pod **victims;  /* referenced */
};

struct sched_preempt {
	struct scheduler *s;
	pthread_t threads[SCHED_PREEMPT_THREADS];

	/* lock guards everything below; a leaf lock (jobs run unlocked; pthread_create under it so
	 * that stop sees every started thread). */
	pthread_mutex_t lock;
	pthread_cond_t cond; /* a job arrived or stopping */
	struct map running;  /* preemptor uid -> struct running */
	struct pjob *head, *tail;
	uint32_t n_jobs, n_waiting;
	int n_started;
	bool started, stopping;
};

static void job_free(struct pjob *j)
{
	if (!j)
		return;
	for (uint32_t i = 0; i < j->n; i++)
		api_pod_unref(j->victims[i]);
	free(j->victims);
	api_pod_unref(j->preemptor);
	free(j->node);
	free(j);
}

static void running_free(struct running *r)
{
	if (!r)
		return;
	free(r->uid);
	free(r->last_ns);
	free(r->last_name);
	free(r);
}

/* One preemption of uid ended. Caller holds x->lock. */
static void running_done_locked(struct sched_preempt *x, const char *uid)
{
	struct running *r = map_get(&x->running, uid);
	if (r && --r->jobs == 0) {
		map_del(&x->running, uid);
		running_free(r);
	}
}

/* ---------- The API calls (worker threads) ---------- */

/* upstream PreemptPod: the DisruptionTarget condition, then the deletion; a victim already gone
 * is no error (and gets no event). */
static int preempt_pod(struct sched_preempt *x, struct api_conn *conn, const struct pjob *j,
		       const struct api_pod *victim, struct err *e)
{
	struct scheduler *s = x->s;
	const struct api_pod *pr = j->preemptor;
	const char *vns = victim->meta.namespace, *vname = victim->meta.name;
	char msg[512], *body = NULL;
	size_t len = 0;
	int rc;

	if (!conn)
		return err_set(e, ERR_TRANSPORT, "preempting %s/%s: no connection", vns, vname);
	if (!sched_may_write(s)) /* a deposed leader evicts nothing */
		return err_set(e, ERR_INVALID, "preempting %s/%s: this replica is no longer the leader", vns, vname);
	snprintf(msg, sizeof(msg), "%s: preempting to accommodate a higher priority pod", pr->scheduler_name);
	/* CalculatePodConditionObservedGeneration: PodObservedGenerationTracking is GA */
	struct api_pod_scheduled cond = { "True", "PreemptionByScheduler", msg, victim->meta.generation };
	if ((rc = api_pod_condition_patch(victim, "DisruptionTarget", &cond, api_wall_us(), &body, &len, e)) < 0)
		return rc;
	if (body) {
		rc = api_patch_pod_status(conn, vns, vname, body, len, e);
		free(body);
		if (rc == ERR_NOT_FOUND) {
			LOG_V(2, "Victim Pod is already deleted preemptor=\"%s/%s\" victim=\"%s/%s\" node=\"%s\"",
			      pr->meta.namespace, pr->meta.name, vns, vname, j->node);
			return 0;
		}
		if (rc < 0) {
			LOG_ERROR("Could not add DisruptionTarget condition due to preemption preemptor=\"%s/%s\" "
				  "victim=\"%s/%s\": %s",
				  pr->meta.namespace, pr->meta.name, vns, vname, e->msg);
			return rc;
		}
	}
	rc = api_delete_pod(conn, vns, vname, e);
	if (rc == ERR_NOT_FOUND) {
		LOG_V(2, "Victim Pod is already deleted preemptor=\"%s/%s\" victim=\"%s/%s\" node=\"%s\"",
		      pr->meta.namespace, pr->meta.name, vns, vname, j->node);
		return 0;
	}
	if (rc < 0) {
		LOG_ERROR("Tried to preempted pod pod=\"%s/%s\" preemptor=\"%s/%s\": %s", vns, vname, pr->meta.namespace,
			  pr->meta.name, e->msg);
		return rc;
	}
	LOG_V(2, "Preemptor Pod preempted victim Pod preemptor=\"%s/%s\" victim=\"%s/%s\" node=\"%s\"",
	      pr->meta.namespace, pr->meta.name, vns, vname, j->node);
	/* upstream Eventf(victim, preemptor.Obj(), ...): its related object is the executor's wrapper
	 * type, which the event recorder cannot reference, so the event has none (kube-scheduler
	 * v1.37.2 sends related: null) */
	sched_events_record(s->events, victim, "Normal", "Preempted", "Preempting", pr->scheduler_name,
			    "Preempted by pod %s on node %s", pr->meta.uid, j->node);
	return 0;
}

/* upstream getLowerPriorityNominatedPods + clearNominatedNodeName (no API cacher: the
 * SchedulerAsyncAPICalls gate is off by default): nominatedNodeName cleared on the pods of lower
 * priority than the preemptor nominated on the node. */
static int clear_nominations(struct sched_preempt *x, struct api_conn *conn, const struct pjob *j, struct err *e)
{
	struct scheduler *s = x->s;
	struct queue_nominated *qn = NULL;
	uint32_t n = 0;
	int rc = queue_nominated_pods(s->queue, j->node, INT32_MIN, NULL, &qn, &n, e);
	if (rc < 0)
		return rc;
	int first = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct api_pod *p = qn[i].pod;
		char *body = NULL;
		size_t len = 0;
		struct err pe = { 0 };
		if (p->priority >= j->preemptor->priority)
			continue;
		/* nothing to send when the pod's status has no nomination */
		if ((rc = api_pod_status_patch(p, NULL, "", api_wall_us(), &body, &len, &pe)) == 0 && body) {
			rc = !conn ? err_set(&pe, ERR_TRANSPORT, "no connection")
			     : !sched_may_write(s) ? err_set(&pe, ERR_INVALID, "this replica is no longer the leader")
						   : api_patch_pod_status(conn, p->meta.namespace, p->meta.name, body, len, &pe);
			if (rc == 0)
				atomic_fetch_add(&s->n_status_patches, 1);
		}
		free(body);
		if (rc < 0 && !first) { /* upstream aggregates; the first is reported */
			first = rc;
			err_set(e, rc, "clearing the nomination of %s/%s: %s", p->meta.namespace, p->meta.name, pe.msg);
		}
	}
	queue_nominated_release(qn, n);
	return first;
}

/* upstream prepareCandidateAsync's goroutine. Takes j. */
static void run_job(struct sched_preempt *x, struct api_conn *conn, struct pjob *j)
{
	struct scheduler *s = x->s;
	const struct api_pod *pr = j->preemptor;
	struct err e = { 0 };
	bool ok = true, last_in_memory = false; /* the latter stays false: see DESIGN */

	LOG_V(2, "Start the preemption asynchronously preemptor=\"%s/%s\" node=\"%s\" numVictims=%u "
		 "numVictimsToDelete=%u",
	      pr->meta.namespace, pr->meta.name, j->node, j->n_all, j->n);
	/* Lower-priority pods nominated on this node may no longer fit there: clearing their
	 * nomination moves them to activeQ sooner than after the preemption. Not critical. */
	if (clear_nominations(x, conn, j, &e) < 0) {
		LOG_ERROR("Cannot clear 'NominatedNodeName' field from lower priority pods on the same target node "
			  "node=\"%s\": %s",
			  j->node, e.msg);
		ok = false;
	}
	/* All victims but the last, then the last one recorded as pending, so that PreEnqueue can
	 * tell a finished deletion from one still under way (IsPodRunningPreemption). */
	bool preempt_last = true;
	for (uint32_t i = 0; i + 1 < j->n; i++) {
		err_clear(&e);
		if (preempt_pod(x, conn, j, j->victims[i], &e) < 0) {
			LOG_ERROR("Error occurred during async preemption: %s", e.msg);
			ok = preempt_last = false;
			break;
		}
	}
	if (preempt_last) {
		const struct api_pod *last = j->victims[j->n - 1];
		char *ns = strdup(last->meta.namespace), *name = strdup(last->meta.name);
		pthread_mutex_lock(&x->lock);
		struct running *r = map_get(&x->running, pr->meta.uid);
		if (r && ns && name) {
			free(r->last_ns);
			free(r->last_name);
			r->last_ns = ns;
			r->last_name = name;
			ns = name = NULL;
		}
		pthread_mutex_unlock(&x->lock);
		free(ns);
		free(name);
		err_clear(&e);
		if (preempt_pod(x, conn, j, last, &e) < 0) {
			LOG_ERROR("Error occurred during async preemption of the last victim: %s", e.msg);
			ok = false;
		}
	}
	pthread_mutex_lock(&x->lock);
	running_done_locked(x, pr->meta.uid);
	pthread_mutex_unlock(&x->lock);
	LOG_V(2, "Async Preemption finished completely preemptor=\"%s/%s\" node=\"%s\" result=\"%s\"", pr->meta.namespace,
	      pr->meta.name, j->node, ok ? "success" : "error");
	/* upstream's deferred calls, last registered first: Activate, then the metric */
	if (!ok || last_in_memory)
		queue_activate(s->queue, pr->meta.uid);
	else
		/* Not upstream: a preemptor PreEnqueue gated while this job waited for a worker is
		 * let in by the next AssignedPod delete, and when the victims were gone already (a
		 * second preemption over victims the informer had not yet seen deleted) none comes:
		 * it waited for the 5-minute flush (PreemptionBasic, 24 of 500 pods). */
		queue_activate_gated(s->queue, pr->meta.uid, "DefaultPreemption");
	sched_metrics_preemption_goroutine(s->metrics, ok);
	job_free(j);
}

/* ---------- Workers ---------- */

static void *worker_main(void *arg)
{
	struct sched_preempt *x = arg;
	struct err e = { 0 };
	struct api_conn *conn = api_conn_new(x->s->client, &e);
	if (!conn)
		LOG_ERROR("preemption: no connection (%s): preemptions will fail", e.msg);
	pthread_mutex_lock(&x->lock);
	for (;;) {
		while (!x->head && !x->stopping) {
			x->n_waiting++;
			pthread_cond_wait(&x->cond, &x->lock);
			x->n_waiting--;
		}
		if (x->stopping)
			break;
		struct pjob *j = x->head;
		x->head = j->next;
		if (!x->head)
			x->tail = NULL;
		x->n_jobs--;
		pthread_mutex_unlock(&x->lock);
		run_job(x, conn, j);
		pthread_mutex_lock(&x->lock);
	}
	pthread_mutex_unlock(&x->lock);
	api_conn_free(conn);
	return NULL;
}

struct sched_preempt *sched_preempt_new(struct scheduler *s, struct err *e)
{
	struct sched_preempt *x = calloc(1, sizeof(*x));
	if (!x) {
		err_set(e, ERR_NOMEM, "preemption executor: out of memory");
		return NULL;
	}
	x->s = s;
	map_init(&x->running);
	pthread_mutex_init(&x->lock, NULL);
	pthread_cond_init(&x->cond, NULL);
	return x;
}

void sched_preempt_start(struct sched_preempt *x)
{
	pthread_mutex_lock(&x->lock);
	x->started = true;
	x->stopping = false;
	pthread_mutex_unlock(&x->lock);
}

/* Starts one more worker when queued jobs outnumber the idle ones. Caller holds x->lock. */
static void grow_locked(struct sched_preempt *x)
{
	if (!x->started || x->stopping || x->n_started >= SCHED_PREEMPT_THREADS || x->n_jobs <= x->n_waiting)
		return;
	int rc = pthread_create(&x->threads[x->n_started], NULL, worker_main, x);
	if (rc == 0)
		x->n_started++;
	else if (x->n_started == 0) /* the job waits for a later push (or is dropped at stop) */
		LOG_WARN("preemption: pthread_create: %s", strerror(rc));
}

void sched_preempt_stop(struct sched_preempt *x)
{
	if (!x)
		return;
	pthread_mutex_lock(&x->lock);
	x->stopping = true;
	int n = x->n_started;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
	for (int i = 0; i < n; i++)
		pthread_join(x->threads[i], NULL);
	pthread_mutex_lock(&x->lock);
	x->n_started = 0;
	x->started = false;
	struct pjob *j = x->head;
	x->head = x->tail = NULL;
	x->n_jobs = 0;
	for (struct pjob *k = j; k; k = k->next)
		running_done_locked(x, k->preemptor->meta.uid);
	pthread_mutex_unlock(&x->lock);
	while (j) {
		struct pjob *next = j->next;
		LOG_V(2, "preemption of %s/%s dropped at stop", j->preemptor->meta.namespace, j->preemptor->meta.name);
		job_free(j);
		j = next;
	}
}

void sched_preempt_free(struct sched_preempt *x)
{
	if (!x)
		return;
	sched_preempt_stop(x);
	const char *k;
	void *v;
	for (size_t it = 0; map_next(&x->running, &it, &k, &v);)
		running_free(v);
	map_release(&x->running);
	pthread_cond_destroy(&x->cond);
	pthread_mutex_destroy(&x->lock);
	free(x);
}

/* ---------- fw_preempt_ops ---------- */

enum fw_code sched_preempt_actuate(void *ctx, const struct api_pod *preemptor, const struct fw_preemption *c,
				   struct fw_status *st)
{
	struct scheduler *s = ctx;
	struct sched_preempt *x = s->preempt;
	struct pjob *j = NULL;
	struct running *r = NULL;

	sched_metrics_preemption_victims(s->metrics, (int)c->n_victims); /* upstream observeVictims */
	uint32_t n = 0;
	for (uint32_t i = 0; i < c->n_victims; i++) {
		if (c->victims[i]->meta.being_deleted) {
			/* Graceful pod deletion has already started: another API call is unnecessary. */
			LOG_V(2, "Victim Pod is already being deleted, skipping the API call for it preemptor=\"%s/%s\" "
				 "node=\"%s\" victim=\"%s/%s\"",
			      preemptor->meta.namespace, preemptor->meta.name, c->node_name,
			      c->victims[i]->meta.namespace, c->victims[i]->meta.name);
			continue;
		}
		n++;
	}
	if (n == 0)
		return FW_SUCCESS;
	if (!x || !(j = calloc(1, sizeof(*j))) || !(j->victims = calloc(n, sizeof(*j->victims))))
		goto nomem;
	j->preemptor = api_pod_ref((struct api_pod *)preemptor);
	if (!(j->node = strdup(c->node_name)))
		goto nomem;
	j->n_all = c->n_victims;
	for (uint32_t i = 0; i < c->n_victims; i++)
		if (!c->victims[i]->meta.being_deleted)
			j->victims[j->n++] = api_pod_ref(c->victims[i]);

	pthread_mutex_lock(&x->lock);
	if (x->stopping) {
		pthread_mutex_unlock(&x->lock);
		job_free(j);
		return fw_status_set(st, FW_ERROR, "the preemption executor is stopping");
	}
	r = map_get(&x->running, preemptor->meta.uid);
	if (!r) {
		if (!(r = calloc(1, sizeof(*r))) || !(r->uid = strdup(preemptor->meta.uid)) ||
		    map_put(&x->running, r->uid, r, NULL) < 0) {
			pthread_mutex_unlock(&x->lock);
			running_free(r);
			goto nomem;
		}
	}
	r->jobs++;
	j->next = NULL;
	if (x->tail)
		x->tail->next = j;
	else
		x->head = j;
	x->tail = j;
	x->n_jobs++;
	grow_locked(x);
	pthread_cond_signal(&x->cond);
	pthread_mutex_unlock(&x->lock);
	return FW_SUCCESS;
nomem:
	job_free(j);
	return fw_status_set(st, FW_ERROR, "preemption: out of memory");
}

bool sched_preempt_is_running(void *ctx, const char *pod_uid)
{
	struct scheduler *s = ctx;
	struct sched_preempt *x = s->preempt;
	char ns[256], name[256];
	if (!x || !pod_uid)
		return false;
	pthread_mutex_lock(&x->lock);
	struct running *r = map_get(&x->running, pod_uid);
	bool pending = r && !r->last_name; /* preempting, the last victim not reached yet */
	bool last = r && r->last_name;
	if (last) {
		snprintf(ns, sizeof(ns), "%s", r->last_ns);
		snprintf(name, sizeof(name), "%s", r->last_name);
	}
	pthread_mutex_unlock(&x->lock);
	if (!last)
		return pending;
	/* Waiting for the last victim: done once the informer's copy is gone or being deleted. */
	struct api_pod *v = api_informer_get(s->pod_inf, ns, name);
	bool running = v && !v->meta.being_deleted;
	api_pod_unref(v);
	return running;
}
