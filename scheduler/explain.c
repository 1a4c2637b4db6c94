/* csched explain: a dry scheduling cycle for one pod and its rendering (contract in explain.h,
 * JSON schema in docs/explain.md).
 *
 * DESIGN
 * Any thread may explain (the health server's auth thread, a one-shot command); explains run one
 * at a time under the explainer's lock, which guards everything here: its own snapshot (refreshed
 * incrementally from the cache, whose lock is held only for that copy), one framework profile per
 * configured profile (built on first use from the same configuration as the loop's, with
 * percentageOfNodesToScore 100, no worker pool, no batching, no bind callback, and a preemption
 * executor that only records the candidate), and the preemption candidate of the current explain.
 * The cycle is the framework's fw_schedule_pod with a struct fw_record attached, so the verdicts and
 * scores are the scheduler's own computation; nothing is written to the cluster. The rendering reads
 * the record and the diagnosis while the lock is still held (they point into the profile's scratch
 * and the snapshot). Lock order: explainer lock, then the cache's or the queue's (never both), or the
 * informer stores' (listers). */
#include "scheduler/explain.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/intern.h"
#include "common/log.h"
#include "common/map.h"
#include "common/strbuf.h"
#include "sched_internal.h"

/* How many node names a table summary line lists before "...". */
#define EXPLAIN_SUMMARY_NAMES 8

struct explain_victim {
	char *ns, *name;
};

struct sched_explainer {
	struct scheduler *s;
	/* lock guards every member; taken before the cache, queue or store locks, never under them */
	pthread_mutex_t lock;
	struct snapshot *snap;
	uint32_t n_profiles;
	struct fw_profile **fw; /* [n_profiles], NULL until first used */
	/* the preemption candidate the dry PostFilter picked in the current explain */
	bool have_candidate;
	const char *candidate_node; /* interned, counted */
	uint32_t n_victims;
	struct explain_victim *victims;
	int64_t num_pdb_violations;
};

static void clear_candidate(struct sched_explainer *x)
{
	for (uint32_t i = 0; i < x->n_victims; i++) {
		free(x->victims[i].ns);
		free(x->victims[i].name);
	}
	free(x->victims);
	x->victims = NULL;
	x->n_victims = 0;
	if (x->candidate_node)
		intern_release(x->candidate_node);
	x->candidate_node = NULL;
	x->have_candidate = false;
	x->num_pdb_violations = 0;
}

/* The explain profiles' executor: records what upstream's actuation would evict, evicts nothing.
 * Called on the explaining thread, under the explainer's lock. */
static enum fw_code dry_actuate(void *ctx, const struct api_pod *preemptor, const struct fw_preemption *p,
				struct fw_status *st)
{
	struct sched_explainer *x = ctx;
	(void)preemptor;
	clear_candidate(x);
	if (p->n_victims && !(x->victims = calloc(p->n_victims, sizeof(*x->victims))))
		return fw_status_set(st, FW_ERROR, "explain: out of memory");
	for (uint32_t i = 0; i < p->n_victims; i++) {
		const struct api_pod *v = p->victims[i];
		x->victims[i].ns = strdup(v->meta.namespace ? v->meta.namespace : "");
		x->victims[i].name = strdup(v->meta.name ? v->meta.name : "");
		x->n_victims = i + 1;
		if (!x->victims[i].ns || !x->victims[i].name)
			return fw_status_set(st, FW_ERROR, "explain: out of memory");
	}
	x->candidate_node = intern_ref(p->node_name);
	x->num_pdb_violations = p->num_pdb_violations;
	x->have_candidate = true;
	return FW_SUCCESS;
}

/* The real executor's answer: a pod whose preemption is being actuated waits (any thread). */
static bool dry_is_running(void *ctx, const char *pod_uid)
{
	const struct sched_explainer *x = ctx;
	return sched_preempt_is_running(x->s, pod_uid);
}

struct sched_explainer *sched_explainer_new(struct scheduler *s, uint32_t n_profiles)
{
	struct sched_explainer *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	if (!(x->fw = calloc(n_profiles ? n_profiles : 1, sizeof(*x->fw)))) {
		free(x);
		return NULL;
	}
	x->n_profiles = n_profiles;
	x->s = s;
	pthread_mutex_init(&x->lock, NULL);
	return x;
}

void sched_explainer_free(struct sched_explainer *x)
{
	if (!x)
		return;
	for (uint32_t i = 0; i < x->n_profiles; i++)
		fw_profile_free(x->fw[i]);
	free(x->fw);
	snapshot_free(x->snap);
	clear_candidate(x);
	pthread_mutex_destroy(&x->lock);
	free(x);
}

/* Profile i of the explainer, built on first use. Caller holds x->lock. */
static struct fw_profile *explain_profile(struct scheduler *s, struct sched_explainer *x, uint32_t i, struct err *e)
{
	if (x->fw[i])
		return x->fw[i];
	struct fw_profile_config pc;
	struct fw_profile_options po;
	sched_fw_profile_options(s, &po);
	po.pool = NULL;     /* the loop's pool is its own: run on this thread */
	po.bind = NULL;     /* explain never binds */
	po.bind_ctx = NULL;
	po.preempt = (struct fw_preempt_ops){ dry_actuate, dry_is_running, x };
	fw_profile_config_from_cfg(&s->cfg->profiles[i], &pc);
	pc.has_percentage_of_nodes_to_score = true;
	pc.percentage_of_nodes_to_score = 100; /* every node evaluated, every feasible node scored */
	pc.sign_mask = 0;                      /* no OpportunisticBatching hint */
	if (!(x->fw[i] = fw_profile_new(&pc, &po, e)))
		err_prefix(e, "explain: profiles[%u] (%s)", i, s->cfg->profiles[i].scheduler_name);
	return x->fw[i];
}

