/* Client-side rate limiter: a token bucket of `burst` tokens refilled at `qps` per second, as
 * client-go's flowcontrol.NewTokenBucketRateLimiter (golang.org/x/time/rate): the bucket starts
 * full, each request takes one token, and a request that finds the bucket empty reserves the
 * next token and waits for it.
 *
 * DESIGN
 * Kept as a "theoretical arrival time" (GCRA) in integer nanoseconds, which is the same bucket
 * without floating-point drift: tat is the time at which the bucket would be full again if no
 * further request came. A request at now moves tat to max(tat, now) + interval and must wait
 * until tat - burst * interval. Shared by every thread of a client: l->lock guards tat (a leaf
 * lock: nothing else is taken while it is held). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "apiclient/api_client.h"
#include "common/clock.h"

struct api_limiter {
	int64_t interval_ns; /* 1e9 / qps; 0 = unlimited */
	int64_t burst_ns;    /* burst * interval_ns */
	pthread_mutex_t lock; /* guards tat; leaf lock */
	int64_t tat;          /* see DESIGN */
	bool started;         /* tat set by a first request */
};

struct api_limiter *api_limiter_new(double qps, int burst)
{
	struct api_limiter *l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	if (qps > 0 && isfinite(qps)) {
		double iv = 1e9 / qps;
		/* At least 1 ns per token: a qps above 1e9 is as good as unlimited. */
		l->interval_ns = iv < 1 ? 1 : (int64_t)llround(iv);
		if (burst < 1)
			burst = 1; /* a zero bucket would block forever; client-go's default is 10 */
		l->burst_ns = (int64_t)burst * l->interval_ns;
	}
	pthread_mutex_init(&l->lock, NULL);
	return l;
}

void api_limiter_free(struct api_limiter *l)
{
	if (!l)
		return;
	pthread_mutex_destroy(&l->lock);
	free(l);
}

int64_t api_limiter_reserve(struct api_limiter *l, int64_t now_ns)
{
	if (!l || l->interval_ns == 0)
		return 0;
	pthread_mutex_lock(&l->lock);
	if (!l->started) {
		l->tat = now_ns; /* full bucket */
		l->started = true;
	}
	int64_t tat = l->tat > now_ns ? l->tat : now_ns;
	tat += l->interval_ns;
	l->tat = tat;
	pthread_mutex_unlock(&l->lock);
	int64_t wait = tat - l->burst_ns - now_ns;
	return wait > 0 ? wait : 0;
}

void api_limiter_wait(struct api_limiter *l)
{
	sleep_ns(api_limiter_reserve(l, api_now_ns()));
}
