/* The pod informer's handlers (scheduler.c) against upstream v1.37's eventhandlers.go, on a
 * scheduler that is never started (no server): nominations cleared, the AssignedPodDelete moves of
 * a released nomination (lower or equal priority only), and an assumed pod's deletion
 * (handleAssumedPodDeletion); and the binder pool's growth on demand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/intern.h"
#include "scheduler/sched_internal.h"
#include "testobj.h"

struct fixture {
	struct api_client *client;
	struct scheduler *s;
	struct api_informer_handlers h;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct err e = { 0 };
	struct api_config cfg = { 0 };
	cfg.server = strdup("http://127.0.0.1:1"); /* never contacted: nothing is started */
	assert_int_equal(api_global_init(&e), 0);
	f->client = api_client_new(&cfg, &e);
	assert_non_null(f->client);
	struct sched_options o = { .client = f->client, .binders = 1 };
	f->s = sched_new(&o, &e);
	if (!f->s)
		fail_msg("sched_new: %s", e.msg);
	sched_pod_handlers(f->s, &f->h);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	sched_free(f->s);
	api_client_free(f->client);
	free(f);
	return 0;
}

/* Queues pod and fails it with NodeResourcesFit: it waits in unschedulable for an event. */
static void park(struct fixture *f, struct api_pod *pod)
{
	struct err e = { 0 };
	f->h.on_add(f->h.ctx, pod);
	struct queue_pod_info *qpi = NULL;
	assert_int_equal(queue_try_pop(f->s->queue, &qpi), 0);
	assert_ptr_equal(qpi->pod, pod);
	const char *u[1] = { "NodeResourcesFit" };
	struct queue_failure fl = { .unschedulable_plugins = u, .n_unschedulable_plugins = 1 };
	assert_int_equal(queue_add_unschedulable_if_not_present(f->s->queue, qpi, &fl, &e), 0);
	assert_int_equal(queue_pod_tier(f->s->queue, pod->meta.uid), QUEUE_TIER_UNSCHEDULABLE);
}

static bool moved(struct fixture *f, const struct api_pod *pod)
{
	enum queue_tier t = queue_pod_tier(f->s->queue, pod->meta.uid);
	return t == QUEUE_TIER_ACTIVE || t == QUEUE_TIER_BACKOFF;
}

#define POD(n, prio, ...) TOBJ_POD(.name = n, .scheduler = "csched", .priority = prio, __VA_ARGS__)

/* upstream eventhandlers.go deletePodFromSchedulingQueue: the nomination goes with the pod
 * (PriorityQueue.Delete -> DeleteNominatedPodIfExists), and "when a pod that had nominated node
 * is deleted, it can unblock scheduling of other pods": AssignedPodDelete with the deleted pod,
 * for pods of lower or equal priority (getLEPriorityPreCheck); NodeResourcesFit's hint queues for
 * a deleted pod that was nominated (isSchedulableAfterAssignedPodDelete). */
static void test_nominated_pod_deleted(void **state)
{
	struct fixture *f = *state;
	struct api_pod *low = POD("low", "10", .rv = "1");
	struct api_pod *high = POD("high", "100", .rv = "1");
	park(f, low);
	park(f, high);
	struct api_pod *nom = POD("nom", "50", .rv = "1", .nominated = "n1");
	f->h.on_add(f->h.ctx, nom);
	assert_string_equal(queue_nominated_node(f->s->queue, nom->meta.uid), "n1");
	f->h.on_delete(f->h.ctx, nom);
	assert_null(queue_nominated_node(f->s->queue, nom->meta.uid));
	assert_true(moved(f, low));
	assert_false(moved(f, high)); /* higher priority: it never counted the nominated pod */
	api_pod_unref(low);
	api_pod_unref(high);
	api_pod_unref(nom);
}

/* upstream updatePodInSchedulingQueue: Update drops or moves the nomination
 * (UpdateNominatedPod), and hasNominatedNodeNameChanged moves the lower or equal priority pods
 * as an AssignedPodDelete of the old pod. */
static void test_nomination_removed_by_update(void **state)
{
	struct fixture *f = *state;
	struct api_pod *low = POD("low2", "10", .rv = "1");
	struct api_pod *high = POD("high2", "100", .rv = "1");
	park(f, low);
	park(f, high);
	struct api_pod *nom = POD("nom2", "50", .rv = "1", .nominated = "n1");
	struct api_pod *cleared = POD("nom2", "50", .rv = "2");
	f->h.on_add(f->h.ctx, nom);
	f->h.on_update(f->h.ctx, nom, cleared);
	assert_null(queue_nominated_node(f->s->queue, nom->meta.uid));
	assert_true(moved(f, low));
	assert_false(moved(f, high));
	api_pod_unref(low);
	api_pod_unref(high);
	api_pod_unref(nom);
	api_pod_unref(cleared);
}

