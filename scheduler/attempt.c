/* One scheduling attempt, from a popped pod to its hand-off to the binders (upstream
 * pkg/scheduler/schedule_one.go: ScheduleOne, schedulingCycle, handleSchedulingFailure).
 *
 * DESIGN
 * sched_schedule_one runs on the loop thread only (scheduler.c pops the pod): it owns the
 * scheduler's snapshot and the loop scratch. The scheduling cycle refreshes the snapshot, runs the
 * framework (Filter/Score fan out to the fw_pool workers), assumes the pod in the cache, runs
 * Reserve and Permit, and hands the pod to a binder worker, which runs the binding cycle
 * (binder.c): the loop never waits for the server. A step that fails records why in the attempt
 * and returns false; the attempt then gives its cycle state back and calls sched_handle_failure,
 * which the binding cycle also calls (from binder threads). No lock is held here across calls
 * into other modules.
 *
 * Ownership: the attempt owns qpi and the cycle state until it hands both to a bind job or to
 * the failure handler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "sched_internal.h"

/* Upstream's pluginMetricsSamplePercent: the share of cycles that time every plugin call. */
#define SCHED_PLUGIN_METRICS_SAMPLE_PERCENT 10

/* Scratch of the loop thread, reused across attempts. */
struct sched_attempt_scratch {
	struct fw_schedule_result res;
	struct fw_nominated_pod *noms;
	uint32_t cap_noms;
	char msg[FW_STATUS_TEXT_MAX * 3];
	uint64_t rng; /* xorshift64 state for the plugin-metrics sample, never 0 */
};

struct sched_attempt_scratch *sched_attempt_scratch_new(void)
{
	struct sched_attempt_scratch *ls = calloc(1, sizeof(*ls));
	if (ls)
		ls->rng = (uint64_t)api_now_ns() | 1;
	return ls;
}

void sched_attempt_scratch_free(struct sched_attempt_scratch *ls)
{
	if (!ls)
		return;
	free(ls->noms);
	free(ls);
}

/* Whether this cycle times every plugin call (upstream rand.Intn(100) < pluginMetricsSamplePercent). */
static bool sample_plugin_metrics(struct sched_attempt_scratch *ls)
{
	ls->rng ^= ls->rng << 13;
	ls->rng ^= ls->rng >> 7;
	ls->rng ^= ls->rng << 17;
	return ls->rng % 100 < SCHED_PLUGIN_METRICS_SAMPLE_PERCENT;
}

/* ---------- Failure handling (loop and binder threads) ---------- */

static void record_failure(struct scheduler *s, const struct sched_profile *prof, const struct api_pod *pod,
			   bool rejected, const char *message, int64_t start_ns)
{
	sched_metrics_schedule_attempt(s->metrics, rejected ? SCHED_METRICS_UNSCHEDULABLE : SCHED_METRICS_ERROR,
				       prof->name, sched_since_s(start_ns));
	atomic_fetch_add(rejected ? &s->n_unschedulable : &s->n_errors, 1);
	if (rejected)
		LOG_V(2, "Unable to schedule pod; no fit; waiting pod=\"%s/%s\" err=\"%s\"", pod->meta.namespace,
		      pod->meta.name, message);
	else
		LOG_ERROR("Error scheduling pod; retrying pod=\"%s/%s\" err=\"%s\"", pod->meta.namespace, pod->meta.name,
			  message);
}

/* What the failure handling finds when it re-reads the pod from the informer (upstream
 * handleSchedulingFailure's podLister Get). */
enum failure_target {
	FAILURE_REQUEUE,   /* still there, unassigned: requeue the informer's copy */
	FAILURE_GONE,      /* not in the informer */
	FAILURE_BOUND,     /* assigned to a node meanwhile */
	FAILURE_RECREATED, /* another pod (UID) under the same name: no requeue, event or patch */
};

