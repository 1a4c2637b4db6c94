/* Fixed worker pool for the parallel Filter and Score loops (upstream's Parallelizer.Until).
 *
 * DESIGN: parallelism-1 helper threads started once; the caller of fw_pool_run takes part too.
 * A loop over ~500 nodes is 10-50 us of work, about what waking a sleeping thread costs, so the
 * pool hands work over without sleeping where it can and never has more threads awake than can
 * run:
 *
 * - At most max_helpers helpers are active (hold a slot): parallelism-1, and never more than the
 *   CPUs this process may run on minus one (the caller). With parallelism 16 on 2 CPUs one helper
 *   is active and 14 sleep. A job invites at most max_helpers helpers. Loops of fewer than
 *   FW_POOL_MIN_PARALLEL indices, or that fit in one chunk, run inline.
 * - Helpers take chunks of indices with an atomic counter (upstream's chunk size). An active
 *   helper that finishes spins for SPIN_NS, watching for the next job, before it gives up its
 *   slot and sleeps on work_cv: the score loop follows the filter loop of the same pod, and the
 *   next pod's filter loop follows soon, so a busy scheduler hands jobs over without a futex
 *   call. Every spin loop yields the CPU every ~2 us: when the other CPUs are busy elsewhere the
 *   thread it waits for may be queued behind it on the same CPU. The caller signals sleepers
 *   only when fewer helpers are active (or already signalled) than the job invites; a woken
 *   helper that finds every slot taken sleeps again.
 * - Joining is claiming one of the job's invitations (a CAS on `invites`); the count a helper
 *   claimed numbers it within the job (fw_pool_run_w's worker index, 1..want; the caller is 0),
 *   so per-worker state needs no atomics. The caller closes the job when it runs out of pieces
 *   (invites = -1, so nobody joins late) and waits, spinning then sleeping on done_cv, until
 *   every helper that joined has finished. Everything the pieces wrote happens-before the
 *   caller's reads (release increments of `finished`, acquire loads).
 *
 * The job's fields (fn, fn_w, want, ctx, n, chunk, stop) are written by the caller before it
 * opens the invitations (release) and read by a helper only after a successful claim (acquire). Only one
 * thread (the scheduler) calls fw_pool_run; a second concurrent caller would be a bug, caught
 * by an assert. Going to sleep and waking use the Dekker pattern on seq_cst atomics (a helper
 * gives up its slot, then re-checks seq; the caller publishes seq, then reads the slots), with
 * the mutex held across the re-check and the wait so that no signal is lost. */
#include "algorithm/framework.h"
#include "common/clock.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Below this many indices a loop runs inline: handing work over (~2 us) costs more than it
 * saves. Measured on 2 CPUs with ~40 ns per index (what a default-plugin Filter or Score of one
 * node costs): 64 indices 2.4 us inline vs 2.8 us shared, 128 indices 4.8 vs 3.8 us. */
#define FW_POOL_MIN_PARALLEL 128
/* How long an idle active helper watches for the next job, and how long the caller spins for its
 * helpers to finish, before sleeping. */
#define SPIN_NS 50000
#define CALLER_SPIN_NS 200000

struct fw_pool {
	int parallelism;
	int n_threads;
	int max_helpers; /* active helpers at most: min(n_threads, usable CPUs - 1) */
	atomic_bool inline_only; /* fw_pool_set_inline */
	pthread_t *threads;

	/* lock guards nothing but sleeping: helpers wait on work_cv for a new seq (or closing), the
	 * caller on done_cv for its helpers. A leaf lock, never held while running pieces. */
	pthread_mutex_t lock;
	pthread_cond_t work_cv;
	pthread_cond_t done_cv;
	_Atomic int slots;            /* active helpers (working or spinning) */
	_Atomic int sleepers;         /* helpers waiting (or about to) on work_cv */
	_Atomic int waking;           /* signals sent to sleepers that have not woken up yet */
	_Atomic bool caller_sleeping; /* the caller waits (or is about to) on done_cv */
	_Atomic bool closing;