/* ---------- The pod's own node (a bound or assumed pod explained as pending) ---------- */

/* The snapshot's node list with one node replaced by a copy that does not hold the pod. */
struct held_view {
	const struct snapshot *snap;
	const char *name;           /* interned node name */
	struct node_info copy;      /* that node without the pod */
	bool have_copy;
	const struct node_info **nodes, **with_affinity, **with_required_anti;
};

static const struct node_info *held_get(const void *ctx, const char *name)
{
	const struct held_view *h = ctx;
	if (name == h->name)
		return &h->copy;
	return snapshot_get(h->snap, name);
}

static void held_release(struct held_view *h)
{
	if (h->have_copy)
		node_info_release(&h->copy);
	free(h->nodes);
	free(h->with_affinity);
	free(h->with_required_anti);
}

/* Copies list (n entries) into *out with old replaced by repl. */
static int swap_in(const struct node_info *const *list, uint32_t n, const struct node_info *old,
		   const struct node_info *repl, const struct node_info ***out)
{
	*out = malloc((n ? n : 1) * sizeof(**out));
	if (!*out)
		return ERR_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		(*out)[i] = list[i] == old ? repl : list[i];
	return 0;
}

/* Makes list show node_name without pod (when the snapshot has that node and it counts the pod). */
static int take_pod_off(struct held_view *h, const struct snapshot *snap, struct fw_node_list *list,
			const char *node_name, const struct api_pod *pod, struct err *e)
{
	memset(h, 0, sizeof(*h));
	h->snap = snap;
	const struct node_info *ni = snapshot_get(snap, node_name);
	if (!ni || node_info_pod_index(ni, pod->meta.uid) < 0)
		return 0;
	h->name = ni->name;
	if (node_info_copy(&h->copy, ni, e) < 0)
		return e->code ? e->code : ERR_NOMEM;
	h->have_copy = true;
	if (node_info_remove_pod(&h->copy, pod, e) < 0)
		return e->code ? e->code : ERR_NOMEM;
	if (swap_in(list->nodes, list->n, ni, &h->copy, &h->nodes) < 0 ||
	    swap_in(list->with_affinity, list->n_with_affinity, ni, &h->copy, &h->with_affinity) < 0 ||
	    swap_in(list->with_required_anti, list->n_with_required_anti, ni, &h->copy, &h->with_required_anti) < 0)
		return err_set(e, ERR_NOMEM, "explain: out of memory");
	list->nodes = h->nodes;
	list->with_affinity = h->with_affinity;
	list->with_required_anti = h->with_required_anti;
	list->get = held_get;
	list->get_ctx = h;
	return 0;
}

/* ---------- What the cycle found, per node ---------- */

enum verdict { V_NOT_EVALUATED, V_REJECTED, V_FEASIBLE };

struct row {
	const char *name; /* interned */
	enum verdict v;
	const struct fw_status *st; /* V_REJECTED */
	int32_t col;                /* V_FEASIBLE and scored: its column in the record, else -1 */
	bool chosen, tie;
	char *detail; /* V_REJECTED: the rejecting plugin's explain lines ('\n'-ended, malloc'd), or NULL */
};

/* Everything the renderers read. */
struct explained {
	const struct api_pod *pod;      /* as the informer has it */
	const char *held_node;          /* the node it was taken off (bound or assumed), or NULL */
	const char *profile;
	const struct fw_schedule_result *res;
	const struct fw_record *rec;
	const struct sched_explainer *x;
	bool ran_post_filter;
	enum fw_code post_code;
	const struct fw_status *post_st;
	const char *message; /* FitError message, or the status's for other outcomes */
	uint32_t n_rows;
	struct row *rows; /* sorted for output */
	int64_t best_total;
	uint32_t n_ties;
	const char *only_node; /* --node, interned, or NULL */
};

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int64_t row_total(const struct explained *x, const struct row *r)
{
	return r->col >= 0 ? x->rec->totals[r->col] : 0;
}

/* Output order: the chosen node, then feasible nodes by total (highest first), then the others;
 * names break ties. ctx: the struct explained (qsort_r: explains and simulations may sort at once). */
static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const struct explained *sort_ctx = ctx;
	const struct row *x = a, *y = b;
	if (x->chosen != y->chosen)
		return x->chosen ? -1 : 1;
	if (x->v != y->v)
		return x->v > y->v ? -1 : 1;
	if (x->v == V_FEASIBLE) {
		int64_t tx = row_total(sort_ctx, x), ty = row_total(sort_ctx, y);
		if (tx != ty)
			return tx > ty ? -1 : 1;
	}
	return strcmp(x->name, y->name);
}

static bool row_shown(const struct explained *ex, const struct row *r);

