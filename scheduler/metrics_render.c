/* Scheduler metrics in the Prometheus text exposition format (version 0.0.4), and the process_*
 * metrics read from /proc (the registry is in metrics.c).
 *
 * DESIGN: buckets are stored non-cumulatively and summed here, and _count is rendered as that
 * sum, so a scrape racing an observation still shows cumulative buckets whose +Inf equals _count
 * (the sum may lag by that one observation, as with any lock-free histogram). Rendering walks the
 * series list (append-only, its length published with a release store), sorts by label values for
 * a stable output, and formats numbers like Go's strconv.FormatFloat(v, 'g', -1, 64), the format
 * client_golang writes.
 *
 * Source-fed families (incoming pods, unschedulable pods) live in the same series tables but
 * are written only by a render: it copies the source's rows (the source holds its own lock while
 * emitting), then under refresh_lock stores them into the series and renders the family, so two
 * concurrent scrapes cannot interleave their zero-and-set. Lock order: refresh_lock, then a
 * family's insert_lock. */
#include "metrics_internal.h"

#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/log.h"
#include "common/strbuf.h"

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
		struct series *s = sched_metrics_family_series(m, f, v);
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
	render_family(&b, &m->fam[F_EXTENDER]);
	render_family(&b, &m->fam[F_DROPPED]);
	render_family(&b, &m->fam[F_LEADER]);
	render_process(&b);
	render_family(&b, &m->fam[F_BATCH_ATTEMPTS]);
	render_family(&b, &m->fam[F_BATCH_FLUSHED]);
	render_family(&b, &m->fam[F_BATCH_RESCORE]);
	render_family(&b, &m->fam[F_BATCH_RESCORE_DURATION]);
	render_family(&b, &m->fam[F_EXT_POINT]);
	render_family(&b, &m->fam[F_GET_NODE_HINT]);
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
	for (int i = F_ALGORITHM; i <= F_UNSCHEDULABLE; i++) {
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
