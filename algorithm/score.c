/* PreScore, Score, NormalizeScore, the weighted sum and the host's pick (upstream prioritizeNodes
 * and schedulePod's NewSortedScoredNodes(...).Pop()). See the DESIGN comment in cycle.c. */
#include "cycle_internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/map.h"

void fw_default_normalize_score(int64_t max_priority, bool reverse, struct fw_node_score *scores, uint32_t n)
{
	int64_t max = 0;
	for (uint32_t i = 0; i < n; i++)
		if (scores[i].score > max)
			max = scores[i].score;
	if (max == 0) {
		if (reverse)
			for (uint32_t i = 0; i < n; i++)
				scores[i].score = max_priority;
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		int64_t s = max_priority * scores[i].score / max;
		scores[i].score = reverse ? max_priority - s : s;
	}
}

enum fw_code fw_normalize_to_max(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
				 struct fw_node_score *scores, uint32_t n, struct fw_status *st)
{
	(void)pl;
	(void)c;
	(void)pod;
	(void)st;
	fw_default_normalize_score(FW_MAX_NODE_SCORE, false, scores, n);
	return FW_SUCCESS;
}

enum fw_code fw_normalize_to_max_reversed(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
					  struct fw_node_score *scores, uint32_t n, struct fw_status *st)
{
	(void)pl;
	(void)c;
	(void)pod;
	(void)st;
	fw_default_normalize_score(FW_MAX_NODE_SCORE, true, scores, n);
	return FW_SUCCESS;
}

/* ---------- Score ---------- */

struct score_job {
	const struct fw_profile *p;
	const struct fw_cycle *c;
	const struct api_pod *pod;
	const struct node_info *const *nodes;
	uint32_t n_nodes;
	uint32_t n_pl;
	const struct fw_pl **pls;
	int64_t *scores; /* [n_pl][n_nodes] */
	_Atomic bool stop;
	_Atomic bool err_claimed;
	struct fw_status err;
	uint32_t *call_ticks; /* sampled cycles: plugin k's call on node i at [k * n_nodes + i] */
	uint8_t *call_code;   /* NULL otherwise */
};

static void score_one(void *ctx, size_t i)
{
	struct score_job *j = ctx;
	struct fw_status st;
	int64_t t = j->call_ticks ? fw_ticks() : 0;
	/* stop is checked per node by the pool: a node's few calls finish after another's error */
	for (uint32_t k = 0; k < j->n_pl; k++) {
		const struct fw_pl *pl = j->pls[k];
		int64_t s = 0;
		fw_status_reset(&st);
		enum fw_code code = pl->plugin->score(pl, j->c, j->pod, j->nodes[i], &s, &st);
		if (j->call_ticks) {
			int64_t now = fw_ticks();
			j->call_ticks[(size_t)k * j->n_nodes + i] = fw_call_ticks(now - t);
			j->call_code[(size_t)k * j->n_nodes + i] = (uint8_t)code;
			t = now;
		}
		if (code != FW_SUCCESS) {
			bool expected = false;
			if (atomic_compare_exchange_strong(&j->err_claimed, &expected, true)) {
				char msg[FW_STATUS_TEXT_MAX];
				st.code = code;
				fw_status_message(&st, msg, sizeof(msg));
				fw_status_setf(&j->err, FW_ERROR, "running Score plugins: plugin \"%s\" failed with: %s",
					       pl->plugin->name, msg);
				j->err.plugin = pl->plugin->name;
			}
			atomic_store(&j->stop, true);
			return;
		}
		j->scores[(size_t)k * j->n_nodes + i] = s;
	}
}

/* Makes room for n_scores plugin scores and n_nodes node scores in the profile's scratch. */
static int score_scratch(struct fw_profile *p, size_t n_scores, size_t n_nodes)
{
	if (n_scores > p->scratch_scores_cap) {
		size_t cap = p->scratch_scores_cap ? p->scratch_scores_cap : 1024;
		while (cap < n_scores)
			cap *= 2;
		int64_t *s = realloc(p->scratch_scores, cap * sizeof(*s));
		if (!s)
			return ERR_NOMEM;
		p->scratch_scores = s;
		p->scratch_scores_cap = cap;
	}
	if (n_nodes > p->scratch_node_scores_cap) {
		size_t cap = p->scratch_node_scores_cap ? p->scratch_node_scores_cap : 256;
		while (cap < n_nodes)
			cap *= 2;
		struct fw_node_score *ns = realloc(p->scratch_node_scores, cap * sizeof(*ns));
		if (!ns)
			return ERR_NOMEM;
		p->scratch_node_scores = ns;
		p->scratch_node_scores_cap = cap;
	}
	return 0;
}