/* The rejecting plugin's detail for row r (node ni): fw_explain_rejection into r->detail. Only for
 * a status Filter gave on that node (PreFilter's narrowing has none) and a row the output shows.
 * The detail is best effort: an error there is reported in it, never fails the explain. */
static int row_detail(const struct explained *ex, struct row *r, const struct node_info *ni)
{
	if (r->v != V_REJECTED || !r->st->plugin || r->st == &ex->res->diag.absent_status || !row_shown(ex, r))
		return 0;
	struct strbuf sb = STRBUF_INIT;
	struct err e = { 0 };
	if (fw_explain_rejection(ex->rec, ni, r->st->plugin, &sb, &e) < 0) {
		if (e.code == ERR_NOMEM) {
			strbuf_release(&sb);
			return ERR_NOMEM;
		}
		strbuf_addf(&sb, "(no detail: %s)\n", e.msg);
	}
	if (sb.oom) {
		strbuf_release(&sb);
		return ERR_NOMEM;
	}
	r->detail = sb.len ? strbuf_detach(&sb, NULL) : NULL;
	strbuf_release(&sb);
	return 0;
}

static void free_rows(struct explained *ex)
{
	for (uint32_t i = 0; ex->rows && i < ex->n_rows; i++)
		free(ex->rows[i].detail);
	free(ex->rows);
	ex->rows = NULL;
	ex->n_rows = 0;
}

static int build_rows(struct explained *ex, const struct fw_node_list *list)
{
	const struct fw_schedule_result *res = ex->res;
	const struct fw_record *rec = ex->rec;
	struct map status, feasible, col;
	int rc = ERR_NOMEM;
	map_init(&status);
	map_init(&feasible);
	map_init(&col);
	if (!(ex->rows = calloc(list->n ? list->n : 1, sizeof(*ex->rows))))
		goto out;
	for (uint32_t i = 0; i < res->diag.n_node_status; i++)
		if (map_put(&status, res->diag.node_status[i].node_name, (void *)res->diag.node_status[i].status, NULL) < 0)
			goto out;
	if (res->code == FW_SUCCESS)
		for (uint32_t i = 0; i < rec->n_feasible; i++)
			if (map_put(&feasible, rec->feasible[i]->name, (void *)rec->feasible[i], NULL) < 0)
				goto out;
	if (rec->scored) {
		ex->best_total = INT64_MIN;
		for (uint32_t i = 0; i < rec->n_scored; i++) {
			if (map_put(&col, rec->nodes[i]->name, (void *)(uintptr_t)(i + 1), NULL) < 0)
				goto out;
			if (rec->totals[i] > ex->best_total)
				ex->best_total = rec->totals[i];
		}
	}
	for (uint32_t i = 0; i < list->n; i++) {
		struct row *r = &ex->rows[ex->n_rows++];
		r->name = list->nodes[i]->name;
		r->col = -1;
		const struct fw_status *st = map_get(&status, r->name);
		if (st) {
			r->v = V_REJECTED;
			r->st = st;
		} else if (map_get(&feasible, r->name)) {
			r->v = V_FEASIBLE;
			uintptr_t c = (uintptr_t)map_get(&col, r->name);
			r->col = c ? (int32_t)(c - 1) : -1;
			r->chosen = res->suggested_host && (r->name == res->suggested_host ||
							    strcmp(r->name, res->suggested_host) == 0);
			r->tie = r->col >= 0 && rec->totals[r->col] == ex->best_total;
			if (r->tie)
				ex->n_ties++;
		} else if (res->diag.has_absent_status) { /* PreFilter left it out */
			r->v = V_REJECTED;
			r->st = &res->diag.absent_status;
		}
		if (row_detail(ex, r, list->nodes[i]) < 0)
			goto out;
	}
	qsort_r(ex->rows, ex->n_rows, sizeof(*ex->rows), cmp_rows, ex);
	rc = 0;
out:
	map_release(&status);
	map_release(&feasible);
	map_release(&col);
	return rc;
}

/* The summary: infeasible nodes grouped by reason, as the FailedScheduling histogram counts them. */
struct group {
	const char *reason;
	uint32_t n;
	const char **names;
};

static int cmp_groups(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->reason, y->reason);
}

static int build_groups(const struct explained *ex, struct group **out, uint32_t *n_out)
{
	struct map m;
	struct group *g = NULL;
	uint32_t n = 0;
	map_init(&m);
	*out = NULL;
	*n_out = 0;
	/* at most one group per (node, reason); bounded by rows x reasons, grown as needed */
	size_t cap = 0;
	for (uint32_t i = 0; i < ex->n_rows; i++) {
		const struct row *r = &ex->rows[i];
		if (r->v != V_REJECTED)
			continue;
		for (const char *reason = fw_status_reason_next(r->st, NULL); reason;
		     reason = fw_status_reason_next(r->st, reason)) {
			uintptr_t at = (uintptr_t)map_get(&m, reason);
			if (!at) {
				if (n == cap) {
					size_t nc = cap ? cap * 2 : 8;
					struct group *ng = realloc(g, nc * sizeof(*ng));
					if (!ng)
						goto oom;
					g = ng;
					cap = nc;
				}
				g[n] = (struct group){ reason, 0, calloc(ex->n_rows, sizeof(const char *)) };
				if (!g[n].names || map_put(&m, reason, (void *)(uintptr_t)(n + 1), NULL) < 0) {
					free(g[n].names);
					goto oom;
				}
				at = ++n;
			}
			struct group *gr = &g[at - 1];
			gr->names[gr->n++] = r->name;
		}
	}
	for (uint32_t i = 0; i < n; i++)
		qsort(g[i].names, g[i].n, sizeof(*g[i].names), cmp_str_ptr);
	if (n)
		qsort(g, n, sizeof(*g), cmp_groups);
	map_release(&m);
	*out = g;
	*n_out = n;
	return 0;
oom:
	for (uint32_t i = 0; i < n; i++)
		free(g[i].names);
	free(g);
	map_release(&m);
	return ERR_NOMEM;
}