/* upstream updatePod: a pod bound (by anyone) leaves the queue and its nomination
 * (deletePodFromSchedulingQueue(oldPod, inBinding=true)), with no nomination move of its own. */
static void test_nominated_pod_bound_elsewhere(void **state)
{
	struct fixture *f = *state;
	struct api_pod *low = POD("low3", "10", .rv = "1");
	park(f, low);
	struct api_pod *nom = POD("nom3", "50", .rv = "1", .nominated = "n1");
	struct api_pod *bound = POD("nom3", "50", .rv = "2", .nominated = "n1", .node = "n2");
	f->h.on_add(f->h.ctx, nom);
	f->h.on_update(f->h.ctx, nom, bound);
	assert_null(queue_nominated_node(f->s->queue, nom->meta.uid));
	assert_int_equal(queue_pod_tier(f->s->queue, nom->meta.uid), QUEUE_TIER_NONE);
	api_pod_unref(low);
	api_pod_unref(nom);
	api_pod_unref(bound);
}

/* upstream handleAssumedPodDeletion (from deletePodFromSchedulingQueue, and from
 * updatePodInSchedulingQueue when an assumed pod's deletionTimestamp appears): the assumed pod
 * leaves the cache at once and an AssignedPodDelete of the assumed pod (bound to its node) moves
 * the pods it may have blocked, whatever their priority. */
static void test_assumed_pod_deleted(void **state)
{
	struct fixture *f = *state;
	for (int via_update = 0; via_update < 2; via_update++) {
		char name[2][16];
		snprintf(name[0], sizeof(name[0]), "blocked%d", via_update);
		snprintf(name[1], sizeof(name[1]), "assumed%d", via_update);
		struct api_pod *blocked = POD(name[0], "100", .rv = "1");
		park(f, blocked);
		struct api_pod *a = POD(name[1], "0", .rv = "1");
		struct api_pod *a_del = POD(name[1], "0", .rv = "2");
		a_del->meta.being_deleted = true; /* deletionTimestamp set */
		struct err e = { 0 };
		f->h.on_add(f->h.ctx, a);
		struct queue_pod_info *qpi = NULL;
		assert_int_equal(queue_try_pop(f->s->queue, &qpi), 0);
		assert_ptr_equal(qpi->pod, a);
		assert_int_equal(cache_assume_pod(f->s->cache, a, "n1", &e), 0);
		assert_true(sched_cache_is_assumed(f->s, a->meta.uid));
		if (via_update)
			f->h.on_update(f->h.ctx, a, a_del);
		else
			f->h.on_delete(f->h.ctx, a);
		assert_false(sched_cache_is_assumed(f->s, a->meta.uid));
		assert_true(moved(f, blocked));
		queue_done(f->s->queue, a->meta.uid);
		queue_pod_info_free(qpi);
		api_pod_unref(blocked);
		api_pod_unref(a);
		api_pod_unref(a_del);
	}
}

/* upstream schedule_one.go handleBindingCycleError: forgetting the assumed pod is an
 * AssignedPodDelete of the assumed pod, whose spec.nodeName is the node it was assumed on
 * (schedulingCycle sets it), so NodeResourcesFit's hint queues the pods it blocked; an error
 * (not a rejection) moves them at once. Here the bind fails: the server does not answer. */