	_Atomic uint64_t seq; /* bumped when a job opens */
	_Atomic int invites;  /* invitations left in the current job; -1 = closed */
	_Atomic int finished; /* helpers done with the current job */
	bool running;         /* a fw_pool_run is in progress (caller only) */

	/* the current job: written before invites opens, read after a claim */
	void (*fn)(void *ctx, size_t i);
	void (*fn_w)(void *ctx, int worker, size_t i); /* instead of fn (fw_pool_run_w) */
	void *ctx;
	size_t n, chunk;
	int want; /* invitations the job opened with: helper k (1..want) claimed invites == want-k+1 */
	_Atomic bool *stop;
	_Atomic size_t next; /* next unclaimed index */
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* CPUs this process may run on (affinity), at least 1. */
static int usable_cpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		int n = CPU_COUNT(&set);
		if (n > 0)
			return n;
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

static size_t chunk_size(size_t n, int parallelism)
{
	/* upstream chunkSizeFor: sqrt(n), at most n/parallelism + 1, at least 1 */
	size_t s = (size_t)sqrt((double)n);
	size_t r = n / (size_t)parallelism + 1;
	if (s > r)
		s = r;
	return s ? s : 1;
}

static void run_pieces(struct fw_pool *p, void (*fn)(void *, size_t), void (*fn_w)(void *, int, size_t),
		       int worker, void *ctx, size_t n, size_t chunk, _Atomic bool *stop)
{
	for (;;) {
		if (stop && atomic_load_explicit(stop, memory_order_relaxed))
			return;
		size_t start = atomic_fetch_add_explicit(&p->next, chunk, memory_order_relaxed);
		if (start >= n)
			return;
		size_t end = start + chunk < n ? start + chunk : n;
		for (size_t i = start; i < end; i++) {
			if (stop && atomic_load_explicit(stop, memory_order_relaxed))
				return;
			if (fn_w)
				fn_w(ctx, worker, i);
			else
				fn(ctx, i);
		}
	}
}

/* Claims an invitation to the current job; *worker: this helper's index in it (1..want, distinct
 * among the job's helpers since each claims a different count). */
static bool try_join(struct fw_pool *p, int *worker)
{
	int v = atomic_load_explicit(&p->invites, memory_order_relaxed);
	while (v > 0)
		if (atomic_compare_exchange_weak_explicit(&p->invites, &v, v - 1, memory_order_acquire,
							  memory_order_relaxed)) {
			*worker = p->want - v + 1;
			return true;
		}
	return false;
}

/* Takes an active slot if one is free. */
static bool acquire_slot(struct fw_pool *p)
{
	int v = atomic_load(&p->slots);
	while (v < p->max_helpers)
		if (atomic_compare_exchange_weak(&p->slots, &v, v + 1))
			return true;
	return false;
}

/* An active helper watches for a job newer than seen (or closing); false after SPIN_NS. */
static bool spin_for_job(struct fw_pool *p, uint64_t seen)
{
	int64_t deadline = 0;
	for (uint32_t k = 0;; k++) {
		if (atomic_load(&p->seq) != seen || atomic_load_explicit(&p->closing, memory_order_relaxed))
			return true;
		cpu_relax();
		if ((k & 63) == 0) {
			int64_t now = mono_ns();
			if (!deadline)
				deadline = now + SPIN_NS;
			else if (now >= deadline)
				return false;
			/* the caller may be waiting for this CPU (the other one busy elsewhere) */
			sched_yield();
		}
	}
}

/* Gives up the slot (if held) and sleeps until signalled with a job newer than seen, or
 * closing. Returns whether it came back holding a slot (not when every slot is taken). */
static bool sleep_for_job(struct fw_pool *p, uint64_t seen, bool holding)
{
	pthread_mutex_lock(&p->lock);
	if (holding)
		atomic_fetch_sub(&p->slots, 1);
	atomic_fetch_add(&p->sleepers, 1);
	while (atomic_load(&p->seq) == seen && !atomic_load(&p->closing))
		pthread_cond_wait(&p->work_cv, &p->lock);
	atomic_fetch_sub(&p->sleepers, 1);
	if (atomic_load(&p->waking) > 0) /* (under the lock, as the signals are sent) */
		atomic_fetch_sub(&p->waking, 1);
	bool got = acquire_slot(p);
	pthread_mutex_unlock(&p->lock);
	return got;
}

static void *worker_main(void *arg)
{
	struct fw_pool *p = arg;
	uint64_t seen = 0;
	bool slot = acquire_slot(p);
	for (;;) {
		if (!slot || !spin_for_job(p, seen))
			slot = sleep_for_job(p, seen, slot);
		if (atomic_load(&p->closing))
			break;
		uint64_t s = atomic_load(&p->seq);
		if (s == seen)
			continue;
		seen = s;
		int worker;
		if (!slot || !try_join(p, &worker))
			continue; /* enough helpers, or the job is over */
		run_pieces(p, p->fn, p->fn_w, worker, p->ctx, p->n, p->chunk, p->stop);
		atomic_fetch_add_explicit(&p->finished, 1, memory_order_seq_cst);
		if (atomic_load(&p->caller_sleeping)) {
			pthread_mutex_lock(&p->lock);
			pthread_cond_signal(&p->done_cv);
			pthread_mutex_unlock(&p->lock);
		}
	}
	if (slot)
		atomic_fetch_sub(&p->slots, 1);
	return NULL;
}

struct fw_pool *fw_pool_new(int parallelism, struct err *e)
{
	if (parallelism < 1) {
		err_set(e, ERR_INVALID, "parallelism: must be at least 1, got %d", parallelism);
		return NULL;
	}
	struct fw_pool *p = calloc(1, sizeof(*p));
	if (!p) {
		err_set(e, ERR_NOMEM, "worker pool: out of memory");
		return NULL;
	}
	p->parallelism = parallelism;
	int cpus = usable_cpus();
	p->max_helpers = parallelism - 1 < cpus - 1 ? parallelism - 1 : cpus - 1;
	atomic_init(&p->slots, 0);
	atomic_init(&p->sleepers, 0);
	atomic_init(&p->waking, 0);
	atomic_init(&p->caller_sleeping, false);
	atomic_init(&p->closing, false);
	atomic_init(&p->seq, 0);
	atomic_init(&p->invites, -1);
	atomic_init(&p->finished, 0);
	atomic_init(&p->next, 0);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work_cv, NULL);
	pthread_cond_init(&p->done_cv, NULL);
	if (parallelism > 1) {
		p->threads = calloc((size_t)parallelism - 1, sizeof(*p->threads));
		if (!p->threads) {
			err_set(e, ERR_NOMEM, "worker pool: out of memory");
			fw_pool_free(p);
			return NULL;
		}
		for (int i = 0; i < parallelism - 1; i++) {
			int rc = pthread_create(&p->threads[i], NULL, worker_main, p);
			if (rc) {
				err_set(e, ERR_NOMEM, "worker pool: starting thread %d of %d: %s", i + 1,
					parallelism - 1, strerror(rc));
				fw_pool_free(p);
				return NULL;
			}
			p->n_threads++;
		}
	}
	return p;
}