static void free_groups(struct group *g, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(g[i].names);
	free(g);
}

/* ---------- JSON ---------- */

void sched_json_str(struct strbuf *sb, const char *s)
{
	if (!s) {
		strbuf_puts(sb, "null");
		return;
	}
	strbuf_puts(sb, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': strbuf_puts(sb, "\\\""); break;
		case '\\': strbuf_puts(sb, "\\\\"); break;
		case '\n': strbuf_puts(sb, "\\n"); break;
		case '\r': strbuf_puts(sb, "\\r"); break;
		case '\t': strbuf_puts(sb, "\\t"); break;
		default:
			if (*p < 0x20)
				strbuf_addf(sb, "\\u%04x", *p);
			else
				strbuf_add(sb, p, 1);
		}
	}
	strbuf_puts(sb, "\"");
}

static void json_key(struct strbuf *sb, bool *first, const char *key)
{
	strbuf_puts(sb, *first ? "" : ",");
	*first = false;
	sched_json_str(sb, key);
	strbuf_puts(sb, ":");
}

static void json_reasons(struct strbuf *sb, const struct fw_status *st)
{
	strbuf_puts(sb, "[");
	bool first = true;
	for (const char *r = fw_status_reason_next(st, NULL); r; r = fw_status_reason_next(st, r)) {
		strbuf_puts(sb, first ? "" : ",");
		first = false;
		sched_json_str(sb, r);
	}
	strbuf_puts(sb, "]");
}

static bool row_shown(const struct explained *ex, const struct row *r)
{
	return !ex->only_node || r->name == ex->only_node;
}

static const char *verdict_str(enum verdict v)
{
	return v == V_FEASIBLE ? "Feasible" : v == V_REJECTED ? "Rejected" : "NotEvaluated";
}

/* The extenders' share of a total: what the weighted plugin scores do not account for. */
static int64_t extender_part(const struct fw_record *rec, uint32_t col)
{
	int64_t sum = 0;
	for (uint32_t k = 0; k < rec->n_pl; k++)
		sum += rec->normalized[(size_t)k * rec->n_scored + col] * rec->weight[k];
	return rec->totals[col] - sum;
}

static void json_row(struct strbuf *sb, const struct explained *ex, const struct row *r)
{
	const struct fw_record *rec = ex->rec;
	bool f = true;
	strbuf_puts(sb, "{");
	json_key(sb, &f, "name");
	sched_json_str(sb, r->name);
	json_key(sb, &f, "verdict");
	sched_json_str(sb, verdict_str(r->v));
	if (r->v == V_REJECTED) {
		json_key(sb, &f, "plugin");
		sched_json_str(sb, r->st->plugin);
		json_key(sb, &f, "code");
		sched_json_str(sb, fw_code_str(r->st->code));
		json_key(sb, &f, "reasons");
		json_reasons(sb, r->st);
		json_key(sb, &f, "details");
		strbuf_puts(sb, "[");
		for (const char *l = r->detail, *nl; l && *l; l = nl + 1) {
			if (!(nl = strchr(l, '\n')))
				nl = l + strlen(l) - 1;
			strbuf_puts(sb, l == r->detail ? "" : ",");
			char *line = strndup(l, (size_t)(nl - l) + (*nl != '\n'));
			if (!line) {
				sb->oom = true;
				break;
			}
			sched_json_str(sb, line);
			free(line);
		}
		strbuf_puts(sb, "]");
	}
	if (r->v == V_FEASIBLE && r->col >= 0) {
		json_key(sb, &f, "scores");
		strbuf_puts(sb, "[");
		for (uint32_t k = 0; k < rec->n_pl; k++) {
			size_t at = (size_t)k * rec->n_scored + (size_t)r->col;
			strbuf_addf(sb, "%s{\"plugin\":", k ? "," : "");
			sched_json_str(sb, rec->pls[k]->plugin->name);
			strbuf_addf(sb, ",\"raw\":%" PRId64 ",\"normalized\":%" PRId64 ",\"weight\":%" PRId32
					",\"weighted\":%" PRId64 "}",
				    rec->raw[at], rec->normalized[at], rec->weight[k], rec->normalized[at] * rec->weight[k]);
		}
		strbuf_puts(sb, "]");
		json_key(sb, &f, "extenderScore");
		strbuf_addf(sb, "%" PRId64, extender_part(rec, (uint32_t)r->col));
		json_key(sb, &f, "total");
		strbuf_addf(sb, "%" PRId64, rec->totals[r->col]);
	}
	if (r->v == V_FEASIBLE) {
		json_key(sb, &f, "chosen");
		strbuf_puts(sb, r->chosen ? "true" : "false");
		json_key(sb, &f, "tie");
		strbuf_puts(sb, r->tie ? "true" : "false");
	}
	strbuf_puts(sb, "}");
}

