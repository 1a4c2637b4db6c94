/* Scheduler metrics registry: the families and their series, observations (rendering is in
 * metrics_render.c).
 *
 * DESIGN: the set of families is fixed (a static descriptor table mirroring upstream's
 * pkg/scheduler/metrics/metrics.go). Each family owns an insert-only, open-addressing table of
 * series keyed by its label values (its slots in chunks allocated on first use, so that a few
 * series take a few hundred bytes, not a page each). Observers find their series without a
 * lock: slots and chunks are atomic pointers published with release stores, and a series is
 * never moved or freed before sched_metrics_free. Only the first observation of a new label set
 * takes the family's mutex to insert it. A series' values are relaxed atomics: counters and
 * histogram buckets are uint64 adds, a histogram's sum is a CAS loop on the bits of a double.
 * Buckets are stored non-cumulatively (summed at render time). Lock order: refresh_lock
 * (metrics_render.c), then a family's insert_lock. */
#include "metrics_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/intern.h"
#include "common/log.h"

static const struct family_desc family_descs[F_COUNT] = {
	[F_LEADER] = {"leader_election_master_status",
		      "[ALPHA] Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 "
		      "indicates master. 'name' is the string used to identify the lease. Please make sure to group by "
		      "name.",
		      FAM_GAUGE, 1, {"name"}, 0, 0, 0},
	[F_EXTENDER] = {"csched_extender_duration_seconds",
			"Duration of calls to HTTP scheduler extenders by extender (urlPrefix), verb and result "
			"(success or error). csched's own: upstream has no extender latency metric.",
			FAM_HISTOGRAM, 3, {"extender", "verb", "result"}, 0.001, 2, 15},
	[F_DROPPED] = {"csched_metrics_dropped_observations_total",
		       "Observations dropped because their metric family had reached its series limit (a label "
		       "cardinality bug).",
		       FAM_COUNTER, 0, {0}, 0,
		       0, 0},
	[F_BATCH_ATTEMPTS] = {"scheduler_batch_attempts_total", "[ALPHA] Counts of results when we attempt to use batching.",
			      FAM_COUNTER, 2, {"profile", "result"}, 0, 0, 0},
	[F_BATCH_FLUSHED] = {"scheduler_batch_cache_flushed_total", "[ALPHA] Counts of cache flushes by reason.",
			     FAM_COUNTER, 2, {"profile", "reason"}, 0, 0, 0},
	[F_BATCH_RESCORE] = {"scheduler_batch_rescore_attempts_total",
			     "[ALPHA] Counts of rescore attempts during opportunistic batching.", FAM_COUNTER, 1,
			     {"profile"}, 0, 0, 0},
	[F_BATCH_RESCORE_DURATION] = {"scheduler_batch_rescore_duration_seconds",
				      "[ALPHA] Latency for rescoring a node during opportunistic batching.",
				      FAM_HISTOGRAM, 1, {"profile"}, 0.00001, 2, 12},
	[F_GET_NODE_HINT] = {"scheduler_get_node_hint_duration_seconds", "[ALPHA] Latency for getting a node hint.",
			     FAM_HISTOGRAM, 2, {"hinted", "profile"}, 0.00001, 2, 12},
	[F_STORE_RESULTS] = {"scheduler_store_schedule_results_duration_seconds",
			     "[ALPHA] Latency for storing scheduling results.", FAM_HISTOGRAM, 1, {"profile"}, 0.00001, 2,
			     12},
	[F_EXT_POINT] = {"scheduler_framework_extension_point_duration_seconds",
			 "[STABLE] Latency for running all plugins of a specific extension point.", FAM_HISTOGRAM, 3,
			 {"extension_point", "status", "profile"}, 0.0001, 2, 12},
	[F_PLUGIN] = {"scheduler_plugin_execution_duration_seconds",
		      "[ALPHA] Duration for running a plugin at a specific extension point.", FAM_HISTOGRAM, 3,
		      {"plugin", "extension_point", "status"}, 0.00001, 1.5, 20},
	[F_POD_ATTEMPTS] = {"scheduler_pod_scheduling_attempts",
			    "[STABLE] Number of attempts to successfully schedule a pod.", FAM_HISTOGRAM, 0, {0}, 1, 2,
			    5},
	[F_SLI] = {"scheduler_pod_scheduling_sli_duration_seconds",
		   "[BETA] E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue "
		   "and might involve multiple scheduling attempts.",
		   FAM_HISTOGRAM, 1, {"attempts"}, 0.01, 2, 20},
	[F_PREEMPT_ATTEMPTS] = {"scheduler_preemption_attempts_total",
				"[STABLE] Total preemption attempts in the cluster till now", FAM_COUNTER, 0, {0}, 0, 0,
				0},
	/* upstream registers it with SchedulerAsyncPreemption (on by default since v1.33). Its
	 * companion preemption_goroutines_duration_seconds (ALPHA, deprecated in 1.37.0) is hidden
	 * in v1.37 (component-base shouldHide: an ALPHA metric's deprecation period is 0 minors), so
	 * csched has none. */
	[F_PREEMPT_GOROUTINES] = {"scheduler_preemption_goroutines_execution_total",
				  "[ALPHA] Number of preemption goroutines executed.", FAM_COUNTER, 1, {"result"}, 0,
				  0, 0},
	[F_PREEMPT_VICTIMS] = {"scheduler_preemption_victims",
			       "[STABLE] Number of selected preemption victims for preemption initiated by a single pod",
			       FAM_HISTOGRAM, 0, {0}, 1, 2, 7},
	[F_QUEUE_INCOMING] = {"scheduler_queue_incoming_pods_total",
			      "[STABLE] Number of pods added to scheduling queues by event and queue type.",
			      FAM_COUNTER, 2, {"queue", "event"}, 0, 0, 0},
	[F_ATTEMPTS] = {"scheduler_schedule_attempts_total",
			"[STABLE] Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could "
			"not be scheduled, while 'error' means an internal scheduler problem.",
			FAM_COUNTER, 2, {"result", "profile"}, 0, 0, 0},
	[F_ALGORITHM] = {"scheduler_scheduling_algorithm_duration_seconds",
			 "[ALPHA] Scheduling algorithm latency in seconds", FAM_HISTOGRAM, 0, {0}, 0.001, 2, 15},
	[F_ATTEMPT_DURATION] = {"scheduler_scheduling_attempt_duration_seconds",
				"[STABLE] Scheduling attempt latency in seconds (scheduling algorithm + binding)",
				FAM_HISTOGRAM, 2, {"result", "profile"}, 0.001, 2, 15},
	[F_UNSCHEDULABLE] = {"scheduler_unschedulable_pods",
			     "[ALPHA] The number of unschedulable pods broken down by plugin name. A pod will "
			     "increment the gauge for all plugins that caused it to not schedule and so this metric "
			     "have meaning only when broken down by plugin.",
			     FAM_GAUGE, 2, {"plugin", "profile"}, 0, 0, 0},
};