static void test_binding_error_moves_with_assumed_pod(void **state)
{
	struct fixture *f = *state;
	struct err e = { 0 };
	struct api_node *node = TOBJ_NODE(.name = "n1", .alloc = "cpu=4,memory=8Gi,pods=10");
	assert_int_equal(cache_add_node(f->s->cache, node, &e), 0);
	struct api_pod *blocked = POD("blocked-b", "100", .rv = "1", .containers = { { .req = "cpu=3" } });
	park(f, blocked);
	struct api_pod *a = POD("bound-b", "0", .rv = "1", .containers = { { .req = "cpu=2" } });
	f->h.on_add(f->h.ctx, a);
	struct queue_pod_info *qpi = NULL;
	assert_int_equal(queue_try_pop(f->s->queue, &qpi), 0);
	assert_ptr_equal(qpi->pod, a);
	struct sched_attempt_scratch *ls = sched_attempt_scratch_new();
	assert_non_null(ls);
	sched_schedule_one(f->s, ls, qpi); /* assumed on n1, handed to the (stopped) binder */
	assert_true(sched_cache_is_assumed(f->s, a->meta.uid));
	assert_false(moved(f, blocked));
	assert_int_equal(sched_binder_start(f->s->binder, &e), 0);
	for (int i = 0; i < 1000 && sched_cache_is_assumed(f->s, a->meta.uid); i++)
		sleep_ns(10 * NSEC_PER_MSEC);
	for (int i = 0; i < 100 && !moved(f, blocked); i++)
		sleep_ns(10 * NSEC_PER_MSEC);
	assert_false(sched_cache_is_assumed(f->s, a->meta.uid));
	assert_true(moved(f, blocked));
	sched_binder_stop(f->s->binder);
	sched_attempt_scratch_free(ls);
	api_pod_unref(blocked);
	api_pod_unref(a);
	api_node_unref(node);
}

/* The binder pool (binder.c) against a scheduler whose may_bind says no after a pause: every
 * status patch is then a slow no-op, so the jobs in flight are known without a server. With
 * pool_parks set, the pause is a parked one (as WaitOnPermit's and PreBind's polls are). */
static atomic_bool pool_parks;

static bool slow_may_bind(void *ctx)
{
	(void)ctx;
	bool park = atomic_load(&pool_parks);
	if (park)
		sched_binder_park(true);
	sleep_ns(20 * NSEC_PER_MSEC);
	if (park)
		sched_binder_park(false);
	return false;
}

static int setup_pool(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct err e = { 0 };
	struct api_config cfg = { 0 };
	cfg.server = strdup("http://127.0.0.1:1"); /* never contacted: may_bind says no */
	assert_int_equal(api_global_init(&e), 0);
	f->client = api_client_new(&cfg, &e);
	assert_non_null(f->client);
	struct sched_options o = { .client = f->client, .binders = 64, .may_bind = slow_may_bind };
	f->s = sched_new(&o, &e);
	if (!f->s)
		fail_msg("sched_new: %s", e.msg);
	*state = f;
	return 0;
}

static void push_patch(struct fixture *f, int i)
{
	char name[32];
	snprintf(name, sizeof(name), "p%d", i);
	struct api_pod *pod = POD(name, "0");
	char *body = strdup("{}");
	assert_non_null(body);
	struct sched_patch_job *j = sched_patch_job_new(pod, body, 2);
	assert_non_null(j);
	sched_binder_patch(f->s->binder, j);
	api_pod_unref(pod);
}

static void wait_drained(struct fixture *f)
{
	for (int i = 0; i < 1000 && sched_binder_pending(f->s->binder) > 0; i++)
		sleep_ns(NSEC_PER_MSEC);
	assert_int_equal(sched_binder_pending(f->s->binder), 0);
}

/* One job at a time needs one worker. The pool counted only the idle workers as takers, so the
 * push right after the start, while the first worker was still starting, started a second one
 * (and in a burst, one per push until the new threads ran), each with its stack, libcurl handle
 * and TLS connection. */
static void test_pool_sequential_jobs_one_worker(void **state)
{
	struct fixture *f = *state;
	struct err e = { 0 };
	assert_int_equal(sched_binder_start(f->s->binder, &e), 0);
	for (int i = 0; i < 10; i++) {
		push_patch(f, i);
		wait_drained(f);
	}
	assert_int_equal(sched_binder_threads(f->s->binder), 1);
	sched_binder_stop(f->s->binder);
}

/* Jobs that outnumber the workers still start more, up to one per queued job: a burst of 8
 * slow jobs runs on more than one thread and on at most 8. */
static void test_pool_grows_for_a_burst(void **state)
{
	struct fixture *f = *state;
	struct err e = { 0 };
	assert_int_equal(sched_binder_start(f->s->binder, &e), 0);
	for (int i = 0; i < 8; i++)
		push_patch(f, i);
	int64_t t0 = mono_ns();
	wait_drained(f);
	int n = sched_binder_threads(f->s->binder);
	assert_true(n > 1);
	assert_true(n <= 8);
	/* 8 x 20 ms one after the other would be 160 ms */
	print_message("burst of 8: %d workers, drained in %.0f ms\n", n, (double)(mono_ns() - t0) / 1e6);
	sched_binder_stop(f->s->binder);
}