static void render_json(struct strbuf *sb, const struct explained *ex, const struct group *g, uint32_t n_groups)
{
	const struct fw_schedule_result *res = ex->res;
	const struct fw_record *rec = ex->rec;
	const struct api_pod *pod = ex->pod;
	bool f = true;
	strbuf_puts(sb, "{");
	json_key(sb, &f, "apiVersion");
	sched_json_str(sb, "csched.io/v1alpha1");
	json_key(sb, &f, "kind");
	sched_json_str(sb, "Explanation");
	json_key(sb, &f, "pod");
	strbuf_puts(sb, "{\"namespace\":");
	sched_json_str(sb, pod->meta.namespace);
	strbuf_puts(sb, ",\"name\":");
	sched_json_str(sb, pod->meta.name);
	strbuf_puts(sb, ",\"uid\":");
	sched_json_str(sb, pod->meta.uid);
	strbuf_puts(sb, ",\"schedulerName\":");
	sched_json_str(sb, pod->scheduler_name);
	strbuf_puts(sb, ",\"nodeName\":");
	sched_json_str(sb, api_pod_is_assigned(pod) ? pod->node_name : NULL);
	strbuf_puts(sb, ",\"heldBy\":");
	sched_json_str(sb, ex->held_node);
	strbuf_puts(sb, ",\"nominatedNodeName\":");
	sched_json_str(sb, pod->nominated_node_name && pod->nominated_node_name[0] ? pod->nominated_node_name : NULL);
	strbuf_puts(sb, "}");
	json_key(sb, &f, "profile");
	sched_json_str(sb, ex->profile);
	json_key(sb, &f, "nodes");
	strbuf_addf(sb, "%" PRIu32, res->diag.num_all_nodes);

	json_key(sb, &f, "result");
	strbuf_puts(sb, "{\"code\":");
	sched_json_str(sb, fw_code_str(res->code));
	strbuf_puts(sb, ",\"chosenNode\":");
	sched_json_str(sb, res->code == FW_SUCCESS ? res->suggested_host : NULL);
	strbuf_puts(sb, ",\"ties\":[");
	for (uint32_t i = 0, k = 0; i < ex->n_rows; i++)
		if (ex->rows[i].tie) {
			strbuf_puts(sb, k++ ? "," : "");
			sched_json_str(sb, ex->rows[i].name);
		}
	strbuf_addf(sb, "],\"feasibleNodes\":%" PRIu32 ",\"evaluatedNodes\":%" PRIu32, res->feasible_nodes,
		    res->evaluated_nodes);
	strbuf_addf(sb, ",\"scored\":%s,\"nominatedFastPath\":%s,\"randomizedTieBreak\":%s",
		    rec->scored ? "true" : "false", rec->nominated_fast_path ? "true" : "false",
		    rec->randomized ? "true" : "false");
	strbuf_puts(sb, ",\"message\":");
	sched_json_str(sb, ex->message);
	strbuf_puts(sb, ",\"preFilterMessage\":");
	sched_json_str(sb, res->diag.pre_filter_msg[0] ? res->diag.pre_filter_msg : NULL);
	strbuf_puts(sb, ",\"unschedulablePlugins\":[");
	const char *plugins[FW_MAX_PLUGINS];
	memcpy(plugins, res->diag.unschedulable_plugins, res->diag.n_unschedulable_plugins * sizeof(*plugins));
	qsort(plugins, res->diag.n_unschedulable_plugins, sizeof(*plugins), cmp_str_ptr);
	for (uint32_t i = 0; res->code != FW_SUCCESS && i < res->diag.n_unschedulable_plugins; i++) {
		strbuf_puts(sb, i ? "," : "");
		sched_json_str(sb, plugins[i]);
	}
	strbuf_puts(sb, "]}");

	json_key(sb, &f, "postFilter");
	if (!ex->ran_post_filter) {
		strbuf_puts(sb, "null");
	} else {
		char msg[FW_STATUS_TEXT_MAX];
		strbuf_puts(sb, "{\"code\":");
		sched_json_str(sb, fw_code_str(ex->post_code));
		strbuf_puts(sb, ",\"message\":");
		sched_json_str(sb, fw_status_message(ex->post_st, msg, sizeof(msg)));
		strbuf_puts(sb, ",\"nominatedNode\":");
		sched_json_str(sb, ex->x->have_candidate ? ex->x->candidate_node : NULL);
		strbuf_puts(sb, ",\"victims\":[");
		for (uint32_t i = 0; ex->x->have_candidate && i < ex->x->n_victims; i++) {
			strbuf_puts(sb, i ? ",{\"namespace\":" : "{\"namespace\":");
			sched_json_str(sb, ex->x->victims[i].ns);
			strbuf_puts(sb, ",\"name\":");
			sched_json_str(sb, ex->x->victims[i].name);
			strbuf_puts(sb, "}");
		}
		strbuf_addf(sb, "],\"pdbViolations\":%" PRId64 "}", ex->x->have_candidate ? ex->x->num_pdb_violations : 0);
	}

	json_key(sb, &f, "scorePlugins");
	strbuf_puts(sb, "[");
	for (uint32_t k = 0; rec->scored && k < rec->n_pl; k++) {
		strbuf_puts(sb, k ? ",{\"name\":" : "{\"name\":");
		sched_json_str(sb, rec->pls[k]->plugin->name);
		strbuf_addf(sb, ",\"weight\":%" PRId32 "}", rec->weight[k]);
	}
	strbuf_puts(sb, "]");

	json_key(sb, &f, "nodeResults");
	strbuf_puts(sb, "[");
	for (uint32_t i = 0, k = 0; i < ex->n_rows; i++) {
		if (!row_shown(ex, &ex->rows[i]))
			continue;
		strbuf_puts(sb, k++ ? "," : "");
		json_row(sb, ex, &ex->rows[i]);
	}
	strbuf_puts(sb, "]");

	json_key(sb, &f, "summary");
	strbuf_puts(sb, "[");
	for (uint32_t i = 0; i < n_groups; i++) {
		strbuf_puts(sb, i ? ",{\"reason\":" : "{\"reason\":");
		sched_json_str(sb, g[i].reason);
		strbuf_addf(sb, ",\"count\":%" PRIu32 ",\"nodes\":[", g[i].n);
		for (uint32_t j = 0; j < g[i].n; j++) {
			strbuf_puts(sb, j ? "," : "");
			sched_json_str(sb, g[i].names[j]);
		}
		strbuf_puts(sb, "]}");
	}
	strbuf_puts(sb, "]}\n");
}