static const char *const result_names[] = {
	[SCHED_METRICS_SCHEDULED] = "scheduled",
	[SCHED_METRICS_UNSCHEDULABLE] = "unschedulable",
	[SCHED_METRICS_ERROR] = "error",
};

/* ---------- Series lookup ---------- */

static uint32_t labels_hash(const char *const *v, int n)
{
	uint32_t h = 2166136261u;
	for (int i = 0; i < n; i++) {
		h ^= intern_hash_bytes(v[i], strlen(v[i]));
		h *= 16777619u;
	}
	return h;
}

static bool labels_equal(const struct series *s, const char *const *v, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s->labels[i], v[i]) != 0)
			return false;
	return true;
}

static struct series *series_alloc(const struct family *f, uint32_t hash, const char *const *v)
{
	int nb = f->d->type == FAM_HISTOGRAM ? f->d->nbuckets + 1 : 0;
	size_t head = sizeof(struct series) + (size_t)nb * sizeof(atomic_uint_least64_t);
	size_t total = head;
	for (int i = 0; i < f->d->nlabels; i++)
		total += strlen(v[i]) + 1;
	struct series *s = calloc(1, total);
	if (!s)
		return NULL;
	s->hash = hash;
	for (int i = 0; i < MAX_LABELS; i++)
		s->labels[i] = "";
	char *p = (char *)s + head;
	for (int i = 0; i < f->d->nlabels; i++) {
		size_t len = strlen(v[i]) + 1;
		memcpy(p, v[i], len);
		s->labels[i] = p;
		p += len;
	}
	/* calloc zeroed the atomics; atomic_init makes that explicit for C11 */
	atomic_init(&s->count, 0);
	atomic_init(&s->gauge, 0);
	atomic_init(&s->sum_bits, 0);
	for (int i = 0; i < nb; i++)
		atomic_init(&s->buckets[i], 0);
	return s;
}

/* Slot i's series, or NULL. */
static struct series *slot_load(struct family *f, size_t i)
{
	_Atomic(struct series *) *c = atomic_load_explicit(&f->chunks[i / SLOT_CHUNK], memory_order_acquire);
	return c ? atomic_load_explicit(&c[i % SLOT_CHUNK], memory_order_acquire) : NULL;
}