static enum failure_target failure_target(const struct api_pod *pod, const struct api_pod *cur)
{
	if (!cur)
		return FAILURE_GONE;
	/* upstream checks the node first: a recreated pod already bound is "assigned" */
	if (api_pod_is_assigned(cur))
		return FAILURE_BOUND;
	return cur->meta.uid == pod->meta.uid ? FAILURE_REQUEUE : FAILURE_RECREATED; /* interned */
}

/* Requeues the informer's copy cur (taking qpi) when t says so; otherwise the attempt is done
 * (qpi freed). */
static void requeue(struct scheduler *s, const struct api_pod *pod, struct api_pod *cur, enum failure_target t,
		    struct queue_pod_info *qpi, const struct queue_failure *f)
{
	struct err e = { 0 };
	switch (t) {
	case FAILURE_REQUEUE:
		queue_pod_info_set_pod(qpi, cur);
		if (queue_add_unschedulable_if_not_present(s->queue, qpi, f, &e) < 0)
			LOG_ERROR("requeueing pod %s/%s: %s", pod->meta.namespace, pod->meta.name, e.msg);
		return;
	case FAILURE_GONE:
		LOG_INFO("Pod doesn't exist in informer cache pod=\"%s/%s\"", pod->meta.namespace, pod->meta.name);
		break;
	case FAILURE_BOUND:
		LOG_INFO("Pod has been assigned to node. Abort adding it back to queue. pod=\"%s/%s\" node=\"%s\"",
			 pod->meta.namespace, pod->meta.name, cur->node_name);
		break;
	case FAILURE_RECREATED:
		LOG_V(2, "Pod was recreated while handling scheduling failure. Skip requeueing and status updates. "
			 "pod=\"%s/%s\" oldUID=\"%s\" newUID=\"%s\"",
		      pod->meta.namespace, pod->meta.name, pod->meta.uid, cur->meta.uid);
		break;
	}
	queue_done(s->queue, pod->meta.uid);
	queue_pod_info_free(qpi);
	atomic_fetch_add(&s->n_dropped, 1);
}

/* Nomination (preemption) before the next cycle can see the pod again (upstream AddNominatedPod
 * in handleSchedulingFailure). cur: the pod requeued, or NULL when it was not. nominated: the
 * node (ModeOverride; "" clears), or NULL for the pod's own status.nominatedNodeName (ModeNoop).
 * Upstream's nominator first drops the pod's nomination, then adds none for a pod its lister no
 * longer has unbound. */
static void update_nomination(struct scheduler *s, const struct api_pod *pod, struct api_pod *cur,
			      const char *nominated)
{
	struct err e = { 0 };
	if (!cur || (nominated && !nominated[0]))
		queue_delete_nominated_pod(s->queue, pod->meta.uid);
	else if (queue_add_nominated_pod(s->queue, cur, nominated, &e) < 0)
		LOG_ERROR("nominating pod %s/%s: %s", pod->meta.namespace, pod->meta.name, e.msg);
}

/* upstream updatePod: PodScheduled=False with the pod's generation, and the nomination, as a
 * patch of what changed against base's status (none when nothing did), sent by a binder thread. */
static void patch_status(struct scheduler *s, const struct api_pod *base, const char *reason, const char *message,
			 const char *nominated)
{
	struct api_pod_scheduled cond = { "False", reason, message, base->meta.generation };
	struct err e = { 0 };
	char *body = NULL;
	size_t len = 0;
	if (api_pod_status_patch(base, &cond, nominated, api_wall_us(), &body, &len, &e) < 0) {
		LOG_ERROR("Error updating pod %s/%s: %s", base->meta.namespace, base->meta.name, e.msg);
		return;
	}
	if (!body)
		return;
	struct sched_patch_job *pj = sched_patch_job_new(base, body, len); /* takes body */
	if (!pj) {
		LOG_ERROR("out of memory queueing the status of pod %s/%s", base->meta.namespace, base->meta.name);
		return;
	}
	sched_binder_patch(s->binder, pj);
}