/* ---------- Table ---------- */

static void render_table(struct strbuf *sb, const struct explained *ex, const struct group *g, uint32_t n_groups)
{
	const struct fw_schedule_result *res = ex->res;
	const struct fw_record *rec = ex->rec;
	const struct api_pod *pod = ex->pod;
	strbuf_addf(sb, "Pod:       %s/%s (profile %s)\n", pod->meta.namespace, pod->meta.name, ex->profile);
	if (api_pod_is_assigned(pod))
		strbuf_addf(sb, "Bound to:  %s (explained as if pending: taken off that node)\n", pod->node_name);
	else if (ex->held_node)
		strbuf_addf(sb, "Assumed:   %s (being bound; explained as if pending: taken off that node)\n",
			    ex->held_node);
	if (res->code == FW_SUCCESS) {
		strbuf_addf(sb, "Result:    schedulable: would go to %s (%" PRIu32 " feasible of %" PRIu32 " nodes", res->suggested_host,
			    res->feasible_nodes, res->diag.num_all_nodes);
		if (rec->nominated_fast_path)
			strbuf_puts(sb, "; its nominated node fits, no other node was evaluated");
		else if (!rec->scored)
			strbuf_puts(sb, "; one feasible node: not scored");
		else if (ex->n_ties > 1)
			strbuf_addf(sb, "; %" PRIu32 " nodes tie at %" PRId64 ", broken %s", ex->n_ties, ex->best_total,
				    rec->randomized ? "by a random draw (extenders)" : "by the score heap as upstream's");
		strbuf_puts(sb, ")\n");
	} else {
		strbuf_addf(sb, "Result:    %s\n", fw_code_str(res->code));
		strbuf_addf(sb, "Message:   %s\n", ex->message);
	}
	if (ex->ran_post_filter) {
		char msg[FW_STATUS_TEXT_MAX];
		if (ex->x->have_candidate) {
			strbuf_addf(sb, "Preemption (dry run, nothing evicted): would nominate %s, evicting %" PRIu32 " pod(s):",
				    ex->x->candidate_node, ex->x->n_victims);
			for (uint32_t i = 0; i < ex->x->n_victims; i++)
				strbuf_addf(sb, " %s/%s", ex->x->victims[i].ns, ex->x->victims[i].name);
			strbuf_puts(sb, "\n");
		} else {
			strbuf_addf(sb, "Preemption (dry run): %s: %s\n", fw_code_str(ex->post_code),
				    fw_status_message(ex->post_st, msg, sizeof(msg)));
		}
	}
	strbuf_puts(sb, "\n");

	/* per node */
	strbuf_puts(sb, "NODE                            VERDICT       PLUGIN / SCORES\n");
	for (uint32_t i = 0; i < ex->n_rows; i++) {
		const struct row *r = &ex->rows[i];
		if (!row_shown(ex, r))
			continue;
		char msg[FW_STATUS_TEXT_MAX];
		const char *v = r->chosen ? "chosen" : r->v == V_FEASIBLE ? (r->tie ? "feasible/tie" : "feasible")
					 : r->v == V_REJECTED ? "rejected" : "not evaluated";
		strbuf_addf(sb, "%-31s %-13s ", r->name, v);
		if (r->v == V_REJECTED) {
			strbuf_addf(sb, "%s: %s (%s)\n", r->st->plugin ? r->st->plugin : "PreFilter",
				    fw_status_message(r->st, msg, sizeof(msg)), fw_code_str(r->st->code));
			for (const char *l = r->detail, *nl; l && *l; l = nl + 1) {
				if (!(nl = strchr(l, '\n')))
					nl = l + strlen(l) - 1;
				strbuf_puts(sb, "    ");
				strbuf_add(sb, l, (size_t)(nl - l) + 1);
				if (*nl != '\n')
					strbuf_puts(sb, "\n");
			}
		}
		else if (r->v == V_FEASIBLE && r->col >= 0)
			strbuf_addf(sb, "total %" PRId64 "\n", rec->totals[r->col]);
		else
			strbuf_puts(sb, "\n");
		if (r->v != V_FEASIBLE || r->col < 0 || (!rec->n_pl && !extender_part(rec, (uint32_t)r->col)))
			continue;
		for (uint32_t k = 0; k < rec->n_pl; k++) {
			size_t at = (size_t)k * rec->n_scored + (size_t)r->col;
			strbuf_addf(sb, "    %-31s raw %6" PRId64 "  normalized %3" PRId64 "  x%-3" PRId32 " = %5" PRId64 "\n",
				    rec->pls[k]->plugin->name, rec->raw[at], rec->normalized[at], rec->weight[k],
				    rec->normalized[at] * rec->weight[k]);
		}
		int64_t ext = extender_part(rec, (uint32_t)r->col);
		if (ext)
			strbuf_addf(sb, "    %-31s %46s%5" PRId64 "\n", "extenders", "", ext);
	}
	if (!n_groups)
		return;
	strbuf_puts(sb, "\nSummary of rejections (as the FailedScheduling message counts them):\n");
	for (uint32_t i = 0; i < n_groups; i++) {
		strbuf_addf(sb, "  %5" PRIu32 "  %s:", g[i].n, g[i].reason);
		for (uint32_t j = 0; j < g[i].n && j < EXPLAIN_SUMMARY_NAMES; j++)
			strbuf_addf(sb, " %s", g[i].names[j]);
		if (g[i].n > EXPLAIN_SUMMARY_NAMES)
			strbuf_addf(sb, " ... (%" PRIu32 " more)", g[i].n - EXPLAIN_SUMMARY_NAMES);
		strbuf_puts(sb, "\n");
	}
}