/* Publishes s in empty slot i (insert_lock held); false when out of memory. */
static bool slot_store(struct family *f, size_t i, struct series *s)
{
	_Atomic(struct series *) *c = atomic_load_explicit(&f->chunks[i / SLOT_CHUNK], memory_order_relaxed);
	if (!c) {
		if (!(c = calloc(SLOT_CHUNK, sizeof(*c))))
			return false;
		for (size_t k = 0; k < SLOT_CHUNK; k++)
			atomic_init(&c[k], NULL);
		atomic_store_explicit(&f->chunks[i / SLOT_CHUNK], c, memory_order_release);
	}
	atomic_store_explicit(&c[i % SLOT_CHUNK], s, memory_order_release);
	return true;
}

/* Probes for v; returns the series or NULL and, in *slot, where the probe ended. */
static struct series *family_probe(struct family *f, const char *const *v, uint32_t hash, size_t *slot)
{
	size_t mask = TABLE_SLOTS - 1, i = hash & mask;
	for (;;) {
		struct series *s = slot_load(f, i);
		if (!s || (s->hash == hash && labels_equal(s, v, f->d->nlabels))) {
			*slot = i;
			return s;
		}
		i = (i + 1) & mask;
	}
}

static void count_dropped(struct sched_metrics *m);

struct series *sched_metrics_family_series(struct sched_metrics *m, struct family *f, const char *const *v)
{
	/* no labels, or a NULL label value (a caller bug): such values become "" */
	const char *fixed[MAX_LABELS] = {"", "", ""};
	for (int i = 0; v && i < f->d->nlabels; i++)
		fixed[i] = v[i] ? v[i] : "";
	v = fixed;
	uint32_t hash = labels_hash(v, f->d->nlabels);
	size_t slot;
	struct series *s = family_probe(f, v, hash, &slot);
	if (s)
		return s;

	pthread_mutex_lock(&f->insert_lock);
	s = family_probe(f, v, hash, &slot); /* another thread may have inserted it meanwhile */
	if (!s) {
		size_t n = atomic_load_explicit(&f->nseries, memory_order_relaxed);
		if (n < SCHED_METRICS_MAX_SERIES && (s = series_alloc(f, hash, v))) {
			if (slot_store(f, slot, s)) {
				f->list[n] = s;
				atomic_store_explicit(&f->nseries, n + 1, memory_order_release);
			} else {
				free(s);
				s = NULL;
			}
		}
	}
	pthread_mutex_unlock(&f->insert_lock);
	if (!s)
		count_dropped(m);
	return s;
}

static void count_dropped(struct sched_metrics *m)
{
	struct family *f = &m->fam[F_DROPPED];
	struct series *s = f->list[0];
	if (atomic_fetch_add_explicit(&s->count, 1, memory_order_relaxed) == 0)
		LOG_WARN("metrics: a family reached %d series or memory ran out; further label sets are dropped",
			 SCHED_METRICS_MAX_SERIES);
}

/* ---------- Observations ---------- */

static void counter_inc(struct sched_metrics *m, int fam, const char *const *v)
{
	struct series *s = sched_metrics_family_series(m, &m->fam[fam], v);
	if (s)
		atomic_fetch_add_explicit(&s->count, 1, memory_order_relaxed);
}

static void gauge_set(struct sched_metrics *m, int fam, const char *const *v, int64_t value)
{
	struct series *s = sched_metrics_family_series(m, &m->fam[fam], v);
	if (s)
		atomic_store_explicit(&s->gauge, value, memory_order_relaxed);
}

