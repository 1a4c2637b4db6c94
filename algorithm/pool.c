/* Fixed worker pool for the parallel Filter and Score loops (upstream's Parallelizer.Until).
 *
 * DESIGN: parallelism-1 threads started once; the caller of fw_pool_run is the last worker.
 * A job is published under the lock with a new generation number; workers wake, then take
 * chunks of indices with an atomic counter (no lock while running pieces), and report done
 * under the lock. fw_pool_run returns once every worker has finished the job, so everything the
 * pieces wrote happens-before the caller's reads (mutex hand-off). Only one thread (the
 * scheduler) calls fw_pool_run; a second concurrent caller would be a bug, caught by an assert.
 * A job too small for more than one chunk runs inline without waking anyone. */
#include "algorithm/framework.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct fw_pool {
	int parallelism;
	int n_threads;
	pthread_t *threads;

	/* lock guards everything below except the atomics; a leaf lock (nothing else is taken
	 * while holding it). */
	pthread_mutex_t lock;
	pthread_cond_t work_cv; /* workers wait for a new generation or closing */
	pthread_cond_t done_cv; /* the caller waits for active == 0 */
	uint64_t generation;
	int active; /* workers still running the current job */
	bool closing;
	bool running; /* a fw_pool_run is in progress */

	/* the current job (written under lock before the generation bump, read-only after) */
	void (*fn)(void *ctx, size_t i);
	void *ctx;
	size_t n, chunk;
	_Atomic bool *stop;
	_Atomic size_t next; /* next unclaimed index */
};

static size_t chunk_size(size_t n, int parallelism)
{
	/* upstream chunkSizeFor: sqrt(n), at most n/parallelism + 1, at least 1 */
	size_t s = (size_t)sqrt((double)n);
	size_t r = n / (size_t)parallelism + 1;
	if (s > r)
		s = r;
	return s ? s : 1;
}

static void run_pieces(struct fw_pool *p, void (*fn)(void *, size_t), void *ctx, size_t n, size_t chunk,
		       _Atomic bool *stop)
{
	for (;;) {
		if (stop && atomic_load_explicit(stop, memory_order_relaxed))
			return;
		size_t start = atomic_fetch_add(&p->next, chunk);
		if (start >= n)
			return;
		size_t end = start + chunk < n ? start + chunk : n;
		for (size_t i = start; i < end; i++) {
			if (stop && atomic_load_explicit(stop, memory_order_relaxed))
				return;
			fn(ctx, i);
		}
	}
}

static void *worker_main(void *arg)
{
	struct fw_pool *p = arg;
	uint64_t seen = 0;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->closing && p->generation == seen)
			pthread_cond_wait(&p->work_cv, &p->lock);
		if (p->closing)
			break;
		seen = p->generation;
		void (*fn)(void *, size_t) = p->fn;
		void *ctx = p->ctx;
		size_t n = p->n, chunk = p->chunk;
		_Atomic bool *stop = p->stop;
		pthread_mutex_unlock(&p->lock);

		run_pieces(p, fn, ctx, n, chunk, stop);

		pthread_mutex_lock(&p->lock);
		if (--p->active == 0)
			pthread_cond_signal(&p->done_cv);
	}
	pthread_mutex_unlock(&p->lock);
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
	p->closing = true;
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

void fw_pool_run(struct fw_pool *p, size_t n, void (*fn)(void *ctx, size_t i), void *ctx, _Atomic bool *stop)
{
	if (!n)
		return;
	if (!p || !p->n_threads) {
		for (size_t i = 0; i < n; i++) {
			if (stop && atomic_load_explicit(stop, memory_order_relaxed))
				return;
			fn(ctx, i);
		}
		return;
	}
	size_t chunk = chunk_size(n, p->parallelism);
	if (chunk >= n) {
		atomic_store(&p->next, 0);
		run_pieces(p, fn, ctx, n, chunk, stop);
		return;
	}
	pthread_mutex_lock(&p->lock);
	assert(!p->running);
	p->running = true;
	p->fn = fn;
	p->ctx = ctx;
	p->n = n;
	p->chunk = chunk;
	p->stop = stop;
	atomic_store(&p->next, 0);
	p->active = p->n_threads;
	p->generation++;
	pthread_cond_broadcast(&p->work_cv);
	pthread_mutex_unlock(&p->lock);

	run_pieces(p, fn, ctx, n, chunk, stop);

	pthread_mutex_lock(&p->lock);
	while (p->active > 0)
		pthread_cond_wait(&p->done_cv, &p->lock);
	p->running = false;
	pthread_mutex_unlock(&p->lock);
}