void sched_handle_failure(struct scheduler *s, struct sched_profile *prof, struct queue_pod_info *qpi,
			  bool rejected, const char *message, const struct queue_failure *f, const char *nominated,
			  int64_t start_ns)
{
	struct api_pod *pod = api_pod_ref(qpi->pod);
	const char *reason = rejected ? "Unschedulable" : "SchedulerError";

	record_failure(s, prof, pod, rejected, message, start_ns);
	struct api_pod *cur = api_informer_get(s->pod_inf, pod->meta.namespace, pod->meta.name);
	enum failure_target t = failure_target(pod, cur);
	requeue(s, pod, cur, t, qpi, f); /* takes qpi */
	if (t == FAILURE_RECREATED)
		goto out;
	update_nomination(s, pod, t == FAILURE_REQUEUE ? cur : NULL, nominated);
	/* As upstream, the event and the patch are about the informer's copy when it was requeued,
	 * else about the pod as scheduled (a patch of a pod gone meets NotFound). */
	const struct api_pod *base = t == FAILURE_REQUEUE ? cur : pod;
	sched_events_record(s->events, base, "Warning", "FailedScheduling", "Scheduling", prof->name, "%s", message);
	patch_status(s, base, reason, message, nominated);
out:
	api_pod_unref(cur);
	api_pod_unref(pod);
}

bool sched_failure_on_node(enum fw_code code, const char *node, const struct fw_status *st, char *msg, size_t size,
			   struct queue_failure *f, const char **plugin)
{
	if (!fw_code_is_rejected(code)) {
		fw_status_message(st, msg, size);
		return false;
	}
	struct fw_node_status ns = { node, st };
	struct fw_diagnosis d;
	memset(&d, 0, sizeof(d));
	d.num_all_nodes = 1;
	d.n_node_status = 1;
	d.node_status = &ns;
	fw_fit_error_message(&d, msg, size);
	memset(f, 0, sizeof(*f));
	if (st->plugin) {
		*plugin = st->plugin;
		f->unschedulable_plugins = plugin;
		f->n_unschedulable_plugins = 1;
	}
	return true;
}

int sched_unreserve_and_forget(struct scheduler *s, struct sched_profile *prof, struct fw_cycle *c,
			       const struct api_pod *pod, const char *node)
{
	struct err e = { 0 };
	fw_run_unreserve(prof->fw, c, pod, node);
	int rc = cache_forget_pod(s->cache, pod, node, &e);
	if (rc < 0)
		LOG_ERROR("scheduler cache ForgetPod failed for %s/%s: %s", pod->meta.namespace, pod->meta.name, e.msg);
	return rc;
}

/* ---------- The scheduling cycle (loop thread) ---------- */

/* One attempt between the pop and the hand-off. A step that fails fills the failure fields and
 * returns false. */
struct attempt {
	struct scheduler *s;
	struct sched_attempt_scratch *ls;
	struct sched_profile *prof;
	struct fw_cycle *c;
	struct queue_pod_info *qpi;
	struct api_pod *pod; /* qpi->pod */
	int64_t start;

	/* after a fit */
	const char *host; /* interned */
	bool permit_wait;
	int64_t permit_timeout_ms;
	const char *permit_plugin;

	/* a failure, as sched_handle_failure takes it */
	bool rejected;
	const char *msg;                     /* static, ls->msg or e.msg */
	const struct queue_failure *failure; /* NULL or &f */
	const char *nominated; /* "" clears; NULL keeps the pod's own (a PostFilter without result) */
	struct queue_failure f;
	const char *plugin; /* f's one rejector, when a step on the host rejected the pod */
	struct err e;
};

static bool fail(struct attempt *a, bool rejected, const char *msg)
{
	a->rejected = rejected;
	a->msg = msg;
	return false;
}

