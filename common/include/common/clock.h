/* Clock reads, durations and deadlines, in int64_t nanoseconds.
 *
 * Deadlines and intervals are taken on CLOCK_MONOTONIC (mono_ns): the wall clock jumps (NTP,
 * an operator) and would stretch or cut a timeout. A condition variable with timed waits is made
 * by mono_cond_init, and its deadlines are ns_to_timespec(mono_ns() + d). */
#ifndef CSCHED_COMMON_CLOCK_H
#define CSCHED_COMMON_CLOCK_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000LL
#define NSEC_PER_MSEC 1000000LL

/* CLOCK_MONOTONIC in nanoseconds: deadlines and intervals. */
static inline int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* CLOCK_REALTIME in microseconds: timestamps written to the API server. */
static inline int64_t wall_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* ns (>= 0: a duration, or an absolute mono_ns time) as a timespec. */
static inline struct timespec ns_to_timespec(int64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / NSEC_PER_SEC), .tv_nsec = (long)(ns % NSEC_PER_SEC)};
	return ts;
}

/* Initialises a condition variable whose pthread_cond_timedwait deadlines are mono_ns times
 * (ns_to_timespec): every timed wait in csched uses one, so that a wall-clock step neither stalls
 * nor spins it. 0 or an errno value. */
static inline int mono_cond_init(pthread_cond_t *cond)
{
	pthread_condattr_t ca;
	int rc = pthread_condattr_init(&ca);
	if (rc == 0)
		rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (rc == 0)
		rc = pthread_cond_init(cond, &ca);
	pthread_condattr_destroy(&ca);
	return rc;
}

/* Sleeps ns (nothing when ns <= 0), resumed after a signal. */
static inline void sleep_ns(int64_t ns)
{
	if (ns <= 0)
		return;
	struct timespec ts = ns_to_timespec(ns);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

#endif