void fw_pool_free(struct fw_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	atomic_store(&p->closing, true);
	pthread_cond_broadcast(&p->work_cv);
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < p->n_threads; i++)
		pthread_join(p->threads[i], NULL);
	free(p->threads);
	pthread_cond_destroy(&p->done_cv);
	pthread_cond_destroy(&p->work_cv);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

int fw_pool_parallelism(const struct fw_pool *p)
{
	return p ? p->parallelism : 1;
}

int fw_pool_workers(const struct fw_pool *p)
{
	return p ? p->max_helpers + 1 : 1;
}

static void run_inline(size_t n, void (*fn)(void *ctx, size_t i), void (*fn_w)(void *, int, size_t), void *ctx,
		       _Atomic bool *stop)
{
	for (size_t i = 0; i < n; i++) {
		if (stop && atomic_load_explicit(stop, memory_order_relaxed))
			return;
		if (fn_w)
			fn_w(ctx, 0, i);
		else
			fn(ctx, i);
	}
}

/* Waits until every one of the job's `joined` helpers has finished. */
static void wait_helpers(struct fw_pool *p, int joined)
{
	int64_t deadline = 0;
	for (uint32_t k = 0; atomic_load_explicit(&p->finished, memory_order_acquire) < joined; k++) {
		cpu_relax();
		if ((k & 63) != 0)
			continue;
		sched_yield(); /* a helper may be waiting for this CPU */
		int64_t now = mono_ns();
		if (!deadline) {
			deadline = now + CALLER_SPIN_NS;
		} else if (now >= deadline) {
			pthread_mutex_lock(&p->lock);
			atomic_store(&p->caller_sleeping, true);
			while (atomic_load(&p->finished) < joined)
				pthread_cond_wait(&p->done_cv, &p->lock);
			atomic_store(&p->caller_sleeping, false);
			pthread_mutex_unlock(&p->lock);
			return;
		}
	}
}