/* A burst larger than SCHED_BINDER_ACTIVE: the pool stops at 16 workers (the muxer's transfer
 * slots), not one per job up to its maximum of 64 (each extra one a stack, a libcurl handle and a
 * binding cycle waiting for a slot). */
static void test_pool_active_workers_capped(void **state)
{
	struct fixture *f = *state;
	struct err e = { 0 };
	atomic_store(&pool_parks, false);
	assert_int_equal(sched_binder_start(f->s->binder, &e), 0);
	for (int i = 0; i < 48; i++)
		push_patch(f, i);
	wait_drained(f);
	int n = sched_binder_threads(f->s->binder);
	print_message("burst of 48: %d workers\n", n);
	assert_true(n > 1);
	assert_true(n <= SCHED_BINDER_ACTIVE);
	sched_binder_stop(f->s->binder);
}

/* Workers waiting without the network (parked) do not count: a burst of 48 jobs that each park
 * runs on more than 16 workers, so a long WaitOnPermit or PreBind poll never holds up the other
 * pods' binds. */
static void test_pool_parked_workers_do_not_count(void **state)
{
	struct fixture *f = *state;
	struct err e = { 0 };
	atomic_store(&pool_parks, true);
	assert_int_equal(sched_binder_start(f->s->binder, &e), 0);
	for (int i = 0; i < 48; i++)
		push_patch(f, i);
	wait_drained(f);
	int n = sched_binder_threads(f->s->binder);
	print_message("burst of 48 parking jobs: %d workers\n", n);
	assert_true(n > SCHED_BINDER_ACTIVE);
	assert_true(n <= 48);
	sched_binder_stop(f->s->binder);
	atomic_store(&pool_parks, false);
	sched_binder_park(true); /* not a binder thread: nothing happens */
	sched_binder_park(false);
}

/* The scheduling loop's wait for room in the binder's queue (binder.c): false on timeout while
 * the queue is full (not started: nothing takes a job), true as soon as workers take jobs (well
 * before the timeout: a taken job signals the waiter), and a stop wakes a waiter at once. */
struct room_waiter {
	struct sched_binder *b;
	bool room;
	int64_t took_ns;
};

static void *wait_room_thread(void *arg)
{
	struct room_waiter *w = arg;
	int64_t t0 = mono_ns();
	w->room = sched_binder_wait_room(w->b, 1, 10 * NSEC_PER_SEC);
	w->took_ns = mono_ns() - t0;
	return NULL;
}

static void test_wait_room(void **state)
{
	struct fixture *f = *state;
	struct err e = { 0 };
	struct sched_binder *b = f->s->binder;
	for (int i = 0; i < 6; i++)
		push_patch(f, i);
	int64_t t0 = mono_ns();
	assert_false(sched_binder_wait_room(b, 6, 30 * NSEC_PER_MSEC));
	assert_true(mono_ns() - t0 >= 30 * NSEC_PER_MSEC);
	assert_true(sched_binder_wait_room(b, 7, 0));

	assert_int_equal(sched_binder_start(b, &e), 0);
	t0 = mono_ns();
	assert_true(sched_binder_wait_room(b, 1, 5 * NSEC_PER_SEC)); /* every job taken */
	assert_true(mono_ns() - t0 < 2 * NSEC_PER_SEC);
	wait_drained(f);
	sched_binder_stop(b);

	/* a waiter on a full queue of a stopped pool: the stop wakes it */
	push_patch(f, 7);
	struct room_waiter w = { .b = b };
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, wait_room_thread, &w), 0);
	sleep_ns(20 * NSEC_PER_MSEC);
	sched_binder_stop(b); /* runs the queued job inline, then returns */
	pthread_join(th, NULL);
	assert_true(w.took_ns < 5 * NSEC_PER_SEC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_nominated_pod_deleted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nomination_removed_by_update, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nominated_pod_bound_elsewhere, setup, teardown),
		cmocka_unit_test_setup_teardown(test_assumed_pod_deleted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_binding_error_moves_with_assumed_pod, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pool_sequential_jobs_one_worker, setup_pool, teardown),
		cmocka_unit_test_setup_teardown(test_pool_grows_for_a_burst, setup_pool, teardown),
		cmocka_unit_test_setup_teardown(test_pool_active_workers_capped, setup_pool, teardown),
		cmocka_unit_test_setup_teardown(test_pool_parked_workers_do_not_count, setup_pool, teardown),
		cmocka_unit_test_setup_teardown(test_wait_room, setup_pool, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
