/* Scheduler metrics registry and Prometheus text rendering.
 *
 * DESIGN: the set of families is fixed (a static descriptor table mirroring upstream's
 * pkg/scheduler/metrics/metrics.go). Each family owns an insert-only, open-addressing table of
 * series keyed by its label values. Observers find their series without a lock: slots are
 * atomic pointers published with release stores, and a series is never moved or freed before
 * sched_metrics_free. Only the first observation of a new label set takes the family's mutex to
 * insert it. A series' values are relaxed atomics: counters and histogram buckets are uint64
 * adds, a histogram's sum is a CAS loop on the bits of a double. Buckets are stored
 * non-cumulatively and summed at render time, and _count is rendered as that sum, so a scrape
 * racing an observation still shows cumulative buckets whose +Inf equals _count (the sum may
 * lag by that one observation, as with any lock-free histogram). Rendering walks the series
 * list (append-only, its length published with a release store), sorts by label values for a
 * stable output, and formats numbers like Go's strconv.FormatFloat(v, 'g', -1, 64), the format
 * client_golang writes.
 *
 * Source-fed families (incoming pods, unschedulable pods) live in the same series tables but
 * are written only by a render: it copies the source's rows (the source holds its own lock while
 * emitting), then under refresh_lock stores them into the series and renders the family, so two
 * concurrent scrapes cannot interleave their zero-and-set. Lock order: refresh_lock, then a
 * family's insert_lock. */
#include "scheduler/metrics.h"

#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/intern.h"
#include "common/log.h"
#include "common/strbuf.h"

#define MAX_LABELS 3
#define MAX_BUCKETS 20
#define TABLE_SLOTS (2 * SCHED_METRICS_MAX_SERIES) /* load factor <= 1/2 */

enum fam_type { FAM_COUNTER, FAM_GAUGE, FAM_HISTOGRAM };

struct family_desc {
	const char *name;
	const char *help;
	enum fam_type type;
	int nlabels;
	const char *labels[MAX_LABELS];
	/* histograms: ExponentialBuckets(start, factor, count) as upstream */
	double bucket_start, bucket_factor;
	int nbuckets;
};

/* Family indexes; the descriptor table below is in the same order, which is also the render
 * order (sorted by name, as client_golang's Gather does). */
enum {
	F_DROPPED,
	F_LEADER,
	F_EXT_POINT,
	F_PLUGIN,
	F_POD_ATTEMPTS,
	F_SLI,
	F_PREEMPT_ATTEMPTS,
	F_PREEMPT_VICTIMS,
	F_QUEUE_INCOMING,
	F_ATTEMPTS,
	F_ALGORITHM,
	F_ATTEMPT_DURATION,
	F_UNSCHEDULABLE,
	F_COUNT
};