static void pool_run(struct fw_pool *p, size_t n, void (*fn)(void *ctx, size_t i),
		     void (*fn_w)(void *ctx, int worker, size_t i), void *ctx, _Atomic bool *stop)
{
	if (!n)
		return;
	if (!p || !p->max_helpers || n < FW_POOL_MIN_PARALLEL ||
	    atomic_load_explicit(&p->inline_only, memory_order_relaxed)) {
		run_inline(n, fn, fn_w, ctx, stop);
		return;
	}
	size_t chunk = chunk_size(n, p->parallelism);
	size_t chunks = (n + chunk - 1) / chunk;
	if (chunks < 2) {
		run_inline(n, fn, fn_w, ctx, stop);
		return;
	}
	int want = chunks - 1 < (size_t)p->max_helpers ? (int)(chunks - 1) : p->max_helpers;
	assert(!p->running);
	p->running = true;
	p->fn = fn;
	p->fn_w = fn_w;
	p->want = want;
	p->ctx = ctx;
	p->n = n;
	p->chunk = chunk;
	p->stop = stop;
	atomic_store_explicit(&p->next, 0, memory_order_relaxed);
	atomic_store_explicit(&p->finished, 0, memory_order_relaxed);
	atomic_store_explicit(&p->invites, want, memory_order_release);
	atomic_fetch_add(&p->seq, 1);
	/* active helpers (idle: the last job's have finished) will see the new seq, and so will
	 * sleepers already signalled (a loaded machine may take long to run them: do not signal
	 * them again); wake sleepers for the invitations left */
	int wake = want - atomic_load(&p->slots) - atomic_load(&p->waking);
	if (wake > 0 && atomic_load(&p->sleepers) > 0) {
		pthread_mutex_lock(&p->lock);
		int idle = atomic_load(&p->sleepers) - atomic_load(&p->waking);
		if (wake > idle)
			wake = idle;
		for (int i = 0; i < wake; i++)
			pthread_cond_signal(&p->work_cv);
		if (wake > 0)
			atomic_fetch_add(&p->waking, wake);
		pthread_mutex_unlock(&p->lock);
	}

	run_pieces(p, fn, fn_w, 0, ctx, n, chunk, stop);

	/* close the job: whoever has not joined yet will not */
	int left = atomic_exchange(&p->invites, -1);
	int joined = want - (left > 0 ? left : 0);
	wait_helpers(p, joined);
	p->running = false;
}

void fw_pool_set_inline(struct fw_pool *p, bool inline_only)
{
	if (p)
		atomic_store_explicit(&p->inline_only, inline_only, memory_order_relaxed);
}

void fw_pool_run(struct fw_pool *p, size_t n, void (*fn)(void *ctx, size_t i), void *ctx, _Atomic bool *stop)
{
	pool_run(p, n, fn, NULL, ctx, stop);
}

void fw_pool_run_w(struct fw_pool *p, size_t n, void (*fn)(void *ctx, int worker, size_t i), void *ctx,
		   _Atomic bool *stop)
{
	pool_run(p, n, NULL, fn, ctx, stop);
}