/* upstream skipPodSchedule (and a pod of no profile of ours, which the handlers never queue). */
static bool skip_pod_schedule(struct scheduler *s, const struct sched_profile *prof, const struct api_pod *pod)
{
	if (!prof) {
		LOG_ERROR("no profile for pod %s/%s (schedulerName %s)", pod->meta.namespace, pod->meta.name,
			  pod->scheduler_name);
		return true;
	}
	if (pod->meta.being_deleted) {
		sched_events_record(s->events, pod, "Warning", "FailedScheduling", "Scheduling",
				    prof->name, "skip schedule deleting pod: %s/%s", pod->meta.namespace,
				    pod->meta.name);
		return true;
	}
	return cache_is_assumed(s->cache, pod->meta.uid);
}

/* The other pods' nominations (preemption), borrowed for the cycle: *qn until the caller's
 * queue_nominated_release. *nom stays empty when there are none or they cannot be listed. */
static void borrow_nominated(struct attempt *a, struct queue_nominated **qn, uint32_t *n_qn, struct fw_nominated *nom)
{
	struct sched_attempt_scratch *ls = a->ls;
	if (queue_nominated_pods(a->s->queue, NULL, INT32_MIN, a->pod->meta.uid, qn, n_qn, &a->e) != 0 || !*n_qn)
		return;
	if (*n_qn > ls->cap_noms) {
		struct fw_nominated_pod *np = realloc(ls->noms, *n_qn * sizeof(*np));
		if (np) {
			ls->noms = np;
			ls->cap_noms = *n_qn;
		}
	}
	if (*n_qn > ls->cap_noms)
		return;
	for (uint32_t i = 0; i < *n_qn; i++)
		ls->noms[i] = (struct fw_nominated_pod){ (*qn)[i].node_name, (*qn)[i].pod };
	*nom = (struct fw_nominated){ *n_qn, ls->noms };
}

/* PostFilter (preemption) after a fit error: the node it nominates, or NULL. */
static const char *run_post_filter(struct attempt *a)
{
	struct sched_attempt_scratch *ls = a->ls;
	struct fw_post_filter_result pfr = { "" };
	struct fw_status st;
	enum fw_code pc = fw_run_post_filter(a->prof->fw, a->c, a->pod, &ls->res.diag, &pfr, &st);
	/* upstream DefaultPreemption.PostFilter counts each of its runs; DynamicResources, before
	 * it, ends the point with an error when its PreFilter did not run */
	if (a->prof->default_preemption && !(pc == FW_ERROR && st.plugin && strcmp(st.plugin, "DefaultPreemption") != 0))
		sched_metrics_preemption_attempt(a->prof->metrics);
	if (pc == FW_ERROR)
		LOG_ERROR("Status after running PostFilter plugins for pod %s/%s: %s", a->pod->meta.namespace,
			  a->pod->meta.name, fw_status_message(&st, ls->msg, sizeof(ls->msg)));
	return pfr.nominated_node_name; /* NULL: no result (keep); "": clear */
}

/* A FitError: the rejector sets go to the queue, which requeues the pod on their events. */
static bool fit_error(struct attempt *a)
{
	struct sched_attempt_scratch *ls = a->ls;
	const struct fw_diagnosis *d = &ls->res.diag;
	if (fw_profile_has_post_filter(a->prof->fw))
		a->nominated = run_post_filter(a);
	fw_fit_error_message(d, ls->msg, sizeof(ls->msg));
	a->f = (struct queue_failure){
		.unschedulable_plugins = d->unschedulable_plugins,
		.n_unschedulable_plugins = d->n_unschedulable_plugins,
		.pending_plugins = d->pending_plugins,
		.n_pending_plugins = d->n_pending_plugins,
	};
	a->failure = &a->f;
	return fail(a, true, ls->msg);
}

/* upstream's GetNodeHint and StoreScheduleResults metrics for a profile whose pods it does not sign:
 * there is never a batch state, so there is no work to time (0 s). */