/* The end of upstream's RunScorePlugins: the Score point's timing, then (sampled cycles) the
 * calls of every score plugin. Returns 0 on Success, 1 on Error. */
static int score_done(struct fw_cycle *c, const struct score_job *j, enum fw_code code, int64_t start_ns)
{
	fw_cycle_record_ep(c, FW_EP_SCORE, code, start_ns);
	if (j->call_ticks)
		fw_cycle_record_calls(c, FW_EP_SCORE, j->pls, j->n_pl, j->call_ticks, j->call_code, j->n_nodes, j->n_nodes);
	return code == FW_SUCCESS ? 0 : 1;
}

/* Fills res->status with an Error naming the plugin: prefix, then the plugin's own message. */
static void plugin_failed(struct fw_schedule_result *res, const struct fw_pl *pl, struct fw_status *st,
			  enum fw_code code, const char *fmt)
{
	char msg[FW_STATUS_TEXT_MAX];
	st->code = code;
	fw_status_message(st, msg, sizeof(msg));
	fw_status_setf(&res->status, FW_ERROR, fmt, pl->plugin->name, msg);
	res->status.plugin = pl->plugin->name;
}

/* upstream RunPreScorePlugins: 0, or 1 on a plugin error (res->status). */
static int run_pre_score(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
			 const struct node_info *const *nodes, uint32_t n, struct fw_schedule_result *res)
{
	struct fw_status st;
	int64_t t_pre_score = fw_now_ns();
	for (uint32_t i = 0; i < p->n_points[CFG_EP_PRE_SCORE]; i++) {
		const struct fw_pl *pl = p->points[CFG_EP_PRE_SCORE][i];
		fw_status_reset(&st);
		int64_t t0 = fw_plugin_clock(c);
		enum fw_code code = pl->plugin->pre_score(pl, c, pod, nodes, n, &st);
		fw_cycle_record_plugin(c, pl, FW_EP_PRE_SCORE, code, t0);
		if (code == FW_SKIP) {
			c->skip_score[pl->index] = true;
			continue;
		}
		if (code != FW_SUCCESS) {
			plugin_failed(res, pl, &st, code, "running PreScore plugin \"%s\": %s");
			fw_cycle_record_ep(c, FW_EP_PRE_SCORE, FW_ERROR, t_pre_score);
			return 1;
		}
	}
	fw_cycle_record_ep(c, FW_EP_PRE_SCORE, FW_SUCCESS, t_pre_score);
	return 0;
}

/* The score plugins this cycle runs, and room for their scores. */
static int score_job_init(struct score_job *j, struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
			  const struct node_info *const *nodes, uint32_t n)
{
	struct fw_status st;
	*j = (struct score_job){ .p = p, .c = c, .pod = pod, .nodes = nodes, .n_nodes = n };
	j->pls = fw_cycle_alloc(c, p->n_points[CFG_EP_SCORE] * sizeof(*j->pls));
	if (!j->pls)
		return ERR_NOMEM;
	for (uint32_t i = 0; i < p->n_points[CFG_EP_SCORE]; i++) {
		const struct fw_pl *pl = p->points[CFG_EP_SCORE][i];
		if (c->skip_score[pl->index])
			continue;
		/* per-pod work of a plugin without PreScore; Skip: every node would score 0 */
		fw_pre_score_fn prepare = fw_score_prepare_of(pl->plugin);
		if (prepare && prepare(pl, c, pod, nodes, n, &st) == FW_SKIP)
			continue;
		j->pls[j->n_pl++] = pl;
	}
	/* every slot is written before it is read: no zeroing (~28 KB per pod at 500 nodes) */
	if (score_scratch(p, (size_t)j->n_pl * n, n) < 0)
		return ERR_NOMEM;
	j->scores = p->scratch_scores;
	atomic_init(&j->stop, false);
	atomic_init(&j->err_claimed, false);
	if (c->record_plugins && j->n_pl && fw_call_scratch(p, j->n_pl, n)) {
		j->call_ticks = p->scratch_call_ticks;
		j->call_code = p->scratch_call_code;
	}
	return 0;
}