static const struct family_desc family_descs[F_COUNT] = {
	[F_LEADER] = {"leader_election_master_status",
		      "[ALPHA] Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 "
		      "indicates master. 'name' is the string used to identify the lease. Please make sure to group by "
		      "name.",
		      FAM_GAUGE, 1, {"name"}, 0, 0, 0},
	[F_DROPPED] = {"csched_metrics_dropped_observations_total",
		       "Observations dropped because their metric family had reached its series limit (a label "
		       "cardinality bug).",
		       FAM_COUNTER, 0, {0}, 0,
		       0, 0},
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
	[F_PREEMPT_VICTIMS] = {"scheduler_preemption_victims", "[STABLE] Number of selected preemption victims",
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

struct series {
	uint32_t hash;
	const char *labels[MAX_LABELS]; /* point into the same allocation */
	atomic_uint_least64_t count;    /* counter value; histogram: unused (buckets hold it) */
	atomic_int_least64_t gauge;
	atomic_uint_least64_t sum_bits; /* histogram sum, a double's bits */
	atomic_uint_least64_t buckets[]; /* nbuckets + 1 (the last is +Inf); non-cumulative */
};

struct family {
	const struct family_desc *d;
	double bounds[MAX_BUCKETS];
	_Atomic(struct series *) slots[TABLE_SLOTS];
	/* guards inserts into slots and list; readers never take it. Leaf lock. */
	pthread_mutex_t insert_lock;
	struct series *list[SCHED_METRICS_MAX_SERIES];
	atomic_size_t nseries; /* list[0..nseries) are published */
};

struct sched_metrics {
	struct family fam[F_COUNT];
	struct sched_metrics_sources src;
	/* guards the refresh-and-render of the source-fed families (see DESIGN) */
	pthread_mutex_t refresh_lock;
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

/* Probes for v; returns the series or NULL and, in *slot, where the probe ended. */
static struct series *family_probe(struct family *f, const char *const *v, uint32_t hash, size_t *slot)
{
	size_t mask = TABLE_SLOTS - 1, i = hash & mask;
	for (;;) {
		struct series *s = atomic_load_explicit(&f->slots[i], memory_order_acquire);
		if (!s || (s->hash == hash && labels_equal(s, v, f->d->nlabels))) {
			*slot = i;
			return s;
		}
		i = (i + 1) & mask;
	}
}

static void count_dropped(struct sched_metrics *m);

static struct series *family_series(struct sched_metrics *m, struct family *f, const char *const *v)
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
			f->list[n] = s;
			atomic_store_explicit(&f->nseries, n + 1, memory_order_release);
			atomic_store_explicit(&f->slots[slot], s, memory_order_release);
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
	struct series *s = family_series(m, &m->fam[fam], v);
	if (s)
		atomic_fetch_add_explicit(&s->count, 1, memory_order_relaxed);
}

static void gauge_set(struct sched_metrics *m, int fam, const char *const *v, int64_t value)
{
	struct series *s = family_series(m, &m->fam[fam], v);
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
	struct series *s = family_series(m, f, v);
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
	struct series *s = family_series(m, f, v);
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
		for (size_t j = 0; j < TABLE_SLOTS; j++)
			atomic_init(&f->slots[j], NULL);
		/* computed as Go's ExponentialBuckets does (repeated multiplication), so the
		 * boundaries print exactly as upstream's */
		double b = f->d->bucket_start;
		for (int j = 0; j < f->d->nbuckets; j++, b *= f->d->bucket_factor)
			f->bounds[j] = b;
	}
	/* families without labels always expose their single series, even at zero */
	for (int i = 0; i < F_COUNT; i++) {
		if (family_descs[i].nlabels == 0 && !family_series(m, &m->fam[i], NULL)) {
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

/* ---------- Rendering ---------- */

/* Go's strconv.FormatFloat(v, 'g', -1, 64), which client_golang writes: the shortest digits that
 * round-trip, in exponent form when the decimal exponent is < -4 or >= 6 (Go fixes the
 * precision used for that decision at 6 in the shortest mode): 1e-05, 0.0001, 16.384, 100000,
 * 1e+06, 1.234567e+06. */
static void format_go_float(double v, char *out, size_t size)
{
	if (isnan(v)) {
		snprintf(out, size, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(out, size, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	char e[40];
	int digits = 1;
	for (; digits <= 17; digits++) {
		snprintf(e, sizeof e, "%.*e", digits - 1, v);
		if (strtod(e, NULL) == v)
			break;
	}
	if (digits > 17)
		digits = 17;
	const char *ep = strchr(e, 'e');
	int exp = ep ? atoi(ep + 1) : 0;
	if (exp < -4 || exp >= 6) {
		snprintf(out, size, "%s", e);
		return;
	}
	int frac = digits - 1 - exp;
	snprintf(out, size, "%.*f", frac > 0 ? frac : 0, v);
}

static void buf_float(struct strbuf *b, double v)
{
	char tmp[48];
	format_go_float(v, tmp, sizeof tmp);
	strbuf_puts(b, tmp);
}

/* Label values escape backslash, double quote and newline; HELP text backslash and newline. */
static void buf_escaped(struct strbuf *b, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			strbuf_puts(b, "\\\\");
		else if (*s == '\n')
			strbuf_puts(b, "\\n");
		else if (quote && *s == '"')
			strbuf_puts(b, "\\\"");
		else
			strbuf_add(b, s, 1);
	}
}

static void render_header(struct strbuf *b, const char *name, const char *help, const char *type)
{
	strbuf_addf(b, "# HELP %s ", name);
	buf_escaped(b, help, false);
	strbuf_addf(b, "\n# TYPE %s %s\n", name, type);
}

/* {a="x",b="y"[,le="..."]} or nothing when there are no labels at all. */
static void render_labels(struct strbuf *b, const struct family_desc *d, const struct series *s, const char *le)
{
	if (d->nlabels == 0 && !le)
		return;
	strbuf_puts(b, "{");
	for (int i = 0; i < d->nlabels; i++) {
		strbuf_addf(b, "%s%s=\"", i ? "," : "", d->labels[i]);
		buf_escaped(b, s->labels[i], true);
		strbuf_puts(b, "\"");
	}
	if (le)
		strbuf_addf(b, "%sle=\"%s\"", d->nlabels ? "," : "", le);
	strbuf_puts(b, "}");
}

/* Unused label slots hold "", so comparing all of them orders any family's series. */
static int series_cmp(const void *a, const void *b)
{
	const struct series *x = *(const struct series *const *)a, *y = *(const struct series *const *)b;
	for (int i = 0; i < MAX_LABELS; i++) {
		int c = strcmp(x->labels[i], y->labels[i]);
		if (c)
			return c;
	}
	return 0;
}

static void render_family(struct strbuf *b, struct family *f)
{
	const struct family_desc *d = f->d;
	size_t n = atomic_load_explicit(&f->nseries, memory_order_acquire);
	if (n == 0)
		return;
	struct series **sorted = malloc(n * sizeof *sorted);
	if (!sorted) {
		b->oom = true;
		return;
	}
	memcpy(sorted, f->list, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, series_cmp);

	static const char *const type_names[] = {"counter", "gauge", "histogram"};
	render_header(b, d->name, d->help, type_names[d->type]);
	for (size_t i = 0; i < n; i++) {
		const struct series *s = sorted[i];
		if (d->type == FAM_COUNTER || d->type == FAM_GAUGE) {
			strbuf_puts(b, d->name);
			render_labels(b, d, s, NULL);
			if (d->type == FAM_COUNTER)
				strbuf_addf(b, " %" PRIu64 "\n", (uint64_t)atomic_load_explicit(&s->count,
												 memory_order_relaxed));
			else
				strbuf_addf(b, " %" PRId64 "\n", (int64_t)atomic_load_explicit(&s->gauge,
												memory_order_relaxed));
			continue;
		}
		uint64_t cum = 0;
		for (int j = 0; j <= d->nbuckets; j++) {
			cum += atomic_load_explicit(&s->buckets[j], memory_order_relaxed);
			char le[48];
			if (j < d->nbuckets)
				format_go_float(f->bounds[j], le, sizeof le);
			else
				snprintf(le, sizeof le, "+Inf");
			strbuf_addf(b, "%s_bucket", d->name);
			render_labels(b, d, s, le);
			strbuf_addf(b, " %" PRIu64 "\n", cum);
		}
		uint64_t bits = atomic_load_explicit(&s->sum_bits, memory_order_relaxed);
		double sum;
		memcpy(&sum, &bits, sizeof sum);
		strbuf_addf(b, "%s_sum", d->name);
		render_labels(b, d, s, NULL);
		strbuf_puts(b, " ");
		buf_float(b, sum);
		strbuf_addf(b, "\n%s_count", d->name);
		render_labels(b, d, s, NULL);
		strbuf_addf(b, " %" PRIu64 "\n", cum);
	}
	free(sorted);
}

/* ---------- Source-fed families ---------- */

struct src_row {
	char *l1, *l2;
	double value;
};

struct src_rows {
	struct src_row *v;
	size_t n, cap;
	bool oom;
};

/* The emit callback: runs under the source's lock, so it only copies. */
static void collect_row(void *ctx, const char *l1, const char *l2, double value)
{
	struct src_rows *r = ctx;
	if (r->oom)
		return;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 32;
		struct src_row *v = realloc(r->v, cap * sizeof(*v));
		if (!v) {
			r->oom = true;
			return;
		}
		r->v = v;
		r->cap = cap;
	}
	struct src_row *row = &r->v[r->n];
	row->l1 = strdup(l1 ? l1 : "");
	row->l2 = strdup(l2 ? l2 : "");
	row->value = value;
	if (!row->l1 || !row->l2) {
		free(row->l1);
		free(row->l2);
		r->oom = true;
		return;
	}
	r->n++;
}

/* Stores the source's rows into family fam (a gauge's series not emitted drop to 0, as
 * upstream's gauges stay at 0 once seen) and renders it. */
static void render_source_family(struct sched_metrics *m, struct strbuf *b, int fam,
				 void (*source)(void *ctx, sched_metrics_emit_fn emit, void *emit_ctx))
{
	struct src_rows r = {0};
	struct family *f = &m->fam[fam];
	source(m->src.ctx, collect_row, &r);
	if (r.oom) { /* a partial family would read as counters going down: leave it out */
		b->oom = true;
		goto out;
	}
	pthread_mutex_lock(&m->refresh_lock);
	if (f->d->type == FAM_GAUGE) {
		size_t n = atomic_load_explicit(&f->nseries, memory_order_acquire);
		for (size_t i = 0; i < n; i++)
			atomic_store_explicit(&f->list[i]->gauge, 0, memory_order_relaxed);
	}
	for (size_t i = 0; i < r.n; i++) {
		const char *v[] = {r.v[i].l1, r.v[i].l2};
		struct series *s = family_series(m, f, v);
		if (!s)
			continue;
		if (f->d->type == FAM_GAUGE)
			atomic_store_explicit(&s->gauge, (int64_t)r.v[i].value, memory_order_relaxed);
		else
			atomic_store_explicit(&s->count, (uint64_t)r.v[i].value, memory_order_relaxed);
	}
	render_family(b, f);
	pthread_mutex_unlock(&m->refresh_lock);
out:
	for (size_t i = 0; i < r.n; i++) {
		free(r.v[i].l1);
		free(r.v[i].l2);
	}
	free(r.v);
}

static void render_gauge_set(struct strbuf *b, const char *name, const char *help, const char *label,
			     const char *const *values, const int64_t *counts, int n)
{
	render_header(b, name, help, "gauge");
	for (int i = 0; i < n; i++)
		strbuf_addf(b, "%s{%s=\"%s\"} %" PRId64 "\n", name, label, values[i], counts[i]);
}

static void render_process(struct strbuf *b)
{
	struct sched_metrics_process p;
	struct err e = {0};
	if (sched_metrics_read_process(&p, &e) != 0) {
		LOG_V(2, "metrics: process metrics unavailable: %s", e.msg);
		return;
	}
	static const struct {
		const char *name, *help, *type;
		size_t off;
	} pm[] = {
		{"process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", "counter",
		 offsetof(struct sched_metrics_process, cpu_seconds)},
		{"process_max_fds", "Maximum number of open file descriptors.", "gauge",
		 offsetof(struct sched_metrics_process, max_fds)},
		{"process_open_fds", "Number of open file descriptors.", "gauge",
		 offsetof(struct sched_metrics_process, open_fds)},
		{"process_resident_memory_bytes", "Resident memory size in bytes.", "gauge",
		 offsetof(struct sched_metrics_process, resident_bytes)},
		{"process_start_time_seconds", "Start time of the process since unix epoch in seconds.", "gauge",
		 offsetof(struct sched_metrics_process, start_time_seconds)},
		{"process_virtual_memory_bytes", "Virtual memory size in bytes.", "gauge",
		 offsetof(struct sched_metrics_process, virtual_bytes)},
	};
	for (size_t i = 0; i < sizeof pm / sizeof pm[0]; i++) {
		double v;
		memcpy(&v, (const char *)&p + pm[i].off, sizeof v);
		render_header(b, pm[i].name, pm[i].help, pm[i].type);
		strbuf_addf(b, "%s ", pm[i].name);
		buf_float(b, v);
		strbuf_puts(b, "\n");
	}
}

int sched_metrics_render(struct sched_metrics *m, char **out, size_t *len, struct err *e)
{
	struct strbuf b = STRBUF_INIT;
	strbuf_grow(&b, 16383); /* one allocation for a typical page */
	*out = NULL;
	if (len)
		*len = 0;
	if (!m)
		return err_set(e, ERR_INVALID, "sched_metrics_render: no registry");
	/* families in name order, as client_golang gathers them */
	render_family(&b, &m->fam[F_DROPPED]);
	render_family(&b, &m->fam[F_LEADER]);
	render_process(&b);
	render_family(&b, &m->fam[F_EXT_POINT]);
	if (m->src.pending_pods) {
		struct sched_metrics_pending pp = {0};
		m->src.pending_pods(m->src.ctx, &pp);
		static const char *const q[] = {"active", "backoff", "gated", "unschedulable"};
		const int64_t v[] = {pp.active, pp.backoff, pp.gated, pp.unschedulable};
		render_gauge_set(&b, "scheduler_pending_pods",
				 "[STABLE] Number of pending pods, by the queue type. 'active' means number of pods in "
				 "activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of "
				 "pods in unschedulablePods that the scheduler attempted to schedule and failed; 'gated' "
				 "is the number of unschedulable pods that the scheduler never attempted to schedule "
				 "because they are gated.",
				 "queue", q, v, 4);
	}
	for (int i = F_PLUGIN; i <= F_ATTEMPTS; i++) {
		if (i != F_QUEUE_INCOMING)
			render_family(&b, &m->fam[i]);
		else if (m->src.queue_incoming)
			render_source_family(m, &b, i, m->src.queue_incoming);
	}
	if (m->src.cache_size) {
		struct sched_metrics_cache_size cs = {0};
		m->src.cache_size(m->src.ctx, &cs);
		static const char *const t[] = {"assumed_pods", "nodes", "pods"};
		const int64_t v[] = {cs.assumed_pods, cs.nodes, cs.pods};
		render_gauge_set(&b, "scheduler_scheduler_cache_size",
				 "[ALPHA] Number of nodes, pods, and assumed (bound) pods in the scheduler cache.", "type",
				 t, v, 3);
	}
	for (int i = F_ALGORITHM; i < F_COUNT; i++) {
		if (i != F_UNSCHEDULABLE)
			render_family(&b, &m->fam[i]);
		else if (m->src.unschedulable_pods)
			render_source_family(m, &b, i, m->src.unschedulable_pods);
	}
	if (b.oom || !b.data) {
		free(b.data);
		return err_set(e, ERR_NOMEM, "sched_metrics_render: out of memory");
	}
	*out = b.data;
	if (len)
		*len = b.len;
	return 0;
}

/* ---------- Process metrics ---------- */

static int read_file(const char *path, char *buf, size_t size, struct err *e)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return err_set(e, ERR_IO, "%s: cannot open", path);
	size_t n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

int sched_metrics_read_process(struct sched_metrics_process *out, struct err *e)
{
	char stat[1024];
	int rc = 0;
	memset(out, 0, sizeof *out);
	long ticks = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	if (ticks <= 0 || page <= 0)
		return err_set(e, ERR_IO, "sysconf: clock ticks or page size unavailable");

	if ((rc = read_file("/proc/self/stat", stat, sizeof stat, e)) != 0)
		return rc;
	/* the command name (field 2) may contain spaces and ')': fields resume after the last ')' */
	const char *p = strrchr(stat, ')');
	unsigned long utime, stime, vsize;
	unsigned long long starttime;
	long rss;
	if (!p || sscanf(p + 2,
			 "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu %*d %*d %*d %*d %*d %*d %llu %lu %ld",
			 &utime, &stime, &starttime, &vsize, &rss) != 5)
		return err_set(e, ERR_IO, "/proc/self/stat: unexpected format");
	out->cpu_seconds = (double)(utime + stime) / (double)ticks;
	out->virtual_bytes = (double)vsize;
	out->resident_bytes = (double)rss * (double)page;

	char pstat[8192];
	if ((rc = read_file("/proc/stat", pstat, sizeof pstat, e)) != 0)
		return rc;
	const char *bt = strstr(pstat, "\nbtime ");
	if (!bt)
		return err_set(e, ERR_IO, "/proc/stat: no btime line");
	out->start_time_seconds = (double)strtoull(bt + 7, NULL, 10) + (double)starttime / (double)ticks;

	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return err_set(e, ERR_IO, "/proc/self/fd: cannot open");
	const struct dirent *de;
	int nfd = 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			nfd++;
	closedir(d);
	out->open_fds = nfd - 1; /* not counting the descriptor opendir used */

	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return err_set(e, ERR_IO, "getrlimit(RLIMIT_NOFILE) failed");
	out->max_fds = rl.rlim_cur == RLIM_INFINITY ? INFINITY : (double)rl.rlim_cur;
	return 0;
}