static void batch_metrics_unsigned(struct sched_metrics *m, const char *profile, const struct fw_schedule_result *res)
{
	if (res->asked_hint)
		sched_metrics_batch_no_hint(m, profile, 0);
	if (res->code == FW_SUCCESS)
		sched_metrics_batch_stored(m, profile, res->feasible_nodes == 1, 0);
}

void sched_record_batch_metrics(struct sched_metrics *m, const char *profile, bool batches,
				const struct fw_schedule_result *res)
{
	const struct fw_batch_outcome *o = &res->batch;
	if (!batches) {
		batch_metrics_unsigned(m, profile, res);
		return;
	}
	if (!res->asked_hint)
		return;
	/* batch.go's order: the rescore and any flush inside GetNodeHint, then its deferred metrics */
	if (o->rescored)
		sched_metrics_batch_rescore(m, profile, (double)o->rescore_ns / 1e9);
	if (o->hint_flush != FW_FLUSH_NONE)
		sched_metrics_batch_flush(m, profile, fw_batch_flush_name(o->hint_flush));
	sched_metrics_batch_hint(m, profile, o->hint != NULL, (double)o->hint_ns / 1e9);
	if (!o->stored)
		return;
	if (o->attempt)
		sched_metrics_batch_attempt(m, profile, o->attempt);
	if (o->store_flush != FW_FLUSH_NONE)
		sched_metrics_batch_flush(m, profile, fw_batch_flush_name(o->store_flush));
	sched_metrics_batch_store(m, profile, (double)o->store_ns / 1e9);
}

static bool schedule_outcome(struct attempt *a, struct fw_schedule_result *res);

/* upstream schedulePod: a host for the pod on a fresh snapshot, or why there is none. */
static bool schedule_pod(struct attempt *a)
{
	struct scheduler *s = a->s;
	struct fw_schedule_result *res = &a->ls->res;
	if (cache_update_snapshot(s->cache, s->snap, &a->e) < 0)
		return fail(a, false, a->e.msg);
	struct fw_node_list list;
	fw_node_list_from_snapshot(s->snap, &list);

	struct queue_nominated *qn = NULL;
	uint32_t n_qn = 0;
	struct fw_nominated nom = { 0, NULL };
	borrow_nominated(a, &qn, &n_qn, &nom);
	fw_profile_set_cycle(a->prof->fw, s->batch_cycles);
	int rc = fw_schedule_pod(a->prof->fw, a->c, &list, a->pod, &nom, res, &a->e);
	/* the nominated pods stay borrowed through PostFilter: preemption filters with them */
	bool ok = rc < 0 ? fail(a, false, a->e.msg) : schedule_outcome(a, res);
	queue_nominated_release(qn, n_qn);
	return ok;
}

static bool schedule_outcome(struct attempt *a, struct fw_schedule_result *res)
{
	sched_record_batch_metrics(a->prof->metrics, a->prof->name, !a->prof->batch_metrics, res);
	switch (res->code) {
	case FW_SUCCESS:
		a->host = res->suggested_host;
		return true;
	case FW_UNSCHEDULABLE_AND_UNRESOLVABLE: /* ErrNoNodesAvailable: rejected, no rejector plugin */
		return fail(a, true, "no nodes available to schedule pods");
	case FW_UNSCHEDULABLE:
		return fit_error(a);
	default:
		fw_status_message(&res->status, a->ls->msg, sizeof(a->ls->msg));
		return fail(a, false, a->ls->msg);
	}
}

/* upstream assume: the cache counts the pod on host from now on, so the next cycle sees it. */
static bool assume(struct attempt *a)
{
	if (cache_assume_pod(a->s->cache, a->pod, a->host, &a->e) < 0)
		return fail(a, false, a->e.msg);
	queue_delete_nominated_pod(a->s->queue, a->pod->meta.uid);
	return true;
}