/* NormalizeScore of plugin k's row in place: 0, or 1 on a plugin error (res->status). */
static int normalize_row(struct fw_profile *p, struct fw_cycle *c, const struct score_job *j, uint32_t k,
			 struct fw_schedule_result *res)
{
	const struct fw_pl *pl = j->pls[k];
	int64_t *row = j->scores + (size_t)k * j->n_nodes;
	struct fw_node_score *ns = p->scratch_node_scores;
	struct fw_status st;
	for (uint32_t i = 0; i < j->n_nodes; i++)
		ns[i] = (struct fw_node_score){ j->nodes[i], row[i] };
	fw_status_reset(&st);
	int64_t t0 = fw_plugin_clock(c);
	enum fw_code code = pl->plugin->normalize_score(pl, c, j->pod, ns, j->n_nodes, &st);
	fw_cycle_record_plugin(c, pl, FW_EP_SCORE_NORMALIZE, code, t0);
	if (code != FW_SUCCESS) {
		plugin_failed(res, pl, &st, code, "running Normalize on Score plugins: plugin \"%s\" failed with: %s");
		return 1;
	}
	for (uint32_t i = 0; i < j->n_nodes; i++)
		row[i] = ns[i].score;
	return 0;
}

/* Adds plugin k's weighted row to totals: 0, or 1 when a score is out of range (res->status). */
static int add_weighted_row(const struct fw_profile *p, const struct score_job *j, uint32_t k, int64_t *totals,
			    struct fw_schedule_result *res)
{
	const struct fw_pl *pl = j->pls[k];
	const int64_t *row = j->scores + (size_t)k * j->n_nodes;
	int64_t w = p->weights[pl->index];
	for (uint32_t i = 0; i < j->n_nodes; i++) {
		if (row[i] > FW_MAX_NODE_SCORE || row[i] < FW_MIN_NODE_SCORE) {
			fw_status_setf(&res->status, FW_ERROR,
				       "applying score defaultWeights on Score plugins: plugin \"%s\" returns an invalid score %lld, it should in the range of [%d, %d] after normalizing",
				       pl->plugin->name, (long long)row[i], FW_MIN_NODE_SCORE, FW_MAX_NODE_SCORE);
			res->status.plugin = pl->plugin->name;
			return 1;
		}
		totals[i] += row[i] * w;
	}
	return 0;
}

/* Grows *buf to n scores (kept across cycles: no allocation once grown). */
static int raw_room(int64_t **buf, size_t *cap, size_t n)
{
	if (n <= *cap)
		return 0;
	size_t c = *cap ? *cap : 1024;
	while (c < n)
		c *= 2;
	int64_t *b = realloc(*buf, c * sizeof(*b));
	if (!b)
		return ERR_NOMEM;
	*buf = b;
	*cap = c;
	return 0;
}

/* Room for n per-node totals: the profile's scratch (the scheduler thread's; a cycle's arena
 * waits for its bind with the pod, hundreds at once when binds lag, so per-node arrays there were
 * most of each one), or the cycle arena's for an explain record, which keeps them. */
static int64_t *totals_room(struct fw_profile *p, struct fw_cycle *c, uint32_t n)
{
	if (c->record)
		return fw_cycle_alloc(c, (n ? n : 1) * sizeof(int64_t));
	return raw_room(&p->scratch_totals, &p->scratch_totals_cap, n ? n : 1) < 0 ? NULL : p->scratch_totals;
}

/* The cycle's raw scores (upstream NodePluginScores.RawScores), which the batch state keeps for
 * a later rescore's normalization (batch.c). */
static int keep_raw(struct fw_batch *b, const struct score_job *j)
{
	size_t n = (size_t)j->n_pl * j->n_nodes;
	if (raw_room(&b->cur_raw, &b->cur_raw_cap, n) < 0)
		return ERR_NOMEM;
	if (n)
		memcpy(b->cur_raw, j->scores, n * sizeof(*b->cur_raw));
	b->cur_n_pls = j->n_pl;
	b->cur_stride = j->n_nodes;
	memcpy(b->cur_pls, j->pls, j->n_pl * sizeof(*j->pls));
	return 0;
}

/* An explain cycle (c->record): a copy of the score rows, raw (before NormalizeScore) or
 * normalized (after), and the plugins and weights the first time. Never called by the
 * scheduler's cycles. */