/* Index of the first bucket whose upper bound is >= v (Prometheus buckets are "le"). */
static int bucket_index(const struct family *f, double v)
{
	int lo = 0, hi = f->d->nbuckets; /* hi = the +Inf bucket */
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (v <= f->bounds[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static void sum_add(struct series *s, double value)
{
	uint64_t old = atomic_load_explicit(&s->sum_bits, memory_order_relaxed), nw;
	do {
		double d;
		memcpy(&d, &old, sizeof d);
		d += value;
		memcpy(&nw, &d, sizeof nw);
	} while (!atomic_compare_exchange_weak_explicit(&s->sum_bits, &old, nw, memory_order_relaxed,
							memory_order_relaxed));
}

static void histogram_observe(struct sched_metrics *m, int fam, const char *const *v, double value)
{
	struct family *f = &m->fam[fam];
	struct series *s = sched_metrics_family_series(m, f, v);
	if (!s || isnan(value))
		return;
	atomic_fetch_add_explicit(&s->buckets[bucket_index(f, value)], 1, memory_order_relaxed);
	sum_add(s, value);
}

void sched_metrics_schedule_attempt(struct sched_metrics *m, enum sched_metrics_result result, const char *profile,
				    double seconds)
{
	if (!m)
		return;
	if ((unsigned)result > SCHED_METRICS_ERROR)
		result = SCHED_METRICS_ERROR;
	const char *v[] = {result_names[result], profile};
	counter_inc(m, F_ATTEMPTS, v);
	histogram_observe(m, F_ATTEMPT_DURATION, v, seconds);
}

void sched_metrics_batch_no_hint(struct sched_metrics *m, const char *profile, double seconds)
{
	if (!m)
		return;
	const char *attempt[] = {profile, "no_hint"}, *hint[] = {"no_hint", profile};
	counter_inc(m, F_BATCH_ATTEMPTS, attempt);
	histogram_observe(m, F_GET_NODE_HINT, hint, seconds);
}

void sched_metrics_batch_stored(struct sched_metrics *m, const char *profile, bool one_node, double seconds)
{
	if (!m)
		return;
	const char *store[] = {profile}, *flush[] = {profile, one_node ? "empty_list" : "pod_not_batchable"};
	histogram_observe(m, F_STORE_RESULTS, store, seconds);
	counter_inc(m, F_BATCH_FLUSHED, flush);
}

void sched_metrics_batch_hint(struct sched_metrics *m, const char *profile, bool hinted, double seconds)
{
	if (!m)
		return;
	const char *attempt[] = {profile, "no_hint"}, *hint[] = {hinted ? "hint" : "no_hint", profile};
	if (!hinted)
		counter_inc(m, F_BATCH_ATTEMPTS, attempt);
	histogram_observe(m, F_GET_NODE_HINT, hint, seconds);
}

void sched_metrics_batch_attempt(struct sched_metrics *m, const char *profile, const char *result)
{
	if (!m)
		return;
	const char *v[] = {profile, result};
	counter_inc(m, F_BATCH_ATTEMPTS, v);
}

void sched_metrics_batch_flush(struct sched_metrics *m, const char *profile, const char *reason)
{
	if (!m)
		return;
	const char *v[] = {profile, reason};
	counter_inc(m, F_BATCH_FLUSHED, v);
}

void sched_metrics_batch_store(struct sched_metrics *m, const char *profile, double seconds)
{
	if (!m)
		return;
	const char *v[] = {profile};
	histogram_observe(m, F_STORE_RESULTS, v, seconds);
}

void sched_metrics_batch_rescore(struct sched_metrics *m, const char *profile, double seconds)
{
	if (!m)
		return;
	const char *v[] = {profile};
	counter_inc(m, F_BATCH_RESCORE, v);
	histogram_observe(m, F_BATCH_RESCORE_DURATION, v, seconds);
}

void sched_metrics_algorithm_duration(struct sched_metrics *m, double seconds)
{
	if (m)
		histogram_observe(m, F_ALGORITHM, NULL, seconds);
}

void sched_metrics_pod_scheduled(struct sched_metrics *m, int attempts, double seconds)
{
	if (!m)
		return;
	char buf[16];
	/* upstream getAttemptsLabel: capped so the label cannot grow without bound */
	if (attempts >= 15)
		snprintf(buf, sizeof buf, "15+");
	else
		snprintf(buf, sizeof buf, "%d", attempts);
	const char *v[] = {buf};
	histogram_observe(m, F_SLI, v, seconds);
	histogram_observe(m, F_POD_ATTEMPTS, NULL, attempts);
}

void sched_metrics_extension_point_duration(struct sched_metrics *m, const char *extension_point,
					    const char *status, const char *profile, double seconds)
{
	if (!m)
		return;
	const char *v[] = {extension_point, status, profile};
	histogram_observe(m, F_EXT_POINT, v, seconds);
}

void sched_metrics_extender_duration(struct sched_metrics *m, const char *extender, const char *verb, bool ok,
				     double seconds)
{
	if (!m)
		return;
	const char *v[] = {extender, verb, ok ? "success" : "error"};
	histogram_observe(m, F_EXTENDER, v, seconds);
}

void sched_metrics_plugin_duration(struct sched_metrics *m, const char *plugin, const char *extension_point,
				   const char *status, double seconds)
{
	if (!m)
		return;
	const char *v[] = {plugin, extension_point, status};
	histogram_observe(m, F_PLUGIN, v, seconds);
}

void sched_metrics_plugin_durations(struct sched_metrics *m, const char *plugin, const char *extension_point,
				    const char *status, const uint64_t *buckets, size_t nbuckets, double sum)
{
	if (!m)
		return;
	struct family *f = &m->fam[F_PLUGIN];
	if (nbuckets != (size_t)f->d->nbuckets + 1) {
		count_dropped(m);
		return;
	}
	const char *v[] = {plugin, extension_point, status};
	struct series *s = sched_metrics_family_series(m, f, v);
	if (!s || isnan(sum))
		return;
	for (size_t i = 0; i < nbuckets; i++)
		if (buckets[i])
			atomic_fetch_add_explicit(&s->buckets[i], buckets[i], memory_order_relaxed);
	sum_add(s, sum);
}

void sched_metrics_preemption_attempt(struct sched_metrics *m)
{
	if (m)
		counter_inc(m, F_PREEMPT_ATTEMPTS, NULL);
}

void sched_metrics_preemption_victims(struct sched_metrics *m, int victims)
{
	if (m)
		histogram_observe(m, F_PREEMPT_VICTIMS, NULL, victims);
}

void sched_metrics_preemption_goroutine(struct sched_metrics *m, bool ok)
{
	if (!m)
		return;
	const char *v[] = {ok ? "success" : "error"};
	counter_inc(m, F_PREEMPT_GOROUTINES, v);
}

void sched_metrics_set_leader(struct sched_metrics *m, const char *lease_name, bool leader)
{
	if (!m)
		return;
	const char *v[] = {lease_name};
	gauge_set(m, F_LEADER, v, leader ? 1 : 0);
}

/* ---------- Lifecycle ---------- */

struct sched_metrics *sched_metrics_new(void)
{
	struct sched_metrics *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	pthread_mutex_init(&m->refresh_lock, NULL);
	for (int i = 0; i < F_COUNT; i++) {
		struct family *f = &m->fam[i];
		f->d = &family_descs[i];
		pthread_mutex_init(&f->insert_lock, NULL);
		atomic_init(&f->nseries, 0);
		/* f->chunks and f->list: calloc's zeroes are NULL pointers, lock-free atomics have no
		 * other state. Not writing them leaves the lists as untouched (non-resident) pages of
		 * calloc's mmap, except their first. */
		/* computed as Go's ExponentialBuckets does (repeated multiplication), so the
		 * boundaries print exactly as upstream's */
		double b = f->d->bucket_start;
		for (int j = 0; j < f->d->nbuckets; j++, b *= f->d->bucket_factor)
			f->bounds[j] = b;
	}
	/* families without labels always expose their single series, even at zero */
	for (int i = 0; i < F_COUNT; i++) {
		if (family_descs[i].nlabels == 0 && !sched_metrics_family_series(m, &m->fam[i], NULL)) {
			sched_metrics_free(m);
			return NULL;
		}
	}
	return m;
}

void sched_metrics_free(struct sched_metrics *m)
{
	if (!m)
		return;
	for (int i = 0; i < F_COUNT; i++) {
		struct family *f = &m->fam[i];
		size_t n = atomic_load(&f->nseries);
		for (size_t j = 0; j < n; j++)
			free(f->list[j]);
		for (size_t j = 0; j < TABLE_SLOTS / SLOT_CHUNK; j++)
			free((void *)atomic_load(&f->chunks[j]));
		pthread_mutex_destroy(&f->insert_lock);
	}
	pthread_mutex_destroy(&m->refresh_lock);
	free(m);
}

void sched_metrics_set_sources(struct sched_metrics *m, const struct sched_metrics_sources *src)
{
	if (m && src)
		m->src = *src;
}

bool sched_metrics_read(struct sched_metrics *m, const char *family, const char *const *labels, size_t nlabels,
			double *value)
{
	if (!m || !family)
		return false;
	for (int i = 0; i < F_COUNT; i++) {
		struct family *f = &m->fam[i];
		if (strcmp(f->d->name, family) != 0)
			continue;
		if (nlabels != (size_t)f->d->nlabels)
			return false;
		const char *v[MAX_LABELS] = {"", "", ""};
		for (size_t j = 0; j < nlabels; j++)
			v[j] = labels[j] ? labels[j] : "";
		size_t slot;
		struct series *s = family_probe(f, v, labels_hash(v, f->d->nlabels), &slot);
		if (!s)
			return false;
		if (f->d->type == FAM_COUNTER) {
			*value = (double)atomic_load(&s->count);
		} else if (f->d->type == FAM_GAUGE) {
			*value = (double)atomic_load(&s->gauge);
		} else {
			uint64_t total = 0;
			for (int b = 0; b <= f->d->nbuckets; b++)
				total += atomic_load(&s->buckets[b]);
			*value = (double)total;
		}
		return true;
	}
	return false;
}