/* ---------- The nominated pods the loop's cycle would see ---------- */

int sched_nominated_get(struct scheduler *s, const struct api_pod *pod, struct sched_nominated *out, struct err *e)
{
	memset(out, 0, sizeof(*out));
	int rc = queue_nominated_pods(s->queue, NULL, INT32_MIN, pod->meta.uid, &out->qn, &out->n, e);
	if (rc < 0 || !out->n)
		return rc;
	if (!(out->pods = calloc(out->n, sizeof(*out->pods)))) {
		sched_nominated_release(out);
		return err_set(e, ERR_NOMEM, "nominated pods: out of memory");
	}
	for (uint32_t i = 0; i < out->n; i++)
		out->pods[i] = (struct fw_nominated_pod){ out->qn[i].node_name, out->qn[i].pod };
	out->nom = (struct fw_nominated){ out->n, out->pods };
	return 0;
}

void sched_nominated_release(struct sched_nominated *n)
{
	free(n->pods);
	queue_nominated_release(n->qn, n->n);
	memset(n, 0, sizeof(*n));
}

/* ---------- The explain ---------- */

/* The message, the rows and the summary of ex (its pod, profile, res, rec and post-filter set),
 * rendered into sb. */
static int render(struct explained *ex, const struct fw_node_list *list, bool json, struct strbuf *sb, struct err *e)
{
	struct group *groups = NULL;
	uint32_t n_groups = 0;
	char *message = malloc(FW_STATUS_TEXT_MAX * 3);
	int rc = 0;
	if (!message) {
		rc = err_set(e, ERR_NOMEM, "explain: out of memory");
		goto out;
	}
	message[0] = '\0';
	if (ex->res->code == FW_UNSCHEDULABLE)
		fw_fit_error_message(&ex->res->diag, message, FW_STATUS_TEXT_MAX * 3);
	else if (ex->res->code != FW_SUCCESS)
		fw_status_message(&ex->res->status, message, FW_STATUS_TEXT_MAX * 3);
	ex->message = message;
	if (build_rows(ex, list) < 0 || build_groups(ex, &groups, &n_groups) < 0) {
		rc = err_set(e, ERR_NOMEM, "explain: out of memory");
		goto out;
	}
	if (json)
		render_json(sb, ex, groups, n_groups);
	else
		render_table(sb, ex, groups, n_groups);
	rc = sb->oom ? err_set(e, ERR_NOMEM, "explain: out of memory") : 0;
out:
	free_groups(groups, n_groups);
	free_rows(ex);
	ex->message = NULL;
	free(message);
	return rc;
}

int sched_explain_render(const struct api_pod *pod, const char *profile, const struct fw_node_list *list,
			 const struct fw_schedule_result *res, const struct fw_record *rec, bool json, struct strbuf *sb,
			 struct err *e)
{
	struct explained ex = { .pod = pod, .profile = profile, .res = res, .rec = rec };
	return render(&ex, list, json, sb, e);
}