static int record_scores(const struct fw_profile *p, struct fw_cycle *c, const struct score_job *j, bool raw)
{
	struct fw_record *r = c->record;
	size_t n = (size_t)j->n_pl * j->n_nodes;
	int64_t *copy = fw_cycle_alloc(c, (n ? n : 1) * sizeof(*copy));
	if (!copy)
		return ERR_NOMEM;
	if (n)
		memcpy(copy, j->scores, n * sizeof(*copy));
	if (!raw) {
		r->normalized = copy;
		return 0;
	}
	int32_t *w = fw_cycle_alloc(c, (j->n_pl ? j->n_pl : 1) * sizeof(*w));
	if (!w)
		return ERR_NOMEM;
	for (uint32_t k = 0; k < j->n_pl; k++)
		w[k] = p->weights[j->pls[k]->index];
	r->raw = copy;
	r->weight = w;
	r->n_pl = j->n_pl;
	r->pls = j->pls;
	return 0;
}

/* upstream RunScorePlugins (with NormalizeScore and the weights) into totals: 0, 1 on a plugin
 * error (res->status), or a negative code. */
static int run_score(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
		     const struct node_info *const *nodes, uint32_t n, int64_t *totals, struct fw_schedule_result *res,
		     struct err *e)
{
	int64_t t_score = fw_now_ns();
	struct score_job j;
	if (score_job_init(&j, p, c, pod, nodes, n) < 0)
		return err_set(e, ERR_NOMEM, "profile %s: scoring: out of memory", p->name);
	if (j.n_pl)
		fw_pool_run(p->pool, n, score_one, &j, &j.stop);
	if (atomic_load(&j.err_claimed)) {
		res->status = j.err;
		return score_done(c, &j, FW_ERROR, t_score);
	}
	if (p->batch.sign_mask && keep_raw(&p->batch, &j) < 0)
		return err_set(e, ERR_NOMEM, "profile %s: scoring: out of memory", p->name);
	if (c->record && record_scores(p, c, &j, true) < 0)
		return err_set(e, ERR_NOMEM, "profile %s: recording scores: out of memory", p->name);
	for (uint32_t k = 0; k < j.n_pl; k++) {
		if (j.pls[k]->plugin->normalize_score && normalize_row(p, c, &j, k, res))
			return score_done(c, &j, FW_ERROR, t_score);
		if (add_weighted_row(p, &j, k, totals, res))
			return score_done(c, &j, FW_ERROR, t_score);
	}
	if (c->record && record_scores(p, c, &j, false) < 0)
		return err_set(e, ERR_NOMEM, "profile %s: recording scores: out of memory", p->name);
	return score_done(c, &j, FW_SUCCESS, t_score);
}

/* Room for n entries in the profile's sorted-nodes heap (kept across cycles: no allocation per
 * cycle once grown). */
static int sorted_scratch(struct fw_profile *p, size_t n)
{
	if (n <= p->sorted_cap)
		return 0;
	size_t cap = p->sorted_cap ? p->sorted_cap : 256;
	while (cap < n)
		cap *= 2;
	struct fw_scored_node *h = realloc(p->sorted, cap * sizeof(*h));
	if (!h)
		return ERR_NOMEM;
	p->sorted = h;
	p->sorted_cap = cap;
	return 0;
}

/* upstream schedulePod: NewSortedScoredNodes(priorityList).Pop(). Without extenders every
 * Randomizer is 0 (randomizer NULL), so among equal totals the heap's layout over the feasible order decides, as
 * upstream's; the rest stays in p->sorted (the batch path's candidates). */
static const char *select_host(struct fw_profile *p, const struct node_info *const *nodes, const int64_t *totals,
			       const int64_t *randomizer, uint32_t n)
{
	struct fw_scored_node *h = p->sorted;
	for (uint32_t i = 0; i < n; i++)
		h[i] = (struct fw_scored_node){ .node = nodes[i], .name = nodes[i]->name, .total = totals[i],
						.randomizer = randomizer ? randomizer[i] : 0, .row = i };
	fw_sorted_nodes_init(h, n);
	uint32_t len = n;
	const char *host = fw_sorted_nodes_pop(h, &len).node->name;
	p->n_sorted = len;
	return host;
}