/* Reserve, then Permit; on failure the assumption is undone. */
static bool reserve_and_permit(struct attempt *a)
{
	struct sched_attempt_scratch *ls = a->ls;
	struct fw_status st;
	enum fw_code code = fw_run_reserve(a->prof->fw, a->c, a->pod, a->host, &st);
	if (code == FW_SUCCESS)
		code = fw_run_permit(a->prof->fw, a->c, a->pod, a->host, &a->permit_timeout_ms, &st);
	if (code == FW_SUCCESS || code == FW_WAIT) {
		a->permit_wait = code == FW_WAIT;
		a->permit_plugin = a->permit_wait ? st.plugin : NULL;
		return true;
	}
	sched_unreserve_and_forget(a->s, a->prof, a->c, a->pod, a->host);
	bool rejected = sched_failure_on_node(code, a->host, &st, ls->msg, sizeof(ls->msg), &a->f, &a->plugin);
	a->failure = rejected ? &a->f : NULL;
	return fail(a, rejected, ls->msg);
}

/* upstream schedulingCycle: a host, the pod assumed on it, Reserve and Permit passed. */
static bool scheduling_cycle(struct attempt *a)
{
	if (!schedule_pod(a))
		return false;
	/* upstream measures from the start of the attempt (snapshot included) */
	sched_metrics_algorithm_duration(a->s->metrics, sched_since_s(a->start));
	return assume(a) && reserve_and_permit(a);
}

/* The binding cycle runs on a binder thread (upstream: its own goroutine); the job takes qpi and
 * the cycle state. */
static bool hand_off(struct attempt *a)
{
	struct sched_bind_job *job = calloc(1, sizeof(*job));
	if (!job) {
		fw_run_unreserve(a->prof->fw, a->c, a->pod, a->host);
		cache_forget_pod(a->s->cache, a->pod, a->host, &a->e);
		return fail(a, false, "out of memory queueing the binding");
	}
	*job = (struct sched_bind_job){
		.prof = a->prof,
		.cycle = a->c,
		.qpi = a->qpi,
		.node_name = a->host,
		.permit_wait = a->permit_wait,
		.permit_timeout_ms = a->permit_timeout_ms,
		.permit_plugin = a->permit_plugin,
		.start_ns = a->start,
	};
	sched_cycle_flush_timings(a->prof, a->c); /* the scheduling cycle's; the binder adds its own */
	sched_binder_bind(a->s->binder, job);
	return true;
}

void sched_schedule_one(struct scheduler *s, struct sched_attempt_scratch *ls, struct queue_pod_info *qpi)
{
	struct api_pod *pod = qpi->pod;
	struct sched_profile *prof = sched_profile_for(s, pod);

	s->batch_cycles++; /* upstream's SchedulingCycle counts every pop, skipped pods too */
	if (skip_pod_schedule(s, prof, pod)) {
		atomic_fetch_add(&s->n_skipped, 1);
		queue_done(s->queue, pod->meta.uid);
		queue_pod_info_free(qpi);
		return;
	}
	atomic_fetch_add(&s->n_attempts, 1);
	int64_t start = api_now_ns();
	LOG_V(3, "Attempting to schedule pod %s/%s", pod->meta.namespace, pod->meta.name);
	struct fw_cycle *c = sched_cycle_get(prof);
	if (!c) {
		sched_handle_failure(s, prof, qpi, false, "out of memory creating the cycle state", NULL, "", start);
		return;
	}
	fw_cycle_set_record_plugin_timings(c, s->metrics && sample_plugin_metrics(ls));

	/* nominated "": upstream's clearNominatedNode, what every failure but a PostFilter's passes */
	struct attempt a = { .s = s, .ls = ls, .prof = prof, .c = c, .qpi = qpi, .pod = pod, .start = start,
			     .nominated = "" };
	if (scheduling_cycle(&a) && hand_off(&a))
		return;
	sched_cycle_put(prof, c);
	sched_handle_failure(s, prof, qpi, a.rejected, a.msg, a.failure, a.nominated, start);
}