static int find_profile(struct scheduler *s, const struct api_pod *pod, uint32_t *i, struct err *e)
{
	for (*i = 0; *i < s->n_profiles; (*i)++)
		if (s->profiles[*i].name == pod->scheduler_name)
			return 0;
	return err_set(e, ERR_INVALID, "pod %s/%s: spec.schedulerName \"%s\" is not a profile of this scheduler",
		       pod->meta.namespace, pod->meta.name, pod->scheduler_name ? pod->scheduler_name : "");
}

/* The cycle, PostFilter and rendering, under x->lock. */
static int explain_locked(struct scheduler *s, struct sched_explainer *x, const struct sched_explain_request *rq,
			  struct api_pod *pod, uint32_t pi, struct strbuf *sb, struct err *e)
{
	struct fw_profile *fwp;
	struct api_pod *work = NULL;
	struct fw_cycle *c = NULL;
	struct sched_nominated nom = { 0 };
	struct held_view held = { 0 };
	const char *assumed = NULL;
	struct explained ex = { 0 };
	struct fw_record rec;
	struct fw_schedule_result *res = NULL;
	struct fw_status post_st;
	int rc;

	fw_status_reset(&post_st);
	if (!(fwp = explain_profile(s, x, pi, e))) {
		rc = e->code ? e->code : ERR_NOMEM;
		goto out;
	}
	if (!x->snap && !(x->snap = snapshot_new())) {
		rc = err_set(e, ERR_NOMEM, "explain: out of memory");
		goto out;
	}
	if ((rc = cache_update_snapshot(s->cache, x->snap, e)) < 0)
		goto out;
	if (rq->node && rq->node[0]) {
		const struct node_info *only = snapshot_get(x->snap, rq->node);
		if (!only) {
			rc = err_set(e, ERR_NOT_FOUND, "node \"%s\" not found in the scheduler's cache", rq->node);
			goto out;
		}
		ex.only_node = only->name;
	}
	struct fw_node_list list;
	fw_node_list_from_snapshot(x->snap, &list);
	/* a bound or assumed pod: as upstream would see it when re-scheduling it (pending, and not
	 * counted on the node that holds it) */
	const char *held_node = NULL;
	if (api_pod_is_assigned(pod))
		held_node = pod->node_name;
	else if ((assumed = cache_assumed_node(s->cache, pod->meta.uid)))
		held_node = assumed;
	if (held_node) {
		if ((rc = take_pod_off(&held, x->snap, &list, held_node, pod, e)) < 0)
			goto out;
		ex.held_node = held.name ? held.name : held_node;
	}
	if (!(work = api_pod_is_assigned(pod) ? api_pod_assigned_copy(pod, NULL) : api_pod_ref(pod))) {
		rc = err_set(e, ERR_NOMEM, "explain: out of memory");
		goto out;
	}
	if ((rc = sched_nominated_get(s, pod, &nom, e)) < 0)
		goto out;
	if (!(c = fw_cycle_new(fwp)) || !(res = calloc(1, sizeof(*res)))) {
		rc = err_set(e, ERR_NOMEM, "explain: out of memory");
		goto out;
	}
	fw_cycle_set_record(c, &rec);
	fw_profile_rewind(fwp); /* the same state, the same answer */
	clear_candidate(x);
	if ((rc = fw_schedule_pod(fwp, c, &list, work, &nom.nom, res, e)) < 0)
		goto out;
	ex.res = res;
	if (res->code == FW_UNSCHEDULABLE && !held_node && fw_profile_has_post_filter(fwp)) {
		/* the dry run: dry_actuate records the candidate, nothing is evicted or nominated */
		struct fw_post_filter_result pfr = { "" };
		ex.post_code = fw_run_post_filter(fwp, c, work, &res->diag, &pfr, &post_st);
		ex.ran_post_filter = true;
		ex.post_st = &post_st;
	}
	ex.pod = pod;
	ex.profile = s->profiles[pi].name;
	ex.rec = &rec;
	ex.x = x;
	rc = render(&ex, &list, rq->format == SCHED_EXPLAIN_JSON, sb, e);
out:
	free(res);
	fw_cycle_free(c);
	clear_candidate(x);
	sched_nominated_release(&nom);
	api_pod_unref(work);
	held_release(&held);
	if (assumed)
		intern_release(assumed);
	return rc;
}

int sched_explain(struct scheduler *s, const struct sched_explain_request *rq, char **out, size_t *len,
		  struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	struct api_pod *pod = NULL;
	uint32_t pi;
	int rc;

	*out = NULL;
	*len = 0;
	if (!s || !rq || !rq->ns || !rq->ns[0] || !rq->name || !rq->name[0])
		return err_set(e, ERR_INVALID, "explain: a pod is required as NAMESPACE/NAME");
	if (!(pod = sched_pod_lister(s, rq->ns, rq->name)))
		return err_set(e, ERR_NOT_FOUND, "pod %s/%s not found (the scheduler's informer has no such pod)", rq->ns,
			       rq->name);
	if ((rc = find_profile(s, pod, &pi, e)) < 0)
		goto out;
	pthread_mutex_lock(&s->explainer->lock);
	rc = explain_locked(s, s->explainer, rq, pod, pi, &sb, e);
	pthread_mutex_unlock(&s->explainer->lock);
	if (rc == 0)
		*out = strbuf_detach(&sb, len);
out:
	strbuf_release(&sb);
	api_pod_unref(pod);
	return rc;
}