int fw_prioritize_and_select(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
			     const struct node_info *const *nodes, uint32_t n, struct fw_schedule_result *res,
			     struct err *e)
{
	int64_t *totals = totals_room(p, c, n);
	if (!totals || sorted_scratch(p, n) < 0)
		return err_set(e, ERR_NOMEM, "profile %s: scoring: out of memory", p->name);
	int64_t *randomizer = NULL;
	if (!fw_has_scoring(p) && !p->n_extenders) {
		for (uint32_t i = 0; i < n; i++)
			totals[i] = 1;
	} else {
		memset(totals, 0, n * sizeof(*totals));
		int rc = run_pre_score(p, c, pod, nodes, n, res);
		if (rc == 0)
			rc = run_score(p, c, pod, nodes, n, totals, res, e);
		if (rc != 0)
			return rc;
		if (p->n_extenders) {
			if (!(randomizer = fw_cycle_alloc(c, n * sizeof(*randomizer))))
				return err_set(e, ERR_NOMEM, "profile %s: scoring: out of memory", p->name);
			memset(randomizer, 0, n * sizeof(*randomizer));
			if (fw_ext_prioritize(p, c, pod, nodes, n, totals, randomizer) < 0)
				return err_set(e, ERR_NOMEM, "profile %s: extender scores: out of memory", p->name);
		}
	}
	if (c->record) {
		struct fw_record *r = c->record;
		r->scored = true;
		r->n_scored = n;
		r->nodes = nodes;
		r->totals = totals; /* the cycle arena's (totals_room): select_host only reads them */
		r->randomized = randomizer != NULL;
	}
	res->suggested_host = select_host(p, nodes, totals, randomizer, n);
	return 0;
}

/* The raw score of plugin pl for the batch state's row (0 when the state has none: upstream's
 * NormalizeScores leaves such an entry zero). */
static int64_t state_raw(const struct fw_batch *b, const struct fw_pl *pl, uint32_t row)
{
	for (uint32_t k = 0; k < b->n_pls; k++)
		if (b->pls[k] == pl)
			return b->raw[(size_t)k * b->stride + row];
	return 0;
}

enum fw_batch_flush fw_batch_rescore(struct fw_profile *p, struct fw_cycle *c, const struct api_pod *pod,
				     const struct node_info *const *nodes, uint32_t n, struct err *e, int *rc)
{
	struct fw_batch *b = &p->batch;
	struct fw_schedule_result scratch; /* the statuses upstream only logs */
	struct score_job j;
	*rc = 0;
	fw_status_reset(&scratch.status);
	if (run_pre_score(p, c, pod, nodes, n, &scratch))
		return FW_FLUSH_PRESCORE_ERROR;
	if (score_job_init(&j, p, c, pod, nodes, n) < 0) {
		*rc = err_set(e, ERR_NOMEM, "profile %s: rescoring: out of memory", p->name);
		return FW_FLUSH_NONE;
	}
	/* RunRawScorePlugins: the last chosen node (nodes[n - 1]) only */
	if (j.n_pl)
		score_one(&j, n - 1);
	if (atomic_load(&j.err_claimed))
		return FW_FLUSH_RESCORE_ERROR;
	for (uint32_t k = 0; k < j.n_pl; k++)
		for (uint32_t i = 0; i + 1 < n; i++)
			j.scores[(size_t)k * n + i] = state_raw(b, j.pls[k], b->heap[i].row);
	/* the new state's raw scores, rows in candidate order */
	if (raw_room(&b->cur_raw, &b->cur_raw_cap, (size_t)j.n_pl * n) < 0) {
		*rc = err_set(e, ERR_NOMEM, "profile %s: rescoring: out of memory", p->name);
		return FW_FLUSH_NONE;
	}
	if (j.n_pl)
		memcpy(b->cur_raw, j.scores, (size_t)j.n_pl * n * sizeof(*b->cur_raw));
	int64_t *totals = totals_room(p, c, n);
	if (!totals) {
		*rc = err_set(e, ERR_NOMEM, "profile %s: rescoring: out of memory", p->name);
		return FW_FLUSH_NONE;
	}
	memset(totals, 0, n * sizeof(*totals));
	for (uint32_t k = 0; k < j.n_pl; k++)
		if ((j.pls[k]->plugin->normalize_score && normalize_row(p, c, &j, k, &scratch)) ||
		    add_weighted_row(p, &j, k, totals, &scratch))
			return FW_FLUSH_NORMALIZE_ERROR;
	/* NewSortedScoredNodes over the candidates in UnorderedList order, then the rescored node */
	for (uint32_t i = 0; i < n; i++)
		b->heap[i] = (struct fw_scored_node){ .node = nodes[i], .name = nodes[i]->name, .total = totals[i], .row = i };
	fw_sorted_nodes_init(b->heap, n);
	b->n_heap = n;
	int64_t *t = b->raw;
	size_t tc = b->raw_cap;
	b->raw = b->cur_raw;
	b->raw_cap = b->cur_raw_cap;
	b->cur_raw = t;
	b->cur_raw_cap = tc;
	b->n_pls = j.n_pl;
	b->stride = n;
	memcpy(b->pls, j.pls, j.n_pl * sizeof(*j.pls));
	return FW_FLUSH_NONE;
}
