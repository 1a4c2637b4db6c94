/* Internals shared by metrics.c (the registry: families, series, observations) and
 * metrics_render.c (the text exposition). */
#ifndef CSCHED_METRICS_INTERNAL_H
#define CSCHED_METRICS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "scheduler/metrics.h"

#define MAX_LABELS 3
#define MAX_BUCKETS 20
#define TABLE_SLOTS (2 * SCHED_METRICS_MAX_SERIES) /* load factor <= 1/2 */
/* The slots come in chunks allocated when a series first lands in one: a family's slots in
 * one piece (64 KB) took a resident page for nearly every series, ~300 KB of csched's peak
 * RSS for ~70 series. */
#define SLOT_CHUNK 64

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

/* Family indexes; the descriptor table (metrics.c) is in the same order, which is also the
 * render order (sorted by name, as client_golang's Gather does). */
enum {
	F_DROPPED,
	F_LEADER,
	F_BATCH_ATTEMPTS,
	F_BATCH_FLUSHED,
	F_BATCH_RESCORE,
	F_BATCH_RESCORE_DURATION,
	F_EXT_POINT,
	F_GET_NODE_HINT,
	F_PLUGIN,
	F_POD_ATTEMPTS,
	F_SLI,
	F_PREEMPT_ATTEMPTS,
	F_PREEMPT_GOROUTINES,
	F_PREEMPT_VICTIMS,
	F_QUEUE_INCOMING,
	F_ATTEMPTS,
	F_ALGORITHM,
	F_ATTEMPT_DURATION,
	F_STORE_RESULTS,
	F_UNSCHEDULABLE,
	F_EXTENDER, /* csched's own: rendered first (name order) */
	F_COUNT
};

struct series {
	uint32_t hash;
	const char *labels[MAX_LABELS]; /* point into the same allocation */
	atomic_uint_least64_t count;    /* counter value; histogram: unused (buckets hold it) */
	atomic_int_least64_t gauge;
	atomic_uint_least64_t sum_bits; /* histogram sum, a double's bits */
	atomic_uint_least64_t buckets[]; /* nbuckets + 1 (the last is +Inf); non-cumulative */
};

/* What observers and the renderer read first comes first, so that a family with a few series
 * touches one page. */
struct family {
	const struct family_desc *d;
	double bounds[MAX_BUCKETS];
	atomic_size_t nseries; /* list[0..nseries) are published */
	/* guards inserts into the slots and list; readers never take it. Leaf lock. */
	pthread_mutex_t insert_lock;
	/* slot i is chunks[i / SLOT_CHUNK][i % SLOT_CHUNK]; a NULL chunk holds only empty slots.
	 * Chunks are published with release stores and freed by sched_metrics_free. */
	_Atomic(struct series *) *_Atomic chunks[TABLE_SLOTS / SLOT_CHUNK];
	struct series *list[SCHED_METRICS_MAX_SERIES];
};

struct sched_metrics {
	struct family fam[F_COUNT];
	struct sched_metrics_sources src;
	/* guards the refresh-and-render of the source-fed families (see DESIGN) */
	pthread_mutex_t refresh_lock;
};

/* The series of f with label values v (NULL: no labels; a NULL value reads as ""), inserted on
 * first use. NULL when the family is full or memory ran out (counted as a dropped observation).
 * Lock-free unless it inserts. */
struct series *sched_metrics_family_series(struct sched_metrics *m, struct family *f, const char *const *v);

#endif
